"""The SDK's own view of one HTTP exchange, and what it needs of an HTTP stack.

Nothing here imports the rest of the SDK, so every other module may import it.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx

    from ._timeouts import Timeout


@dataclass(slots=True)
class RawRequest:
    """A request ready to send: absolute URL (path already percent-encoded)."""

    method: str
    url: str
    path: str
    headers: dict[str, str]
    content: bytes | None = None


_ENCODED_BODY = frozenset({"content-encoding", "content-length", "transfer-encoding"})


@dataclass(slots=True)
class RawResponse:
    """A reply: status, case-insensitive headers and the whole body."""

    method: str
    url: str
    path: str
    status: int
    headers: Mapping[str, str]
    content: bytes
    elapsed: float = 0.0
    retries_taken: int = 0
    _json: Any = field(default=None, repr=False)

    def json(self) -> Any:
        """The body parsed as JSON (raises `ValueError` when it is not JSON)."""
        if self._json is None:
            self._json = json.loads(self.content)
        return self._json

    def retry_after(self) -> float | None:
        """The Retry-After header in seconds (number or HTTP date), or None."""
        return parse_retry_after(self.headers.get("retry-after"))

    def to_httpx(self) -> httpx.Response:
        """The reply as an `httpx.Response`; its request carries no credentials."""
        import httpx  # only when a caller asks for it

        request = httpx.Request(self.method, self.url)
        # The body is already decoded: drop the headers that describe the encoded one.
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _ENCODED_BODY]
        return httpx.Response(self.status, headers=headers, content=self.content, request=request)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After value: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        seconds = when.timestamp() - time.time()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


class Transport(Protocol):
    """What the facade needs of an HTTP stack."""

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse: ...

    def reserve_connections(self, count: int) -> None:
        """Allow at least `count` connections at once, where the stack still can."""

    async def aclose(self) -> None: ...


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, for same-origin checks."""
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
