"""Sending one HTTP request: the small seam between the facade and an HTTP stack.

Four stacks sit behind one protocol (`_http.Transport`), selected by name with
`make_transport`:

- "aiohttp", the default: several times faster than httpx under concurrency (see
  README, Performance).
- "wreq", opt-in with the `speed` extra: wreq, a Rust client that spends about a third
  of the CPU per request under uvloop (module `_wreq`).
- "reqwest", opt-in with the `reqwest` extra: pyreqwest, a Rust client that spends about
  half (module `_reqwest`).
- a caller's own `httpx.AsyncClient` (for example with `httpx.MockTransport`), used as
  given (`HttpxTransport`); httpx is imported only for it.

Every stack gives the same guarantees: it follows no redirect itself (the engine
follows same-origin ones), takes the network settings of `_network` (`proxy=`, or
HTTP(S)_PROXY/NO_PROXY read once per origin unless `trust_env=False`; `verify=`; a
caller's aiohttp `session=`, used as given by `SessionTransport`), verifies TLS,
applies the connect/read/total timeouts of `Timeout`, decodes the body while
counting it and stops at `max_response_bytes` (`ResponseTooLargeError`), maps every
failure into `APIConnectionError`/`APITimeoutError` with `request_sent` right (a reply
the library could not read in the SDK's words, the same on every stack: `protocol_fault`),
and works under whichever event loop is running. The access key becomes the `AccessKey`
header only at the edge (`_http.headers_with_key`), and the SDK errors raised here
chain to no library exception: their `__cause__` is a `TransportFailure` holding only
the library's message (without the key or proxy credentials), so no request object
(whose headers hold the key) and no library frame is reachable from them. The same goes
for the code a caller's own client runs (`session=`'s middlewares and trace configs,
`http_client=`'s event hooks and transport): what it raises is a `HookError`, and its
`raise_for_status()` leaves the reply's status to decide (`callers_client_error`).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import re
import socket
import ssl
import time
import urllib.request
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import aiohttp

from ._bulk import MOST_CONCURRENCY  # (one connection a call: a bulk run's most too)
from ._exceptions import (
    APIConnectionError,
    APITimeoutError,
    ConfigurationError,
    ResponseTooLargeError,
    in_use_by_another_loop,
)
from ._hooks import HookError
from ._http import (
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELDS,
    AccessKey,
    BodySink,
    RawRequest,
    RawResponse,
    SinkFailed,
    Transport,
    headers_with_key,
    into_sink,
    origin,
)
from ._network import DEFAULT as DEFAULT_NETWORK
from ._network import (
    NetworkSettings,
    Proxy,
    Verify,
    check_session,
    env_proxies,
    network_settings,
    redact,
)
from ._timeouts import Timeout
from ._urls import yarl_url
from ._watchdog import Watchdog

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    import httpx
    from yarl import URL

SPEED_HINT = "pip install 'edgedelivery-async[speed]'"
# The opt-in transports: name -> (module, class, the library it needs, how to install it).
_OPT_IN = {
    "wreq": ("._wreq", "WreqTransport", "wreq", SPEED_HINT),
    "reqwest": (
        "._reqwest",
        "ReqwestTransport",
        "pyreqwest",
        "pip install 'edgedelivery-async[reqwest]'",
    ),
}


def make_transport(
    name: str = "aiohttp",
    *,
    max_connections: int = 100,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    proxy: str | None = None,
    trust_env: bool | None = None,
    verify: Verify = True,
    session: aiohttp.ClientSession | None = None,
) -> Transport:
    """The transport called `name`: "aiohttp" (the default), "wreq" or "reqwest" (opt-in).

    `proxy`, `trust_env` and `verify` are checked here (see `_network`); `session` is a
    caller's aiohttp session, used as given. A bad value is a `ConfigurationError`.
    """
    network = network_settings(proxy=proxy, trust_env=trust_env, verify=verify)
    if session is not None:
        check_session(session, transport=name, proxy=proxy, trust_env=trust_env, verify=verify)
        return SessionTransport(session, max_response_bytes=max_response_bytes)
    if name == "aiohttp":
        return AiohttpTransport(
            max_connections=max_connections,
            max_response_bytes=max_response_bytes,
            network=network,
        )
    opt_in = _OPT_IN.get(name) if isinstance(name, str) else None
    if opt_in is None:
        raise ConfigurationError(
            f"unknown transport {name!r}: use 'aiohttp' (the default), 'wreq' ({SPEED_HINT}) "
            f"or 'reqwest'"
        )
    module_name, class_name, library, hint = opt_in
    try:
        module = importlib.import_module(module_name, __package__)
    except ImportError as exc:
        if not (exc.name or "").startswith(library):
            raise
        raise ConfigurationError(f"transport={name!r} needs {library}: {hint}") from None
    transport: Transport = getattr(module, class_name)(
        max_connections=max_connections,
        max_response_bytes=max_response_bytes,
        network=network,
    )
    return transport


_settled = False


def settle_read_buffers() -> None:
    """Keep asyncio's 256 KiB read buffers off mmap under glibc (once per process).

    asyncio reads each reply from a socket into a fresh 256 KiB buffer and shrinks it to
    what arrived. glibc serves a block that large with mmap, the shrink with mremap and
    the free with munmap, until a freed block of that size has raised its threshold
    (mallopt(3): M_MMAP_THRESHOLD is dynamic). Whether that happened depends on what
    the process did before; when not, every reply costs three system calls and page
    faults, measured at 25-35 us per reply on the bulk path (benchmarks/bulk_shield.py).
    Freeing one larger block raises the threshold now, as glibc itself would later; other
    allocators are not affected by it.
    """
    global _settled
    if not _settled:
        block = bytes(320 * 1024)
        del block
        _settled = True


def received(
    request: RawRequest,
    status: int,
    headers: Mapping[str, str],
    content: bytes | None,
    started: float,
    limit: int,
) -> RawResponse:
    """The reply to `request`; ResponseTooLargeError when its body went past `limit`.

    `content` is None when the transport stopped reading at the cap; `started` is the
    `time.monotonic()` of sending.
    """
    raw = RawResponse(
        request.method,
        request.url,
        request.path,
        status,
        headers,
        b"" if content is None else content,
        time.monotonic() - started,
    )
    if content is None:
        error = too_large(request, raw, limit)
        headers = raw.headers  # (scrubbed: this frame is in the error's traceback)
        raise error
    return raw


def too_large(request: RawRequest, raw: RawResponse, limit: int) -> ResponseTooLargeError:
    """The error for a body past its cap: the sink's (`max_download_bytes`) for a 2xx
    body going to a file, else the transport's `limit` (`max_response_bytes`). The
    reply, which the error holds, is scrubbed of the key first (`scrub_key`)."""
    scrub_key(request, raw)
    sink = request.sink
    if sink is not None and 200 <= raw.status < 300:
        return ResponseTooLargeError(raw, limit=sink.limit, setting="max_download_bytes")
    return ResponseTooLargeError(raw, limit=limit)


class _UnsentURL(Exception):
    """httpx refused the request's own URL (InvalidURL) before sending anything."""


