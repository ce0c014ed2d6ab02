"""The earlier opt-in transport: pyreqwest, a Rust HTTP client (the `reqwest` extra).

    pip install 'edgedelivery-async[reqwest]'
    EdgeDeliveryClient(..., transport="reqwest")

It spends about half the CPU per request of aiohttp (more with uvloop: see README,
Performance) and gives the same guarantees as the default transport (see
`_transport`): no redirect followed by the library, TLS verified (rustls against the
operating system's trust store, plus the roots of `verify=<CA bundle>`; an
`ssl.SSLContext` cannot apply and is refused), `proxy=` or HTTP(S)_PROXY/NO_PROXY read
once per origin (unless `trust_env=False`), the connect/read/total timeouts, a
decoded reply size cap enforced while reading, every failure mapped to
`APIConnectionError`/`APITimeoutError`, and the access key added as a header (marked
sensitive, so pyreqwest masks it in reprs) only at the edge.

pyreqwest runs its connection pool on its own Tokio runtime and hands results to
whichever asyncio loop awaits them, so a client works under successive event loops
(`asyncio.run` twice) with nothing to rebind. Its connect and read timeouts are
settings of a pyreqwest client, not of a request: the transport keeps one pyreqwest
client per (connect, read) pair it is asked for (normally one), and sets the total
per request.

`request_sent`: pyreqwest reports a timeout while waiting for the reply's headers as
a `ConnectTimeoutError`, so the class does not say whether the request went out. It
is taken as not sent only when the library's causes name the connect step
("client error (Connect)"); anything else counts as sent, so a POST that may have
reached the server is never retried.

Known issue (pyreqwest 0.15.1): a process that had connection attempts time out
(a black-holed or overloaded host) and exits within a fraction of a second may
abort in the interpreter's finalization ("Fatal Python error: PyGILState_Release",
exit status 134); the aiohttp transport has no such issue.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import AsyncIterator, Iterable
from datetime import timedelta

from pyreqwest import exceptions as rx
from pyreqwest.client import Client, ClientBuilder
from pyreqwest.http import HeaderMap, Url
from pyreqwest.proxy import ProxyBuilder
from pyreqwest.response import Response

from ._exceptions import APIConnectionError, ResponseTooLargeError
from ._http import (
    ACCESS_KEY_HEADER,
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_HEADER_BYTES,
    BodySink,
    RawRequest,
    RawResponse,
    into_sink,
)
from ._network import DEFAULT as DEFAULT_NETWORK
from ._network import NetworkSettings, redact
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

_CONNECT_STEP = "client error (Connect)"


class ReqwestTransport:
    """One pyreqwest client (per connect/read timeout pair), built on first use."""

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
        self._clients: dict[tuple[float, float], Client] = {}
        self._last: tuple[Timeout, Client, timedelta] | None = None
        self._proxies: NoProxy | FixedProxy | ProxyTable = proxies_for(network)
        self._roots = network.trust.for_reqwest()  # refuses an ssl.SSLContext, here
        self._origins: dict[str, str | None] = {}

    def reserve_connections(self, count: int) -> None:
        """Raise the pool size to `count` if no request was made yet."""
        if not self._clients:
            self.max_connections = max(self.max_connections, count)

    def _client(self, timeout: Timeout) -> tuple[Client, timedelta]:
        last = self._last
        if last is not None and last[0] is timeout:
            return last[1], last[2]
        key = (timeout.connect, timeout.read)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = self._build(timeout)
        total = timedelta(seconds=timeout.total)
        self._last = (timeout, client, total)
        return client, total

    def _build(self, timeout: Timeout) -> Client:
        builder = (
            ClientBuilder()
            .follow_redirects(False)  # the engine follows same-origin redirects itself
            .referer(False)
            .max_connections(self.max_connections)
            .connect_timeout(timedelta(seconds=timeout.connect))
            .read_timeout(timedelta(seconds=timeout.read))
            .no_proxy()  # not reqwest's own reading of the environment: ours, per origin
        )
        for root in self._roots:
            builder = builder.add_root_certificate_pem(root)
        proxies = self._proxies
        if isinstance(proxies, FixedProxy):
            proxy = ProxyBuilder.all(proxies.proxy.url)
            if proxies.proxy.username is not None:
                proxy = proxy.basic_auth(proxies.proxy.username, proxies.proxy.password or "")
            builder = builder.proxy(proxy)
        elif isinstance(proxies, ProxyTable) and urllib.request.getproxies():
            builder = builder.proxy(ProxyBuilder.custom(self._proxy_for))
        return builder.build()

    def _proxy_for(self, url: Url) -> str | None:
        origin = url.origin_ascii
        found = self._origins.get(origin, "")
        if found == "":
            assert isinstance(self._proxies, ProxyTable)
            found = self._origins[origin] = self._proxies.lookup(origin)
        return found

    async def send(self, request: RawRequest, timeout: Timeout) -> RawResponse:
        client, total = self._client(timeout)
        started = time.monotonic()
        refused: Exception | None = None
        try:
            builder = client.request(request.method, request.url).headers(request.headers)
        except ValueError as exc:  # a URL its parser refuses (`https://999.1.1.1`), which
            # the others take for a host name that does not resolve: not sent either way
            what = f"could not connect (the URL is refused: {exc})"
            refused = connection_error(request, what, exc, sent=False)
        if refused is not None:
            raise refused  # (outside the handler: the library's exception is not its context)
        error: Exception
        coding: str | None = None
        try:
            if request.access_key is not None:  # marked sensitive: pyreqwest masks it in reprs
                reveal = request.access_key.reveal  # the key itself is never held in a local
                builder = builder.header(ACCESS_KEY_HEADER, reveal(), is_sensitive=True)
            if request.content is not None:
                builder = builder.body_bytes(request.content)
            async with builder.timeout(total).build_streamed() as reply:
                headers, size = _readable(reply.headers)
                if size > MAX_HEADER_BYTES:
                    error = head_too_large(request)
                else:
                    coding = headers.get("content-encoding")
                    content = await _read(reply, headers, self.max_response_bytes, request.sink)
                    try:
                        return received(
                            request, reply.status, headers, content, started,
                            self.max_response_bytes,
                        )  # fmt: skip
                    except ResponseTooLargeError as exc:  # (its reply is scrubbed of the key)
                        error = exc
                del reply, headers  # (they may quote the key: not in the traceback's frame)
        except rx.PyreqwestError as exc:
            if cancelling():  # closed while the caller cancelled it: the caller's wins
                raise asyncio.CancelledError from None
            error = _mapped(exc, request, self._proxies.secrets, coding)
        raise error  # outside the handler: the library's exception is not its context

    async def aclose(self) -> None:
        clients = list(self._clients.values())
        self._clients.clear()
        self._last = None
        for client in clients:
            await client.close()


def _readable(headers: HeaderMap) -> tuple[HeaderMap, int]:
    """The reply's header fields, and the bytes of their names and values.

    pyreqwest reads no value that is not visible ASCII (a `ValueError`): then the
    fields it can read, in a map of their own, and the others are left out.
    """
    try:
        return headers, sum(len(k) + len(v) for k, v in headers.items())
    except ValueError:
        pass
    readable = HeaderMap()
    for name in dict.fromkeys(headers.keys()):
        try:
            values = headers.getall(name)
        except ValueError:
            continue
        for value in values:
            readable.append(name, value)
    return readable, sum(len(k) + len(v) for k, v in readable.items())


async def _read(
    reply: Response, headers: HeaderMap, limit: int, sink: BodySink | None = None
) -> bytes | None:
    """The decoded body, or None as soon as it goes past `limit` bytes.

    A 2xx body goes to `sink` when there is one (b"" then), within the sink's limit.
    """
    if sink is not None and 200 <= reply.status < 300:
        return await into_sink(_blocks(reply), sink)
    length = headers.get("content-length")
    if length is not None and length.isdigit() and "transfer-encoding" not in headers:
        # pyreqwest drops Content-Length when it decodes, so this body is not
        # decoded and its framing bounds it to the length (chunked framing, if
        # given too, wins over the length: then the blocks below count).
        if int(length) > limit:
            return None
        return (await reply.bytes()).to_bytes()
    reader = reply.body_reader
    blocks: list[bytes] = []
    size = 0
    while (block := await reader.read_chunk()) is not None:
        size += len(block)
        if size > limit:
            return None
        blocks.append(block.to_bytes())
    return b"".join(blocks)


async def _blocks(reply: Response) -> AsyncIterator[bytes]:
    """The body's blocks as they arrive."""
    reader = reply.body_reader
    while (block := await reader.read_chunk()) is not None:
        yield block.to_bytes()


