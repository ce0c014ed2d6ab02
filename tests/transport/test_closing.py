"""Closing a client while calls are in flight ends those calls with an SDK error.

Never with a `CancelledError`: nobody cancelled the callers' tasks, and `TaskGroup`,
`gather` and the callers' own cancellation handling would take it for a cancellation
of their own. With a caller's httpx client, `aclose()` leaves that client open (it is
the caller's), so the caller closes it too, as a program shutting down would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from aiohttp import web

from edgedelivery_async import APIConnectionError, Timeout

from .loopback import EVERY_TRANSPORT, STACKS, LoopbackServer, build_client, hang, loopback_server

CALLS = 3


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


class Held:
    """Replies that never come; `all_arrived` is set once `count` requests are held."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.all_arrived = asyncio.Event()

    async def reply(self, request: web.Request) -> web.StreamResponse:
        self.count -= 1
        if self.count == 0:
            self.all_arrived.set()
        return await hang(request)

    async def wait(self) -> None:
        async with asyncio.timeout(5):
            await self.all_arrived.wait()


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_closing_with_calls_in_flight(name: str, server: LoopbackServer) -> None:
    held = Held(CALLS)
    server.replies = [held.reply] * CALLS
    caller = httpx.AsyncClient() if name == "httpx" else None
    client = build_client(
        name,
        "edk-closing-1",
        server.base_url,
        http_client=caller,
        max_retries=0,
        timeout=Timeout(connect=5, read=30, total=30),
    )
    calls = [asyncio.ensure_future(client.request("GET", "/mc/registries/1")) for _ in range(CALLS)]
    await held.wait()
    await client.aclose()
    if caller is not None:
        await caller.aclose()
    async with asyncio.timeout(5):  # the calls end now, not at their timeouts
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in outcomes:
        assert not isinstance(outcome, asyncio.CancelledError), outcome
        assert isinstance(outcome, APIConnectionError), repr(outcome)
        assert outcome.method == "GET"
        assert outcome.path == "/mc/registries/1"
    assert not any(call.cancelled() for call in calls)


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_cancelled_call_is_still_cancelled(name: str, server: LoopbackServer) -> None:
    """The caller's own cancellation stays a cancellation, closing or not."""
    held = Held(1)
    server.replies = [held.reply]
    caller = httpx.AsyncClient() if name == "httpx" else None
    client = build_client(name, "edk-closing-2", server.base_url, http_client=caller)
    call = asyncio.ensure_future(client.request("GET", "/mc/registries/1"))
    await held.wait()
    call.cancel()
    await client.aclose()
    if caller is not None:
        await caller.aclose()
    with pytest.raises(asyncio.CancelledError):
        await call


@pytest.mark.parametrize("name", STACKS)  # a caller's closed httpx client is the caller's
async def test_a_closed_client_can_be_used_again(name: str, server: LoopbackServer) -> None:
    """After `aclose()` a client of the SDK's own stacks opens a new pool for the next call."""
    client = build_client(name, "edk-closing-3", server.base_url)
    await client.aclose()
    try:
        found = await client.request("GET", "/mc/registries/1")
    finally:
        await client.aclose()
    assert found["id"] == 31