class _Undecodable(Exception):
    """httpx could not decode a reply's body (its DecodingError is the cause); `coding`
    is the reply's Content-Encoding."""

    def __init__(self, coding: str | None) -> None:
        super().__init__()
        self.coding = coding


def scrub_key(request: RawRequest, raw: RawResponse) -> None:
    """Mask the key in a reply refused here for its size (the engine scrubs the replies
    it is given; these it never sees): the error, or a frame of its traceback, holds it."""
    if request.access_key is not None:
        request.access_key.scrub(raw)


# How an exchange ended (`_exchange`): the reply is complete, or went past a limit.
_COMPLETE = "complete"
_BODY_TOO_LARGE = "body too large"
_HEAD_TOO_LARGE = "head too large"


def raw_header_bytes(fields: Iterable[tuple[bytes, bytes]]) -> int:
    """The bytes of a reply's header fields: names and values, as `MAX_HEADER_BYTES` counts."""
    total = 0
    for name, value in fields:  # (a plain loop: a third fewer instructions than sum())
        total += len(name) + len(value)
    return total


def head_too_large(request: RawRequest) -> APIConnectionError:
    """The error for a reply with more header fields than `MAX_HEADER_FIELDS`, or whose
    fields hold more than `MAX_HEADER_BYTES`."""
    what = (
        f"the reply's headers are past the SDK's limits (at most {MAX_HEADER_FIELDS} fields"
        f" holding at most {MAX_HEADER_BYTES} bytes)"
    )
    message = f"{_PHRASES['connection failed'].format(_host_port(request.url))}: {what}"
    return APIConnectionError(
        message, method=request.method, path=request.shown_path, request_sent=True
    )


def not_a_status(request: RawRequest) -> APIConnectionError:
    """The error for a reply whose status is below 100, which no HTTP status is (aiohttp
    reads `HTTP/1.1 000`, which the other stacks refuse as a bad status line)."""
    message = f"{_PHRASES['connection failed'].format(_host_port(request.url))}: {BAD_STATUS}"
    return APIConnectionError(
        message, method=request.method, path=request.shown_path, request_sent=True
    )


# The SDK's words for a reply the HTTP library could not read, one per cause, the same
# on every transport (`protocol_fault`). They quote nothing the server sent.
_NOT_HTTP = "the reply is not valid HTTP/1.1 ({})"
BAD_STATUS = _NOT_HTTP.format("bad status line")
BAD_HEADER = _NOT_HTTP.format("a header line is malformed")
BAD_LENGTH = _NOT_HTTP.format("bad or conflicting Content-Length")
BOTH_FRAMINGS = _NOT_HTTP.format("both Content-Length and Transfer-Encoding")
BAD_CHUNKS = _NOT_HTTP.format("bad chunked framing")
CUT_SHORT = "the connection closed before the reply's body was complete"
UNDECODABLE = "the reply's body is not valid {}"
UNDECODABLE_ANY = "the reply's body is not valid for its Content-Encoding"
# The codings the SDK names (as the reply declared them -> as a message says them);
# any other is not quoted: a header's value is the server's text.
_CODINGS = {
    "gzip": "gzip",
    "x-gzip": "gzip",
    "deflate": "deflate",
    "br": "brotli",
    "brotli": "brotli",
    "zstd": "zstd",
}

# How each library says it, in the texts of the failure and its causes (case ignored),
# in the order they are tried: aiohttp's parser, h11 (httpx), hyper as wreq prints it
# (Rust debug text) and as pyreqwest does (its Display text).
_CUT_SHORT = (
    "payload is not completed",  # aiohttp (its ContentLengthError/TransferEncodingError)
    "without sending complete message body",  # h11
    "incompletebody",  # hyper, wreq
    "end of file before message length reached",  # hyper, pyreqwest
)
_STATUS_LINE = (
    "status line",  # aiohttp "Bad status line", h11 "illegal status line"
    "parse(status)",  # hyper, wreq
    "parse(version)",
    "invalid http status-code",  # hyper, pyreqwest
    "invalid http version",
    "status_code should be in range",  # h11, a status below 100
)
_FAULTS = (
    (BOTH_FRAMINGS, ("transfer-encoding can't be present with content-length",)),
    (BAD_CHUNKS, ("chunk",)),  # "Invalid character in chunk size", "illegal chunk header"
    (BAD_LENGTH, ("content-length", "contentlength")),
    (BAD_STATUS, _STATUS_LINE),
    (BAD_HEADER, ("invalid header", "illegal header", "header(token)", "invalid http header")),
)


