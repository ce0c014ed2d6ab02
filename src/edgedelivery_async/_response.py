"""Reading 2xx replies: JSON, hidden failures, tolerant models, and `APIResponse`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import httpx

from ._exceptions import APIResponseValidationError, APIResultError
from ._http import RawResponse

T = TypeVar("T")
M = TypeVar("M", covariant=True)


class _Model(Protocol[M]):
    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> M: ...


@dataclass(frozen=True, slots=True)
class APIResponse(Generic[T]):
    """A call's result together with the HTTP reply it came from."""

    parsed: T
    raw: RawResponse

    @property
    def status_code(self) -> int:
        """The HTTP status of the final reply."""
        return self.raw.status

    @property
    def headers(self) -> Mapping[str, str]:
        """The reply's headers (case-insensitive): rate-limit headers, request ids."""
        return self.raw.headers

    @property
    def retries_taken(self) -> int:
        """How many retries this call needed."""
        return self.raw.retries_taken

    @property
    def elapsed(self) -> float:
        """Seconds the final attempt took."""
        return self.raw.elapsed

    @property
    def http_response(self) -> httpx.Response:
        """The reply as an `httpx.Response`."""
        return self.raw.to_httpx()


def json_body(raw: RawResponse) -> Any:
    """The body of a 2xx reply as JSON (None when empty), failures hidden in it raised."""
    if not raw.content or raw.content.isspace():  # no copy of the body
        return None
    try:
        body = raw.json()
    except (ValueError, RecursionError):
        text = raw.content[:200].decode("utf-8", errors="replace")
        raise APIResponseValidationError(raw, text, message="the reply is not JSON") from None
    check_result(raw, body)
    return body


def check_result(raw: RawResponse, body: Any) -> None:
    """Raise APIResultError when a 2xx body reports failure in an `{error, data}` wrapper."""
    if isinstance(body, Mapping):
        wrapper = body.get("error")
        if isinstance(wrapper, Mapping) and wrapper.get("success") is False:
            raise APIResultError(raw, body)
        if "statusCode" in body and "declaredType" in body and "data" not in body:
            raise APIResultError(raw, body)


def member(raw: RawResponse, body: Any, name: str) -> Any:
    """`body[name]` of a JSON object, or APIResponseValidationError."""
    if not isinstance(body, Mapping) or body.get(name) is None:
        raise APIResponseValidationError(raw, body, message=f"the reply has no {name!r} object")
    return body[name]


def parse_model(model: type[_Model[T]], raw: RawResponse, data: Any) -> T:
    """`model.from_dict(data)`, tolerant of nulls where the document has none.

    Unknown fields are kept (`additional_properties`). A null in a field not declared
    nullable is read as absent. A body that still does not fit raises
    APIResponseValidationError instead of KeyError/TypeError/ValueError.
    """
    if isinstance(data, Mapping):
        try:
            return model.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            try:
                return model.from_dict(_without_nulls(data))
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                pass
    name = getattr(model, "__name__", "model")
    raise APIResponseValidationError(raw, data, message=f"the reply cannot be read as {name}")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value if v is not None]
    return value
