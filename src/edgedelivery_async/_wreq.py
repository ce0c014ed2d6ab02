"""The fastest transport: wreq, a Rust HTTP client (the `speed` extra).

    pip install 'edgedelivery-async[speed]'
    EdgeDeliveryClient(..., transport="wreq")

Under uvloop it spends about a third of the CPU per request of a bare aiohttp loop, the
least of the clients measured (README, Performance), and it gives the same guarantees
as the default transport (see `_transport`):

- no redirect followed by the library (the engine follows same-origin ones);
- TLS verified: against wreq's built-in root store (Chromium's), or with
  `verify=<CA bundle>` against the system's default certificate paths plus the bundle
  (an `ssl.SSLContext` cannot apply to its BoringSSL and is refused);
- `proxy=`, or HTTP(S)_PROXY/NO_PROXY read once per origin (unless `trust_env=False`),
  never the library's own reading of the environment;
- the connect, read and total timeouts;
- a decoded reply size cap enforced while reading;
- every failure mapped to `APIConnectionError`/`APITimeoutError`, with `request_sent`
  false only when the library says the connection was not made;
- the access key added as a header only at the edge: a default header of the wreq
  client, held in Rust.

wreq runs its connection pool on its own Tokio runtime and hands results to whichever
asyncio loop awaits them, so a client works under successive event loops. Timeouts and
the key are settings of a wreq client, which cost nothing per request: the transport
keeps one wreq client per (timeouts, key) it is asked for, normally one.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator, Mapping
from datetime import timedelta
from typing import Any

import wreq
from wreq.exceptions import ProxyConnectionError, TlsError
from wreq.exceptions import TimeoutError as WreqTimeoutError

from ._exceptions import APIConnectionError, InvalidRequestError
from ._http import (
    ACCESS_KEY_HEADER,
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_HEADER_BYTES,
    AccessKey,
    BodySink,
    RawRequest,
    RawResponse,
    into_sink,
)
from ._network import DEFAULT as DEFAULT_NETWORK
from ._network import NetworkSettings, redact
from ._schema import Problem
from ._timeouts import Timeout
from ._transport import (
    FixedProxy,
    NoProxy,
    ProxyTable,
    cancelling,
    check_limits,
    connection_error,
    head_too_large,
    proxies_for,
    received,
)

_METHODS = {
    name: getattr(wreq.Method, name)
    for name in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE")
}
_HEADER_MAPS = 64  # distinct header sets kept as HeaderMaps (a client uses a handful)
# Every exception wreq raises (its module lists them): each becomes an SDK error.
_FAILURES: tuple[type[Exception], ...] = tuple(
    getattr(wreq.exceptions, name) for name in wreq.exceptions.__all__
)


class WreqTransport:
    """One wreq client per (timeouts, key) asked for, normally one, built on first use."""

    def __init__(
        self,
        *,
        max_connections: int = 100,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        network: NetworkSettings = DEFAULT_NETWORK,
    ) -> None:
        check_limits(max_connections, max_response_bytes)
        self.max_connections = max_connections
        self.max_response_bytes = max_response_bytes
        self._clients: dict[tuple[float, float, float, AccessKey | None], wreq.Client] = {}
        self._last: tuple[Timeout, AccessKey | None, wreq.Client] | None = None
        self._header_maps: dict[tuple[tuple[str, str], ...], wreq.HeaderMap] = {}
        self._gate = _Gate(max_connections)
        self._proxies: NoProxy | FixedProxy | ProxyTable = proxies_for(network)
        self._verify = network.trust.for_wreq()  # refuses an ssl.SSLContext, here
        self._proxy_objects: dict[str, wreq.Proxy] = {}
        self._closes = 0  # how many times aclose() ran: a call sees whether it ran meanwhile

    def reserve_connections(self, count: int) -> None:
        """Raise the pool size to `count` if no request was made yet."""
        if not self._clients:
            self.max_connections = max(self.max_connections, count)
            self._gate.limit = self.max_connections

    def _client(self, timeout: Timeout, key: AccessKey | None) -> wreq.Client:
        """The wreq client for these timeouts and this key (normally there is one)."""
        last = self._last
        if last is not None and last[0] is timeout and last[1] is key:
            return last[2]
        found = self._clients.get((timeout.connect, timeout.read, timeout.total, key))
        if found is None:
            found = self._build(timeout, key)
            self._clients[(timeout.connect, timeout.read, timeout.total, key)] = found
        self._last = (timeout, key, found)
        return found

    def _build(self, timeout: Timeout, key: AccessKey | None) -> wreq.Client:
        """A client with the timeouts, the proxy, the trust and the key as settings.

        Settings cost nothing per request, where the same per request cost about 5 us.
        The key is a default header of this client: wreq keeps it in Rust, out of reach
        of reprs and tracebacks, and sends it only to the URLs this transport is given.
        """
        proxies = self._proxies
        settings: dict[str, Any] = {
            "redirect": wreq.redirect.Policy.none(),  # the engine follows same-origin ones
            "referer": False,
            "connect_timeout": timedelta(seconds=timeout.connect),
            "read_timeout": timedelta(seconds=timeout.read),
            "timeout": timedelta(seconds=timeout.total),
            "pool_max_idle_per_host": self.max_connections,
            "tls_verify": self._verify,
            "headers": {} if key is None else {ACCESS_KEY_HEADER: key.reveal()},
        }
        if isinstance(proxies, FixedProxy):
            settings["proxies"] = [self._proxy(proxies.for_url(""))]
        else:
            settings["no_proxy"] = True  # not wreq's reading of the environment: ours
        return wreq.Client(**settings)

    def _proxy(self, url: str) -> wreq.Proxy:
        found = self._proxy_objects.get(url)
        if found is None:
            found = self._proxy_objects[url] = wreq.Proxy.all(url)
        return found

    def _header_map(self, headers: dict[str, str]) -> wreq.HeaderMap:
        """`headers` as a wreq HeaderMap, built once per distinct set (a dict costs 3 us more)."""
        items = tuple(headers.items())
        found = self._header_maps.get(items)
        if found is None:
            if len(self._header_maps) >= _HEADER_MAPS:
                self._header_maps.clear()
            found = self._header_maps[items] = wreq.HeaderMap(headers)
        return found

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        method = _METHODS.get(request.method)
        if method is None:  # client.request("PROPFIND", ...): wreq has no other methods
            problem = Problem("method", f"transport='wreq' sends only {', '.join(_METHODS)}")
            raise InvalidRequestError(f"{request.method} {request.shown_path}", [problem])
        client = self._client(timeout, request.access_key)
        headers = self._header_map(request.headers)
        options: dict[str, Any] = {}
        proxies = self._proxies
        if isinstance(proxies, ProxyTable):
            found = proxies.for_url(request.url)
            if found is not None:
                options["proxy"] = self._proxy(found)
        if request.content is not None:
            options["body"] = request.content
        gate = self._gate
        closes = self._closes
        if not gate.enter_now():  # every connection busy: wait, within the total timeout
            await self._wait_for_place(request, timeout)
        started = time.monotonic()
        reply: wreq.Response | None = None
        try:
            if options:
                reply = await client.request(method, request.url, headers=headers, **options)
            else:  # the usual read: no keyword dict to build and unpack
                reply = await client.request(method, request.url, headers=headers)
            headers = reply.headers
            if _header_bytes(headers) <= MAX_HEADER_BYTES:
                content = await _read(reply, self.max_response_bytes, request.sink)
                return received(
                    request,
                    reply.status.as_int(),
                    Headers(headers),
                    content,
                    started,
                    self.max_response_bytes,
                )
            error = head_too_large(request)
        except _FAILURES as exc:
            error = _mapped(exc, request, self._proxies.secrets, _coding(reply))
        except asyncio.CancelledError as exc:
            # wreq cancels the calls of a client it closes. Nobody cancelled this task:
            # the call ends as on every transport, with a connection error.
            if self._closes == closes or cancelling():
                raise
            what = "connection failed: the client was closed while the call was in flight"
            error = connection_error(request, what, exc, sent=True)
        finally:
            gate.leave()
        raise error  # outside the handler: the library's exception is not its context

    async def _wait_for_place(self, request: RawRequest, timeout: Timeout) -> None:
        """Wait for one of the `max_connections` places, within the total timeout."""
        try:
            async with asyncio.timeout(timeout.total):
                await self._gate.enter()
        except TimeoutError as exc:
            what = "timed out waiting for a connection"
            error = connection_error(request, what, exc, sent=False, timeout=True)
        else:
            return
        raise error  # outside the handler, as every transport error

    async def aclose(self) -> None:
        """Close the pools; calls in flight end with `APIConnectionError`."""
        self._closes += 1
        clients = list(self._clients.values())
        self._clients.clear()
        self._last = None
        for client in clients:
            client.close()


class _Gate:
    """At most `limit` exchanges at once, the others waiting in order.

    wreq's pool does not bound the connections it opens (`pool_max_size` bounds the idle
    ones), so the transport does, as aiohttp's connector does for the default transport.
    A semaphore without the coroutine per entry: the usual entry is a counter.
    """

    __slots__ = ("busy", "limit", "waiting")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.busy = 0
        self.waiting: deque[asyncio.Future[None]] = deque()

    def enter_now(self) -> bool:
        """Take a place if one is free and nobody waits for it."""
        if self.busy < self.limit and not self.waiting:
            self.busy += 1
            return True
        return False

    async def enter(self) -> None:
        """Wait for a place (handed over by `leave`)."""
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            await waiter
        except BaseException:  # cancelled or timed out while waiting
            if waiter.done() and not waiter.cancelled():
                self.leave()  # a place was handed over just now: pass it on
            elif waiter in self.waiting:
                self.waiting.remove(waiter)
            raise

    def leave(self) -> None:
        """Give the place to the first waiter still waiting, or free it."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.set_result(None)
                return
        self.busy -= 1