def _undecodable(exc: BaseException, text: str) -> bool:
    """True when `exc` (`text`, in lower case) says a reply's body did not decode.

    aiohttp: "Can not decode content-encoding: gzip"; httpx: DecodingError; wreq: "kind:
    Decode" (but a body's framing is "netty::Error(Body"); pyreqwest: BodyDecodeError
    (but a body cut short is "error reading a body from connection").
    """
    kind = type(exc).__name__
    if kind == "DecodingError" and type(exc).__module__.startswith("httpx"):
        return True
    if kind == "BodyDecodeError":
        return "reading a body from connection" not in text
    return "can not decode content-encoding" in text or (
        "kind: decode" in text and "error(body" not in text
    )


_URLS = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\")]*")


def protocol_fault(exc: BaseException, coding: str | None = None) -> tuple[str, bool] | None:
    """The SDK's words for a reply `exc` says the library could not read, and whether it
    is its body that did not decode (what a retry would most likely get again); None
    when `exc` says something else. `coding` is the reply's Content-Encoding, when the
    transport has it (not every library names it)."""
    texts = []
    undecodable = False
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 6 and current not in seen:
        seen.append(current)
        try:
            text = _library_text(current).lower()
        except Exception:  # a library's __str__ should not fail; if it does, it says nothing
            text = ""
        text = _URLS.sub("", text)  # (a path's words are not the library's)
        texts.append(text)
        undecodable = undecodable or _undecodable(current, text)
        current = current.__cause__ or current.__context__
    said = " ".join(texts)
    if undecodable:
        named = re.search(r"content-encoding: ([\w-]+)", said)
        if coding is None and named is not None:
            coding = named[1]
        if coding is None:
            found = [c for c in ("gzip", "deflate", "brotli", "zstd") if c in said]
            coding = found[0] if len(found) == 1 else None
        name = _CODINGS.get((coding or "").strip().lower())
        return (UNDECODABLE.format(name) if name else UNDECODABLE_ANY), True
    if any(marker in said for marker in _CUT_SHORT):
        return CUT_SHORT, False
    for words, markers in _FAULTS:
        if any(marker in said for marker in markers):
            return words, False
    return None


# The methods aiohttp sends once more when a pooled connection turns out closed.
_RESENT_BY_AIOHTTP = frozenset(("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"))

# How aiohttp's parser words a reply past `max_headers` or `max_field_size`.
_AIOHTTP_HEAD_LIMITS = ("Too many headers", "Got more than")

# More connections than one host's ports could ever hold; the Rust transports' pools
# panic past their own (smaller than 2**62) limits.
MOST_CONNECTIONS = MOST_CONCURRENCY


