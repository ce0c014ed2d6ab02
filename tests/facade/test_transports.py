"""Every transport against a real loopback server started in the test.

The same tests run over the default aiohttp stack, the opt-in wreq and reqwest stacks
(the `speed` and `reqwest` extras) and a caller's httpx client, so none of them is a
second-class path.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
from typing import Any

import pytest
from aiohttp import web
from transport.loopback import (
    EVERY_TRANSPORT,
    REGISTRY,
    STACKS,
    LoopbackServer,
    closed_port,
    cut_off,
    hang,
    loopback_server,
    needs_wreq,
    open_client,
    reset,
    status,
)

from edgedelivery_async import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    EdgeDeliveryClient,
    InvalidRequestError,
    NotFoundError,
    Timeout,
)
from edgedelivery_async._engine import USER_AGENT
from edgedelivery_async._timeouts import LONGEST
from edgedelivery_async._transport import AiohttpTransport

from .conftest import FAST, KEY, UPLOAD_SCANNING

STACK_CLASSES = {
    "aiohttp": "AiohttpTransport",
    "wreq": "WreqTransport",
    "reqwest": "ReqwestTransport",
    "httpx": "HttpxTransport",
}


@pytest.fixture(params=EVERY_TRANSPORT)
def name(request: pytest.FixtureRequest) -> str:
    """The transport under test."""
    param: str = request.param
    return param


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
async def server() -> Any:
    async with loopback_server() as loopback:
        yield loopback


async def test_success(name: str, server: LoopbackServer) -> None:
    async with open_client(name, KEY, server.base_url, retry=FAST) as client:
        assert type(client._engine.transport).__name__ == STACK_CLASSES[name]
        registry = await client.registries.get(31)
        registry_id = await client.registries.add(display_name="main")
        response = await client.registries.get.with_response("a/b c%2F")

    assert registry.id == 31
    assert registry_id == 5
    assert response.headers["x-request-id"] == "req-1"
    assert response.headers["X-Request-Id"] == "req-1"
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


async def test_a_callers_accesskey_header_never_replaces_the_key(
    name: str, server: LoopbackServer
) -> None:
    headers = {"accesskey": "someone-else", "X-Trace": "t-1"}
    async with open_client(name, KEY, server.base_url, default_headers=headers) as client:
        await client.registries.get(31)
    assert server.header(0, "AccessKey") == [KEY]
    assert server.header(0, "X-Trace") == ["t-1"]


async def test_no_key_no_header(name: str, server: LoopbackServer) -> None:
    server.replies = [status(200, UPLOAD_SCANNING)]
    async with open_client(name, None, server.base_url, retry=FAST) as client:
        await client.shield.get_upload_scanning(9001)
    assert server.header(0, "AccessKey") == []


async def test_retry(name: str, server: LoopbackServer) -> None:
    server.replies = [status(503, {"title": "busy"}, **{"Retry-After": "0"})]
    async with open_client(name, KEY, server.base_url, retry=FAST) as client:
        response = await client.registries.get.with_response(31)
    assert response.retries_taken == 1
    assert len(server.requests) == 2


async def test_compressed_error_reply(name: str, server: LoopbackServer) -> None:
    async def compressed(request: web.Request) -> web.StreamResponse:
        body = gzip.compress(json.dumps({"title": "Not Found", "detail": "gone"}).encode())
        return web.Response(
            status=404,
            body=body,
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )

    server.replies = [compressed]
    async with open_client(name, KEY, server.base_url, retry=FAST) as client:
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
async def test_connection_refused(name: str, method: str, call: Any) -> None:
    async with open_client(name, KEY, f"http://127.0.0.1:{closed_port()}", retry=FAST) as client:
        with pytest.raises(APIConnectionError) as info:
            await call(client)

    error = info.value
    assert not isinstance(error, APITimeoutError)
    assert error.request_sent is False
    assert error.method == method
    assert str(error).startswith(f"{method} /mc/registries")
    assert KEY not in str(error)
    assert error.__cause__ is not None  # what the library said, as text
    assert error.__cause__.__traceback__ is None


async def test_hanging_server_times_out(name: str, server: LoopbackServer) -> None:
    server.replies = [hang, hang, hang]
    quick = Timeout(connect=1.0, read=0.2, total=0.3)
    async with open_client(name, KEY, server.base_url, retry=FAST, timeout=quick) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.with_options(max_retries=1).registries.get(31)
        with pytest.raises(APITimeoutError) as post:
            await client.registries.add(display_name="main")  # hangs: not retried

    assert info.value.request_sent is True
    assert post.value.request_sent is True
    assert "waiting for the reply" in str(post.value)
    assert [r.method for r in server.requests] == ["GET", "GET", "POST"]


async def test_the_longest_timeout_is_taken(name: str, server: LoopbackServer) -> None:
    """(10**14 s overflowed the Rust transports' timedelta, 10**400 every transport.)"""
    longest = Timeout(connect=LONGEST, read=LONGEST, total=LONGEST)
    async with open_client(name, KEY, server.base_url, timeout=longest) as client:
        assert (await client.registries.get(31)).id == 31


async def test_read_timeout_shorter_than_total(name: str, server: LoopbackServer) -> None:
    server.replies = [hang]
    quick = Timeout(connect=1.0, read=0.2, total=30.0)
    async with open_client(name, KEY, server.base_url, timeout=quick, max_retries=0) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.registries.get(31)
    assert info.value.request_sent is True


@pytest.mark.parametrize("stack", STACKS)  # a caller's httpx client keeps its own limits
async def test_max_connections_bounds_the_exchanges_at_once(
    stack: str, server: LoopbackServer
) -> None:
    busy = peak = 0
    three = asyncio.Event()  # replies are held until three arrive: a bound above 3 shows

    async def slow(request: web.Request) -> web.StreamResponse:
        nonlocal busy, peak
        busy += 1
        peak = max(peak, busy)
        if busy >= 3:
            three.set()
        with contextlib.suppress(TimeoutError):  # fewer than three: the assertion says so
            await asyncio.wait_for(three.wait(), 5)
        await asyncio.sleep(0.01)
        busy -= 1
        return web.json_response(REGISTRY)

    server.replies = [slow] * 12
    async with open_client(stack, KEY, server.base_url, max_connections=3) as client:
        found = await asyncio.gather(*(client.registries.get(31) for _ in range(12)))
    assert [registry.id for registry in found] == [31] * 12
    assert peak == 3


@needs_wreq
async def test_wreq_waits_for_a_connection_within_the_total_timeout(server: LoopbackServer) -> None:
    server.replies = [hang]
    slow = Timeout(connect=1.0, read=10.0, total=10.0)
    async with open_client("wreq", KEY, server.base_url, max_connections=1, timeout=slow) as client:
        first = asyncio.ensure_future(client.registries.get(31))  # holds the one connection
        for _ in range(500):  # until it reached the server (at most 5 s on a loaded machine)
            if server.requests:
                break
            await asyncio.sleep(0.01)
        quick = client.with_options(timeout=Timeout(connect=1.0, read=5.0, total=0.2))
        with pytest.raises(APITimeoutError) as info:
            await quick.registries.get(32)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
    assert "timed out waiting for a connection" in str(info.value)
    assert info.value.request_sent is False
    assert [seen.raw_path for seen in server.requests] == ["/mc/registries/31"]


@needs_wreq
async def test_wreq_refuses_a_method_it_cannot_send(server: LoopbackServer) -> None:
    async with open_client("wreq", KEY, server.base_url) as client:
        with pytest.raises(InvalidRequestError, match="transport='wreq' sends only GET"):
            await client.request("PROPFIND", "/mc/registries")
        assert (await client.request("OPTIONS", "/mc/registries/31"))["id"] == 31
    assert [seen.method for seen in server.requests] == ["OPTIONS"]


async def test_reply_cut_off(name: str, server: LoopbackServer) -> None:
    server.replies = [cut_off]
    async with open_client(name, KEY, server.base_url, retry=FAST) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.add(display_name="main")
    assert info.value.request_sent is True
    assert len(server.requests) == 1  # a POST the server may have acted on is not resent


async def test_reply_reset(name: str, server: LoopbackServer) -> None:
    server.replies = [reset]
    async with open_client(name, KEY, server.base_url, retry=FAST) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.add(display_name="main")
    assert info.value.request_sent is True  # wreq took "is_connection_reset" for "is_connect"
    assert "could not connect" not in str(info.value)
    assert len(server.requests) == 1


async def test_redirects(name: str, server: LoopbackServer) -> None:
    async with loopback_server() as other:
        server.replies = [
            status(307, None, Location="/mc/registries/32"),
            status(302, None, Location=f"{other.base_url}/mc/registries/33"),
        ]
        async with open_client(name, KEY, server.base_url, retry=FAST) as client:
            with pytest.raises(APIStatusError) as info:
                await client.registries.get(31)

        assert info.value.status_code == 302
        assert other.requests == []  # the other origin (another port) received nothing
        assert [r.raw_path for r in server.requests] == ["/mc/registries/31", "/mc/registries/32"]
        assert server.header(1, "AccessKey") == [KEY]


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
