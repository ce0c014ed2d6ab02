"""Bulk reads: exactly-once accounting, laziness, bounded concurrency, early exit."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from edgedelivery_async import (
    APITimeoutError,
    BulkProgress,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
    NotFoundError,
    RateControl,
    RateLimitError,
    RetryPolicy,
    Timeout,
    collect,
    fan_out,
)
from edgedelivery_async._bulk import RateLimiter

FAST_RETRY = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002, jitter=0)


def shield_body(pull_zone_id: int) -> dict[str, object]:
    return {"data": {"shieldZoneId": pull_zone_id + 1000, "pullZoneId": pull_zone_id}}


def pull_zone_of(request: httpx.Request) -> int:
    return int(request.url.path.rsplit("/", 1)[1])


class Server:
    """An in-memory shield API that counts what it sees."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests = 0
        self.attempts: dict[int, int] = {}

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            for _ in range(random.randint(0, 3)):
                await asyncio.sleep(0)
            pz = pull_zone_of(request)
            self.attempts[pz] = self.attempts.get(pz, 0) + 1
            return self.reply(pz, self.attempts[pz])
        finally:
            self.in_flight -= 1

    def reply(self, pull_zone_id: int, attempt: int) -> httpx.Response:
        return httpx.Response(200, json=shield_body(pull_zone_id))


def client_for(server: Server, **options: object) -> EdgeDeliveryClient:
    """A client on the in-memory server. These servers answer 429 by id, not by pace, so
    adaptive rate control (which would slow down for them) and the retry budget (which
    would stop retries for ids that are refused for ever) are off unless a test asks."""
    http = httpx.AsyncClient(transport=httpx.MockTransport(server.handler))
    options.setdefault("rate_control", RateControl(adaptive=False, retry_budget=None))
    return EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=http,
        retry=FAST_RETRY,
        **options,  # type: ignore[arg-type]
    )


class FlakyServer(Server):
    """Fails by pull zone id: 404s, transient 503s, 429s with Retry-After, and timeouts."""

    def reply(self, pull_zone_id: int, attempt: int) -> httpx.Response:
        if pull_zone_id % 10 == 1:
            return httpx.Response(404, json={"title": "no shield zone"})
        if pull_zone_id % 10 == 2 and attempt == 1:
            return httpx.Response(503, text="<html>busy</html>")
        if pull_zone_id % 10 == 3 and attempt == 1:
            return httpx.Response(429, headers={"Retry-After": "0"}, json={"title": "slow"})
        if pull_zone_id % 10 == 4:
            raise httpx.ReadTimeout("hung", request=httpx.Request("GET", "https://api.test"))
        if pull_zone_id % 10 == 5:
            return httpx.Response(429, headers={"Retry-After": "0"}, json={"title": "slow"})
        return httpx.Response(200, json=shield_body(pull_zone_id))


async def test_every_id_yields_exactly_one_result_under_failures() -> None:
    server = FlakyServer()
    ids = list(range(1, 501))
    async with client_for(server) as client:
        results = [r async for r in client.shield.iter_zones_by_pull_zones(ids, concurrency=20)]

    assert sorted(r.key for r in results) == ids
    by_key = {r.key: r for r in results}
    for pz, result in by_key.items():
        kind = pz % 10
        if kind == 1:
            assert isinstance(result.error, NotFoundError)
        elif kind == 4:
            assert isinstance(result.error, APITimeoutError)
            assert server.attempts[pz] == 3  # GET is retried after a read timeout
        elif kind == 5:
            assert isinstance(result.error, RateLimitError)
            assert result.error.retry_after == 0
        else:
            assert result.ok, result.error
            assert result.value is not None
            assert result.value.pull_zone_id == pz
    assert {pz for pz, r in by_key.items() if r.ok} == {
        pz for pz in ids if pz % 10 in (0, 2, 3, 6, 7, 8, 9)
    }


async def test_results_do_not_depend_on_completion_order() -> None:
    ids = list(range(1, 301))
    random.shuffle(ids)
    async with client_for(Server()) as client:
        outcome = await collect(client.shield.iter_zones_by_pull_zones(ids, concurrency=7))
    assert outcome.ok
    assert set(outcome.values) == set(ids)
    assert all(v.shield_zone_id == k + 1000 for k, v in outcome.values.items())


async def test_collect_separates_values_and_errors() -> None:
    async with client_for(FlakyServer()) as client:
        outcome = await collect(client.shield.iter_zones_by_pull_zones(range(1, 21)))
    assert not outcome.ok
    assert set(outcome.values) | set(outcome.errors) == set(range(1, 21))
    assert not set(outcome.values) & set(outcome.errors)
    assert set(outcome.errors) == {1, 4, 5, 11, 14, 15}