async def _read(reply: wreq.Response, limit: int, sink: BodySink | None = None) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes.

    A 2xx body goes to `sink` when there is one (b"" then), within the sink's limit.
    """
    if sink is not None and 200 <= reply.status.as_int() < 300:
        return await into_sink(_blocks(reply), sink)
    length = reply.content_length
    if length is not None:  # wreq drops the length when it decodes: this body is framed by it
        if length > limit:
            return None
        return bytes(await reply.bytes())
    blocks: list[bytes] = []
    size = 0
    async for block in reply.stream():
        if not isinstance(block, memoryview):  # trailing headers: not part of the body
            continue
        size += len(block)
        if size > limit:
            return None
        blocks.append(bytes(block))
    return blocks[0] if len(blocks) == 1 else b"".join(blocks)


async def _blocks(reply: wreq.Response) -> AsyncIterator[bytes]:
    """The body's blocks as they arrive (trailing headers left out)."""
    async for block in reply.stream():
        if isinstance(block, memoryview):
            yield bytes(block)


def _header_bytes(headers: wreq.HeaderMap) -> int:
    """The bytes of the header fields, names and values (as `raw_header_bytes` counts)."""
    names = headers.keys()
    size = sum(map(len, headers.values()))
    if headers.len() == len(names):  # the usual reply: no name given twice
        return size + sum(map(len, names))
    for name in names:
        size += len(name) * sum(1 for _ in headers.get_all(bytes(name).decode("latin-1")))
    return size


