"""Bulk runs given hostile keys, settings, sources and progress objects (an audit's
findings): each ends with every key's result or an error of the SDK's own, never a
hang, a raw exception or an asyncio complaint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator

import pytest

from edgedelivery_async import (
    BulkOutcome,
    BulkProgress,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
    collect,
    fan_out,
)
from edgedelivery_async._bulk import MOST_CONCURRENCY, RateLimiter
from edgedelivery_async.testing import FakeEdgeDelivery

KEY = "fake-access-key"


async def echo(key: object) -> object:
    await asyncio.sleep(0)
    return key


def test_a_rate_limit_beyond_any_float_is_no_limit_and_a_glacial_one_is_refused() -> None:
    """10**400 raised a raw OverflowError; 1e-320 made the second call wait for ever."""
    assert RateLimiter(10**400).interval == 0.0
    for rate in (1e-320, 0.0009, float("nan")):
        with pytest.raises(ConfigurationError, match=r"at least 0\.001"):
            RateLimiter(rate)


async def test_a_call_that_raises_a_base_exception_still_gives_its_key_a_result() -> None:
    """A Rust library's panic is a BaseException: the key had no result, the run hung."""

    class Panic(BaseException):
        pass

    async def call(key: int) -> int:
        if key == 2:
            raise Panic("a semaphore may not have more than MAX_PERMITS permits")
        return key

    results = await asyncio.wait_for(_all(fan_out(call, [1, 2, 3])), 5)
    assert sorted(r.key for r in results) == [1, 2, 3]
    (failed,) = [r for r in results if r.error is not None]
    assert isinstance(failed.error, EdgeDeliveryError)
    assert isinstance(failed.error.__cause__, Panic)


async def test_a_progress_object_that_raises_ends_an_async_run_with_its_error() -> None:
    """With an async source the run hung: a place was taken before the count raised."""

    class Broken(BulkProgress):
        def __setattr__(self, name: str, value: object) -> None:
            if name == "started" and value == 2:
                raise RuntimeError("progress sink down")
            super().__setattr__(name, value)

    async def ids() -> AsyncIterator[int]:
        for key in range(1, 6):
            yield key

    with pytest.raises(RuntimeError, match="progress sink down"):
        await asyncio.wait_for(_all(fan_out(echo, ids(), progress=Broken())), 5)


async def test_an_async_source_that_raises_cancelled_error_is_not_a_clean_end() -> None:
    """It was taken for the end of the keys: the run ended normally, short of keys."""

    async def ids() -> AsyncIterator[int]:
        yield 1
        yield 2
        raise asyncio.CancelledError

    seen: list[int] = []

    async def read() -> None:
        async for result in fan_out(echo, ids()):
            seen.append(result.key)  # type: ignore[arg-type]

    with pytest.raises(asyncio.CancelledError):
        await read()
    assert sorted(seen) == [1, 2]


async def test_an_async_iterable_whose_aiter_is_not_an_iterator_is_invalid() -> None:
    """aiter() raised a raw TypeError (a sync iterable of the same kind was refused)."""

    class NotAnIterator:
        def __aiter__(self) -> object:
            return object()

    with pytest.raises(InvalidRequestError, match="iterable"):
        await _all(fan_out(echo, NotAnIterator()))  # type: ignore[arg-type]


async def test_collect_refuses_keys_it_cannot_gather_by() -> None:
    """An unhashable key raised a raw TypeError from the dict."""
    with pytest.raises(ConfigurationError, match="hashable"):
        await collect(fan_out(echo, [[1], [2]]))


async def test_collect_keeps_what_a_run_whose_source_raises_had() -> None:
    """A key source raising after 50 ids: the 50 were served, collect re-raised, and its
    gathered results were lost with it (none of those keys was in `unfinished`, since
    each had its result). An `outcome` of the caller's now holds them."""
    fake = FakeEdgeDelivery(KEY)
    fake.seed_pull_zones(60)

    def ids() -> Iterator[int]:
        yield from range(1, 51)
        raise OSError("the ids database went away")

    progress = BulkProgress()
    outcome: BulkOutcome[int, object] = BulkOutcome()
    async with fake.serve() as url, EdgeDeliveryClient(access_key=KEY, base_url=url) as client:
        run = client.shield.iter_zones_by_pull_zones(ids(), concurrency=10, progress=progress)
        with pytest.raises(OSError, match="went away"):
            await collect(run, outcome=outcome)
    assert len(fake.requests) == 50
    assert set(outcome.values) | set(outcome.errors) == set(range(1, 51))
    assert progress.unfinished == []


