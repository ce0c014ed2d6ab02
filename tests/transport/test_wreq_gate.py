"""The wreq transport's bound on exchanges at once (`_wreq._Gate`): no place is lost."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("wreq")

from edgedelivery_async._wreq import _Gate


async def test_places_are_taken_then_handed_over_in_order() -> None:
    gate = _Gate(2)
    assert gate.enter_now()
    assert gate.enter_now()
    assert not gate.enter_now()
    order: list[str] = []

    async def wait(name: str) -> None:
        await gate.enter()
        order.append(name)

    waiting = [asyncio.create_task(wait(name)) for name in ("b", "c")]
    await asyncio.sleep(0)
    gate.leave()
    gate.leave()
    await asyncio.gather(*waiting)
    assert order == ["b", "c"]
    assert gate.busy == 2  # handed over, not freed
    gate.leave()
    gate.leave()
    assert gate.busy == 0


async def test_a_waiter_cancelled_after_the_handover_passes_its_place_on() -> None:
    gate = _Gate(1)
    assert gate.enter_now()
    b = asyncio.create_task(gate.enter())
    c = asyncio.create_task(gate.enter())
    await asyncio.sleep(0)
    gate.leave()  # hands the place to b ...
    b.cancel()  # ... which is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await b
    await asyncio.wait_for(c, 1)  # c got the place b could not use
    assert gate.busy == 1
    gate.leave()
    assert gate.busy == 0
    assert not gate.waiting


async def test_a_waiter_that_times_out_leaves_the_queue() -> None:
    gate = _Gate(1)
    assert gate.enter_now()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await gate.enter()
    assert not gate.waiting
    gate.leave()
    assert gate.busy == 0
    assert gate.enter_now()