def check_limits(
    max_connections: int, max_response_bytes: int, *, name: str = "max_response_bytes"
) -> None:
    """Raise `ConfigurationError` unless both are positive integers (the second called
    `name`), and `max_connections` is at most `MOST_CONNECTIONS`."""
    for label, value in (
        ("max_connections", max_connections),
        (name, max_response_bytes),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{label} must be a positive integer")
    if max_connections > MOST_CONNECTIONS:
        raise ConfigurationError(f"max_connections must be at most {MOST_CONNECTIONS:,}")


class TransportFailure(Exception):
    """What the HTTP library reported, as text only: the `__cause__` of an SDK error.

    It is never raised, so it has no traceback; it holds no request object, and the
    access key is removed from its text should the library have quoted it.
    """


def cancelling() -> bool:
    """True when someone asked to cancel the running task.

    A Rust library's future may end with its own error (the client was closed) where the
    task was cancelled: the transport then lets the cancellation through, not that error.
    """
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def connection_error(
    request: RawRequest,
    what: str,
    exc: BaseException,
    *,
    sent: bool,
    timeout: bool = False,
    secrets: Iterable[str] = (),
    coding: str | None = None,
) -> APIConnectionError:
    """The SDK error for a failed exchange, caused by a text-only copy of `exc`.

    The copy holds neither the key, nor `secrets` (proxy passwords), nor any URL's
    credentials. A reply the library could not read is said in the SDK's words
    (`protocol_fault`; `coding` is its Content-Encoding where the transport has it).
    """
    kind = APITimeoutError if timeout else APIConnectionError
    target = _host_port(request.url)
    undecodable = False
    if not timeout and "proxy" not in what and _unresolved(exc):  # each library says it its way
        host = target.rpartition(":")[0]
        message = f"could not connect to {target}: the host name {host} could not be resolved"
        sent = False
    elif not timeout and request.url.startswith("https:") and _not_tls(exc):
        message = (
            f"could not connect to {target}: the server did not answer in TLS"
            " (is it a plain http:// server?)"
        )
        sent = False
    elif (
        not timeout
        and what.startswith("connection failed")
        and (fault := protocol_fault(exc, coding))
    ):
        message, undecodable = (
            f"{_PHRASES['connection failed'].format(target)}: {fault[0]}",
            fault[1],
        )
    else:
        message = _located(what, target, _os_reason(exc))
    error = kind(
        message,
        method=request.method,
        path=request.shown_path,
        request_sent=sent,
        retryable=not undecodable,
    )
    error.__cause__ = TransportFailure(_redacted(_describe(exc), request.access_key, secrets))
    return error


class _CallersCode(Exception):
    """A caller's own client (`session=`) ran code of the caller's that raised: the
    original is `args[0]` (see `callers_client_error`)."""


def callers_client_error(request: RawRequest, which: str, exc: BaseException) -> HookError:
    """The error for an exception the caller's own client raised: `http_client=`'s event
    hooks or transport, `session=`'s middlewares or trace configs (`which` names it).

    The caller's code failed, not the connection: `HookError`, never retried. Like
    `connection_error`'s, its cause is a text-only copy: the original's traceback holds
    the library's frames, whose locals hold the request and its `AccessKey` header.
    """
    key = request.access_key
    try:
        said = _library_text(exc)
    except Exception:  # (as `_describe`)
        said = ""
    named = _redacted(f"{type(exc).__name__}: {said}" if said else type(exc).__name__, key)
    error = HookError(
        f"{request.method} {request.shown_path}: the {which} given to the client raised {named}"
    )
    error.__cause__ = TransportFailure(_redacted(_describe(exc), key))
    return error


# How a failure reads once it names the host: `what` as the transports say it -> the text.
_PHRASES = {
    "timed out connecting": "timed out connecting to {}",
    "timed out waiting for the reply": "timed out waiting for the reply from {}",
    "TLS certificate verification failed": "TLS certificate verification failed for {}",
    "the proxy refused the tunnel": "the proxy refused the tunnel to {}",
    "could not connect": "could not connect to {}",
    "connection failed": "the connection to {} failed",
}


def _located(what: str, target: str, reason: str | None) -> str:
    """`what` naming the host and port, then the library's reason where it gave one.

    `could not connect (ClientConnectorError)` -> `could not connect to h:443: Connection
    refused`.
    """
    head, _, detail = what.partition(": ")
    head = re.sub(r" \(\w+\)$", "", head)
    if head in _PHRASES:
        head = _PHRASES[head].format(target)
    detail = detail or reason or ""
    return f"{head}: {detail}" if detail else head


def _host_port(url: str) -> str:
    _, host, port = origin(url)
    return f"{host}:{port}"


def _unresolved(exc: BaseException) -> bool:
    """True when `exc` says the host name could not be resolved (DNS), on any transport.

    aiohttp: `ClientConnectorDNSError`; httpx: a `socket.gaierror` in the chain; wreq and
    reqwest: "dns error" in their text.
    """
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 6 and current not in seen:
        seen.append(current)
        if (
            isinstance(current, socket.gaierror)
            or type(current).__name__ == "ClientConnectorDNSError"
        ):
            return True
        try:
            text = _library_text(current)
        except Exception:  # a library's __str__ should not fail; if it does, it says nothing
            text = ""
        if "dns error" in text.lower():
            return True
        current = current.__cause__ or current.__context__
    return False


# How the TLS libraries say that the server's first bytes were not TLS (a plain HTTP
# reply): OpenSSL and BoringSSL (aiohttp, httpx, wreq), then rustls (reqwest).
_NOT_TLS = ("WRONG_VERSION_NUMBER", "corrupt message of type InvalidContentType")


def _not_tls(exc: BaseException) -> bool:
    """True when `exc` says the server answered the TLS handshake with something else."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 6 and current not in seen:
        seen.append(current)
        try:
            text = _library_text(current)
        except Exception:  # a library's __str__ should not fail; if it does, it says nothing
            text = ""
        if any(marker in text for marker in _NOT_TLS):
            return True
        current = current.__cause__ or current.__context__
    return False


def _os_reason(exc: BaseException) -> str | None:
    """The operating system's words for a failure (`Connection refused`), if it gave any."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 6 and current not in seen:
        seen.append(current)
        if isinstance(current, socket.gaierror):
            return "cannot resolve the host name"
        if isinstance(current, ssl.SSLError):  # (its errno is OpenSSL's, not the system's;
            reason = getattr(current, "reason", None)  # aiohttp's subclasses lack a reason)
            return f"TLS failed ({reason})" if isinstance(reason, str) and reason else "TLS failed"
        if isinstance(current, OSError) and (current.errno or current.strerror):
            return os.strerror(current.errno) if current.errno else str(current.strerror)
        nested = getattr(current, "os_error", None)
        current = (
            nested
            if isinstance(nested, BaseException)
            else (current.__cause__ or current.__context__)
        )
    return None


def _describe(exc: BaseException) -> str:
    kind = type(exc)
    try:
        text = _library_text(exc)
    except Exception:  # a library's __str__ should not fail; if it does, name the type only
        text = ""
    name = f"{kind.__module__}.{kind.__qualname__}"
    return f"{name}: {text}" if text else name


def _library_text(exc: BaseException) -> str:
    """The exception's text; pyreqwest's as its message and the chain of its causes."""
    message, details = getattr(exc, "message", None), getattr(exc, "details", None)
    causes = details.get("causes") if isinstance(details, dict) else None
    if isinstance(message, str) and isinstance(causes, list):
        said = [str(c.get("message")) for c in causes if isinstance(c, dict)]
        return ": ".join([message, *said])
    return str(exc)


def _redacted(text: str, key: AccessKey | None, secrets: Iterable[str] = ()) -> str:
    return redact(text, secrets if key is None else (key.reveal(), *secrets))


class NoProxy:
    """Direct connections: `trust_env=False`, or a caller's session with its own settings."""

    __slots__ = ()
    secrets: tuple[str, ...] = ()

    def for_url(self, url: str) -> None:
        return None


class FixedProxy:
    """`proxy=`: every request goes through it, whatever the environment says."""

    __slots__ = ("_url", "proxy", "secrets")

    def __init__(self, proxy: Proxy) -> None:
        self.proxy = proxy
        self.secrets = proxy.secrets()
        self._url = proxy.reveal()

    def for_url(self, url: str) -> str:
        return self._url


class ProxyTable:
    """HTTP(S)_PROXY for each origin, honouring NO_PROXY; looked up once per origin.

    The lookup reads the environment (and, on macOS and Windows, the system settings),
    which is too slow to do per request. The passwords of the proxies it found are in
    `secrets`, to keep them out of error messages.
    """

    __slots__ = ("_found", "secrets")

    def __init__(self) -> None:
        self._found: dict[str, str | None] = {}
        self.secrets: set[str] = set()

    def for_url(self, url: str) -> str | None:
        """The proxy for an absolute URL with a path, or None."""
        key = url[: url.find("/", url.find("//") + 2)]  # scheme://host:port, cheaply
        found = self._found.get(key, "")
        if found == "":
            found = self._found[key] = self.lookup(key)
        return found

    def lookup(self, origin_url: str) -> str | None:
        """The proxy for `scheme://host[:port]` from the environment, or None.

        A value without a scheme (`proxy:3128`) is read as http://, as curl does.
        """
        scheme, host, _ = origin(origin_url)
        proxies = urllib.request.getproxies()
        found = proxies.get(scheme) if proxies else None
        if not found or urllib.request.proxy_bypass(host):
            return None
        proxy = Proxy.parse(
            found, what=f"{scheme.upper()}_PROXY from the environment", lenient=True
        )
        self.secrets.update(proxy.secrets())
        return proxy.reveal()


def proxies_for(network: NetworkSettings) -> NoProxy | FixedProxy | ProxyTable:
    """Where a transport with these settings finds each request's proxy.

    Proxies from the environment are checked now, so a malformed HTTPS_PROXY is a
    `ConfigurationError` when the client is created.
    """
    if network.proxy is not None:
        return FixedProxy(network.proxy)
    if not network.proxies_from_env:
        return NoProxy()
    env_proxies()
    return ProxyTable()


def finish_without_loop(step: Any) -> bool:
    """Run an awaitable that needs no event loop (its loop is gone) to its end.

    True when it finished; False when it wanted to wait, and it is then abandoned.
    """
    try:
        step.send(None)
    except StopIteration:
        return True
    except Exception:  # closing what is left of a dead loop: nothing more can be done
        return True
    step.close()
    return False


class AiohttpTransport:
    """The default stack: one aiohttp session per event loop, opened on first use.

    The session is bound to the loop that opened it. When that loop shuts down
    (`asyncio.run` ending), the session is closed inside it; when a request comes from
    another loop, the transport opens a new session there. So a client works under a
    second `asyncio.run`, in notebooks and in test suites that make a loop per test.
    """

    def __init__(
        self,
        *,
        max_connections: int = 100,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        network: NetworkSettings = DEFAULT_NETWORK,
    ) -> None:
        check_limits(max_connections, max_response_bytes)
        settle_read_buffers()
        self.max_connections = max_connections
        self.max_response_bytes = max_response_bytes
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closer: AsyncGenerator[None, None] | None = None
        self._timeouts: dict[float, aiohttp.ClientTimeout] = {}
        self._watchdog: Watchdog | None = None
        self._proxies: NoProxy | FixedProxy | ProxyTable = proxies_for(network)
        self._origins: dict[str, URL] = {}  # parsed once each (`yarl_url`)
        # True is aiohttp's verifying context, built once at import: building another
        # costs 20-30 ms on the first call. A CA bundle's context is built here, once.
        self._ssl: ssl.SSLContext | bool = network.trust.for_aiohttp()

    def reserve_connections(self, count: int) -> None:
        """Raise the pool size to `count` if the pool is not open yet."""
        if self._session is None:
            self.max_connections = max(self.max_connections, count)

    def _open(self) -> aiohttp.ClientSession:
        """A session for the running loop; a session of another loop is let go first,
        unless that loop is still running (in another thread): the call is refused."""
        loop = asyncio.get_running_loop()
        other, session = self._loop, self._session
        if other not in (None, loop) and other.is_running() and session and not session.closed:
            raise in_use_by_another_loop()
        self._let_go()
        connector = aiohttp.TCPConnector(
            limit=self.max_connections,
            limit_per_host=0,
            ssl=self._ssl,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            # The engine always sends its own User-Agent, so aiohttp adds none: no
            # skip_auto_headers, which would copy the headers on every request.
            trust_env=False,  # the SDK reads proxies once per origin (ProxyTable), no netrc
            # One header line may be as long as the SDK's limit on them all (aiohttp's own
            # is 8190 bytes a line): the limit is the same on every transport.
            max_line_size=MAX_HEADER_BYTES,
            max_field_size=MAX_HEADER_BYTES,
            max_headers=MAX_HEADER_FIELDS,
        )
        closer = _close_when_loop_ends(session)
        # Run it to its `yield` now: its first step makes it known to the running loop,
        # whose shutdown then closes it (and so the session).
        finish_without_loop(closer.__anext__())
        self._session, self._loop, self._closer = session, loop, closer
        return session

    def _let_go(self) -> None:
        """Drop the session of a loop that is not the running one, without awaiting it there."""
        session, loop, closer = self._session, self._loop, self._closer
        self._session = self._loop = self._closer = None
        if session is None or closer is None or loop is None or session.closed:
            return
        if loop.is_running():  # in another thread: let that loop close it
            asyncio.run_coroutine_threadsafe(_finish(closer), loop)
        else:  # closed or idle: nothing waits there, so close what needs no loop
            finish_without_loop(closer.aclose())

    def _client_timeout(self, timeout: Timeout) -> aiohttp.ClientTimeout:
        """aiohttp's part of the timeouts: connecting only (no timer per request).

        The read and total times are the watchdog's (`_watchdog`).
        """
        found = self._timeouts.get(timeout.connect)
        if found is None:
            found = aiohttp.ClientTimeout(total=None, sock_connect=timeout.connect)
            self._timeouts[timeout.connect] = found
        return found

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        loop = asyncio.get_running_loop()
        session = self._session
        if session is None or self._loop is not loop or session.closed:
            session = self._open()
        watchdog = self._watchdog
        if watchdog is None or watchdog.loop is not loop:
            watchdog = self._watchdog = Watchdog(loop)
        error: APIConnectionError | ResponseTooLargeError | HookError
        secrets = self._proxies.secrets
        try:
            raw, complete = await self._exchange(session, request, timeout, watchdog)
        except aiohttp.ConnectionTimeoutError as exc:
            error = connection_error(
                request, "timed out connecting", exc, sent=False, timeout=True, secrets=secrets
            )
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            error = connection_error(
                request,
                "timed out waiting for the reply",
                exc,
                sent=True,
                timeout=True,
                secrets=secrets,
            )
        except aiohttp.ClientConnectorCertificateError as exc:
            what = f"TLS certificate verification failed: {_certificate_problem(exc)}"
            error = connection_error(request, what, exc, sent=False, secrets=secrets)
        except aiohttp.ClientHttpProxyError as exc:  # the proxy answered CONNECT with an error
            what = f"the proxy refused the tunnel: {exc.status} {exc.message}"
            error = connection_error(request, what, exc, sent=False, secrets=secrets)
        except aiohttp.ClientProxyConnectionError as exc:
            error = connection_error(
                request, "could not connect to the proxy", exc, sent=False, secrets=secrets
            )
        except aiohttp.ClientConnectorError as exc:
            what = f"could not connect ({type(exc).__name__})"
            error = connection_error(request, what, exc, sent=False, secrets=secrets)
        except aiohttp.ClientResponseError as exc:  # also aiohttp's own header limits
            if exc.message.startswith(_AIOHTTP_HEAD_LIMITS):
                error = head_too_large(request)
            else:
                what = f"connection failed ({type(exc).__name__})"
                error = connection_error(request, what, exc, sent=True, secrets=secrets)
        except (aiohttp.ClientError, OSError, ValueError) as exc:  # (ValueError: yarl's, a
            # URL or header value it refuses, which the SDK should have refused before)
            what = f"connection failed ({type(exc).__name__})"
            error = connection_error(request, what, exc, sent=True, secrets=secrets)
        except _CallersCode as exc:  # (a caller's session only: `SessionTransport`)
            error = callers_client_error(request, "session=", exc.args[0])
        else:
            if complete == _COMPLETE and raw.status >= 100:
                return raw
            if complete == _HEAD_TOO_LARGE:
                scrub_key(request, raw)
                error = head_too_large(request)
            elif raw.status < 100:  # aiohttp reads `HTTP/1.1 000`; hyper and h11 refuse it
                error = not_a_status(request)
            else:
                error = too_large(request, raw, self.max_response_bytes)
        raise error  # outside the handler: the library's exception is not its context

    async def _exchange(
        self,
        session: aiohttp.ClientSession,
        request: RawRequest,
        timeout: Timeout,
        watchdog: Watchdog,
    ) -> tuple[RawResponse, str]:
        """The reply, and whether it was complete or what went past a limit.

        `_COMPLETE`; `_BODY_TOO_LARGE` (the body is then empty); `_HEAD_TOO_LARGE`
        (the header fields hold more than `MAX_HEADER_BYTES`: the body is not read).

        The library's objects (whose request headers hold the key) live only in this
        frame; `send` raises the SDK's errors from its own.
        """
        started = time.monotonic()
        watch = watchdog.watch(timeout)
        try:
            if request.method not in _RESENT_BY_AIOHTTP:
                # Let the loop read what has arrived first: a server's close of a pooled
                # connection, sent just after its last reply, then keeps aiohttp from
                # taking that connection (and failing to write to it), which a POST would
                # not survive. aiohttp itself resends the other methods on such a failure.
                await asyncio.sleep(0)
            async with session.request(
                request.method,
                yarl_url(request.url, self._origins),
                headers=headers_with_key(request),
                data=request.content,
                allow_redirects=False,
                timeout=self._client_timeout(timeout),
                proxy=self._proxies.for_url(request.url),
                raise_for_status=False,  # a caller's session may say otherwise
            ) as reply:
                watch.stream = reply.content
                content: bytes | None = b""
                if raw_header_bytes(reply.raw_headers) > MAX_HEADER_BYTES:
                    outcome = _HEAD_TOO_LARGE
                else:
                    content = await _read_aiohttp(reply, self.max_response_bytes, request.sink)
                    outcome = _COMPLETE if content is not None else _BODY_TOO_LARGE
                raw = RawResponse(
                    request.method,
                    request.url,
                    request.path,
                    reply.status,
                    reply.headers,
                    b"" if content is None else content,
                    time.monotonic() - started,
                )
                return raw, outcome
        except asyncio.CancelledError as exc:
            timed_out, args = watch.timed_out(), exc.args
        finally:
            watchdog.done(watch)
        # Reached only when cancelled: raised afresh, outside the handler, so that no
        # traceback holds aiohttp's frames, whose locals hold the AccessKey header (error
        # reporters such as Sentry record frame locals).
        if timed_out:
            raise TimeoutError
        raise asyncio.CancelledError(*args)

    async def aclose(self) -> None:
        session, loop, closer = self._session, self._loop, self._closer
        if session is None or closer is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._session = self._loop = self._closer = None
            await closer.aclose()
        else:
            self._let_go()


class SessionTransport(AiohttpTransport):
    """A caller's `aiohttp.ClientSession`, used as given; closing it stays the caller's job.

    Its own connector (pool, TLS), proxy and `trust_env` settings apply; it belongs to
    the event loop that created it, so the client must be used in that loop.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        super().__init__(max_response_bytes=max_response_bytes, network=_CALLERS)
        self.session = session

    def _open(self) -> aiohttp.ClientSession:
        session, loop = self.session, asyncio.get_running_loop()
        if session.closed:
            raise ConfigurationError("the session= given to the client is closed")
        if getattr(session, "_loop", loop) is not loop:
            raise ConfigurationError(
                "the session= given to the client belongs to another event loop: "
                "use the client in the loop that created the session"
            )
        self._session, self._loop = session, loop
        return session

    async def _exchange(
        self,
        session: aiohttp.ClientSession,
        request: RawRequest,
        timeout: Timeout,
        watchdog: Watchdog,
    ) -> tuple[RawResponse, str]:
        """The reply, as the default transport reads it, with the session's own code
        (its middlewares, trace configs) in the way.

        A middleware's `raise_for_status()` (aiohttp's `ClientResponseError`, raised
        from no other exception) is the reply it saw: its status decides, as with
        `ClientSession(raise_for_status=True)`, which `_exchange` turns off. Its body is
        gone (`raise_for_status` releases it). Anything but aiohttp's and the system's
        failures is the caller's code failing: `_CallersCode`, which `send` makes a
        `HookError` of.
        """
        started = time.monotonic()
        try:
            return await super()._exchange(session, request, timeout, watchdog)
        except aiohttp.ClientResponseError as exc:
            if type(exc) is not aiohttp.ClientResponseError or exc.__cause__ is not None:
                raise
            if not 400 <= exc.status <= 999:
                raise
            status, headers = exc.status, exc.headers
        except (aiohttp.ClientError, OSError, SinkFailed):
            raise
        except Exception as exc:
            raise _CallersCode(exc) from None
        raw = RawResponse(
            request.method,
            request.url,
            request.path,
            status,
            headers if headers is not None else {},
            b"",
            time.monotonic() - started,
        )
        return raw, _COMPLETE

    def reserve_connections(self, count: int) -> None:
        """The caller's session keeps its own pool limits."""

    async def aclose(self) -> None:
        """The caller owns the session: it stays open."""
        self._session = self._loop = None


