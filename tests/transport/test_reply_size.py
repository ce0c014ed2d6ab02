"""Replies are capped at `max_response_bytes` decoded bytes, counted while reading.

A gzip body of about 260 kB that inflates to 256 MB must fail with
`ResponseTooLargeError` while the process's peak memory grows by far less than the
bomb (measured in a fresh process, where the peak RSS means something).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from aiohttp import web

from edgedelivery_async import APIConnectionError, APIResponseValidationError, Timeout
from edgedelivery_async._exceptions import ResponseTooLargeError
from edgedelivery_async._http import RawRequest, Transport
from edgedelivery_async._transport import HttpxTransport, make_transport

from .loopback import (
    EVERY_TRANSPORT,
    LoopbackServer,
    loopback_server,
    open_client,
    raw_server,
)

KEY = "edk-size-93c1"
BOMB_MB = 256
CAP = 1000
TIMEOUT = Timeout(connect=2, read=10, total=30)
PEAK_MB = {"aiohttp": 80, "wreq": 80, "reqwest": 80, "httpx": 150}


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gzip of 256 MB of zeros, made in 1 MB steps (the bomb never sits in memory whole)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    zeros = bytes(2**20)
    path = tmp_path_factory.mktemp("bomb") / "bomb.gz"
    with path.open("wb") as out:
        for _ in range(BOMB_MB):
            out.write(packer.compress(zeros))
        out.write(packer.flush())
    return path


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
def test_gzip_bomb_is_refused_with_bounded_memory(name: str, bomb: Path) -> None:
    assert bomb.stat().st_size < 300_000
    child = Path(__file__).with_name("bomb_child.py")
    done = subprocess.run(
        [sys.executable, str(child), name, str(bomb)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["error"] == "ResponseTooLargeError", outcome
    assert outcome["status"] == 200
    assert outcome["limit"] == 64 * 2**20
    # Up to the 64 MiB cap of decoded blocks is held before the cap is passed (the bomb
    # itself is 256 MiB). httpx inflates each network read (up to 64 KiB) in one step,
    # which for gzip of zeros is up to about 67 MB more.
    bound = PEAK_MB[name]
    assert outcome["rss_growth_mb"] < bound, outcome
    assert outcome["traced_peak_mb"] < bound, outcome


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


@pytest.fixture(params=EVERY_TRANSPORT)
async def capped(request: pytest.FixtureRequest) -> AsyncIterator[Transport]:
    """A transport of each kind with a cap of 1000 bytes."""
    if request.param == "httpx":
        async with httpx.AsyncClient() as caller:
            yield HttpxTransport(caller, max_response_bytes=CAP)
        return
    transport = make_transport(request.param, max_response_bytes=CAP)
    yield transport
    await transport.aclose()


def body_of(size: int, *, compressed: bool = False, chunked: bool = False) -> web.Response:
    data = b"[" + b" " * (size - 2) + b"]"
    headers = {"Content-Type": "application/json"}
    if compressed:
        headers["Content-Encoding"] = "gzip"
    response = web.Response(body=gzip.compress(data) if compressed else data, headers=headers)
    if chunked:
        response.enable_chunked_encoding()
    return response


async def fetch(transport: Transport, server: LoopbackServer) -> bytes:
    url = f"{server.base_url}/mc/registries/1"
    reply = await transport.send(RawRequest("GET", url, "/mc/registries/1", {}), TIMEOUT)
    return reply.content


@pytest.mark.parametrize(
    "shape",
    [{}, {"chunked": True}, {"compressed": True}, {"compressed": True, "chunked": True}],
    ids=["content-length", "chunked", "gzip", "gzip-chunked"],
)
async def test_over_the_cap(
    capped: Transport, server: LoopbackServer, shape: dict[str, bool]
) -> None:
    async def reply(request: web.Request) -> web.Response:
        return body_of(CAP + 1, **shape)

    server.replies = [reply]
    with pytest.raises(ResponseTooLargeError) as info:
        await fetch(capped, server)
    error = info.value
    assert isinstance(error, APIResponseValidationError)
    assert error.status_code == 200
    assert error.limit == CAP
    assert error.headers["content-type"] == "application/json"
    assert error.body is None
    assert f"max_response_bytes={CAP}" in str(error)


@pytest.mark.parametrize(
    "shape",
    [{}, {"chunked": True}, {"compressed": True}],
    ids=["content-length", "chunked", "gzip"],
)
async def test_at_the_cap(
    capped: Transport, server: LoopbackServer, shape: dict[str, bool]
) -> None:
    async def reply(request: web.Request) -> web.Response:
        return body_of(CAP, **shape)

    server.replies = [reply]
    content = await fetch(capped, server)
    assert len(content) == CAP
    assert json.loads(content) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_too_large_reply_is_not_retried(name: str, server: LoopbackServer) -> None:
    async def huge(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        block = b" " * 2**20
        for _ in range(65):  # 65 MiB, past the default 64 MiB cap
            await response.write(block)
        await response.write_eof()
        return response

    server.replies = [huge, huge, huge]
    async with open_client(name, KEY, server.base_url) as client:
        with pytest.raises(ResponseTooLargeError):
            await client.registries.get(1)
    assert len(server.requests) == 1


async def test_a_length_beside_chunked_framing_does_not_lift_the_cap(capped: Transport) -> None:
    """`Content-Length: 5` and `Transfer-Encoding: chunked`: the chunks frame the body
    (reqwest read all 10,000 bytes past a cap of 1,000, trusting the length)."""
    block = b"[" + b" " * (10 * CAP - 2) + b"]"

    async with raw_server() as server:
        server.answer = (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            b"%x\r\n%s\r\n0\r\n\r\n" % (len(block), block)
        )
        url = f"{server.base_url}/mc/registries/1"
        with pytest.raises((ResponseTooLargeError, APIConnectionError)):
            await capped.send(RawRequest("GET", url, "/mc/registries/1", {}), TIMEOUT)