class Headers(Mapping[str, str]):
    """A wreq reply's headers as text, case-insensitive (decoded when asked for), values
    as aiohttp reads them: UTF-8, other bytes kept as lone surrogates."""

    __slots__ = ("_map",)

    def __init__(self, headers: wreq.HeaderMap) -> None:
        self._map = headers

    def __getitem__(self, name: str) -> str:
        value = self._map.get(name)
        if value is None:
            raise KeyError(name)
        return bytes(value).decode("utf-8", "surrogateescape")

    def __iter__(self) -> Iterator[str]:
        names = self._map.keys()  # a list of memoryviews (a HeaderMap is not iterable)
        return (bytes(name).decode("latin-1") for name in names)

    def __len__(self) -> int:
        return int(self._map.keys_len())

    def __repr__(self) -> str:
        return repr(dict(self.items()))


# wreq's errors are Rust debug text; these parts of it are the words a person needs.
_REASON = re.compile(r'(?:reason|message): "([^"]+)"|ConnectError\("([^"]+)"')


def _reason(message: str) -> str:
    """The library's own reasons in `message` (`Connection refused`), comma-separated."""
    found = [next(part for part in match if part) for match in _REASON.findall(message)]
    return ", ".join(dict.fromkeys(found))


# wreq's words for a failure to connect (the request not sent), as whole words:
# "is_connection_reset ... kind: ConnectionReset" is a reply cut off, sent.
_CONNECTING = re.compile(r"\bis_connect\b|\bkind: Connect\b")


def _coding(reply: wreq.Response | None) -> str | None:
    """The reply's Content-Encoding, if it has one (wreq's text does not always name it)."""
    value = None if reply is None else reply.headers.get("content-encoding")
    return None if value is None else bytes(value).decode("latin-1")


def _mapped(
    exc: Exception, request: RawRequest, secrets: Any, coding: str | None = None
) -> APIConnectionError:
    message = str(exc)
    connecting = _CONNECTING.search(message) is not None
    reason = redact(_reason(message), secrets)
    if isinstance(exc, WreqTimeoutError) or "source: TimedOut" in message:  # also mid-body
        what = "timed out connecting" if connecting else "timed out waiting for the reply"
        return connection_error(
            request, what, exc, sent=not connecting, timeout=True, secrets=secrets
        )
    if isinstance(exc, TlsError) or "CERTIFICATE_VERIFY_FAILED" in message:
        what = f"TLS certificate verification failed: {reason or type(exc).__name__}"
        return connection_error(request, what, exc, sent=False, secrets=secrets)
    if isinstance(exc, ProxyConnectionError) or "tunnel" in message.lower():
        what = f"the proxy refused the tunnel: {reason or type(exc).__name__}"
        return connection_error(request, what, exc, sent=False, secrets=secrets)
    if "Parse(TooLarge)" in message:  # hyper's limits on a reply's head
        return head_too_large(request)
    what = "could not connect" if connecting else "connection failed"
    what = f"{what} ({type(exc).__name__})" + (f": {reason}" if reason else "")
    return connection_error(request, what, exc, sent=not connecting, secrets=secrets, coding=coding)
