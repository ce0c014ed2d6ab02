"""The docstring of a generated method: what the SDK does, read from the document.

A user reads what the call returns, what it raises, what it retries and what it
tolerates; all of it follows from the operation in the document (its security, its
responses, its `x-sdk-result`) and from the runtime's fixed rules. The document's own
descriptions may also note what the API reference leaves out ("Status codes are not
shown in the reference") and cite issues: those notes are for maintainers, and are left
out of the docstring (`for_users`, the runtime's `_notes.py`, loaded by `runtime_rules`;
the help of the command line uses it too).

The runtime's rules named here (which statuses are retried, which exception a status
becomes) are checked against the runtime by tests/spec/test_docstrings.py.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

import runtime_rules
from runtime_rules import media as _media  # the runtime's rule of which types are JSON

#: Statuses retried for idempotent methods, and for any method (the runtime's RetryPolicy).
RETRIED_IDEMPOTENT = (408, 429, 500, 502, 503, 504)
RETRIED_ANY = (429, 503)
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
#: The exception a status becomes (`status_error` in the runtime); 5xx: InternalServerError.
STATUS_ERRORS = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}
_SUCCESS = ("200", "201", "2XX", "203", "204", "202")
Deref = Callable[[Any], dict[str, Any]]


for_users: Callable[[str], str] = runtime_rules.load("_notes").for_users


def error_class(status: int) -> str:
    return "InternalServerError" if status >= 500 else STATUS_ERRORS.get(status, "APIStatusError")


def describe(
    operation: dict[str, Any],
    http_method: str,
    result_type: str,
    deref: Deref,
    default_security: list[dict[str, Any]] | None = None,
) -> str:
    """The docstring after its summary line and `METHOD /path (operationId)` line.

    `default_security` is the document's own, for an operation that gives none.
    """
    if "security" not in operation and default_security is not None:
        operation = {**operation, "security": default_security}
    parts = []
    text = for_users(operation.get("description", ""))
    if text:
        parts.append(_wrap(text))
    responses = operation.get("responses", {})
    success, rule = _success(responses, deref)
    parts.append("Returns:\n" + _wrap(_returns(result_type, success, rule, deref), "    "))
    raised = _raises(operation, responses, rule, deref)
    parts.append("Raises:\n" + "\n".join(_wrap(line, "    ", "        ") for line in raised))
    parts.append(_wrap(_retries(http_method)))
    parts.append(_wrap(_key(operation)))
    parts.append(
        _wrap(
            "Tolerated in replies: members the document does not name (kept in "
            "`additional_properties`), `null` in any member (read as `None`), enum values it "
            "does not list, and error replies of any shape, or none."
        )
    )
    return "\n\n".join(parts)


def _success(responses: dict[str, Any], deref: Deref) -> tuple[dict[str, Any], dict[str, Any]]:
    """The success response the result comes from, and its schema's `x-sdk-result`."""
    for status in _SUCCESS:
        if status in responses:
            response = deref(responses[status])
            media = _media.json_media(response.get("content") or {}) or {}
            rule = deref(media.get("schema", {})).get("x-sdk-result")
            return response, rule if isinstance(rule, dict) else {}
    return {}, {}


def _returns(result_type: str, success: dict[str, Any], rule: dict[str, Any], deref: Deref) -> str:
    if result_type == "None":
        return "None: the reply has no body."
    if rule.get("value"):
        return f"{result_type}: the reply's `{rule['value']}` member."
    declared = success.get("content") or {}
    if (
        result_type in ("str", "bytes")
        and declared
        and not any(_media.is_json(str(k)) for k in declared)
    ):
        what = ", decoded in its declared charset (UTF-8 if none)" if result_type == "str" else ""
        return (
            f"{result_type}: the reply's body{what}. For a large one, `.to_file(path, ...)` "
            "writes it to a file as it arrives instead (capped by `max_download_bytes`)."
        )
    media = _media.json_media(success.get("content") or {}) or {}
    schema = deref(media.get("schema", {}))
    if result_type == "Any" and not schema.get("properties"):
        return "Any: the reply's JSON body as the server sent it (the document gives no shape)."
    return f"{result_type}: the reply's body."


def _raises(
    operation: dict[str, Any], responses: dict[str, Any], rule: dict[str, Any], deref: Deref
) -> list[str]:
    lines = ["InvalidRequestError: an argument the document does not allow; nothing is sent."]
    if _needs_key(operation):
        lines.append("ConfigurationError: the client has no access key; nothing is sent.")
    failures = rule.get("failure") or []
    if failures:
        said = ", ".join(_condition(f) for f in failures if isinstance(f, dict))
        lines.append(f"APIResultError: a 2xx reply that reports a failure ({said}).")
    if "202" in responses:
        lines.append("AcceptedWithoutResultError: a 202 reply without the result.")
    documented = sorted(int(s) for s in responses if s.isdigit() and int(s) >= 400)
    for status in documented:
        said = for_users(deref(responses[str(status)]).get("description", "")).rstrip(".")
        detail = f", {said[0].lower()}{said[1:]}" if said else ""
        lines.append(f"{error_class(status)}: {status}{detail}.")
    other = "any other" if documented else "any"
    lines.append(
        f"APIStatusError: {other} error status, as its subclass (NotFoundError for 404, "
        "RateLimitError for 429, InternalServerError for 5xx, ...)."
    )
    lines.append(
        "APIConnectionError: the server could not be reached, or the connection failed "
        "(APITimeoutError: a timeout)."
    )
    lines.append("APIResponseValidationError: a 2xx reply that is not the documented shape.")
    return lines


def _condition(failure: dict[str, Any]) -> str:
    member = ".".join(str(m) for m in failure.get("member", []))
    if "equals" in failure:
        value = failure["equals"]
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        return f"`{member}` is {shown}"
    if "not-in" in failure:
        allowed = ", ".join(str(v) for v in failure["not-in"])
        return f"`{member}` is not {allowed}"
    if failure.get("non-empty"):
        return f"`{member}` is not empty"
    return f"`{member}`"


def _retries(http_method: str) -> str:
    if http_method in IDEMPOTENT:
        statuses = ", ".join(str(s) for s in RETRIED_IDEMPOTENT)
        return (
            f"Retried (up to the client's `max_retries`) after connection failures, timeouts "
            f"and the statuses {statuses}."
        )
    statuses = " and ".join(str(s) for s in RETRIED_ANY)
    return (
        f"Retried (up to the client's `max_retries`) only when the server cannot have acted "
        f"on it: the statuses {statuses}, or a connection that never opened."
    )


def _needs_key(operation: dict[str, Any]) -> bool:
    security = operation.get("security")
    return bool(security) and {} not in security


def _key(operation: dict[str, Any]) -> str:
    if _needs_key(operation):
        return "Needs the client's access key."
    return "Works without an access key; the client's is sent when it has one."


def _wrap(text: str, first: str = "", rest: str | None = None, width: int = 88) -> str:
    """`text` wrapped at `width`, `first` before its first line and `rest` before the others."""
    glued = re.sub(r"`[^`]*`", lambda m: m.group().replace(" ", "\0"), text)  # `{data: ...}`
    return textwrap.fill(
        glued,
        width,
        initial_indent=first,
        subsequent_indent=first if rest is None else rest,
        break_long_words=False,
        break_on_hyphens=False,
    ).replace("\0", " ")
