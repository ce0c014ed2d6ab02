"""Rate control against a token bucket in virtual time: the issue's targets, checked exactly.

The whole client runs (engine, retries with Retry-After, pacing, `iter_zones_by_pull_zones`
with concurrency 100) over `httpx.MockTransport`, on an event loop whose clock jumps to
its next timer whenever nothing is ready: sleeps and timers take no wall time, so
minutes of a rate-limited run take a fraction of a second and come out the same on a
loaded machine. The server is one token bucket for the key; it answers a success after
20 ms (unless a case says otherwise) and a 429 after 1 ms. The controller's and the engine's
clocks are the loop's. Retry-After's jitter is seeded, so each case is one fixed run.

benchmarks/rate_limits.py measures the same scenarios on real sockets and real time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import selectors
import time
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from edgedelivery_async import EdgeDeliveryClient, _engine, _rate_control

REFUSAL = 0.001  # seconds to a 429


@dataclass(frozen=True)
class Bucket:
    rate: float
    burst: float
    ids: int
    retry_after: float | None = 1.0
    clients: int = 1
    stagger: float = 0.0  # seconds between the clients' starts
    change: tuple[float, float] | None = None  # (after seconds, new rate)
    latency: float = 0.02  # seconds to a success
    # Real sockets are not punctual: with jitter, a timer fires up to this late, a
    # success takes up to 3 times it longer and a 429 up to a third of it longer
    # (drawn from `jitter_seed`).
    jitter: float = 0.0
    jitter_seed: int = 0

    def limit_over(self, seconds: float) -> float:
        if self.change is None or seconds <= self.change[0]:
            return self.rate
        at, rate = self.change
        return (self.rate * at + rate * (seconds - at)) / seconds


@dataclass
class Outcome:
    elapsed: float
    ok: int
    failed: int
    replies: int
    refused: int


class VirtualSelector(selectors.BaseSelector):
    """Polls the real selector; when nothing is ready, moves the clock on by the wait
    the loop asked for (to its next timer) instead of sleeping."""

    def __init__(self) -> None:
        self.now = 250_000.0  # a machine up for three days: no monotonic clock starts at zero
        self._real = selectors.DefaultSelector()
        self.late: Callable[[], float] = lambda: 0.0  # how late a timer fires

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._real.select(0)
        if not ready and timeout:
            self.now += timeout + self.late()
        return ready

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.selector = VirtualSelector()
        super().__init__(self.selector)

    def time(self) -> float:
        # a real clock never reads the same twice: a nanosecond per reading keeps the
        # order of events within one step of the loop (a request let go before a cut
        # reads as sent before it)
        self.selector.now += 1e-9
        return self.selector.now


@pytest.fixture
def virtual_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[asyncio.AbstractEventLoop]:
    """A virtual-time loop whose time the controller and the engine read as their clock."""
    with virtual_time(monkeypatch) as loop:
        yield loop


@contextlib.contextmanager
def virtual_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh virtual-time loop, made the controller's and the engine's clock."""
    loop = VirtualTimeLoop()
    clock = types.SimpleNamespace(monotonic=loop.time, time=time.time)
    monkeypatch.setattr(_rate_control, "time", clock)
    monkeypatch.setattr(_engine, "time", clock)
    random.seed(19)
    try:
        yield loop
    finally:
        loop.close()


