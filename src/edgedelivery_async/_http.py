"""The SDK's own view of one HTTP exchange, and what it needs of an HTTP stack.

Nothing here imports the rest of the SDK at import time, so every other module may
import it.

The access key travels beside the request, never inside its headers: a transport
turns it into the `AccessKey` header only at its edge, in one small function, so no
frame of the SDK that can raise holds the key as a plain string, and no exception the
SDK raises chains to a library request object that carries it.
"""

from __future__ import annotations

import email.utils
import re
import secrets
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, Protocol
from urllib.parse import urlsplit

from . import _json

if TYPE_CHECKING:
    import httpx

    from ._timeouts import Timeout


# A cap no real reply of this API reaches; a transport refuses a reply that decodes to more.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

# The most a reply's header fields may hold (names and values, in bytes), on every
# transport: a reply with more ends with APIConnectionError before its body is read.
MAX_HEADER_BYTES = 64 * 1024
# ... and at most this many fields: hyper's limit (wreq, reqwest), which pyreqwest cannot
# raise, so it is the SDK's on every transport.
MAX_HEADER_FIELDS = 100

ACCESS_KEY_HEADER = "AccessKey"


class AccessKey:
    """The access key, kept out of reprs, logs, messages and tracebacks.

    The key is held masked (XOR with a random pad), so not even this object's slots
    hold it as a plain string; `reveal()` gives it back for the header only.
    """

    __slots__ = ("_length", "_mask", "_masked")

    def __init__(self, value: str) -> None:
        check_access_key(value)
        raw = value.encode("ascii")
        self._length = len(raw)
        self._mask = int.from_bytes(secrets.token_bytes(self._length), "big")
        self._masked = int.from_bytes(raw, "big") ^ self._mask

    def reveal(self) -> str:
        """The key itself, for the AccessKey header only."""
        return (self._masked ^ self._mask).to_bytes(self._length, "big").decode("ascii")

    def scrub(self, reply: RawResponse) -> bool:
        """Replace the key with *** in an error reply's body, headers and URL: a server may
        quote it back ("the access key ... is not valid"), and the error would then show
        it (its URL, `error.response.url`, is the request's: a caller's path may hold
        it). True when it was there.

        A JSON body is scrubbed in its decoded strings, where the key may have been
        written with escapes (`\\u002B` for `+`, as ASP.NET writes it, or `\\/`), and
        without breaking the JSON around a key that is also JSON syntax; any other body
        in its bytes. A run of 8 or more of the key's characters counts too (`_masked`).
        """
        key = self.reveal()
        found = False
        url, path = _masked(reply.url, key), _masked(reply.path, key)
        if url is not reply.url or path is not reply.path:
            reply.url, reply.path = url, path
            found = True
        headers = _masked_headers(reply.headers, key)
        if headers is not reply.headers:
            reply.headers = headers
            found = True
        content = _scrubbed_body(reply.content, key)
        if content is not None:
            reply.content, reply._json = content, None
            found = True
        return found

    def masked_headers(self, headers: Mapping[str, str]) -> Mapping[str, str]:
        """`headers` with the key as *** in names and values (a server may echo it), for
        hooks; `headers` itself when it is not there."""
        return _masked_headers(headers, self.reveal())

    def masked_text(self, text: str) -> str:
        """`text` with the key as *** (`text` itself when it is not there): a redirect's
        URL holds the key when this differs from it."""
        return _masked(text, self.reveal())

    def __repr__(self) -> str:
        return "AccessKey('***')"

    __str__ = __repr__


def _masked_headers(headers: Mapping[str, str], key: str) -> Mapping[str, str]:
    """`headers` with the key masked in names and values; `headers` itself if it is in none."""
    # One search over all of them (a key holds no line break, so no match spans two)
    joined = "\n".join(f"{name}\n{value}" for name, value in headers.items())
    if _masked(joined, key) is joined:
        return headers
    import multidict  # (aiohttp's)

    return multidict.CIMultiDict(
        (_masked(name, key), _masked(value, key)) for name, value in headers.items()
    )


def _scrubbed_body(content: bytes, key: str) -> bytes | None:
    """`content` with `key` as ***, or None when the key is not in it (see `scrub`)."""
    import json

    try:
        data = _json.loads(content)
        if not _may_hold(data, key):
            return None
        cleaned = _scrubbed_json(data, key)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
        text = content.decode("latin-1")  # one character a byte: the key's are ASCII
        masked = _masked(text, key)
        return None if masked is text else masked.encode("latin-1")
    if cleaned is data:
        return None
    return json.dumps(cleaned, ensure_ascii=True).encode("ascii")


