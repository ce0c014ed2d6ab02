"""The default aiohttp transport against a real loopback server started in the test."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from edgedelivery_async import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    EdgeDeliveryClient,
    NotFoundError,
    Timeout,
)
from edgedelivery_async._engine import USER_AGENT
from edgedelivery_async._transport import AiohttpTransport

from .conftest import FAST, KEY, REGISTRY

Reply = Callable[[web.Request], Awaitable[web.StreamResponse]]


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


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


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


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_success_over_aiohttp(server: LoopbackServer) -> None:
    async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST) as client:
        assert isinstance(client._engine.transport, AiohttpTransport)
        registry = await client.registries.get(31)
        registry_id = await client.registries.add(display_name="main")
        response = await client.registries.get.with_response("a/b c%2F")

    assert registry.id == 31
    assert registry_id == 5
    assert response.headers["x-request-id"] == "req-1"
    get, post, encoded = server.requests
    assert (get.method, get.raw_path, get.body) == ("GET", "/mc/registries/31", b"")
    assert (post.method, post.raw_path) == ("POST", "/mc/registries")
    assert post.body == b'{"displayName":"main"}'
    assert encoded.raw_path == "/mc/registries/a%2Fb%20c%252F"
    for index in range(3):
        assert server.header(index, "AccessKey") == [KEY]
        assert server.header(index, "User-Agent") == [USER_AGENT]
    assert server.header(0, "Content-Type") == []
    assert server.header(1, "Content-Type") == ["application/json"]


async def test_retry_over_aiohttp(server: LoopbackServer) -> None:
    server.replies = [status(503, {"title": "busy"}, **{"Retry-After": "0"})]
    async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST) as client:
        response = await client.registries.get.with_response(31)
    assert response.retries_taken == 1
    assert len(server.requests) == 2


async def test_error_reply_over_aiohttp(server: LoopbackServer) -> None:
    async def compressed(request: web.Request) -> web.StreamResponse:
        body = gzip.compress(json.dumps({"title": "Not Found", "detail": "gone"}).encode())
        return web.Response(
            status=404,
            body=body,
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )

    server.replies = [compressed]
    async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST) as client:
        with pytest.raises(NotFoundError) as info:
            await client.registries.get(31)

    error = info.value
    assert error.message == "gone"
    assert error.response.status_code == 404
    assert error.response.json() == {"title": "Not Found", "detail": "gone"}
    assert "AccessKey" not in error.response.request.headers


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("GET", lambda c: c.registries.get(31)),
        ("POST", lambda c: c.registries.add(display_name="main")),
    ],
)
async def test_connection_refused(closed_port: int, method: str, call: Any) -> None:
    async with EdgeDeliveryClient(KEY, f"http://127.0.0.1:{closed_port}", retry=FAST) as client:
        with pytest.raises(APIConnectionError) as info:
            await call(client)

    error = info.value
    assert not isinstance(error, APITimeoutError)
    assert error.request_sent is False
    assert error.method == method
    assert str(error).startswith(f"{method} /mc/registries")
    assert KEY not in str(error)


async def test_hanging_server_times_out(server: LoopbackServer) -> None:
    server.replies = [hang, hang, hang]
    quick = Timeout(connect=1.0, read=0.2, total=0.3)
    async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST, timeout=quick) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.with_options(max_retries=1).registries.get(31)
        with pytest.raises(APITimeoutError):
            await client.registries.add(display_name="main")  # hangs: not retried

    assert info.value.request_sent is True
    assert [r.method for r in server.requests] == ["GET", "GET", "POST"]


async def test_reply_cut_off(server: LoopbackServer) -> None:
    server.replies = [cut_off]
    async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.add(display_name="main")
    assert info.value.request_sent is True
    assert len(server.requests) == 1  # a POST the server may have acted on is not resent


async def test_aclose(server: LoopbackServer) -> None:
    client = EdgeDeliveryClient(KEY, server.base_url, retry=FAST)
    transport = client._engine.transport
    assert isinstance(transport, AiohttpTransport)
    await client.registries.get(31)
    session = transport._session
    assert session is not None
    assert not session.closed

    await client.with_options(timeout=5).aclose()
    assert not session.closed
    await client.aclose()
    assert session.closed
    assert transport._session is None
    await client.aclose()


async def test_async_with_closes_the_pool(server: LoopbackServer) -> None:
    async with EdgeDeliveryClient(KEY, server.base_url) as client:
        await client.registries.get(31)
        transport = client._engine.transport
        assert isinstance(transport, AiohttpTransport)
        session = transport._session
    assert session is not None
    assert session.closed


async def test_redirects_over_aiohttp(server: LoopbackServer) -> None:
    async with loopback_server() as other:
        server.replies = [
            status(307, None, Location="/mc/registries/32"),
            status(302, None, Location=f"{other.base_url}/mc/registries/33"),
        ]
        async with EdgeDeliveryClient(KEY, server.base_url, retry=FAST) as client:
            with pytest.raises(APIStatusError) as info:
                await client.registries.get(31)

        assert info.value.status_code == 302
        assert other.requests == []  # the other origin (another port) received nothing
        assert [r.raw_path for r in server.requests] == ["/mc/registries/31", "/mc/registries/32"]
        assert server.header(1, "AccessKey") == [KEY]
