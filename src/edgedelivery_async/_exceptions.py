"""One exception tree for everything a facade call can raise.

EdgeDeliveryError
├── ConfigurationError            bad client settings (also a ValueError)
├── InvalidRequestError           bad input, raised before sending (also a ValueError)
├── APIConnectionError            no usable reply
│   └── APITimeoutError
└── APIError                      a reply that reports or is a failure
    ├── APIStatusError            non-2xx status, one subclass per common status
    ├── APIResultError            2xx whose body reports failure
    │   └── AcceptedWithoutResultError  202: accepted, but no result
    └── APIResponseValidationError 2xx whose body is not the documented shape
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from ._http import RawResponse
    from ._schema import Problem


class EdgeDeliveryError(Exception):
    """Base class of every error the SDK raises."""

    def __init__(self, *args: object) -> None:
        # A message may quote text a caller or a server gave, with lone surrogates in it
        # (JSON's "\ud800"), which no stream can write: they are shown escaped.
        super().__init__(*(_writable(arg) if isinstance(arg, str) else arg for arg in args))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its message and attributes, so a process pool can send it back: the
        reply's headers go as a plain case-insensitive copy (the HTTP libraries' own
        header maps do not pickle), and no constructor runs again."""
        return (_rebuilt, (type(self), self.args, _picklable(self.__dict__)))


