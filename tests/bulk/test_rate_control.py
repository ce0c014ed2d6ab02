"""Client-wide adaptive rate control: its parts, then convergence against the fake.

The convergence tests drive `FakeEdgeDelivery(rate_limit=...)` on loopback with the
client's defaults and assert, with generous margins (the machine may be loaded), that a
bulk read reaches most of the limit, few replies are 429, and no id fails.
benchmarks/rate_limits.py measures the same scenarios at full size.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedelivery_async import (
    APIStatusError,
    BulkResult,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    RateControl,
    RetryBudget,
    RetryPolicy,
)
from edgedelivery_async._rate_control import (
    SLOWEST_RATE,
    RateController,
    reset_seconds,
    stated_rate,
)
from edgedelivery_async.testing import FakeEdgeDelivery, RateLimit

# ------------------------------------------------------------------ the parts


@pytest.mark.parametrize(
    ("value", "rate"),
    [
        ("100;w=60", 100 / 60),
        ('"default";q=100;w=10', 10.0),
        ('"a";q=50;w=1, "b";q=1000;w=3600', 50.0),
        ("200;w=1;burst=20", 200.0),
        ("0;w=1", None),
        ("100", None),
        ("q=x;w=1", None),
        ("", None),
        ("5e-324;w=1", None),  # slower than any pace is kept to (a server's nonsense)
        ("1;w=1e300", None),
        ("1e309;w=1", None),
        ("nan;w=1", None),
    ],
)
def test_stated_rate_reads_both_drafts(value: str, rate: float | None) -> None:
    assert stated_rate(value) == pytest.approx(rate) if rate else stated_rate(value) is None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("5", 5.0), ("0", 0.0), ("1700000100", 100.0), ("x", None), ("-1", None), ("nan", None)],
)
def test_reset_seconds(value: str, seconds: float | None) -> None:
    assert reset_seconds(value, 1_700_000_000.0) == seconds


@pytest.mark.parametrize(
    "options",
    [
        {"adaptive": 1},
        {"max_rate": 0},
        {"max_rate": float("inf")},
        {"backoff": 1.0},
        {"stated_share": 1.5},
        {"stated_share": 0},
        {"recovery": 0},
        {"min_rate": -1},
        {"retry_budget": 5},
        {"max_rate": 10**400},  # beyond any float
        {"max_rate": 1e-300},  # a call would wait for its turn for ever
        {"max_rate": float("nan")},
        {"min_rate": 1e-9},
        {"recovery": 10**400},
    ],
)
def test_rate_control_refuses_nonsense(options: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError, match="RateControl"):
        RateControl(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "options",
    [{"share": -0.1}, {"share": 10**400}, {"per_second": float("nan")}, {"per_second": True}],
)
def test_retry_budget_refuses_nonsense(options: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError, match="RetryBudget"):
        RetryBudget(**options)  # type: ignore[arg-type]


def test_a_stated_limit_too_slow_to_keep_is_ignored() -> None:
    """A reply that states 5e-324 requests a second used to set the pace to it: the next
    slot was infinitely far, its arithmetic NaN, and a bulk run of 20 ids stalled."""
    controller = RateController(RateControl())
    controller.observe(200, {"ratelimit-policy": "5e-324;w=1"}, time.monotonic())
    assert controller.rate is None
    assert controller.limit is None


def test_the_client_takes_only_a_rate_control() -> None:
    with pytest.raises(ConfigurationError, match="rate_control"):
        EdgeDeliveryClient("k", "https://api.test", rate_control=180)  # type: ignore[arg-type]


async def test_a_hard_cap_paces_from_the_first_request() -> None:
    controller = RateController(RateControl(adaptive=False, max_rate=50))
    assert controller.admit() is None
    turn = controller.admit()
    assert turn is not None  # the second request of the same instant waits its turn
    await turn
    assert controller.rate == 50


async def test_a_callers_deadline_ends_a_call_waiting_for_its_turn_and_frees_no_place() -> None:
    """A call's `Timeout` is per attempt; the wait for a paced turn is outside it (README,
    Retries and timeouts), so a caller bounds a whole call with `asyncio.timeout`. The
    call then ends with the caller's TimeoutError, and its place in the queue is given
    back: the next call goes at its turn, and nothing stays counted in flight."""
    fake = FakeEdgeDelivery()
    fake.seed_pull_zones(1)
    capped = RateControl(adaptive=False, max_rate=4)
    async with (
        fake.serve() as url,
        EdgeDeliveryClient(fake.access_key, url, rate_control=capped) as client,
    ):
        await client.shield.get_zone_by_pull_zone(1)  # the first goes at once
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):  # its turn is 0.25 s away
                await client.shield.get_zone_by_pull_zone(1)
        assert await client.shield.get_zone_by_pull_zone(1) is not None
        controller = client.rate_controller
        assert controller.rate == 4
        assert not controller._waiters
        assert controller._in_flight == 0


@pytest.mark.parametrize("adaptive", [False, True], ids=["fixed pace", "slow start"])
def test_a_second_event_loop_is_paced_too(adaptive: bool) -> None:
    """A loop that ended with a request waiting (its timer armed, or its window full)
    leaves nothing behind that holds back the next loop's requests."""
    controller = RateController(RateControl(adaptive=adaptive, max_rate=50))

    async def leave_one_waiting() -> None:
        turns = [controller.admit() for _ in range(11)]
        waiting = [asyncio.ensure_future(turn) for turn in turns if turn is not None]
        assert waiting
        await asyncio.sleep(0.01)
        for turn in waiting:
            turn.cancel()

    async def read_again() -> None:
        for _ in range(3):
            turn = controller.admit()
            if turn is not None:
                await asyncio.wait_for(turn, 5)
            controller.landed()

    asyncio.run(leave_one_waiting())
    asyncio.run(read_again())  # before the fix: waits for a timer of the first loop