def _may_hold(data: Any, key: str) -> bool:
    """Whether the key may be in a string (or a name) of decoded JSON: one search over the
    JSON written again, where every string stands as it is (the key is printable ASCII, so
    nothing in it is escaped unless it holds '"' or '\\'). Searching string by string cost
    some 15 microseconds each in the event loop: 260 s for a 64 MiB body of short
    strings. A match across two strings only makes the search string by string follow."""
    import json

    if '"' in key or "\\" in key:
        return True
    try:
        text = json.dumps(data, ensure_ascii=False, check_circular=False)
    except (ValueError, RecursionError):  # an int past Python's digits, or too deep to write
        return True
    return _masked(text, key) is not text


def _scrubbed_json(value: Any, key: str) -> Any:
    """`value` with `key` as *** in every string (names too); `value` itself if unchanged."""
    if isinstance(value, str):
        return _masked(value, key)
    if isinstance(value, list):
        items = [_scrubbed_json(item, key) for item in value]
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return items if changed else value
    if isinstance(value, dict):
        pairs = [(_scrubbed_json(k, key), _scrubbed_json(v, key)) for k, v in value.items()]
        changed = any(
            nk is not k or nv is not v
            for (nk, nv), (k, v) in zip(pairs, value.items(), strict=True)
        )
        return dict(pairs) if changed else value
    return value


_PIECE = 8  # characters: a run of the key this long, or longer, is masked too
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _forms(key: str) -> tuple[str, ...]:
    """The key as a server may quote it, lower-cased: as it is, and percent-encoded
    (`quote`, `quote_plus`); compared without case, so "%2a" and a lower-cased key count."""
    from urllib.parse import quote, quote_plus

    forms = (key, quote(key, safe=""), quote(key), quote_plus(key, safe=""))
    return tuple(dict.fromkeys(form.lower() for form in forms))


def _masked(text: str, key: str) -> str:
    """`text` with the key, and every run of `_PIECE` or more of its characters (a
    server may quote it shortened, "abcd1234..."), as ***; the same for its percent-encoded
    forms, in any case (`_forms`). `text` itself if none is there."""
    # ASCII letters only: the key is ASCII, and str.lower() may change a text's length
    lowered = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
    spans: list[tuple[int, int]] = []
    for form in _forms(key):
        spans += _found(lowered, form)
    if not spans:
        return text
    parts, last = [], 0
    for start, end in sorted(spans):
        if end <= last:
            continue
        parts.append(text[last : max(start, last)])
        if start >= last:
            parts.append("***")
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _found(text: str, form: str) -> list[tuple[int, int]]:
    """Where `form` is in `text`, whole or as a run of `_PIECE` or more of its characters."""
    spans: list[tuple[int, int]] = []
    start = text.find(form)
    while start != -1:
        spans.append((start, start + len(form)))
        start = text.find(form, start + 1)
    if len(form) <= _PIECE:
        return spans
    for offset in range(len(form) - _PIECE + 1):
        piece = form[offset : offset + _PIECE]
        start = text.find(piece)
        while start != -1:
            end, at = start + _PIECE, offset + _PIECE
            while end < len(text) and at < len(form) and text[end] == form[at]:
                end, at = end + 1, at + 1
            spans.append((start, end))
            start = text.find(piece, start + 1)
    return spans


def check_access_key(value: object) -> None:
    """Raise ConfigurationError unless `value` is a key a client can send in the
    AccessKey header: a non-empty string of printable ASCII, no spaces at its ends."""
    if not isinstance(value, str) or not value.strip():
        _configuration_error("access_key must be a non-empty string")
    if not value.isascii() or not value.isprintable():
        _configuration_error("access_key must be printable ASCII (no line breaks)")
    if value != value.strip():  # (httpx refused the header, the others stripped it)
        _configuration_error("access_key must not begin or end with a space")


def _configuration_error(message: str) -> NoReturn:
    from ._exceptions import ConfigurationError  # imports nothing of the SDK either

    raise ConfigurationError(message)


@dataclass(slots=True)
class RawRequest:
    """A request ready to send: absolute URL (path already percent-encoded).

    `headers` never holds the access key; `access_key` does, and the transport adds
    it as the `AccessKey` header when it hands the request to its HTTP library.
    """

    method: str
    url: str
    path: str
    headers: dict[str, str]
    content: bytes | None = None
    access_key: AccessKey | None = None
    sink: BodySink | None = None  # a 2xx body goes there, not into memory (`to_file`)

    @property
    def shown_path(self) -> str:
        """`path` as messages and logs show it: the key as *** where the caller wrote it
        into the path (an id given the key by mistake), as `AccessKey.scrub` masks it in
        a reply's URL and path."""
        key = self.access_key
        return self.path if key is None else key.masked_text(self.path)