def _mapped(
    exc: rx.PyreqwestError, request: RawRequest, secrets: Iterable[str], coding: str | None = None
) -> APIConnectionError:
    causes = exc.details.get("causes") if isinstance(exc, rx.DetailedPyreqwestError) else None
    messages = [str(cause.get("message", "")) for cause in causes or []]
    connecting = any(message.startswith(_CONNECT_STEP) for message in messages)
    if isinstance(exc, rx.PoolTimeoutError):
        what = "timed out waiting for a connection"
        return connection_error(request, what, exc, sent=False, timeout=True, secrets=secrets)
    if isinstance(exc, rx.RequestTimeoutError):
        what = "timed out connecting" if connecting else "timed out waiting for the reply"
        return connection_error(
            request, what, exc, sent=not connecting, timeout=True, secrets=secrets
        )
    if any(message.endswith("message head is too large") for message in messages):
        return head_too_large(request)  # hyper's limits on a reply's head
    what = "could not connect" if connecting else "connection failed"
    what = f"{what} ({type(exc).__name__})"
    if connecting:
        for message in messages:
            if "certificate" in message:  # rustls: "invalid peer certificate: UnknownIssuer"
                what = f"TLS certificate verification failed: {redact(message, secrets)}"
            elif message.startswith("tunnel error"):  # the proxy refused CONNECT
                what = f"the proxy refused the tunnel: {redact(message, secrets)}"
    return connection_error(request, what, exc, sent=not connecting, secrets=secrets, coding=coding)