async def test_collect_keeps_what_a_cancelled_run_had() -> None:
    """Cancelled (a timeout, a task group), collect lost the results it had gathered;
    its `outcome` holds them, and `progress.unfinished` the keys whose calls it stopped."""
    gate = asyncio.Event()

    async def call(key: int) -> int:
        if key % 2:
            await gate.wait()  # odd keys never end
        if key == 4:
            raise ValueError("four")
        return key * 10

    progress = BulkProgress()
    outcome: BulkOutcome[int, int] = BulkOutcome()
    task = asyncio.create_task(
        collect(fan_out(call, range(10), progress=progress), outcome=outcome)
    )
    for _ in range(1000):  # (the even keys end within a few turns of the loop)
        if len(outcome.values) + len(outcome.errors) == 5:
            break
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert outcome.values == {0: 0, 2: 20, 6: 60, 8: 80}
    assert list(outcome.errors) == [4]
    assert sorted(progress.unfinished) == [1, 3, 5, 7, 9]


async def test_collect_stops_the_calls_in_flight_when_it_raises() -> None:
    """collect raised (an unhashable key) without closing the run: its calls went on,
    and `unfinished` stayed empty until the garbage collector closed it."""
    gate = asyncio.Event()

    async def call(key: object) -> object:
        if key != [2]:
            await gate.wait()
        return key

    progress = BulkProgress()
    with pytest.raises(ConfigurationError, match="hashable"):
        await collect(fan_out(call, [1, [2], 3], progress=progress))
    assert sorted(progress.unfinished) == [1, 3]  # type: ignore[type-var]
    assert progress.in_flight == 0


async def test_collect_refuses_what_is_not_a_run_or_an_outcome() -> None:
    with pytest.raises(ConfigurationError, match="results must be a bulk run"):
        await collect([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="outcome must be a BulkOutcome"):
        await collect(fan_out(echo, [1]), outcome={})  # type: ignore[arg-type]


async def test_an_id_of_thousands_of_digits_is_an_invalid_request() -> None:
    """Formatting it into the message raised Python's 4,300-digit ValueError."""
    huge = 10**5000
    fake = FakeEdgeDelivery(KEY)
    async with fake.serve() as url, EdgeDeliveryClient(access_key=KEY, base_url=url) as client:
        with pytest.raises(InvalidRequestError, match="bit integer is out of the 64-bit"):
            await client.shield.get_zone_by_pull_zone(huge)
        (result,) = await _all(client.shield.get_zone_by_pull_zone.map([huge]))
    assert isinstance(result.error, InvalidRequestError)


@pytest.mark.parametrize("transport", ["aiohttp", "wreq", "reqwest"])
async def test_a_concurrency_beyond_any_pool_runs(transport: str) -> None:
    """reqwest's pool took it as its size: OverflowError at 2**64, a panic and a hang
    at 2**62, and the client was broken for later calls."""
    fake = FakeEdgeDelivery(KEY)
    fake.seed_pull_zones(3)
    async with (
        fake.serve() as url,
        EdgeDeliveryClient(access_key=KEY, base_url=url, transport=transport) as client,
    ):
        read = client.shield.get_zone_by_pull_zone
        for concurrency in (2**64, 2**62):
            results = await asyncio.wait_for(_all(read.map([1, 2, 3], concurrency=concurrency)), 10)
            assert sorted((r.key, r.error) for r in results) == [(1, None), (2, None), (3, None)]
        await read(1)


def test_max_connections_beyond_any_pool_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="max_connections must be at most 65,536"):
        EdgeDeliveryClient(access_key=KEY, base_url="https://api.edge.test", max_connections=2**62)


def test_a_run_left_by_break_closes_quietly_when_the_loop_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """asyncio.run cancelled the clean-up it had scheduled, and the run yielded again
    inside it: 'unhandled exception during asyncio.run() shutdown ... async generator
    ignored GeneratorExit'."""

    async def main() -> None:
        results = fan_out(echo, range(1, 50))
        async for _ in results:
            break

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
    assert not [r for r in caplog.records if "GeneratorExit" in r.getMessage() + str(r.exc_info)]


async def _all(results: AsyncIterator[object]) -> list:  # type: ignore[type-arg]
    return [result async for result in results]


@pytest.mark.parametrize("keys", ["123", b"12", bytearray(b"12"), memoryview(b"12")])
async def test_a_string_of_ids_is_refused_not_read_per_character(keys: object) -> None:
    """`map("42")` read ids 4 and 2, and sent their requests."""
    with pytest.raises(InvalidRequestError, match="one character at a time"):
        await _all(fan_out(echo, keys))  # type: ignore[arg-type]


