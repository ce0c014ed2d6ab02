"""Bulk results stream as each call ends, whatever the pace of the keys' source, and a
cancelled run hands over every result that had finished. No timings: events decide."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import BulkProgress, fan_out


async def test_a_slow_source_does_not_hold_back_finished_results() -> None:
    """The second key is read only after the first result arrived: with a source read
    before yielding (the old window fill), this deadlocks and the timeout fails it."""
    first_result = asyncio.Event()
    read: list[int] = []

    async def source() -> AsyncIterator[int]:
        for key in (1, 2, 3):
            read.append(key)
            yield key
            await first_result.wait()

    async def call(key: int) -> int:
        return key * 10

    got: list[int] = []
    async with asyncio.timeout(5):
        async for result in fan_out(call, source(), concurrency=100):
            got.append(result.value)  # type: ignore[arg-type]
            first_result.set()
    assert got == [10, 20, 30]
    assert read == [1, 2, 3]


async def test_the_source_is_read_no_further_than_concurrency_ahead() -> None:
    release = asyncio.Event()
    read: list[int] = []

    async def source() -> AsyncIterator[int]:
        for key in range(1, 11):
            read.append(key)
            yield key

    async def call(key: int) -> int:
        await release.wait()
        return key

    results = fan_out(call, source(), concurrency=3)
    first = asyncio.ensure_future(results.__anext__())
    for _ in range(20):
        await asyncio.sleep(0)
    assert read == [1, 2, 3]
    release.set()
    assert (await first).ok
    rest = [result async for result in results]
    assert sorted([r.key for r in rest] + [1]) == list(range(1, 11))


@pytest.mark.parametrize("async_source", [False, True], ids=["sync keys", "async keys"])
async def test_cancelling_a_run_yields_every_finished_result_first(async_source: bool) -> None:
    """Calls 1-5 finish in the same loop turn as the cancellation arrives: their results
    are yielded before the CancelledError; the calls still in flight are cancelled."""
    gate = asyncio.Event()
    never = asyncio.Event()
    cancelled: list[int] = []

    async def call(key: int) -> int:
        try:
            await (gate.wait() if key <= 5 else never.wait())
        except asyncio.CancelledError:
            cancelled.append(key)
            raise
        return key

    async def keys() -> AsyncIterator[int]:
        for key in range(1, 9):
            yield key

    got: list[int] = []
    progress = BulkProgress()

    async def consume() -> None:
        source = keys() if async_source else range(1, 9)
        async for result in fan_out(call, source, concurrency=8, progress=progress):
            got.append(result.key)

    consumer = asyncio.create_task(consume())
    for _ in range(20):
        await asyncio.sleep(0)
    gate.set()
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert sorted(got) == [1, 2, 3, 4, 5]
    assert sorted(cancelled) == [6, 7, 8]
    assert progress.succeeded == 5
    assert progress.started == 8
