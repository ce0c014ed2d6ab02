"""Read and total timeouts against a loopback server that trickles or stalls its reply.

Every transport keeps the same meaning: `read` is the longest wait for reply data
(so a reply that keeps coming is not cut), `total` bounds the whole attempt. On the
default aiohttp stack both are enforced by one watchdog per event loop instead of
timers per request (`_watchdog`): a timeout may fire up to a tick late, never early.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from aiohttp import web
from transport.loopback import (
    EVERY_TRANSPORT,
    REGISTRY,
    LoopbackServer,
    Reply,
    hang,
    loopback_server,
    open_client,
)

from edgedelivery_async import APITimeoutError, Timeout
from edgedelivery_async._transport import AiohttpTransport

from .conftest import KEY

BODY = json.dumps(REGISTRY).encode()


def trickle(pieces: int, pause: float) -> Reply:
    """The registry in `pieces` parts, `pause` seconds apart (headers at once)."""

    async def reply(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200,
            headers={"Content-Type": "application/json", "Content-Length": str(len(BODY))},
        )
        await response.prepare(request)
        size = -(-len(BODY) // pieces)
        for start in range(0, len(BODY), size):
            await asyncio.sleep(pause)
            await response.write(BODY[start : start + size])
        return response

    return reply


async def headers_then_stall(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Length": str(len(BODY))})
    await response.prepare(request)
    await response.write(BODY[:10])
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


@pytest.fixture(params=EVERY_TRANSPORT)
def name(request: pytest.FixtureRequest) -> str:
    param: str = request.param
    return param


@pytest.fixture
async def server() -> Any:
    async with loopback_server() as loopback:
        yield loopback


async def timed_get(name: str, server: LoopbackServer, timeout: Timeout) -> tuple[Any, float]:
    async with open_client(name, KEY, server.base_url, timeout=timeout, max_retries=0) as client:
        started = time.monotonic()
        try:
            result: Any = await client.registries.get(31)
        except APITimeoutError as error:
            result = error
        return result, time.monotonic() - started


async def test_a_reply_that_keeps_coming_is_not_cut_by_the_read_timeout(
    name: str, server: LoopbackServer
) -> None:
    server.replies = [trickle(pieces=10, pause=0.1)]
    result, elapsed = await timed_get(name, server, Timeout(connect=1, read=0.5, total=10))
    assert not isinstance(result, APITimeoutError), result
    assert result.id == 31
    assert elapsed >= 0.9  # longer than the read timeout, in steps a fifth of it


async def test_the_total_bounds_a_reply_that_keeps_coming(
    name: str, server: LoopbackServer
) -> None:
    server.replies = [trickle(pieces=20, pause=0.1)]
    result, elapsed = await timed_get(name, server, Timeout(connect=1, read=2, total=0.5))
    assert isinstance(result, APITimeoutError)
    assert result.request_sent is True
    assert 0.5 <= elapsed < 1.5


@pytest.mark.parametrize(
    "reply", [headers_then_stall, hang], ids=["stops halfway", "no reply at all"]
)
async def test_a_stalled_reply_times_out_after_the_read_timeout_not_before(
    name: str, server: LoopbackServer, reply: Reply
) -> None:
    server.replies = [reply]
    result, elapsed = await timed_get(name, server, Timeout(connect=1, read=0.3, total=30))
    assert isinstance(result, APITimeoutError)
    assert "waiting for the reply" in str(result)
    assert 0.3 <= elapsed < 1.5


async def test_cancelling_a_call_is_a_cancellation_not_a_timeout(
    server: LoopbackServer,
) -> None:
    server.replies = [hang]
    timeout = Timeout(connect=1, read=0.2, total=0.3)
    async with open_client("aiohttp", KEY, server.base_url, timeout=timeout) as client:
        call = asyncio.ensure_future(client.registries.get(31))
        await asyncio.sleep(0.05)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        transport = client._engine.transport
        assert isinstance(transport, AiohttpTransport)
        assert transport._watchdog is not None
        assert not transport._watchdog._watched  # nothing left to expire later
        await asyncio.sleep(0.4)  # past the timeouts of the cancelled call
        assert (await client.registries.get(31)).id == 31


async def test_a_timeout_inside_a_task_that_was_cancelled_meanwhile_stays_a_cancellation(
    server: LoopbackServer,
) -> None:
    """The watchdog's own cancellation is told apart from the caller's (as asyncio.timeout does)."""
    server.replies = [hang]
    timeout = Timeout(connect=1, read=0.1, total=0.1)
    async with open_client("aiohttp", KEY, server.base_url, timeout=timeout) as client:
        loop = asyncio.get_running_loop()
        call = asyncio.ensure_future(client.registries.get(31))
        # Cancel from outside in the same tick the watchdog expires the call.
        loop.call_later(0.1, call.cancel)
        with pytest.raises(asyncio.CancelledError):
            await call
        assert (await client.registries.get(31)).id == 31


async def test_many_calls_with_different_timeouts_each_keep_their_own(
    server: LoopbackServer,
) -> None:
    slowly = trickle(pieces=3, pause=0.1)

    async def by_path(request: web.Request) -> web.StreamResponse:
        return await (hang(request) if request.path.endswith("/31") else slowly(request))

    server.replies = [by_path, by_path]
    async with open_client("aiohttp", KEY, server.base_url, max_retries=0) as client:
        slow = client.with_options(timeout=Timeout(connect=1, read=0.25, total=0.25))
        patient = client.with_options(timeout=Timeout(connect=1, read=5, total=5))
        hung, trickled = await asyncio.gather(
            slow.registries.get(31), patient.registries.get(32), return_exceptions=True
        )
    assert isinstance(hung, APITimeoutError)
    assert not isinstance(trickled, BaseException)
    assert trickled.id == 31
