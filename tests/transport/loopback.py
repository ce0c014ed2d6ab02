"""Loopback HTTP servers and client factories shared by the transport tests.

Every transport is tested the same way: `open_client(name, ...)` gives a full
`EdgeDeliveryClient` on the named stack ("aiohttp", "wreq", "reqwest", or a caller's "httpx"
client), and `LoopbackServer` records what arrived and plays scripted replies.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import struct
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from aiohttp import web

from edgedelivery_async import EdgeDeliveryClient

REGISTRY = {
    "id": 31,
    "accountId": "acc-5a1",
    "userId": "usr-77c",
    "namespaceId": "ns-main",
    "displayName": "main",
    "hostName": "registry.example.com",
    "userName": "deploy",
    "firstPasswordSymbols": "ab",
    "lastPasswordSymbols": "yz",
    "createdAt": "2026-11-01T08:30:00Z",
    "isPublic": False,
    "lastUpdatedAt": "2026-11-02T10:00:00Z",
}

HAS_REQWEST = importlib.util.find_spec("pyreqwest") is not None
needs_reqwest = pytest.mark.skipif(not HAS_REQWEST, reason="the reqwest extra is not installed")

# The SDK's own stacks, and a caller's httpx client.
HAS_WREQ = importlib.util.find_spec("wreq") is not None
needs_wreq = pytest.mark.skipif(not HAS_WREQ, reason="the speed extra is not installed")

STACKS = [
    "aiohttp",
    pytest.param("wreq", marks=needs_wreq),
    pytest.param("reqwest", marks=needs_reqwest),
]
EVERY_TRANSPORT = [*STACKS, "httpx"]

Reply = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def open_client(name: str, *args: Any, **kwargs: Any) -> AsyncIterator[EdgeDeliveryClient]:
    """A client on the named transport, closed (with a caller's httpx client) on exit."""
    caller_client = httpx.AsyncClient() if name == "httpx" else None
    client = build_client(name, *args, http_client=caller_client, **kwargs)
    try:
        async with client:
            yield client
    finally:
        if caller_client is not None:
            await caller_client.aclose()


def build_client(
    name: str, *args: Any, http_client: httpx.AsyncClient | None = None, **kwargs: Any
) -> EdgeDeliveryClient:
    """A client on the named transport (`http_client` for "httpx")."""
    if name == "httpx":
        assert http_client is not None
        return EdgeDeliveryClient(*args, http_client=http_client, **kwargs)
    return EdgeDeliveryClient(*args, transport=name, **kwargs)


@dataclass
class Seen:
    method: str
    raw_path: str
    headers: list[tuple[str, str]]
    body: bytes


@dataclass
class LoopbackServer:
    """An aiohttp server on 127.0.0.1 that records requests and plays scripted replies."""

    base_url: str = ""
    requests: list[Seen] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.requests.append(
            Seen(request.method, request.raw_path, list(request.headers.items()), body)
        )
        if self.replies:
            return await self.replies.pop(0)(request)
        if request.method == "POST":
            return web.json_response({"id": 5, "error": ""})
        return web.json_response(REGISTRY, headers={"X-Request-Id": "req-1"})

    def header(self, index: int, name: str) -> list[str]:
        return [v for k, v in self.requests[index].headers if k.lower() == name.lower()]


def status(code: int, body: Any = None, **headers: str) -> Reply:
    async def reply(request: web.Request) -> web.StreamResponse:
        return web.json_response(body, status=code, headers=headers)

    return reply


async def hang(request: web.Request) -> web.StreamResponse:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def cut_off(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Length": "100"})
    await response.prepare(request)
    await response.write(b'{"id": ')
    assert request.transport is not None
    request.transport.close()
    return response


@dataclass
class RawServer:
    """A loopback server that answers every request with the bytes of `answer`, for
    replies no HTTP library would write; it keeps each request's head."""

    answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
    heads: list[bytes] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            self.heads.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(self.answer)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client gave up on the reply: that is the point of some tests
        finally:
            writer.close()


@asynccontextmanager
async def raw_server() -> AsyncIterator[RawServer]:
    """A `RawServer` listening on 127.0.0.1 for the length of the block."""
    raw = RawServer()
    listening = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
    raw.port = listening.sockets[0].getsockname()[1]
    async with listening:
        yield raw


async def reset(request: web.Request) -> web.StreamResponse:
    """Part of a reply, then a TCP reset (not a clean close): "connection reset by peer"."""
    response = web.StreamResponse(status=200, headers={"Content-Length": "100"})
    await response.prepare(request)
    await response.write(b'{"id": ')
    await asyncio.sleep(0.05)  # the client has the head before the reset
    transport = request.transport
    assert transport is not None
    transport.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
    )
    transport.abort()
    return response


@asynccontextmanager
async def loopback_server() -> AsyncIterator[LoopbackServer]:
    loopback = LoopbackServer()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", loopback.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.1, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    loopback.base_url = f"http://{host}:{port}"
    try:
        yield loopback
    finally:
        await runner.cleanup()


async def stop(runner: web.AppRunner) -> None:
    """Stop a TLS test server once its clients' idle connections have gone (at most 1 s).

    Clients on a Rust transport close their pooled connections on the library's own
    thread, just after `aclose()`. A TLS server stopped while one is still open starts
    a TLS shutdown that can outlive the test, leaving its socket to the garbage
    collector (a ResourceWarning the tests refuse). Plain TCP closes at once.
    """
    server = runner.server
    for _ in range(100):
        # Only idle connections are waited for: a handler still at work (a test's hanging
        # reply) is the test's own, and cleanup cancels it.
        idle = [c for c in server.connections if not c._request_in_progress] if server else []
        if not idle:
            break
        await asyncio.sleep(0.01)
    await runner.cleanup()


class ThreadedServer:
    """A `LoopbackServer` on its own event loop in a thread, for tests that run
    several event loops one after another (`asyncio.run` twice)."""

    def __init__(self) -> None:
        self.loopback = LoopbackServer()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base_url(self) -> str:
        return self.loopback.base_url

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the loopback server did not start")
        return self.loopback

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with loopback_server() as loopback:
            self.loopback = loopback
            self._ready.set()
            await self._stop.wait()


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