async def test_collect_keeps_a_repeated_keys_last_result_only() -> None:
    """A key given twice, one call failing and one not, was in both values and errors."""
    from edgedelivery_async import BulkResult

    failed = EdgeDeliveryError("no")

    async def run() -> AsyncIterator[BulkResult[str, int]]:
        yield BulkResult("a", 1)
        yield BulkResult("a", error=failed)
        yield BulkResult("b", error=failed)
        yield BulkResult("b", 2)

    outcome = await collect(run())
    assert outcome.values == {"b": 2}
    assert outcome.errors == {"a": failed}


async def test_in_flight_never_exceeds_concurrency() -> None:
    class SlowServer(Server):
        async def handler(self, request: httpx.Request) -> httpx.Response:
            self.in_flight += 1  # held across several loop turns, so the window fills
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            for _ in range(20):
                await asyncio.sleep(0)
            self.in_flight -= 1
            self.requests += 1
            return httpx.Response(200, json=shield_body(pull_zone_of(request)))

    server = SlowServer()
    async with client_for(server) as client:
        async for _ in client.shield.iter_zones_by_pull_zones(range(1, 401), concurrency=13):
            assert server.in_flight <= 13
    assert server.max_in_flight == 13
    assert server.requests == 400


async def test_source_is_read_lazily_within_the_window() -> None:
    read = 0

    def ids() -> Iterator[int]:
        nonlocal read
        for i in range(1, 1_000_001):  # never materialised
            read += 1
            yield i

    yielded = 0
    async with client_for(Server()) as client:
        results = client.shield.iter_zones_by_pull_zones(ids(), concurrency=8)
        async with contextlib.aclosing(results):
            async for _ in results:
                yielded += 1
                assert read <= yielded + 8
                if yielded == 200:
                    break
    assert read <= 208


async def test_async_iterable_source() -> None:
    async def ids() -> AsyncIterator[str]:
        for i in range(1, 51):
            await asyncio.sleep(0)
            yield str(i)

    async with client_for(Server()) as client:
        outcome = await collect(client.shield.iter_zones_by_pull_zones(ids(), concurrency=5))
    assert set(outcome.values) == {str(i) for i in range(1, 51)}


async def test_bad_ids_fail_alone_and_are_accounted_for() -> None:
    ids: list[object] = [1, "", True, "..", 2, None, 1]
    async with client_for(Server()) as client:
        results = [
            r
            async for r in client.shield.iter_zones_by_pull_zones(ids)  # type: ignore[arg-type]
        ]
    assert sorted(map(repr, (r.key for r in results))) == sorted(map(repr, ids))  # duplicates too
    assert sorted(r.key for r in results if r.ok) == [1, 1, 2]
    failed = [r for r in results if not r.ok]
    assert len(failed) == 4
    assert all(isinstance(r.error, InvalidRequestError) for r in failed)


async def test_leaving_early_cancels_in_flight_and_leaks_nothing() -> None:
    started = asyncio.Event()
    blocked = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal blocked
        if pull_zone_of(request) > 3:
            blocked += 1
            started.set()
            try:
                await asyncio.Event().wait()  # never answers
            finally:
                blocked -= 1
        return httpx.Response(200, json=shield_body(pull_zone_of(request)))

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with EdgeDeliveryClient(base_url="https://api.test", http_client=http) as client:
        results = client.shield.iter_zones_by_pull_zones(range(1, 100), concurrency=10)
        async with contextlib.aclosing(results):
            async for result in results:
                assert result.ok
                await started.wait()
                break
        assert blocked == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}
        # The client stays usable.
        zone = await client.shield.get_zone_by_pull_zone(2)
        assert zone.shield_zone_id == 1002