async def test_a_huge_concurrency_reads_the_source_no_further_ahead_than_a_pool_holds() -> None:
    """concurrency=10**100 read a whole source of 200,000 ids before the first result."""
    read = 0

    def source() -> Iterator[int]:
        nonlocal read
        for key in range(200_000):
            read += 1
            yield key

    results = fan_out(echo, source(), concurrency=10**100)
    await anext(results)
    await results.aclose()
    assert read <= MOST_CONCURRENCY + 1


async def test_a_cancelled_run_names_the_keys_it_stopped() -> None:
    """The calls in flight when the run was cancelled got no result, and nothing said
    which keys they were; `in_flight` still counted them after the run."""
    gate = asyncio.Event()

    async def call(key: int) -> int:
        if key % 2:
            await gate.wait()  # odd keys never end
        return key

    progress = BulkProgress()
    got: list[int] = []
    five = asyncio.Event()

    async def consume() -> None:
        async for result in fan_out(call, range(10), progress=progress):
            got.append(result.key)
            if len(got) == 5:
                five.set()

    task = asyncio.create_task(consume())
    await five.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(got) == [0, 2, 4, 6, 8]
    assert sorted(progress.unfinished) == [1, 3, 5, 7, 9]
    assert progress.in_flight == 0
    assert progress.started == progress.done + len(progress.unfinished)


async def test_a_run_left_early_names_the_keys_it_stopped() -> None:
    async def call(key: int) -> int:
        if key:
            await asyncio.sleep(60)
        return key

    progress = BulkProgress()
    results = fan_out(call, range(4), progress=progress)
    async for _ in results:
        break
    await results.aclose()
    assert sorted(progress.unfinished) == [1, 2, 3]
    assert progress.in_flight == 0


async def test_results_finished_but_not_yielded_when_left_are_unfinished() -> None:
    """Calls that had ended while the caller handled a result sat in the run's queue; a
    break dropped them: neither yielded nor in `unfinished`, and `in_flight` kept them."""
    progress = BulkProgress()
    results = fan_out(_echo_soon, range(10), progress=progress)
    got = []
    async for result in results:
        got.append(result.key)
        await asyncio.sleep(0.05)  # the other nine end meanwhile
        break
    await results.aclose()
    assert got == [0]
    assert sorted(progress.unfinished) == list(range(1, 10))
    assert progress.in_flight == 0
    assert progress.started == progress.done + len(progress.unfinished)


async def _echo_soon(key: int) -> int:
    await asyncio.sleep(0)
    return key


def test_an_access_key_with_spaces_at_its_ends_is_refused() -> None:
    """httpx refused the header (a "connection failure", retried twice); aiohttp, wreq
    and reqwest stripped it: one key, two behaviours."""
    for key in (" k3y", "k3y ", "k3y\t"):
        with pytest.raises(ConfigurationError) as refused:
            EdgeDeliveryClient(access_key=key, base_url="https://api.edge.test")
        assert "k3y" not in str(refused.value)


@pytest.mark.parametrize("headers", [[], 0, "", False])
def test_with_options_refuses_headers_that_are_not_a_mapping(headers: object) -> None:
    client = EdgeDeliveryClient(access_key=KEY, base_url="https://api.edge.test")
    with pytest.raises(ConfigurationError, match="mapping"):
        client.with_options(headers=headers)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", [{"transport": "wreq"}, {"transport": "bogus"},
                                    {"max_connections": 5}])  # fmt: skip
def test_settings_your_http_client_ignores_are_refused(option: dict[str, object]) -> None:
    import httpx

    with pytest.raises(ConfigurationError, match="http_client"):
        EdgeDeliveryClient(
            access_key=KEY, base_url="https://api.edge.test",
            http_client=httpx.AsyncClient(), **option,  # type: ignore[arg-type]
        )  # fmt: skip


@pytest.mark.parametrize("transport", ["aiohttp", "wreq", "reqwest"])
async def test_a_max_connections_the_caller_set_holds_in_bulk_runs(transport: str) -> None:
    """A bulk run raised the pool to its concurrency: max_connections=2 let 18 requests
    out at once, and the client kept the bigger pool for later calls."""
    fake = FakeEdgeDelivery(KEY)
    fake.seed_pull_zones(40)
    fake.set_faults(latency=0.02)
    at_once = most = 0
    respond = fake.respond

    async def counting(*args: object, **kwargs: object) -> object:
        nonlocal at_once, most
        at_once += 1
        most = max(most, at_once)
        try:
            return await respond(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            at_once -= 1

    fake.respond = counting  # type: ignore[method-assign]
    async with (
        fake.serve() as url,
        EdgeDeliveryClient(KEY, url, transport=transport, max_connections=2) as client,
    ):
        results = await _all(client.shield.get_zone_by_pull_zone.map(range(1, 41), concurrency=40))
        assert all(result.ok for result in results)
        assert most <= 2