async def test_no_limit_no_pacing_and_slow_start_opens() -> None:
    """Against a server without limits the client is never paced: the window of slow
    start grows away, and nothing waits once it is open."""
    fake = FakeEdgeDelivery()
    fake.seed_pull_zones(1500)  # the window grows by half a place per reply: 1,260 open it
    async with fake.serve() as url, EdgeDeliveryClient(fake.access_key, url) as client:
        outcome = [r async for r in client.shield.iter_zones_by_pull_zones(range(1, 1501))]
        controller = client.rate_controller
        assert controller.rate is None
        assert controller.rate_limited == 0
        assert controller._window is None  # slow start over: nothing holds requests back
    assert all(result.ok for result in outcome)


def _status(code: int) -> httpx.Response:
    return httpx.Response(code, json={"title": "x"})


@pytest.mark.parametrize("budget", [RetryBudget(share=0, per_second=0), None])
async def test_a_spent_retry_budget_stops_retries(budget: RetryBudget | None) -> None:
    replies = iter([_status(503), httpx.Response(200, json={"data": {"shieldZoneId": 1}})])
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return next(replies)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=http,
        retry=RetryPolicy(initial_delay=0.001, jitter=0),
        rate_control=RateControl(retry_budget=budget),
    )
    async with client:
        if budget is None:  # no budget: retried as the policy says
            await client.shield.get_zone_by_pull_zone(1)
            assert len(seen) == 2
        else:
            with pytest.raises(APIStatusError):
                await client.shield.get_zone_by_pull_zone(1)
            assert len(seen) == 1


async def test_only_first_attempts_fill_the_budget() -> None:
    """Each first attempt deposits the budget's share, a retry none: with a share of
    half a retry and no reserve or refill, every second call gets its retry."""
    tried: set[str] = set()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path in tried:  # a retry: served
            return httpx.Response(200, json={"data": {"shieldZoneId": 1}})
        tried.add(request.url.path)
        return _status(503)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=http,
        retry=RetryPolicy(initial_delay=0.001, jitter=0),
        rate_control=RateControl(retry_budget=RetryBudget(share=0.5, per_second=0)),
    )
    served = []
    async with client:
        for pull_zone in range(1, 9):  # one after another
            try:
                await client.shield.get_zone_by_pull_zone(pull_zone)
                served.append(True)
            except APIStatusError:
                served.append(False)
    # Had a retry deposited too, the third call would find a whole retry, and so on.
    assert served == [False, True] * 4


def _budget_client(handler: Any, share: float, delay: float = 0.001) -> EdgeDeliveryClient:
    """A client whose retry budget is `share` a call, with no reserve and no refill."""
    return EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        retry=RetryPolicy(initial_delay=delay, max_delay=delay, jitter=0),
        rate_control=RateControl(
            adaptive=False, retry_budget=RetryBudget(share=share, per_second=0)
        ),
    )


async def test_calls_failing_together_get_their_shares() -> None:
    """Three calls refused at once with a share of 0.7 each hold 2.1 retries: two are
    served. (Counting first attempts as those admitted less the retries granted served
    one: a retry waiting to be sent took back a share.)"""
    tried: set[str] = set()
    gate = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path in tried:
            return httpx.Response(200, json={"data": {"shieldZoneId": 1}})
        tried.add(request.url.path)
        if len(tried) == 3:
            gate.set()
        await gate.wait()
        return _status(503)

    async def served(client: EdgeDeliveryClient, pull_zone: int) -> bool:
        try:
            await client.shield.get_zone_by_pull_zone(pull_zone)
        except APIStatusError:
            return False
        return True

    async with _budget_client(handler, 0.7) as client:
        outcome = await asyncio.gather(*(served(client, n) for n in (1, 2, 3)))
    assert sorted(outcome) == [False, True, True]