def read_all(
    loop: asyncio.AbstractEventLoop,
    bucket: Bucket,
    controllers: list[_rate_control.RateController] | None = None,
) -> Outcome:
    """Every id of `bucket` read by its clients; each client's controller is appended
    to `controllers` as it starts (benchmarks/rate_limits_virtual.py --trace)."""
    jitter = random.Random(bucket.jitter_seed)
    if bucket.jitter:
        assert isinstance(loop, VirtualTimeLoop)
        loop.selector.late = lambda: jitter.uniform(0.0, bucket.jitter)

    async def main() -> Outcome:
        started = loop.time()
        state = {"tokens": bucket.burst, "at": started}

        async def server(request: httpx.Request) -> httpx.Response:
            now = loop.time()
            rate = bucket.rate
            if bucket.change is not None and now - started >= bucket.change[0]:
                rate = bucket.change[1]
            tokens = min(bucket.burst, state["tokens"] + (now - state["at"]) * rate)
            state["at"] = now
            if tokens >= 1.0 - 1e-9:
                state["tokens"] = tokens - 1.0
                await asyncio.sleep(bucket.latency + jitter.uniform(0.0, 3 * bucket.jitter))
                pull_zone = int(request.url.path.rsplit("/", 1)[1])
                return httpx.Response(200, json={"data": {"pullZoneId": pull_zone}})
            state["tokens"] = tokens
            await asyncio.sleep(REFUSAL + jitter.uniform(0.0, bucket.jitter / 3))
            after = {} if bucket.retry_after is None else {"Retry-After": str(bucket.retry_after)}
            return httpx.Response(429, headers=after, json={"message": "slow down"})

        async def one(ids: range, index: int) -> tuple[int, int, int, int]:
            await asyncio.sleep(bucket.stagger * index)
            http = httpx.AsyncClient(transport=httpx.MockTransport(server))
            async with EdgeDeliveryClient("key", "https://api.test", http_client=http) as client:
                if controllers is not None:
                    controllers.append(client.rate_controller)
                results = client.shield.iter_zones_by_pull_zones(ids, concurrency=100)
                ok = failed = 0
                async for result in results:
                    ok += result.ok
                    failed += not result.ok
                controller = client.rate_controller
                return ok, failed, controller.responses, controller.rate_limited

        share = bucket.ids // bucket.clients
        parts = [range(1 + i * share, (i + 1) * share + 1) for i in range(bucket.clients)]
        counts = await asyncio.gather(*(one(part, i) for i, part in enumerate(parts)))
        ok, failed, replies, refused = (sum(column) for column in zip(*counts, strict=True))
        return Outcome(loop.time() - started, ok, failed, replies, refused)

    return loop.run_until_complete(main())


# The table, and limits from 5/s to 2,000/s, each held to the targets
# exactly: 90% of the limit, at most 2% of replies 429, no id failing. (With other
# jitter seeds these cases land between 93% and 100% of the limit.) The 5/s case runs
# two minutes: finding a limit from nothing costs about seven 429s, which over a
# 30-second run at 5/s is more than 2% (README, Rate limits, Where it falls short).
# benchmarks/rate_limits.py reports the real figures.
TARGETS = {
    "200/s, burst 20, Retry-After 1": Bucket(200, 20, 3000),
    "200/s, no Retry-After": Bucket(200, 20, 3000, retry_after=None),
    "40/s, burst 4, Retry-After 2": Bucket(40, 4, 600, retry_after=2.0),
    "400/s falling to 100/s after 5 s": Bucket(400, 40, 3000, change=(5.0, 100.0)),
    "200/s shared by two clients": Bucket(200, 20, 3000, clients=2),
    "200/s shared by two clients, one 0.7 s later": Bucket(200, 20, 3000, clients=2, stagger=0.7),
    "20/s, burst 2": Bucket(20, 2, 600),
    "5/s, burst 5, two minutes": Bucket(5, 5, 600),
    "2,000/s, burst 200": Bucket(2000, 200, 20000),
    # replies in 5 ms: requests let go just before a cut are sent just after it
    "500/s, burst 50, 5 ms replies": Bucket(500, 50, 3000, latency=0.005),
}


