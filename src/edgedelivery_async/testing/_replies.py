"""What the fake sends: the reply type, the bodies of the API's error families, and the
`Responder` protocol the adapters (`_httpx`, `_server`) serve, so they need no fake type."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

from ._faults import DroppedConnection

_TYPES = {
    400: "https://tools.ietf.org/html/rfc9110#section-15.5.1",
    401: "https://tools.ietf.org/html/rfc9110#section-15.5.2",
    404: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
    405: "https://tools.ietf.org/html/rfc9110#section-15.5.6",
    415: "https://tools.ietf.org/html/rfc9110#section-15.5.16",
    429: "https://tools.ietf.org/html/rfc6585#section-4",
    500: "https://tools.ietf.org/html/rfc9110#section-15.6.1",
    503: "https://tools.ietf.org/html/rfc9110#section-15.6.4",
}


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP reply, independent of any server framework."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The first value of a header (case-insensitive)."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)


class Responder(Protocol):
    """What an adapter serves: one request in, a reply (or a dropped connection) out."""

    async def respond(
        self, method: str, raw_path: str, headers: Mapping[str, str], body: bytes | None
    ) -> Reply | DroppedConnection:
        """Answer one request; `headers` may use any case for names; `body` None when
        it could not be read (an encoding that does not decode)."""
        ...


def json_reply(status: int, data: Any, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """A JSON reply; ASCII-escaped so any decoded string (lone surrogates too) encodes."""
    body = json.dumps(data, separators=(",", ":")).encode()
    return Reply(status, (("Content-Type", "application/json"), *headers), body)


def empty_reply(status: int, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """A reply without a body (204, or a status the document declares without content)."""
    return Reply(status, headers)


def api_error(key: str | None, field: str | None, message: str | None) -> dict[str, Any]:
    """The core area's error record (`ApiErrorData`, reference 2.2)."""
    return {"ErrorKey": key, "Field": field, "Message": message}


def problem(status: int, detail: str, instance: str) -> dict[str, Any]:
    """The container area's problem-style body."""
    return {
        "type": _TYPES.get(status, "about:blank"),
        "title": _title(status),
        "status": status,
        "detail": detail,
        "instance": instance,
    }


def validation_problem(
    instance: str, errors: list[tuple[str, str]], trace_id: str
) -> dict[str, Any]:
    """The container area's validation-style body: one entry per field error."""
    return {
        "title": "One or more validation errors occurred.",
        "status": 400,
        "detail": "See errors.",
        "instance": instance,
        "errors": [{"field": field, "message": message} for field, message in errors],
        "id": trace_id,
    }


def object_result_error(status: int, declared_type: str) -> dict[str, Any]:
    """The shield configuration operation's serialized result-object error body."""
    return {
        "location": None,
        "value": None,
        "formatters": [],
        "contentTypes": [],
        "declaredType": declared_type,
        "statusCode": status,
    }


def result_wrapper(
    data: Any, *, success: bool = True, message: str = "", key: str = ""
) -> dict[str, Any]:
    """The `{error, data}` wrapper of upload scanning (reference 2.8).

    A failure leaves `data` out: the document does not declare it nullable.
    """
    wrapper: dict[str, Any] = {"error": {"success": success, "message": message, "errorKey": key}}
    if data is not None:
        wrapper["data"] = data
    return wrapper


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
