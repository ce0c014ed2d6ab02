"""Bulk runs given hostile keys, settings, sources and progress objects (an audit's
findings): each ends with every key's result or an error of the SDK's own, never a
hang, a raw exception or an asyncio complaint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import (
    BulkProgress,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
    collect,
    fan_out,
)
from edgedelivery_async._bulk import RateLimiter
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