def test_read_all_hands_out_each_clients_controller(
    virtual_clock: asyncio.AbstractEventLoop,
) -> None:
    """benchmarks/rate_limits_virtual.py --trace reads each client's pace, estimate and
    429s from the controllers `read_all` hands out: one a client, the run's own."""
    controllers: list[_rate_control.RateController] = []
    run = read_all(virtual_clock, Bucket(40, 4, 200, clients=2, stagger=0.5), controllers)
    assert len(controllers) == 2
    assert controllers[0] is not controllers[1]
    assert sum(c.responses for c in controllers) == run.replies
    assert sum(c.rate_limited for c in controllers) == run.refused > 0
    assert all(c.limit is not None for c in controllers)


@pytest.mark.parametrize("bucket", TARGETS.values(), ids=TARGETS.keys())
def test_bulk_reads_hold_just_under_the_limit(
    virtual_clock: asyncio.AbstractEventLoop, bucket: Bucket
) -> None:
    run = read_all(virtual_clock, bucket)
    assert run.ok == bucket.ids, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.9 * bucket.limit_over(run.elapsed), run
    assert run.refused <= 0.02 * run.replies, run


def test_a_slow_limit_is_found_in_a_few_refusals(virtual_clock: asyncio.AbstractEventLoop) -> None:
    """5/s with a bucket of 5: the opening's estimate (tens a second) comes down to the
    limit in a few 429s, not in 10% steps of one 429 each (which took about 20)."""
    run = read_all(virtual_clock, Bucket(5, 5, 50))
    assert run.ok == 50, run
    assert run.refused <= 8, run


# Keys slower than the range (5/s to 2,000/s), read by a lone client.
SLOWER = {"1/s, burst 5": Bucket(1, 5, 100), "2/s, burst 2": Bucket(2, 2, 120)}


@pytest.mark.parametrize("bucket", SLOWER.values(), ids=SLOWER.keys())
def test_a_key_below_five_a_second_is_read_at_its_pace(
    virtual_clock: asyncio.AbstractEventLoop, bucket: Bucket
) -> None:
    """Below 2.5/s a client has fewer than ten replies in the last 4 s, and their rate was
    then read over the whole time since its first request (and replies older than 4 s
    stayed in the count): a minute in, 0.1-0.2/s, so every cut went to the floor, 0.5/s.
    100 ids at 1/s took 137 s, 120 at 2/s 181 s. Now the rate is read over the last 4 s
    (or since the client began sending, if later): 98 s and 63 s. Refusals stay well
    above the issue's 2% at these paces (16-25 of 125-136 replies, as before), since each
    probe is one refusal in a few requests."""
    run = read_all(virtual_clock, bucket)
    assert run.ok == bucket.ids, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.85 * bucket.rate, run


def test_a_share_that_fell_is_not_held_down_by_its_own_pace(
    virtual_clock: asyncio.AbstractEventLoop,
) -> None:
    """Two clients on a 40/s key, the second 0.5 s later: the first, knocked down while
    the second opened, counted its own slow pace since the cut as what the key served
    and held about 6/s for the rest of the run (1,200 ids took 89 s; 30 s at the limit).
    It now takes about 32 s, at 2.0% of replies 429 (25 of 1,225): each client finds
    its share on its own, and a key shared at a low limit pays for that above the
    issue's 2% (docs/rate-control-notes.md, Shared keys: 2.0-3.1% for two clients of 40/s)."""
    run = read_all(virtual_clock, Bucket(40, 4, 1200, clients=2, stagger=0.5))
    assert run.ok == 1200, run
    assert run.failed == 0, run
    assert run.elapsed <= 1.5 * 1200 / 40, run
    assert run.refused <= 0.03 * run.replies, run