class BodySink(Protocol):
    """Where a transport writes a 2xx body instead of keeping it (`_download`).

    `begin()` starts the body afresh (a retried attempt writes it again), `write()` takes
    each decoded block as it arrives, and `limit` is the most it may hold: a longer body
    ends the exchange with `ResponseTooLargeError`. A failed write raises `SinkFailed`,
    which no transport takes for a failure of the connection.
    """

    limit: int

    def begin(self) -> None: ...

    def write(self, block: bytes) -> None: ...


class SinkFailed(Exception):
    """A sink could not write a block (disk full, ...): `__cause__`-free, holds the reason."""


async def into_sink(blocks: AsyncIterator[bytes], sink: BodySink) -> bytes | None:
    """Write `blocks` to `sink` as they come: b"" when all fit its limit, else None."""
    sink.begin()
    size = 0
    limit = sink.limit
    async for block in blocks:
        size += len(block)
        if size > limit:
            return None
        sink.write(block)
    return b""


def header_problem(name: object, value: object) -> str | None:
    """Why `name: value` cannot be sent as a header (None when it can).

    One rule for every header the SDK takes from outside: default headers, hooks and
    `client.request(headers=...)`.
    """
    if not isinstance(name, str) or not isinstance(value, str):
        return f"header {name!r}: names and values must be strings"
    if not _TOKEN.fullmatch(name) or not (value.isascii() and value.isprintable()):
        return (
            f"invalid header {name!r}: use printable ASCII only (in names no spaces"
            ' and none of ()<>@,;:\\"/[]?={})'
        )
    if name.lower() in _FRAMING:
        return f"header {name!r} is the SDK's own: it frames the body it sends"
    return None


# RFC 9110's token: what a header's name may hold ("X Y" or "X(y)" went out as given on
# aiohttp and raised a raw ValueError on reqwest).
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# The headers that frame a request's body: a caller's would contradict the SDK's framing
# (a wrong Content-Length hung aiohttp's reply and raised h11's own error on httpx).
_FRAMING = frozenset({"content-length", "transfer-encoding"})


def headers_with_key(request: RawRequest) -> dict[str, str]:
    """The request's headers plus the `AccessKey` header, for a transport's edge only.

    Call it inline as the argument of the library call, so the result is bound in no
    frame of the SDK.
    """
    key = request.access_key
    if key is None:
        return request.headers
    headers = request.headers.copy()
    headers[ACCESS_KEY_HEADER] = key.reveal()
    return headers


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
            self._json = _json.loads(self.content)
        return self._json

    def retry_after(self) -> float | None:
        """The Retry-After header in seconds (number or HTTP date), or None."""
        return parse_retry_after(self.headers.get("retry-after"))

    def to_httpx(self) -> httpx.Response:
        """The reply as an `httpx.Response`; its request carries no credentials."""
        import httpx  # only when a caller asks for it

        request = httpx.Request(self.method, self.url)
        # The body is already decoded: drop the headers that describe the encoded one.
        # Values as bytes: httpx takes no text outside ASCII (the transports read UTF-8,
        # other bytes as lone surrogates, which this gives back as they came).
        headers = [
            (k.encode("utf-8", "surrogateescape"), v.encode("utf-8", "surrogateescape"))
            for k, v in self.headers.items()
            if k.lower() not in _ENCODED_BODY
        ]
        return httpx.Response(self.status, headers=headers, content=self.content, request=request)


_DELTA_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After value: delta-seconds (ASCII digits, a fraction
    tolerated) or an HTTP date; None for anything else (`-5`, `1_000`, `1e3`)."""
    if not value:
        return None
    value = value.strip()
    if _DELTA_SECONDS.fullmatch(value):
        seconds = float(value)
    else:
        try:  # (a year of 20 digits overflows, a date outside 1-9999 is a ValueError)
            when = email.utils.parsedate_to_datetime(value)
            if when.tzinfo is None:
                return None
            seconds = when.timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


class Transport(Protocol):
    """What the facade needs of an HTTP stack.

    `send` returns the whole reply, whatever its status, decoded (decompressed) and at
    most the transport's `max_response_bytes` long, else it raises
    `ResponseTooLargeError`. It follows no redirect, and raises `APIConnectionError`
    (or `APITimeoutError`) for every failure of the exchange, with `request_sent`
    False only when the request cannot have reached the server. It works under
    whichever event loop is running, also after an earlier loop was closed.
    """

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse: ...

    def reserve_connections(self, count: int) -> None:
        """Allow at least `count` connections at once, where the stack still can."""

    async def aclose(self) -> None: ...


DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, for same-origin checks: the scheme's default port
    when none is written, so `https://api` and `https://api:443` are one origin."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port
    return (
        scheme,
        (parts.hostname or "").lower(),
        DEFAULT_PORTS.get(scheme) if port is None else port,
    )