# A caller's session: no proxy from the SDK (the session's own settings apply).
_CALLERS = NetworkSettings(trust_env=False)


def _certificate_problem(exc: aiohttp.ClientConnectorCertificateError) -> str:
    """What OpenSSL said about the certificate, e.g. 'unable to get local issuer certificate'."""
    problem = exc.certificate_error
    text = getattr(problem, "verify_message", None) or getattr(problem, "reason", None)
    return str(text or problem)


async def _close_when_loop_ends(session: aiohttp.ClientSession) -> AsyncGenerator[None, None]:
    """Suspended while the session is open; closing it (`aclose`) closes the session.

    Started inside the session's loop, so the loop's shutdown (`asyncio.run` calls
    `shutdown_asyncgens` before closing the loop) closes the session there, cleanly,
    even when nobody closed the client.
    """
    try:
        yield
    finally:
        await session.close()


async def _finish(closer: AsyncGenerator[None, None]) -> None:
    await closer.aclose()


async def _read_aiohttp(
    reply: aiohttp.ClientResponse, limit: int, sink: BodySink | None = None
) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes.

    A 2xx body goes to `sink` when there is one (b"" then), within the sink's limit.
    """
    if sink is not None and 200 <= reply.status < 300:
        return await into_sink(reply.content.iter_any(), sink)
    length = reply.content_length
    if length is not None and "Content-Encoding" not in reply.headers:
        # Not decoded, so the framing bounds the body to Content-Length.
        return None if length > limit else await reply.read()
    # Read decoded blocks as they come (aiohttp inflates a bounded amount per step;
    # `reply.read()` would lift that bound) and stop at the cap.
    stream = reply.content
    blocks: list[bytes] = []
    size = 0
    while block := await stream.readany():
        size += len(block)
        if size > limit:
            return None
        blocks.append(block)
    return blocks[0] if len(blocks) == 1 else b"".join(blocks)


class HttpxTransport:
    """A caller's `httpx.AsyncClient`, used as given; closing it stays the caller's job.

    The caller's client keeps its own pool, proxies, TLS settings and event loop.
    """

    def __init__(
        self, client: httpx.AsyncClient, *, max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    ) -> None:
        check_limits(1, max_response_bytes)
        self.client = client
        self.max_response_bytes = max_response_bytes

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        import httpx  # the caller imported it to make the client

        error: BaseException
        try:
            async with asyncio.timeout(timeout.total):
                raw, complete = await self._exchange(request, timeout)
        except asyncio.CancelledError as exc:  # afresh, without httpx's frames (see aiohttp's)
            error = asyncio.CancelledError(*exc.args)
        except (httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            error = connection_error(request, "timed out connecting", exc, sent=False, timeout=True)
        except (httpx.TimeoutException, TimeoutError) as exc:
            error = connection_error(
                request, "timed out waiting for the reply", exc, sent=True, timeout=True
            )
        except httpx.ConnectError as exc:
            error = connection_error(
                request, f"could not connect ({type(exc).__name__})", exc, sent=False
            )
        except _UnsentURL as exc:
            error = connection_error(request, f"could not connect ({exc})", exc, sent=False)
        except _Undecodable as exc:
            failure = exc.__cause__ or exc
            what = f"connection failed ({type(failure).__name__})"
            error = connection_error(request, what, failure, sent=True, coding=exc.coding)
        except httpx.InvalidURL as exc:  # a redirect's target, read from the reply: sent
            what = "the reply's redirect target is not a URL (InvalidURL)"
            error = connection_error(request, what, exc, sent=True)
        except httpx.HTTPStatusError as exc:  # a hook's, of no reply to this request
            error = callers_client_error(request, "http_client=", exc)
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            error = connection_error(
                request, f"connection failed ({type(exc).__name__})", exc, sent=True
            )
        except RuntimeError as exc:
            if "Event loop is closed" in str(exc):  # a pooled connection of an earlier run
                what = (
                    "holds connections of an event loop that has ended:"
                    " make the httpx client in the loop that uses it"
                )
            elif "client has been closed" in str(exc):
                what = "has been closed: close it after the EdgeDeliveryClient, not before"
            else:
                what = ""
            error = (
                ConfigurationError(f"the http_client= given to the client {what}")
                if what
                else callers_client_error(request, "http_client=", exc)
            )
        except SinkFailed:  # the file `to_file` writes: `_download` reports it
            raise
        except Exception as exc:  # the caller's code: its client's event hooks or transport
            error = callers_client_error(request, "http_client=", exc)
        else:
            if complete == _COMPLETE:
                return raw
            if complete == _HEAD_TOO_LARGE:
                scrub_key(request, raw)
                error = head_too_large(request)
            else:
                error = too_large(request, raw, self.max_response_bytes)
        raise error  # outside the handler: the library's exception is not its context

    async def _exchange(self, request: RawRequest, timeout: Timeout) -> tuple[RawResponse, str]:
        """The reply, and whether it was complete (see `AiohttpTransport._exchange`)."""
        import httpx

        started = time.monotonic()
        try:
            built = self.client.build_request(
                request.method,
                request.url,
                headers=headers_with_key(request),
                content=request.content,
                timeout=httpx.Timeout(timeout.read, connect=timeout.connect, pool=timeout.total),
            )
        except httpx.InvalidURL as exc:  # the request's own URL: nothing was sent
            raise _UnsentURL(str(exc)) from None
        raised = False  # a response hook's `raise_for_status()` raised for the reply
        try:
            reply = await self.client.send(built, follow_redirects=False, stream=True)
        except httpx.HTTPStatusError as exc:  # a response hook's `raise_for_status()`
            reply, raised = exc.response, True
            if reply.request is not built or reply.is_success:
                raise
            # The reply it saw: its status decides (httpx has closed it: its body is
            # there only if the hook read it).
        try:
            fields = reply.headers.raw
            if len(fields) > MAX_HEADER_FIELDS or raw_header_bytes(fields) > MAX_HEADER_BYTES:
                content: bytes | None = b""
                outcome = _HEAD_TOO_LARGE
            elif raised:  # (a non-2xx, so no sink; httpx has closed it: a reply given whole,
                # as a mock transport's is, is closed too, and goes to a sink as it came)
                content = _read_already(reply, self.max_response_bytes)
                outcome = _COMPLETE if content is not None else _BODY_TOO_LARGE
            else:
                try:
                    content = await _read_httpx(reply, self.max_response_bytes, request.sink)
                except httpx.DecodingError as exc:  # its text does not name the coding
                    raise _Undecodable(reply.headers.get("content-encoding")) from exc
                outcome = _COMPLETE if content is not None else _BODY_TOO_LARGE
        finally:
            await reply.aclose()
        raw = RawResponse(
            request.method,
            request.url,
            request.path,
            reply.status_code,
            reply.headers,
            b"" if content is None else content,
            time.monotonic() - started,
        )
        return raw, outcome

    def reserve_connections(self, count: int) -> None:
        """The caller's client keeps its own pool limits."""

    async def aclose(self) -> None:
        """The caller owns the client."""


def _read_already(reply: httpx.Response, limit: int) -> bytes | None:
    """The body of a reply httpx has closed: what was read of it (b"" if nothing), or
    None past `limit` bytes."""
    import httpx

    try:
        content = reply.content
    except httpx.ResponseNotRead:
        return b""
    return None if len(content) > limit else content


async def _read_httpx(
    reply: httpx.Response, limit: int, sink: BodySink | None = None
) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes (see `_read_aiohttp`)."""
    if sink is not None and 200 <= reply.status_code < 300:
        return await into_sink(reply.aiter_bytes(), sink)
    blocks: list[bytes] = []
    size = 0
    async for block in reply.aiter_bytes():
        size += len(block)
        if size > limit:
            return None
        blocks.append(block)
    return b"".join(blocks)