@pytest.mark.parametrize(("rate", "stagger"), [(40, 0.0), (200, 1.0)])
def test_a_client_squeezed_by_others_takes_the_key_back_when_they_finish(
    virtual_clock: asyncio.AbstractEventLoop, rate: int, stagger: float
) -> None:
    """Three clients on one key: one of them, squeezed while the others held the key,
    used to grow on the scale of its own small share once they had finished (a 70-request
    cycle is 35 s at 2/s). At 40/s, all at once, one read alone at 2/s for two minutes:
    174 s for 30 s of work; at 200/s, 1 s apart, 38 s for 15. Refused below a pace that
    had held, a client now probes on the seconds scale and doubles its pace above the
    estimate, so it takes the key back within seconds: 33 s and 16 s. (The 40/s run
    pays for it in 429s: 3.8% of replies, above the issue's 2%; README, Rate limits,
    Where it falls short.)"""
    ids = 1200 if rate == 40 else 3000
    run = read_all(virtual_clock, Bucket(rate, rate // 10, ids, clients=3, stagger=stagger))
    assert run.ok == ids, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.75 * rate, run


@pytest.mark.parametrize("seed", range(10))
def test_a_lone_slow_client_on_late_timers_does_not_take_itself_for_a_shared_one(
    virtual_clock: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """5/s with a bucket of 5 for two minutes, timers up to 1 ms late and replies up to
    3 ms slower, as on real sockets. A lone client that had paced below the limit read
    7.9/s from the last second's replies (the bucket's saved tokens), then took its
    refusal at 7.2/s for a sign of sharing and probed every few seconds for 30 s: in 6
    of these 10 runs, at 18 429s of 618 where the others took 9. A refusal within a
    second of a cut is now below a pace that held only if it is below what the key
    served over the spell before that cut, when that was far less; and the estimate
    soon after that cut, from one or two replies, is not taken below it (it read
    4.0/s, and the client regrew fast from there and overshot again: 14 429s, 2.3%;
    now at most 11)."""
    flagged: list[float] = []
    shares_the_key = _rate_control.RateController._shares_the_key

    def spy(self: _rate_control.RateController, now: float, estimate: float, guessed: bool) -> bool:
        shared = shares_the_key(self, now, estimate, guessed)
        if shared:
            flagged.append(now)
        return shared

    monkeypatch.setattr(_rate_control.RateController, "_shares_the_key", spy)
    run = read_all(virtual_clock, Bucket(5, 5, 600, jitter=0.001, jitter_seed=seed))
    assert run.ok == 600, run
    assert run.failed == 0, run
    assert flagged == [], (flagged, run)
    assert run.refused <= 0.02 * run.replies, run


# Late-timer runs of the shared-key grid (benchmarks/rate_limits_virtual.py --grid
# --late-timers 3) in which one client was left far below its share for good: 22%,
# 28%, 24% and 15% of the limit.
LEFT_BEHIND = {
    "40/s, two clients at once": Bucket(40, 4, 1200, clients=2, jitter_seed=0),
    "200/s, two clients 0.4 s apart": Bucket(200, 20, 3000, clients=2, stagger=0.4),
    "200/s, three clients 0.4 s apart": Bucket(200, 20, 3000, clients=3, stagger=0.4),
    "40/s, four clients at once": Bucket(40, 4, 1200, clients=4, jitter_seed=1),
}


@pytest.mark.parametrize("bucket", LEFT_BEHIND.values(), ids=LEFT_BEHIND.keys())
def test_a_client_that_opens_on_a_busy_key_or_is_squeezed_is_not_left_behind(
    virtual_clock: asyncio.AbstractEventLoop, bucket: Bucket
) -> None:
    """On late timers, as on real sockets. A client whose first requests were refused
    (the others had emptied the bucket), or that another's opening pushed from 7/s to
    2.4/s, was never seen to share the key: it held a few requests a second on a slow
    limit's cycle (70 requests: 8-30 s) and took a minute or more to take the key when
    the others finished. A 429 for one of a client's first two requests, and a cut to a
    third (not a quarter) of the highest estimate lately, now mark the key as shared,
    so it regrows on the seconds scale: 72-97% of the limit in these runs."""
    run = read_all(virtual_clock, dataclasses.replace(bucket, jitter=0.001))
    assert run.ok == bucket.ids, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.65 * bucket.rate, run


@pytest.mark.parametrize("seed", range(10))
def test_the_last_calls_of_a_run_are_not_refused_by_a_probe(
    virtual_clock: asyncio.AbstractEventLoop, seed: int
) -> None:
    """The issue's 40/s key (a burst of 4, `Retry-After: 2`), 600 ids, on late timers as
    on real sockets. A probe above the estimate in the run's last second was refused, and
    its id waited out the 2 s of `Retry-After` after every other id had finished: 5 of
    these 10 runs read 86-88% of the limit. A bulk run's last calls, once they fit in a
    refusal's wait, are now paced at the estimate, not above it: 97-99%.

    Those figures came from a virtual clock that started at zero, where the first
    client's opening went out one request at a time; on a real clock its first three go
    at once, as here now. Then these runs read 94-99% (a first estimate of 37/s, and
    what the key served since each cut, with the pace below the limit, keeps it there),
    and 40 runs read the same with the hold and without it (none near the 86-88% of a
    run whose last id waits out a refused probe): the unit test
    `test_a_runs_last_calls_are_paced_at_the_estimate_not_above` holds it. Here the
    runs are held to the issue's targets."""
    bucket = Bucket(40, 4, 600, retry_after=2.0, jitter=0.001, jitter_seed=seed)
    run = read_all(virtual_clock, bucket)
    assert run.ok == 600, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.9 * 40, run
    assert run.refused <= 0.02 * run.replies, run


def test_two_clients_of_one_key_on_late_timers_read_at_90_percent_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's two processes on one 200/s key, as on real sockets (timers up to 1 ms
    late, replies up to 3 ms slower), the second 0.25 s later: twenty runs. A refusal
    soon after a cut, while the other client overshot, read a moment's share (37/s of
    200) and the client held it on the slow cycle of a steady limit, so the other took
    the key and finished first: one run at 71%, mean 87.6%. An estimate soon after a
    cut at less than half the last one now regrows on the seconds scale. Runs on late
    timers are chaotic (a timer a fraction of a millisecond later decides which client
    takes the key first): over seeds 0-39 they read 82-99%, mean 91%, so five runs
    (the test's first form) could read 89.9% by chance; twenty read 91.5%."""
    shares = []
    for seed in range(20):
        bucket = Bucket(200, 20, 3000, clients=2, stagger=0.25, jitter=0.001, jitter_seed=seed)
        with virtual_time(monkeypatch) as loop:
            run = read_all(loop, bucket)
        assert run.ok == 3000, run
        assert run.failed == 0, run
        shares.append(run.ok / run.elapsed / 200)
    assert sum(shares) / len(shares) >= 0.9, shares
    assert min(shares) >= 0.8, shares


# Late-timer runs of the grid in which a squeezed client's shared spell ran out while
# it regrew (82% and 87% of the limit; 90% and 91% once the spell holds for the cycle).
SPELL_RAN_OUT = {
    "40/s, two clients 1 s apart": Bucket(40, 4, 1200, clients=2, stagger=1.0, jitter_seed=2),
    "40/s, four clients at once": Bucket(40, 4, 1200, clients=4, jitter_seed=2),
}


@pytest.mark.parametrize("bucket", SPELL_RAN_OUT.values(), ids=SPELL_RAN_OUT.keys())
def test_a_squeezed_client_regrowing_past_its_shared_spell_does_not_fall_back(
    virtual_clock: asyncio.AbstractEventLoop, bucket: Bucket
) -> None:
    """A client marked as sharing the key regrows on the seconds scale for 30 s after
    the mark. When those 30 s ran out in the middle of a regrowth, the pace fell onto
    the slow curve of its small share, with no refusal, and it finished late. The mark
    as of the last cut now holds for the whole cycle."""
    run = read_all(virtual_clock, dataclasses.replace(bucket, jitter=0.001))
    assert run.ok == bucket.ids, run
    assert run.failed == 0, run
    assert run.ok / run.elapsed >= 0.88 * bucket.rate, run