async def test_cancelling_the_consumer_cancels_in_flight() -> None:
    entered = asyncio.Event()
    blocked = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal blocked
        blocked += 1
        entered.set()
        try:
            await asyncio.Event().wait()
        finally:
            blocked -= 1
        raise AssertionError("unreachable")

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with EdgeDeliveryClient(base_url="https://api.test", http_client=http) as client:

        async def consume() -> None:
            async for _ in client.shield.iter_zones_by_pull_zones(range(1, 50), concurrency=5):
                pass

        task = asyncio.create_task(consume())
        await entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert blocked == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_a_429_holds_back_only_the_refused_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 429 with Retry-After delays its own retry, not every other call of the client
    (the old client-wide pause released every waiting call at once)."""
    from edgedelivery_async import _engine

    sleeps: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(_engine.asyncio, "sleep", fake_sleep)

    class OneRateLimit(Server):
        def reply(self, pull_zone_id: int, attempt: int) -> httpx.Response:
            if pull_zone_id == 1 and attempt == 1:
                return httpx.Response(429, headers={"Retry-After": "7"}, json={})
            return httpx.Response(200, json=shield_body(pull_zone_id))

    async with client_for(OneRateLimit(), rate_control=RateControl()) as client:
        outcome = await collect(client.shield.iter_zones_by_pull_zones(range(1, 21), concurrency=1))
        assert client.rate_controller.rate_limited == 1
        assert client.rate_controller.rate is None  # one refusal is no evidence of a limit
    assert outcome.ok
    # The refused request waits its Retry-After (plus up to a quarter more, to spread
    # retries); no other attempt waits at all.
    waits = [s for s in sleeps if s]
    assert len(waits) == 1
    assert 7.0 <= waits[0] <= 7.0 * 1.25


async def test_rate_limiter_spaces_slots() -> None:
    now = [0.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limiter = RateLimiter(50, clock=lambda: now[0], sleep=sleep)
    for _ in range(5):
        await limiter.acquire()
    assert waits == pytest.approx([0.02, 0.04, 0.06, 0.08])
    now[0] = 10.0  # idle time is not banked as a burst beyond one slot
    await limiter.acquire()
    await limiter.acquire()
    assert waits[-1] == pytest.approx(0.02)


async def test_rate_limit_is_applied_per_key(monkeypatch: pytest.MonkeyPatch) -> None:
    acquired = 0
    original = RateLimiter.acquire

    async def counting(self: RateLimiter) -> None:
        nonlocal acquired
        acquired += 1
        await original(self)

    monkeypatch.setattr(RateLimiter, "acquire", counting)
    async with client_for(Server()) as client:
        results = client.shield.iter_zones_by_pull_zones(range(1, 31), rate_limit=10_000)
        outcome = await collect(results)
    assert acquired == 30
    assert len(outcome.values) == 30


async def test_progress_counters() -> None:
    progress = BulkProgress()
    seen = 0
    async with client_for(FlakyServer()) as client:
        results = client.shield.iter_zones_by_pull_zones(
            range(1, 41), concurrency=4, progress=progress
        )
        async for _ in results:
            seen += 1
            assert progress.done == seen
            assert 0 <= progress.in_flight <= 4
    assert (progress.started, progress.succeeded, progress.failed) == (40, 28, 12)
    assert progress.rate > 0


async def test_upload_scanning_bulk() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        zone = int(request.url.path.split("/")[-2])
        if zone == 3:
            wrapper = {"success": False, "message": "no zone", "errorKey": "nf"}
            return httpx.Response(200, json={"error": wrapper, "data": None})
        return httpx.Response(
            200,
            json={"error": {"success": True}, "data": {"shieldZoneId": zone, "isEnabled": True}},
        )

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with EdgeDeliveryClient(base_url="https://api.test", http_client=http) as client:
        outcome = await collect(client.shield.iter_upload_scanning(range(1, 6)))
    assert set(outcome.values) == {1, 2, 4, 5}
    assert outcome.errors[3].error_key == "nf"  # type: ignore[attr-defined]


async def test_fan_out_serves_any_call() -> None:
    async def double(n: int) -> int:
        if n == 3:
            raise ValueError("three")
        return n * 2

    outcome = await collect(fan_out(double, range(5), concurrency=2))
    assert outcome.values == {0: 0, 1: 2, 2: 4, 4: 8}
    assert isinstance(outcome.errors[3], ValueError)


@pytest.mark.parametrize("concurrency", [0, -1, True, 1.5])
async def test_concurrency_must_be_positive(concurrency: object) -> None:
    from edgedelivery_async import ConfigurationError

    with pytest.raises(ConfigurationError):
        await collect(fan_out(asyncio.sleep, [0], concurrency=concurrency))  # type: ignore[arg-type]


async def test_timeouts_reach_bulk_calls() -> None:
    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    http = httpx.AsyncClient(transport=httpx.MockTransport(hang))
    async with EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=http,
        timeout=Timeout(connect=0.01, read=0.01, total=0.01),
        max_retries=0,
    ) as client:
        outcome = await collect(client.shield.iter_zones_by_pull_zones([1, 2, 3]))
    assert set(outcome.errors) == {1, 2, 3}
    assert all(isinstance(e, APITimeoutError) for e in outcome.errors.values())


async def test_ids_that_are_not_iterable_are_an_invalid_request() -> None:
    server = Server()
    async with client_for(server) as client:
        with pytest.raises(InvalidRequestError, match="iterable"):
            await collect(client.shield.iter_zones_by_pull_zones(None))  # type: ignore[arg-type]
    assert server.requests == 0


async def test_a_failing_key_source_still_yields_every_key_it_gave_then_raises() -> None:
    class SourceBroke(Exception):
        pass

    def ids() -> Iterator[int]:
        yield from range(1, 8)
        raise SourceBroke("the id list is unreadable")

    async def slow_double(n: int) -> int:
        await asyncio.sleep(0.001 * (n % 3))
        return n * 2

    seen: list[int] = []

    async def consume() -> None:
        async for result in fan_out(slow_double, ids(), concurrency=3):
            assert result.ok
            seen.append(result.key)

    with pytest.raises(SourceBroke):
        await consume()
    assert sorted(seen) == list(range(1, 8))


async def test_a_sync_source_that_raises_cancelled_error_still_yields_every_key_it_gave() -> None:
    """It cancelled the calls in flight, and their keys had no result (8 of 10)."""

    def ids() -> Iterator[int]:
        yield from range(1, 11)
        raise asyncio.CancelledError("the source gave up")

    async def slow_double(n: int) -> int:
        await asyncio.sleep(0.01)
        return n * 2

    seen: list[int] = []

    async def consume() -> None:
        async for result in fan_out(slow_double, ids(), concurrency=3):
            seen.append(result.key)

    with pytest.raises(asyncio.CancelledError, match="the source gave up"):
        await consume()
    assert sorted(seen) == list(range(1, 11))


async def test_a_call_that_raises_cancelled_error_itself_gets_an_error_result() -> None:
    """A call that awaited something cancelled (nobody cancelled the run) left its key
    without a result, and the run waited for it for ever."""

    async def call(n: int) -> int:
        if n == 3:
            done = asyncio.get_running_loop().create_future()
            done.cancel()
            await done
        return n

    async with asyncio.timeout(10):  # (before the fix: a hang, here a failure)
        results = [r async for r in fan_out(call, range(1, 6), concurrency=2)]
    assert sorted(r.key for r in results) == [1, 2, 3, 4, 5]
    failed = [r for r in results if not r.ok]
    assert [r.key for r in failed] == [3]
    assert isinstance(failed[0].error, EdgeDeliveryError)
    assert isinstance(failed[0].error.__cause__, asyncio.CancelledError)


@pytest.mark.parametrize(("ids", "concurrency"), [(10, 3), (3, 10)])
async def test_finishing_hears_the_calls_left_once_the_last_key_is_read(
    ids: int, concurrency: int
) -> None:
    """The rate controller's cue to stop probing: after the last key is read, each call
    that ends reports how many others are still going, down to none."""
    heard: list[int] = []
    running = 0

    async def call(n: int) -> int:
        nonlocal running
        running += 1
        await asyncio.sleep(0.001 * (n % 4))
        running -= 1
        return n

    def finishing(remaining: int) -> None:
        assert remaining == running  # the others, not this one
        heard.append(remaining)

    outcome = await collect(fan_out(call, range(ids), concurrency=concurrency, finishing=finishing))
    assert len(outcome.values) == ids
    assert heard[-1:] == [0]
    assert len(heard) <= min(ids, concurrency)  # only once no key is left to start
    assert heard == sorted(heard, reverse=True)


async def test_finishing_must_be_callable() -> None:
    from edgedelivery_async import ConfigurationError

    with pytest.raises(ConfigurationError, match="finishing"):
        await collect(fan_out(asyncio.sleep, [0], finishing=3))  # type: ignore[arg-type]


async def test_bulk_methods_tell_their_client_when_the_run_is_finishing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = Server()
    async with client_for(server) as client:
        heard: list[int] = []
        monkeypatch.setattr(client.rate_controller, "finishing", heard.append)
        outcome = await collect(client.shield.iter_zones_by_pull_zones(range(1, 6)))
    assert len(outcome.values) == 5
    assert sorted(heard, reverse=True) == [4, 3, 2, 1, 0]


async def test_a_finishing_hook_that_raises_fails_the_run_only_after_every_result() -> None:
    class HookBroke(Exception):
        pass

    calls: list[int] = []

    def finishing(remaining: int) -> None:
        calls.append(remaining)
        raise HookBroke("the hook is broken")

    async def slow_double(n: int) -> int:
        await asyncio.sleep(0.001 * (n % 3))
        return n * 2

    seen: list[int] = []

    async def drain() -> None:
        async for result in fan_out(slow_double, range(10), concurrency=3, finishing=finishing):
            seen.append(result.key)

    with pytest.raises(HookBroke):
        await drain()
    assert sorted(seen) == list(range(10))
    assert len(calls) == 1  # not called again once it has raised