def _rebuilt(kind: type[EdgeDeliveryError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    error = kind.__new__(kind, *args)
    error.args = args
    error.__dict__.update(state)
    return error


def _picklable(state: dict[str, Any]) -> dict[str, Any]:
    """`state` with each reply's header map (and the `headers` attribute) copied."""
    import dataclasses

    import multidict

    from ._http import RawResponse

    copied = dict(state)
    for name, value in state.items():
        if isinstance(value, RawResponse):
            copied[name] = dataclasses.replace(value, headers=multidict.CIMultiDict(value.headers))
        elif name == "headers" and isinstance(value, Mapping):
            copied[name] = multidict.CIMultiDict(value)
    return copied


def _writable(text: str) -> str:
    """`text` with any lone surrogate written as its escape (\\udc80), the rest as it is."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ConfigurationError(EdgeDeliveryError, ValueError):
    """The client is configured so that no request can be made (no base URL, plain http)."""


def in_use_by_another_loop() -> ConfigurationError:
    """The error for a call from one event loop while another, running in another
    thread, still uses the client: its pool and its paced calls belong to that loop."""
    return ConfigurationError(
        "this client is in use by an event loop running in another thread; a client serves"
        " one running event loop at a time: make one client per thread"
    )


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one field, as the server or the validator reported it."""

    field: str | None
    message: str


class InvalidRequestError(EdgeDeliveryError, ValueError):
    """The caller's input breaks the API's documented rules; nothing was sent."""

    def __init__(self, operation: str, problems: Sequence[Problem]) -> None:
        self.operation = operation
        self.errors = [FieldError(p.field or None, p.message) for p in problems]
        listed = "; ".join(str(p) for p in problems[:_MOST_PROBLEMS_SAID])
        if len(problems) > _MOST_PROBLEMS_SAID:  # (a list of 20,000 bad records made 2 MB)
            listed += f"; and {len(problems) - _MOST_PROBLEMS_SAID:,} more (all in .errors)"
        super().__init__(f"{operation}: invalid request, nothing was sent: {listed}")


#: The most problems an InvalidRequestError's message lists; `.errors` has every one.
_MOST_PROBLEMS_SAID = 20


class APIConnectionError(EdgeDeliveryError):
    """No usable reply: the connection failed, broke, or timed out.

    `request_sent` is False only when the connection never opened, so the server
    cannot have acted on the request. `retryable` is False when another attempt would
    most likely fail the same way (a reply body that does not decode): it is not
    retried. `retries_taken` counts the retries before it.
    """

    retries_taken: int = 0
    retryable: bool = True

    def __init__(
        self, message: str, *, method: str, path: str, request_sent: bool, retryable: bool = True
    ) -> None:
        self.method = method
        self.path = path
        self.request_sent = request_sent
        if not retryable:
            self.retryable = False
        super().__init__(f"{method} {path}: {message}")


class APITimeoutError(APIConnectionError):
    """The request timed out (connecting, or waiting for the reply)."""


class APIError(EdgeDeliveryError):
    """A reply that reports or is a failure, with whatever the body said about it.

    The fields are filled from whichever error family the body belongs to: the core
    record (`ErrorKey`, `Field`, `Message`), the container validation-style and
    problem-style bodies, the shield result object, or the `{error, data}` wrapper.

    `error_key` is the server's identifier of the kind of failure, to compare against:
    the core record's `ErrorKey` (`pullzone.hostname_not_found`), the wrapper's
    `errorKey`, a registry reply's `status` (`failed`), or a problem body's `type` URI
    (RFC 9457) when it names a problem of the API's own
    (`https://docs.example.net/errors/registry-not-found`). A problem `type` of
    `about:blank`, or one that only links the RFC section of the status, names no
    problem beyond the status code: `error_key` is then None (the URI stays in `body`).
    """

    def __init__(
        self, raw: RawResponse, body: Any, *, message: str | None = None, advice: str | None = None
    ) -> None:
        details = error_details(body)
        self._advice = advice  # what the SDK did about it (a redirect it did not follow)
        self.raw = raw
        self.method = raw.method
        self.path = raw.path
        self.status_code = raw.status
        self.headers = raw.headers
        self.body = body
        self.error_key: str | None = details.error_key
        self.field: str | None = details.field
        self.message: str | None = message or details.message
        self.errors: list[FieldError] = details.errors
        super().__init__(self._describe())

    @property
    def response(self) -> httpx.Response:
        """The reply as an `httpx.Response` (the access key is not in its request)."""
        return self.raw.to_httpx()

    def _describe(self) -> str:
        """`METHOD /path -> status reason: what the server said (details); what to do`."""
        reason = _reason(self.status_code)
        text = f"{self.method} {self.path} -> {self.status_code}{reason}"
        said = self._what_happened(reason.strip())
        extra = [f"{name}={value}" for name, value in self._keys(said) if value]
        extra += [f"{e.field}: {e.message}" if e.field else e.message for e in self.errors]
        advice = self._advice or self._what_to_do()
        if said:
            # The server's sentence, without its full stop when advice follows it after a
            # semicolon ("...is required; check the key", not "...is required.; check").
            text += f": {_clip(said.rstrip('.') if advice and not extra else said)}"
        if extra:
            text += f" ({_clip('; '.join(extra))})"
        if advice:
            text += f"; {advice}" if said or extra else f": {advice}"
        return text

    def _what_happened(self, reason: str) -> str | None:
        """What the body says happened: the server's message, or what its shape tells."""
        status = _result_object_status(self.body)
        if status is not None:
            return f"no result (the server's result object reports status {status})"
        if self.message and self.message.strip().casefold() != reason.casefold():
            return self.message  # a title that only repeats the reason adds nothing
        if self.status_code >= 500 and not reason:  # 520 and other unregistered statuses
            return "a server error, without details"
        return _STATUS_STATEMENTS.get(self.status_code)

    def _keys(self, said: str | None) -> list[tuple[str, str | None]]:
        """`error_key=` and `field=`, with the error key shown for what it is: a problem
        body's `type` is a URL, and a registry's `status` a state, not error keys."""
        key: tuple[str, str | None] = ("error_key", self.error_key)
        if self.error_key is not None and self.error_key == _problem_type(self.body):
            key = ("type", self.error_key)  # a URI of the API's own (generic ones are no key)
        elif self.error_key is not None and self.error_key == _registry_status(self.body):
            shown = f"(status {self.error_key})" in (said or "")
            key = ("status", None if shown else self.error_key)
        return [key, ("field", self.field)]

    def _what_to_do(self) -> str | None:
        """Advice, for the failures where the caller can do something about it."""
        if self.status_code == 401:
            return "check the key given to the client or set in EDGEDELIVERY_ACCESS_KEY"
        return None


def _clip(text: str, limit: int = 1000) -> str:
    """The server's text in a message, at most about `limit` characters: a reply may hold
    a message of megabytes, which would flood every log line and traceback that shows
    the error (the attributes and `.body` keep all of it)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters in the error's attributes)"


#: What a failure status means when the reply says nothing about it.
_STATUS_STATEMENTS = {
    401: "the access key is missing or was refused",
    403: "the access key is not allowed to do this",
    404: "nothing at this path; check the ids in it",
}

#: A problem `type` that only points at the RFC section of the status (or says nothing).
_GENERIC_PROBLEM_TYPE = re.compile(
    r"(about:blank|https?://(tools\.ietf\.org/html/|datatracker\.ietf\.org/doc/html/"
    r"|www\.rfc-editor\.org/rfc/)rfc\d+(\.html)?(#\S*)?)\Z",
    re.IGNORECASE,
)


def _problem_key(problem_type: Any) -> str | None:
    """A problem body's `type` as an error key: None when it only restates the status."""
    text = _text(problem_type)
    if text is None or _GENERIC_PROBLEM_TYPE.match(text.strip()):
        return None
    return text


def _problem_type(body: Any) -> str | None:
    """The `type` of a problem-style body (one with a `title` or a `detail`)."""
    if isinstance(body, Mapping) and ("title" in body or "detail" in body):
        return _text(body.get("type"))
    return None


def _registry_status(body: Any) -> str | None:
    """The `status` member of a registry create reply (`saved`, `failed`, ...)."""
    status = body.get("status") if isinstance(body, Mapping) else None
    return status if isinstance(status, str) and status else None


def _result_object_status(body: Any) -> str | None:
    """The status an ASP.NET result object reports (`statusCode` and `declaredType`)."""
    if isinstance(body, Mapping) and "statusCode" in body and "declaredType" in body:
        return _text(body.get("statusCode")) or "none"
    return None


class APIStatusError(APIError):
    """The server answered with a non-2xx status."""

    def __init__(
        self, raw: RawResponse, body: Any, *, message: str | None = None, advice: str | None = None
    ) -> None:
        self.retry_after: float | None = raw.retry_after()
        super().__init__(raw, body, message=message, advice=advice)


class BadRequestError(APIStatusError):
    """400."""


class AuthenticationError(APIStatusError):
    """401: the access key is missing, wrong, or not allowed here."""


class PermissionDeniedError(APIStatusError):
    """403."""


class NotFoundError(APIStatusError):
    """404."""


class ConflictError(APIStatusError):
    """409."""


class UnprocessableEntityError(APIStatusError):
    """422."""


class RateLimitError(APIStatusError):
    """429; `retry_after` holds the server's Retry-After in seconds when given."""

    def _what_happened(self, reason: str) -> str | None:
        said = super()._what_happened(reason)
        if said is None and self.retry_after is not None:
            return f"the server asks to wait {self.retry_after:g} s (Retry-After)"
        return said

    def _what_to_do(self) -> str | None:
        return "retry later, or send fewer requests per second"


class InternalServerError(APIStatusError):
    """Any status of 500 or above (520 included)."""


class APIResultError(APIError):
    """A 2xx reply whose body reports failure (`{error: {success: false}}`, a registry `error`)."""

    def _what_happened(self, reason: str) -> str | None:
        return super()._what_happened(reason) or "the reply reports a failure, without a message"


class AcceptedWithoutResultError(APIResultError):
    """The server accepted the request (202) but sent no result, whatever else it sent.

    The shield reads may answer 202 with an accepted-result object (`value`,
    `formatters`, `contentTypes`, `declaredType`, `statusCode`, any of them absent);
    retrying later may give the result.
    """

    def _what_happened(self, reason: str) -> str | None:
        status = _result_object_status(self.body)
        shown = f" (the server's result object reports status {status})" if status else ""
        return f"no result yet{shown}"

    def _what_to_do(self) -> str | None:
        return "ask again later for the result"


class APIResponseValidationError(APIError):
    """A 2xx reply whose body cannot be read as the documented shape."""

    def _what_to_do(self) -> str | None:
        if isinstance(self.body, str) and self.body.lstrip().startswith("<"):
            return (
                "it reads like a web page: check that the base URL points at the API "
                "(EDGEDELIVERY_BASE_URL)"
            )
        return None


_STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error(raw: RawResponse, body: Any, *, advice: str | None = None) -> APIStatusError:
    """The exception for a non-2xx reply; `advice` ends its message (why a redirect was
    not followed)."""
    if raw.status >= 500:
        return InternalServerError(raw, body, advice=advice)
    return _STATUS_ERRORS.get(raw.status, APIStatusError)(raw, body, advice=advice)


@dataclass(slots=True)
class ErrorDetails:
    """What an error body says, whatever its family."""

    error_key: str | None = None
    field: str | None = None
    message: str | None = None
    errors: list[FieldError] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.errors is None:
            self.errors = []


def error_details(body: Any) -> ErrorDetails:
    """Read an error body of any family; never raises."""
    details = ErrorDetails()
    if isinstance(body, str):
        details.message = _summary_of_text(body)
        return details
    if not isinstance(body, Mapping):
        return details
    wrapper = body.get("error")
    if isinstance(wrapper, Mapping):  # {error: {success, message, errorKey}, data}
        details.error_key = _text(wrapper.get("errorKey"))
        details.message = _text(wrapper.get("message"))
    elif isinstance(wrapper, str) and wrapper:  # registry create: {id, error, status}
        details.message = wrapper
    elif "message" in body or "errorKey" in body:  # the wrapper's fields, unwrapped
        details.error_key = _text(body.get("errorKey"))
        details.message = _text(body.get("message"))
    status = body.get("status")
    if isinstance(status, str) and status:  # registry create: saved, notFound, ...
        details.error_key = status
        details.message = details.message or f"the registry was not saved (status {status})"
    if any(k in body for k in ("ErrorKey", "Field", "Message")):  # core ApiErrorData
        details.error_key = _text(body.get("ErrorKey"))
        details.field = _text(body.get("Field"))
        details.message = _text(body.get("Message"))
    if "statusCode" in body and details.message is None:  # shield result object, or {statusCode}
        details.message = f"result object with status {_text(body.get('statusCode'))}"
    if "title" in body or "detail" in body:  # problem-style and validation-style
        details.message = _text(body.get("detail")) or _text(body.get("title"))
        details.error_key = details.error_key or _problem_key(body.get("type"))
    details.errors = _field_errors(body.get("errors"))
    return details


def _field_errors(errors: Any) -> list[FieldError]:
    if isinstance(errors, Mapping):  # ASP.NET style {field: [messages]}
        return [
            FieldError(_text(name), _text(msg) or "")
            for name, messages in errors.items()
            for msg in (messages if isinstance(messages, list) else [messages])
        ]
    if isinstance(errors, list):
        found = []
        for item in errors:
            if isinstance(item, Mapping):
                field, message = _text(item.get("field")), _text(item.get("message"))
                if field is None and message is None:  # another shape ({propertyName,
                    message = _text(dict(item))  # errorMessage}, say): what it says, whole
                found.append(FieldError(field, message or ""))
            elif item is not None:
                found.append(FieldError(None, _text(item) or ""))
        return found
    return []


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str)
    except RecursionError:  # orjson reads 1,024 levels, more than json.dumps may write
        return f"(a JSON {'object' if isinstance(value, Mapping) else 'array'} nested too deep)"


def _summary_of_text(text: str) -> str | None:
    stripped = " ".join(text.split())
    if not stripped:
        return None
    if stripped.lstrip().startswith("<"):
        return f"a non-JSON error page ({len(text)} characters of markup)"
    return stripped[:200]


# RFC 9110's names where older Pythons still use RFC 7231's, so that messages read the
# same on every supported Python.
_RFC9110_PHRASES = {
    413: "Content Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}


def _reason(status: int) -> str:
    phrase = _RFC9110_PHRASES.get(status)
    if phrase is not None:
        return f" {phrase}"
    try:
        return f" {HTTPStatus(status).phrase}"
    except ValueError:
        return ""


class ResponseTooLargeError(APIResponseValidationError):
    """A reply whose body, decoded (after decompression), exceeds `max_response_bytes`.

    The transport stops reading at the cap, so memory stays bounded whatever the
    server sends (a gzip body of 262 kB can inflate to 256 MB). It is an
    `APIResponseValidationError` rather than an `APIConnectionError` because the
    exchange worked: the server answered, and its answer is not one the documented API
    gives. Like every `APIError` it carries `status_code` and `headers` (`body` is
    None: nothing of it is kept), and it is not retried; a connection error would be,
    which would only download the same oversized reply again. `limit` is the cap in
    bytes.
    """

    def __init__(
        self, raw: RawResponse, *, limit: int, setting: str = "max_response_bytes"
    ) -> None:
        self.limit = limit
        super().__init__(
            raw,
            None,
            message=f"the reply is larger than {setting}={limit} bytes once decoded",
        )


class DownloadError(EdgeDeliveryError, OSError):
    """`to_file` could not write the reply to its destination (no such folder, no
    permission, disk full). Nothing is left at the destination: the body is written to a
    temporary file beside it and renamed only once complete. `filename` is the
    destination; `reason` what the operating system said.
    """

    def __init__(self, filename: str, reason: str) -> None:
        super().__init__(f"cannot write the download to {filename!r}: {reason}")
        self.filename = filename
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.filename, self.reason))

    def __str__(self) -> str:
        return str(self.args[0])
