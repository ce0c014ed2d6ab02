"""Sending one HTTP request: the small seam between the facade and an HTTP stack.

Three stacks sit behind one protocol (`_http.Transport`), selected by name with
`make_transport`:

- "aiohttp", the default: several times faster than httpx under concurrency (see
  README, Performance).
- "reqwest", opt-in with the `speed` extra: pyreqwest, a Rust client that spends about
  half the CPU per request (module `_reqwest`).
- a caller's own `httpx.AsyncClient` (for example with `httpx.MockTransport`), used as
  given (`HttpxTransport`); httpx is imported only for it.

Every stack gives the same guarantees: it follows no redirect itself (the engine
follows same-origin ones), reads HTTP(S)_PROXY/NO_PROXY once per origin, verifies
TLS, applies the connect/read/total timeouts of `Timeout`, decodes the body while
counting it and stops at `max_response_bytes` (`ResponseTooLargeError`), maps every
failure into `APIConnectionError`/`APITimeoutError` with `request_sent` right, and
works under whichever event loop is running. The access key becomes the `AccessKey`
header only at the edge (`_http.headers_with_key`), and the SDK errors raised here
chain to no library exception: their `__cause__` is a `TransportFailure` holding only
the library's message, so no request object (whose headers hold the key) and no
library frame is reachable from them.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
from typing import TYPE_CHECKING, Any

import aiohttp
from yarl import URL

from ._exceptions import (
    APIConnectionError,
    APITimeoutError,
    ConfigurationError,
    ResponseTooLargeError,
)
from ._http import (
    DEFAULT_MAX_RESPONSE_BYTES,
    AccessKey,
    RawRequest,
    RawResponse,
    Transport,
    headers_with_key,
    origin,
)
from ._timeouts import Timeout

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    import httpx

TRANSPORTS = ("aiohttp", "reqwest")
SPEED_HINT = "pip install 'edgedelivery-async[speed]'"


def make_transport(
    name: str = "aiohttp",
    *,
    max_connections: int = 100,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> Transport:
    """The transport called `name`: "aiohttp" (the default) or "reqwest" (the `speed` extra)."""
    if name == "aiohttp":
        return AiohttpTransport(
            max_connections=max_connections, max_response_bytes=max_response_bytes
        )
    if name == "reqwest":
        try:
            from ._reqwest import ReqwestTransport
        except ImportError as exc:
            if not (exc.name or "").startswith("pyreqwest"):
                raise
            raise ConfigurationError(
                f"transport='reqwest' needs the speed extra: {SPEED_HINT}"
            ) from None
        transport: Transport = ReqwestTransport(
            max_connections=max_connections, max_response_bytes=max_response_bytes
        )
        return transport
    raise ConfigurationError(
        f"unknown transport {name!r}: use 'aiohttp' (the default) or 'reqwest' ({SPEED_HINT})"
    )


def check_limits(max_connections: int, max_response_bytes: int) -> None:
    """Raise `ConfigurationError` unless both are positive integers."""
    for label, value in (
        ("max_connections", max_connections),
        ("max_response_bytes", max_response_bytes),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{label} must be a positive integer")


class TransportFailure(Exception):
    """What the HTTP library reported, as text only: the `__cause__` of an SDK error.

    It is never raised, so it has no traceback; it holds no request object, and the
    access key is removed from its text should the library have quoted it.
    """


def connection_error(
    request: RawRequest, what: str, exc: BaseException, *, sent: bool, timeout: bool = False
) -> APIConnectionError:
    """The SDK error for a failed exchange, caused by a text-only copy of `exc`."""
    kind = APITimeoutError if timeout else APIConnectionError
    error = kind(what, method=request.method, path=request.path, request_sent=sent)
    error.__cause__ = TransportFailure(_redacted(_describe(exc), request.access_key))
    return error


def _describe(exc: BaseException) -> str:
    kind = type(exc)
    try:
        text = str(exc)
    except Exception:  # a library's __str__ should not fail; if it does, name the type only
        text = ""
    name = f"{kind.__module__}.{kind.__qualname__}"
    return f"{name}: {text}" if text else name


def _redacted(text: str, key: AccessKey | None) -> str:
    return text if key is None else text.replace(key.reveal(), "***")


class ProxyTable:
    """HTTP(S)_PROXY for each origin, honouring NO_PROXY; looked up once per origin.

    The lookup reads the environment (and, on macOS and Windows, the system settings),
    which is too slow to do per request.
    """

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: dict[str, str | None] = {}

    def for_url(self, url: str) -> str | None:
        """The proxy for an absolute URL with a path, or None."""
        key = url[: url.find("/", url.find("//") + 2)]  # scheme://host:port, cheaply
        found = self._found.get(key, "")
        if found == "":
            found = self._found[key] = self.lookup(key)
        return found

    @staticmethod
    def lookup(origin_url: str) -> str | None:
        """The proxy for `scheme://host[:port]` from the environment, or None."""
        scheme, host, _ = origin(origin_url)
        proxies = urllib.request.getproxies()
        if not proxies or urllib.request.proxy_bypass(host):
            return None
        return proxies.get(scheme)


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
    ) -> None:
        check_limits(max_connections, max_response_bytes)
        self.max_connections = max_connections
        self.max_response_bytes = max_response_bytes
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closer: AsyncGenerator[None, None] | None = None
        self._timeouts: dict[Timeout, aiohttp.ClientTimeout] = {}
        self._proxies = ProxyTable()

    def reserve_connections(self, count: int) -> None:
        """Raise the pool size to `count` if the pool is not open yet."""
        if self._session is None:
            self.max_connections = max(self.max_connections, count)

    def _open(self) -> aiohttp.ClientSession:
        """A session for the running loop; a session of another loop is let go first."""
        loop = asyncio.get_running_loop()
        self._let_go()
        connector = aiohttp.TCPConnector(
            limit=self.max_connections,
            limit_per_host=0,
            # ssl=True (the default) uses aiohttp's verifying context, built once at
            # import: building another costs 20-30 ms on the first call.
            ssl=True,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            # The engine always sends its own User-Agent, so aiohttp adds none: no
            # skip_auto_headers, which would copy the headers on every request.
            trust_env=False,  # the SDK reads proxies once per origin (ProxyTable)
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
        found = self._timeouts.get(timeout)
        if found is None:
            found = aiohttp.ClientTimeout(
                total=timeout.total,
                sock_connect=timeout.connect,
                # aiohttp enforces sock_read with a timer per request, re-armed on every
                # chunk; when the total is no longer than it, the total already covers it.
                sock_read=timeout.read if timeout.read < timeout.total else None,
            )
            self._timeouts[timeout] = found
        return found

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        loop = asyncio.get_running_loop()
        session = self._session
        if session is None or self._loop is not loop or session.closed:
            session = self._open()
        error: APIConnectionError | ResponseTooLargeError
        try:
            raw, complete = await self._exchange(session, request, timeout)
        except aiohttp.ConnectionTimeoutError as exc:
            error = connection_error(request, "timed out connecting", exc, sent=False, timeout=True)
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            error = connection_error(
                request, "timed out waiting for the reply", exc, sent=True, timeout=True
            )
        except aiohttp.ClientConnectorError as exc:
            error = connection_error(
                request, f"could not connect ({type(exc).__name__})", exc, sent=False
            )
        except (aiohttp.ClientError, OSError) as exc:
            error = connection_error(
                request, f"connection failed ({type(exc).__name__})", exc, sent=True
            )
        else:
            if complete:
                return raw
            error = ResponseTooLargeError(raw, limit=self.max_response_bytes)
        raise error  # outside the handler: the library's exception is not its context

    async def _exchange(
        self, session: aiohttp.ClientSession, request: RawRequest, timeout: Timeout
    ) -> tuple[RawResponse, bool]:
        """The reply, and False when its body went past the cap (the body is then empty).

        The library's objects (whose request headers hold the key) live only in this
        frame; `send` raises the SDK's errors from its own.
        """
        started = time.monotonic()
        async with session.request(
            request.method,
            URL(request.url, encoded=True),
            headers=headers_with_key(request),
            data=request.content,
            allow_redirects=False,
            timeout=self._client_timeout(timeout),
            proxy=self._proxies.for_url(request.url),
        ) as reply:
            content = await _read_aiohttp(reply, self.max_response_bytes)
            raw = RawResponse(
                request.method,
                request.url,
                request.path,
                reply.status,
                reply.headers,
                b"" if content is None else content,
                time.monotonic() - started,
            )
            return raw, content is not None

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


async def _read_aiohttp(reply: aiohttp.ClientResponse, limit: int) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes."""
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

        error: APIConnectionError | ResponseTooLargeError
        try:
            async with asyncio.timeout(timeout.total):
                raw, complete = await self._exchange(request, timeout)
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
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            error = connection_error(
                request, f"connection failed ({type(exc).__name__})", exc, sent=True
            )
        else:
            if complete:
                return raw
            error = ResponseTooLargeError(raw, limit=self.max_response_bytes)
        raise error  # outside the handler: the library's exception is not its context

    async def _exchange(self, request: RawRequest, timeout: Timeout) -> tuple[RawResponse, bool]:
        """The reply, and False when its body went past the cap (see `AiohttpTransport`)."""
        import httpx

        started = time.monotonic()
        reply = await self.client.send(
            self.client.build_request(
                request.method,
                request.url,
                headers=headers_with_key(request),
                content=request.content,
                timeout=httpx.Timeout(timeout.read, connect=timeout.connect, pool=timeout.total),
            ),
            follow_redirects=False,
            stream=True,
        )
        try:
            content = await _read_httpx(reply, self.max_response_bytes)
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
        return raw, content is not None

    def reserve_connections(self, count: int) -> None:
        """The caller's client keeps its own pool limits."""

    async def aclose(self) -> None:
        """The caller owns the client."""


async def _read_httpx(reply: httpx.Response, limit: int) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes."""
    blocks: list[bytes] = []
    size = 0
    async for block in reply.aiter_bytes():
        size += len(block)
        if size > limit:
            return None
        blocks.append(block)
    return b"".join(blocks)