async def test_a_cancelled_retry_and_a_redirect_take_no_share() -> None:
    """A retry granted and never sent (its caller gave up during the wait) leaves the
    later calls their shares; a redirect's next hop is the same call, no new share."""
    tried: set[str] = set()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/shield/shield-zone/get-by-pullzone/9":
            return httpx.Response(302, headers={"location": "https://api.test/moved"})
        if request.url.path in tried:
            return httpx.Response(200, json={"data": {"shieldZoneId": 1}})
        tried.add(request.url.path)
        return _status(503)

    async with _budget_client(handler, 1.0, delay=0.2) as client:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(client.shield.get_zone_by_pull_zone(1), 0.05)
        for pull_zone in (2, 3, 4):  # one whole retry each
            await client.shield.get_zone_by_pull_zone(pull_zone)
    async with _budget_client(handler, 0.5) as client:  # half a retry: not enough
        with pytest.raises(APIStatusError):
            await client.shield.get_zone_by_pull_zone(9)  # 302, then 503 at /moved


async def test_a_fresh_budget_holds_the_reserve_of_ten_seconds_not_more() -> None:
    """Against a server that refuses everything, a new client's retries are the
    budget's reserve (10 a second for 10 s), its share of the requests, and its refill:
    not 300 (the reserve plus a share of 1,000 requests never sent, as it started)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _status(503)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = EdgeDeliveryClient(
        base_url="https://api.test",
        http_client=http,
        max_retries=20,
        retry=RetryPolicy(initial_delay=0.0001, max_delay=0.0001, jitter=0),
    )
    started = time.monotonic()
    async with client:
        calls = [client.shield.get_zone_by_pull_zone(n) for n in range(1, 51)]
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
    elapsed = time.monotonic() - started
    assert all(isinstance(outcome, APIStatusError) for outcome in outcomes)
    retries = len(seen) - 50
    assert retries <= 100 + 0.2 * 50 + 10 * elapsed + 1, (retries, elapsed)
    assert retries >= 100  # the reserve itself is spent on retries


# ------------------------------------------------------------------ convergence


@dataclass
class Run:
    ok: int
    failed: int
    elapsed: float
    replies: int
    refused: int

    @property
    def reads_per_second(self) -> float:
        return self.ok / self.elapsed

    @property
    def refused_share(self) -> float:
        return self.refused / self.replies


async def bulk(fake: FakeEdgeDelivery, ids: range, clients: int = 1) -> Run:
    """Read every id through `clients` clients sharing the key (defaults otherwise)."""
    async with fake.serve() as url:
        started = time.perf_counter()

        async def one(part: range) -> tuple[int, int, int, int]:
            async with EdgeDeliveryClient(fake.access_key, url) as client:
                results = [r async for r in client.shield.iter_zones_by_pull_zones(part)]
                controller = client.rate_controller
                ok = sum(result.ok for result in results)
                return ok, len(results) - ok, controller.responses, controller.rate_limited

        parts = [ids[index::clients] for index in range(clients)]
        counts = await asyncio.gather(*(one(part) for part in parts))
        elapsed = time.perf_counter() - started
    ok, failed, replies, refused = (sum(column) for column in zip(*counts, strict=True))
    return Run(ok, failed, elapsed, replies, refused)


def limited_fake(limit: RateLimit, ids: int) -> FakeEdgeDelivery:
    fake = FakeEdgeDelivery(rate_limit=limit, request_log_limit=10)
    fake.seed_pull_zones(ids)
    fake.set_faults(latency=0.01)
    return fake


# (limit, clients sharing the key, the least share of the limit a 5 s run must reach).
# On real sockets the share depends on the machine's load as much as on the controller:
# alone these runs read 94-101% of the limit, but under CI's load (two suites at once
# on two cores) they read 43-55% now and then (2026-11-28: the pace is set by clocks
# and timers that run late under load; docs/rate-control-notes.md). The 90% target is
# held exactly in virtual time (test_rate_control_virtual_time.py) and measured by
# benchmarks/rate_limits.py; the floor here is the collapse the issue reported, 11-16%
# of the limit, with room: 30%, and 25% for two clients, which each learn the limit
# alone and start and end less evenly over a run this short.
CASES = {
    "Retry-After 1": (RateLimit(100, burst=10, retry_after=1), 1, 0.3),
    "no Retry-After": (RateLimit(100, burst=10, retry_after=None), 1, 0.3),
    "two clients share the key": (RateLimit(100, burst=10), 2, 0.25),
    "RateLimit headers": (RateLimit(100, burst=10, headers=True), 1, 0.3),
}


@pytest.mark.parametrize(("limit", "clients", "least"), CASES.values(), ids=CASES.keys())
async def test_a_bulk_read_settles_just_under_the_limit(
    limit: RateLimit, clients: int, least: float
) -> None:
    run = await bulk(limited_fake(limit, 500), range(1, 501), clients)
    assert run.failed == 0
    assert run.ok == 500
    assert run.reads_per_second >= least * limit.rate, run
    assert run.reads_per_second <= 1.1 * limit.rate + limit.bucket_size / run.elapsed, run
    assert run.refused_share <= 0.1, run


async def test_a_limit_that_drops_mid_run_is_followed() -> None:
    limit = RateLimit(200, burst=20, changes=((1.5, 60.0),))
    run = await bulk(limited_fake(limit, 450), range(1, 451))
    # about 300 reads in the first 1.5 s, 150 more at 60/s: 4 s at the limit's pace.
    # Idle, 3.8-4.4 s; two CI runs on a loaded machine took 7.1 and 7.4 s (against 60%
    # of the pace, 6.7 s), so the bound is 40%: a client stuck far below the new limit
    # (at 5/s, 30 s) still fails it.
    assert run.failed == 0
    assert run.elapsed <= 4.0 / 0.4, run
    assert run.refused_share <= 0.1, run


@pytest.mark.parametrize("steady", [0, 1, 2, 5])
def test_a_steady_limit_is_approached_more_slowly_but_searched_above_as_fast(steady: int) -> None:
    """After cuts that found the same limit, the pace takes 2**steady times as long (at
    most 4) to get back to it, so probes come less often; past the limit, it grows as
    fast as after any cut, so a limit that rose is found as soon."""
    controller = RateController(RateControl())
    controller.limit, controller._last_cut, controller._steady = 200.0, 100.0, steady
    back = 1.0 * 2 ** min(steady, 2)  # the back time at 200/s: one second, doubled

    def rate_at(seconds_after_cut: float) -> float:
        controller._grow(100.0 + seconds_after_cut)
        assert controller.rate is not None
        return controller.rate

    assert rate_at(0.0) == pytest.approx(180.0)  # 0.9 of the limit right after the cut
    assert rate_at(back / 2) < 200.0 * 0.99  # still below it halfway back
    assert rate_at(back) == pytest.approx(200.0)
    assert rate_at(back + 1.0) == pytest.approx(220.0)  # one second past: 10% above, as at 0


def test_a_runs_last_calls_are_paced_at_the_estimate_not_above() -> None:
    """Once a bulk run's last calls fit in the wait a 429 would cost (its Retry-After),
    the pace grows back to the estimate but not past it; earlier in the run, and for a
    pace far above the estimate that the key still serves, it probes as before."""
    controller = RateController(RateControl())
    controller.observe(429, {"retry-after": "2"}, sent_at=-1.0)  # a refusal's wait: 2 s
    now = time.monotonic()
    controller.limit, controller._last_cut, controller.rate = 40.0, now - 5.0, 36.0

    controller.finishing(100)  # 100 calls left: 2.5 s at 40/s, more than the wait
    controller._grow(now)
    assert controller.rate is not None
    assert controller.rate > 40.0  # probing above

    controller.rate = 36.0
    controller.finishing(60)  # 1.5 s at 40/s: within the wait
    controller._grow(now)
    assert controller.rate == pytest.approx(40.0)
    controller._grow(now + 1.0)
    assert controller.rate == pytest.approx(40.0)  # held while they last
    controller._grow(now + 2.0)
    assert controller.rate > 40.0  # and not after

    freed = RateController(RateControl())
    freed.observe(429, {"retry-after": "2"}, sent_at=-1.0)
    freed.limit, freed._last_cut, freed.rate = 40.0, now - 5.0, 70.0
    freed.finishing(10)
    assert freed._hold_until < now  # 70/s served at an estimate of 40: the key has room


def test_a_429_for_one_of_the_first_two_requests_means_the_key_is_busy() -> None:
    """A fresh bucket lets a lone client's first requests through, so a 429 for one of
    the first two says that others spend the key: the client probes as one sharing it.
    A 429 later in the opening (a lone client's burst running dry) does not."""

    def opening_refused_at(request: int) -> bool:
        controller = RateController(RateControl())
        assert controller.admit() is None  # the first request goes at once
        sent_at = controller._first_send + 0.002 * request  # the opening's pace: 500/s
        controller.observe(429, {}, sent_at)
        return controller._shared_at > float("-inf")

    assert opening_refused_at(0)
    assert opening_refused_at(1)
    assert not opening_refused_at(2)
    assert not opening_refused_at(5)


def test_a_squeezed_client_keeps_regrowing_when_its_shared_spell_ends() -> None:
    """A virtual-time run of four 40/s clients: one squeezed to 0.5/s was regrowing
    (5/s, 8 s after its last cut) when the 30 s after the refusal that marked the key
    as shared ran out. Its pace then fell back to 0.5/s, the slow curve of its small
    share, with no refusal, and it finished its ids alone at 0.5/s (550 s, not 32 s).
    Between cuts the pace must never fall."""
    controller = RateController(RateControl())
    controller.limit, controller._steady = 0.5, 2
    controller._shared_at, controller._last_cut = 80.0, 100.0  # shared 20 s before the cut
    rates = []
    for tenth in range(0, 200):
        controller._last_wait = 100.0 + tenth / 10  # requests wait for their turns
        controller._grow(100.0 + tenth / 10)  # past 110: 30 s after the mark
        assert controller.rate is not None
        rates.append(controller.rate)
    assert all(later >= earlier for earlier, later in itertools.pairwise(rates))
    assert rates[-1] > 40.0  # still doubling: it finds the key free within seconds


@settings(max_examples=300, deadline=None)
@given(
    limit=st.floats(0.5, 5000.0),
    steady=st.integers(0, 5),
    rough=st.booleans(),
    marked=st.one_of(st.none(), st.floats(-60.0, 0.0)),
    times=st.lists(st.floats(0.0, 120.0), min_size=2, max_size=30),
)
def test_between_cuts_the_pace_never_falls(
    limit: float, steady: int, rough: bool, marked: float | None, times: list[float]
) -> None:
    """Only a refusal lowers the pace (and a bulk run's last calls hold it at the
    estimate): whatever the state a cut left and however long since, growth between
    cuts never takes the pace down."""
    controller = RateController(RateControl())
    controller.limit, controller._steady, controller._rough = limit, steady, rough
    controller._last_cut = 1000.0
    if marked is not None:  # marked as sharing the key this long before the cut
        controller._shared_at = 1000.0 + marked
    rates = []
    for seconds in sorted(times):
        controller._last_wait = 1000.0 + seconds  # requests wait for their turns
        controller._grow(1000.0 + seconds)
        assert controller.rate is not None
        rates.append(controller.rate)
    for earlier, later in itertools.pairwise(rates):
        assert later >= earlier * (1 - 1e-9), rates


class Cuts:
    """Replays a client's cuts (time, pace when refused, estimate) through the test of
    sharing, and keeps the state a cut leaves behind as `_cut` does."""

    def __init__(self) -> None:
        self.controller = RateController(RateControl())

    def cut(
        self,
        now: float,
        pace: float,
        estimate: float,
        *,
        guessed: bool = False,
        rough: bool = False,
    ) -> bool:
        controller = self.controller
        controller.rate = pace
        shared = controller._shares_the_key(now, estimate, guessed)
        controller.limit, controller._guessed, controller._rough = estimate, guessed, rough
        controller._last_cut = now
        return shared


def test_a_lone_client_searching_down_from_a_guess_is_not_taken_for_a_shared_one() -> None:
    """A real-socket trace of a lone client on a 5/s key: its first refusal came before
    replies could tell a limit (a guess of 40/s), and the few replies after it read
    25.6/s. That reading is a step of the search, not a pace that held, so the cut to
    4.4/s soon after is not a squeeze to a sixth of a peak (it used to be, and the client
    then probed every few seconds for 30 s, at 2-4% 429)."""
    cuts = Cuts()
    assert not cuts.cut(0.20, 500.0, 40.0, guessed=True)
    assert not cuts.cut(0.28, 44.7, 25.6)
    assert not cuts.cut(0.49, 23.6, 6.7, rough=True)
    assert not cuts.cut(0.97, 6.6, 4.4, rough=True)
    assert not cuts.cut(4.36, 10.5, 4.9)


def test_a_client_squeezed_to_a_quarter_of_a_pace_that_held_knows_it_shares_the_key() -> None:
    """A pace of 200/s that held, then cuts to 40/s: others spend the key's tokens. The
    squeeze counts once: the cuts that follow at about the squeezed pace are not new
    squeezes (each would keep the client probing for another 30 s)."""
    cuts = Cuts()
    assert not cuts.cut(0.5, 500.0, 200.0)
    assert cuts.cut(5.0, 230.0, 40.0)
    assert not cuts.cut(9.0, 60.0, 41.0)
    assert cuts.cut(40.0, 38.0, 35.0)  # refused at 38/s, below the 41/s that held


# ------------------------------------------------------------------ a fault of its own

# Each internal step of the controller, broken in turn: on a 429 (`_refused`, `_cut`),
# on every reply once paced (`_grow`, from `observe`), in pacing (`_grow`, `_arm`), in
# the timer (`_release_due`) and at a bulk run's end (`_finishing`).
BROKEN = ["_refused", "_cut", "_grow", "_arm", "_release_due", "_finishing"]


@pytest.mark.parametrize("step", BROKEN)
async def test_a_fault_in_the_controller_fails_no_call_and_stalls_none(
    step: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in the controller must not reach the caller as a raw exception, nor leave
    requests waiting for a timer that died: it stops adapting, once, with a warning."""

    def broken(self: RateController, *args: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(RateController, step, broken)
    fake = limited_fake(RateLimit(200, burst=10), 300)
    async with fake.serve() as url, EdgeDeliveryClient(fake.access_key, url) as client:
        bulk = client.shield.iter_zones_by_pull_zones(range(1, 301))
        results = await asyncio.wait_for(_drain(bulk), 60)
        single = await asyncio.wait_for(client.shield.get_zone_by_pull_zone(1), 30)
        controller = client.rate_controller
    assert single is not None
    assert sorted(result.key for result in results) == list(range(1, 301))
    assert all(isinstance(r.error, EdgeDeliveryError) for r in results if not r.ok)
    assert controller.policy.adaptive is False
    warnings = [r for r in caplog.records if "rate control stopped adapting" in r.message]
    assert len(warnings) == 1, warnings
    assert fake.access_key not in caplog.text


async def _drain(bulk: AsyncIterator[BulkResult[int, object]]) -> list[BulkResult[int, object]]:
    return [result async for result in bulk]


# ------------------------------------------------------------------ a clock that reads days


class Clock:
    """`time` for the controller, with a monotonic clock the test moves. It starts where
    a machine's does after days of uptime: a clock that starts at zero hid three faults."""

    def __init__(self) -> None:
        self.now = 250_000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return time.time()


@contextlib.contextmanager
def controller_clock() -> Iterator[Clock]:
    import edgedelivery_async._rate_control as module

    clock, real = Clock(), module.time
    module.time = clock  # type: ignore[assignment]
    try:
        yield clock
    finally:
        module.time = real


def test_a_guess_searched_for_minutes_under_a_stated_limit_does_not_fault() -> None:
    """Refused before any reply (a guess), then told a limit by the server, which keeps
    the pace from lapsing to unpaced: the guess's doubling, 2.0**(300 s / 0.25 s),
    overflowed five minutes on, and the controller gave up adapting for good."""
    with controller_clock() as clock:
        controller = RateController(RateControl())
        for _ in range(2):
            controller.observe(429, {}, clock.now)
        assert controller._guessed
        controller.observe(200, {"ratelimit-policy": "100;w=1"}, clock.now)
        clock.now += 300.0
        controller.observe(200, {"ratelimit-policy": "100;w=1"}, clock.now - 0.02)
        assert not controller._faulted
        assert controller.rate == pytest.approx(97.0)


@pytest.mark.parametrize(
    ("policy", "stated"),
    [(RateControl(), "1;w=1000"), (RateControl(stated_share=1e-300), "100;w=1")],
)
def test_no_stated_limit_paces_below_the_slowest_rate(policy: RateControl, stated: str) -> None:
    """A stated limit times `stated_share` came after the floor: 1 request in 1,000 s
    paced at 0.00097/s, and a share of 1e-300 paced a 100/s key at 1e-298/s."""
    controller = RateController(policy)
    controller.observe(200, {"ratelimit-policy": stated}, time.monotonic())
    assert controller.rate == SLOWEST_RATE


def read(controller: RateController, clock: Clock, count: int, seconds: float) -> None:
    """`count` requests one after another, each answered 200 after `seconds`."""
    for _ in range(count):
        assert controller.admit() is None
        clock.now += seconds
        controller.observe(200, {}, clock.now - seconds)
        controller.landed(clock.now - seconds)


async def admit_at_once(controller: RateController, count: int) -> list[bool]:
    """Admit `count` requests at one instant: which went at once (the others' turns
    are given back)."""
    turns = [controller.admit() for _ in range(count)]
    waiting = [asyncio.ensure_future(turn) for turn in turns if turn is not None]
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    return [turn is None for turn in turns]


def first_refusal(policy: RateControl, earlier: int, pause: float) -> RateController:
    """A client that read `earlier` ids 10 ms apart, stood idle `pause` s, then opened a
    bulk run on a key with a burst of 5: five successes, then a 429."""

    async def drive(clock: Clock) -> RateController:
        controller = RateController(policy)
        read(controller, clock, earlier, 0.01)
        clock.now += pause
        sent, turns = [], []
        for _ in range(8):
            turn = controller.admit()
            if turn is not None:
                turns.append(asyncio.ensure_future(turn))
            sent.append(clock.now)
            clock.now += 0.002
        for at in sent[:5]:
            controller.observe(200, {}, at)
            controller.landed(at)
        controller.observe(429, {"retry-after": "1"}, sent[5])
        controller.landed(sent[5])
        for turn in turns:
            turn.cancel()
        await asyncio.gather(*turns, return_exceptions=True)
        return controller

    with controller_clock() as clock:
        return asyncio.run(drive(clock))


@pytest.mark.parametrize(
    ("earlier", "pause", "policy"),
    [
        (3, 20.0, RateControl()),
        (50, 20.0, RateControl()),
        (50, 3600.0, RateControl()),
        (0, 0.0, RateControl(max_rate=50.0)),
    ],
    ids=["3 reads 20 s before", "50 reads 20 s before", "50 reads an hour before", "a cap"],
)
def test_a_first_refusal_reads_the_run_not_the_clients_whole_life(
    earlier: int, pause: float, policy: RateControl
) -> None:
    """The first refusal's estimate counts the replies since the client began sending.
    A long-lived client took its replies from before a pause, or the time since its
    first request ever, into that count: it read 5 replies over minutes as well under
    1/s and paced a 5/s key at the floor, 0.5/s, with a slow limit's cycle (60 ids:
    110 s, not 12). A client with a hard cap (`max_rate`) never recorded its first send,
    and read the clock's whole reading as the time. Each now reads what a fresh client
    reads; the pause or the cap changes nothing."""
    fresh = first_refusal(RateControl(), 0, 0.0)
    assert fresh.limit is not None
    assert fresh.limit > 10.0
    controller = first_refusal(policy, earlier, pause)
    assert controller.limit == pytest.approx(min(fresh.limit, policy.max_rate or 1e9))


@pytest.mark.parametrize(("pause", "direct"), [(12.0, 3), (0.5, 12)])
def test_a_client_back_from_a_pause_opens_again_as_a_fresh_one(pause: float, direct: int) -> None:
    """Unpaced, a client that stood idle for more than a second opens its next spell with
    slow start and spread sends, as a fresh client does. One that had read three ids
    (its slow start ended 5 s after its first request) sent the next bulk run's 100
    requests at once: on the fake's 5/s key, 61 of the run's replies were 429 where a
    fresh client takes 6-8. A shorter pause is the same spell: its window, 11.5 after
    three replies, holds."""

    async def drive(clock: Clock) -> list[bool]:
        controller = RateController(RateControl())
        read(controller, clock, 3, 0.02)
        clock.now += pause
        return await admit_at_once(controller, 20)

    with controller_clock() as clock:
        went = asyncio.run(drive(clock))
    assert sum(went) == direct, went


def test_a_paced_cut_to_the_floor_waits_one_slot_of_the_floor() -> None:
    """`min_rate` bounds the pace a cut sets, and the wait for the next slot with it:
    a cut to the floor (1/16 s here, with backoff 1/8) used to hold the next request
    for 1 / (backoff * floor), 128 s, not 16."""
    policy = RateControl(backoff=0.125, min_rate=0.0625)
    with controller_clock() as clock:
        controller = RateController(policy)
        start = clock.now
        controller.observe(200, {}, start)
        controller.observe(429, {}, start)
    assert controller.rate == 0.0625
    assert controller._next_slot - start == pytest.approx(16.0)


@pytest.mark.parametrize("origin", [0.0, 250_000.0])
def test_the_opening_is_the_same_whatever_the_clock_reads(origin: float) -> None:
    """A fresh pacer's first slot was "0.0", so its catch-up for late timers (5 ms)
    counted from the clock's zero: on a real clock, which reads days, the first three
    requests of the opening went at once, and in virtual time, which started at zero,
    only the first client's first one did. The virtual-time runs measured a controller
    that real sockets never saw (the late-timer grid: mean 90.2% there, 88.5% with the
    clock at days). Now the first slot is unset, and the opening is the same from any
    origin: three at once, then one every 2 ms."""

    with controller_clock() as clock:
        clock.now = origin
        went = asyncio.run(admit_at_once(RateController(RateControl()), 5))
    assert went == [True, True, True, False, False]


async def test_a_full_slow_start_window_waits_for_a_landing_without_spinning() -> None:
    """While the opening's ten places are all in flight, the requests waiting for one
    wait for a landing. The release timer used to re-arm itself at once there, and spun
    until the first reply (a million calls in one virtual-time run's 2 ms; on a real
    loop, a busy core for the rest of the first round trip)."""
    controller = RateController(RateControl())
    releases = 0
    release_due = controller._release_due

    def counted() -> None:
        nonlocal releases
        releases += 1
        release_due()

    controller._release_due = counted  # type: ignore[method-assign]
    turns = [controller.admit() for _ in range(12)]
    waiting = [asyncio.ensure_future(turn) for turn in turns if turn is not None]
    await asyncio.sleep(0.2)  # the first reply is late: a slow server
    assert controller._in_flight == 10
    assert sum(task.done() for task in waiting) == 7  # the opening's paced 7 of the 10
    assert releases <= 12  # one a paced release, not one a turn of the loop
    controller.landed()
    await asyncio.sleep(0.01)
    assert sum(task.done() for task in waiting) == 8  # a landing lets the next one go
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)


# ------------------------------------------------------------------ hostile replies

# Header values a server might send by mistake or malice, and any short text.
ODD_VALUES = (
    st.sampled_from(
        [
            "0",
            "1",
            "-1",
            "0.001",
            "1e-300",
            "nan",
            "inf",
            "-inf",
            "1e309",
            "99999999999",
            "",
            " ",
            "abc",
            "100;w=60",
            "0;w=0",
            "1e308;w=1e-308",
            '"d";q=5;w=1',
            "q=nan;w=1",
            "5;w=nan",
            "1;w=1e-320",
            "Wed, 21 Oct 2015 07:28:00 GMT",
        ]
    )
    | st.text(max_size=12)
    | st.floats(allow_nan=True, allow_infinity=True).map(str)
)
HEADER_NAMES = st.sampled_from(
    [
        "retry-after",
        "ratelimit-policy",
        "ratelimit-remaining",
        "ratelimit-reset",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ]
)
EVENTS = st.one_of(
    st.tuples(st.just("admit")),
    st.tuples(
        st.just("reply"),
        st.sampled_from([200, 204, 404, 429, 429, 429, 500, 503]),
        st.dictionaries(HEADER_NAMES, ODD_VALUES, max_size=4),
        st.floats(0.0, 5.0),  # seconds before now it was sent
    ),
    st.tuples(st.just("wait"), st.floats(0.0, 30.0)),
    st.tuples(st.just("finishing"), st.integers(-5, 2000)),
)


@settings(max_examples=300, deadline=None)
@given(
    policy=st.builds(
        RateControl,
        max_rate=st.none() | st.floats(0.5, 5000.0),
        backoff=st.floats(0.1, 0.99),
        recovery=st.floats(0.01, 30.0),
        min_rate=st.floats(0.01, 10.0),
    ),
    events=st.lists(EVENTS, max_size=60),
)
def test_no_reply_or_header_makes_the_controller_fault_or_stall(
    policy: RateControl, events: list[tuple[object, ...]]
) -> None:
    """Any sequence of replies (refusals, errors, odd `Retry-After` and rate-limit
    headers: negative, NaN, infinite, huge, dates, junk) leaves the controller working:
    no fault of its own (which would stop adaptation), a pace that is a finite number
    within the policy's bounds, and no request held back more than a minute."""

    async def drive(clock: Clock) -> RateController:
        controller = RateController(policy)
        turns: list[asyncio.Future[None]] = []
        for event in events:
            if event[0] == "admit":
                turn = controller.admit()
                if turn is not None:
                    turns.append(asyncio.ensure_future(turn))
            elif event[0] == "reply":
                _, status, headers, ago = event
                assert isinstance(status, int)
                assert isinstance(ago, float)
                assert isinstance(headers, dict)
                sent_at = max(clock.now - ago, 250_000.0)
                controller.observe(status, headers, sent_at)
                controller.landed(sent_at)
            elif event[0] == "wait":
                assert isinstance(event[1], float)
                clock.now += event[1]
            else:
                assert isinstance(event[1], int)
                controller.finishing(event[1])
            await asyncio.sleep(0)
            assert not controller._faulted
            for value in (controller.rate, controller.limit):
                assert value is None or 0 < value < float("inf"), value
            if controller.rate is not None:  # a limit the server states may be lower
                floor = min(policy.min_rate, policy.max_rate or 1e9)
                if controller._stated is not None:
                    floor = min(floor, controller._stated * policy.stated_share)
                assert controller.rate >= floor * 0.999
                assert policy.max_rate is None or controller.rate <= policy.max_rate * 1.001
            hold = controller._next_slot - clock.now
            assert hold <= 60.0 + 1.0 / policy.min_rate + 1.0, hold
            assert controller._in_flight >= 0
            assert controller._old >= 0
        if controller._timer is not None:
            controller._timer.cancel()
        for turn in turns:
            turn.cancel()
        await asyncio.gather(*turns, return_exceptions=True)
        return controller

    with controller_clock() as clock:
        asyncio.run(drive(clock))
