"""Client-wide rate control: find the key's limit and hold just under it.

The live service limits requests per access key, so every call and every bulk run of a
client shares one controller. It sends unpaced until the server refuses (429); then it
paces requests at a rate it keeps adjusting, which is additive increase, multiplicative
decrease (AIMD, as in TCP and Netflix's concurrency-limits), with the decrease set by
what the server delivered:

- On a 429, the new rate is `backoff` times the lowest of the rate it was sending at
  and what the server let through: successful replies over the last second (a token
  bucket lets through exactly its refill rate once it is empty; BBR uses the same
  delivery-rate idea) and the successes since the last cut, when the bucket was empty
  too (unless far fewer: then they count this client's own slow pace, not what the key
  served). A refusal soon after a cut reads the few replies since: at most the requests
  not refused, and the pace times the share that got through (not less than the key
  served over the spell before that cut). One cut per round trip: a 429 for a request
  sent before the last cut, or before what was in flight then has landed, says nothing
  new, so a burst of refusals is one decrease, not a collapse.
- Until the first refusal, requests in flight start at `_INITIAL_WINDOW` and grow by
  half each round trip (TCP's slow start, gentler, so the window that overshoots a
  bucket is smaller), the first of them spread at `_OPENING_RATE`, so a
  client does not open with a burst that a small bucket must refuse; past `_OPEN_WINDOW`
  in flight it is off. An unpaced client back from a pause of over a second (nothing
  in flight) opens again the same way, and reads the key from the replies since. A
  first refusal before replies can tell a limit paces at a guess that doubles every
  `_DOUBLING` seconds until the next 429 measures it.
- Between refusals the rate follows CUBIC's curve (RFC 9438): back to the estimated
  limit in `recovery` seconds (or in the time of `_CYCLE_REQUESTS` requests, for slow
  limits, so one probe's refusal is a small share), flat around it, then faster and
  faster above it, so a limit that rose is found in seconds while the limit it knows
  is approached gently, and more gently still (up to 4 times) after cuts that found
  the same limit, so a steady limit is probed less and less often.
- A refusal at or below a pace that had held (the estimate; within a second of the
  cut, what the key served between the last two cuts if that was far less) means
  someone else spends the key's tokens (another process sharing the key, or a limit
  that fell), and so does a cut to a third of the highest estimate lately (a client
  squeezed while others opened on the key), and a 429 for one of a client's first two
  requests (the key was busy when it opened: a fresh bucket lets a lone client's
  first requests through). A cycle that starts (at a cut) within `_SHARED_FOR` seconds
  after one is `recovery` long however slow the pace, and past 10% above the estimate
  the pace doubles every `recovery` seconds, to the cycle's end: a client squeezed to
  a small share takes the key back within seconds when the others finish, instead of
  growing on the scale of its own small share (at 2/s, a 35 s cycle).
- A bulk run's last calls, once they fit in the wait a refusal would cost one of them
  (its `Retry-After`), are paced at the estimate, not above it: a probe's 429 there
  would only hold the run's end back by that wait (`finishing`).
- A server that states its limit (`RateLimit-Policy`, draft-ietf-httpapi-ratelimit-headers)
  is paced at `stated_share` of it with no probing above; `RateLimit-Remaining: 0` (or the
  `X-RateLimit-*` pair) holds paced requests until its reset.

Nothing pauses the whole client and releases it at once: a retried request waits its own
`Retry-After` and then takes its place in the same paced queue as everything else.
Retries draw on a client-wide `RetryBudget` (Finagle's retry budget), so a server that
refuses everything gets a trickle of retries, not a multiple of the load. A fault in the
controller itself fails no call: it logs a warning and stops adapting (`_give_up`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field, replace

from ._exceptions import ConfigurationError, in_use_by_another_loop
from ._http import parse_retry_after
from ._logging import SdkLog

log = SdkLog()


@dataclass(frozen=True, slots=True)
class RetryBudget:
    """At most `share` retries per request sent, plus `per_second` retries a second.

    A client-wide allowance: each first attempt deposits `share`, time deposits
    `per_second`, a retry withdraws 1, and the balance starts at `per_second * 10` and
    holds at most that plus `share * 1000`. When it is empty, the error is raised
    instead of retried.
    """

    share: float = 0.2
    per_second: float = 10.0

    def __post_init__(self) -> None:
        for name in ("share", "per_second"):
            value = getattr(self, name)
            if not _finite(value) or not value >= 0:
                raise ConfigurationError(f"RetryBudget.{name} must be a finite number >= 0")


@dataclass(frozen=True, slots=True)
class RateControl:
    """How a client paces its requests to the access key's limit (README, Rate limits).

    `adaptive` (on by default) learns the limit from 429 replies and rate-limit headers;
    `max_rate` is a hard cap in requests per second for the whole client, adaptive or
    not; `retry_budget` bounds retries client-wide (None: no budget). The other fields
    tune the controller and rarely need changing: `backoff` (the share of the measured
    limit kept after a 429), `recovery` (seconds to grow back to the limit after a cut),
    `stated_share` (the share of a limit the server states in its headers) and `min_rate`.
    Rates are at least `SLOWEST_RATE` (one request in about 17 minutes): a call paced
    slower would wait for its turn longer than any timeout.
    """

    adaptive: bool = True
    max_rate: float | None = None
    retry_budget: RetryBudget | None = field(default_factory=RetryBudget)
    backoff: float = 0.9
    recovery: float = 1.0
    stated_share: float = 0.97
    min_rate: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.adaptive, bool):
            raise ConfigurationError("RateControl.adaptive must be True or False")
        if self.max_rate is not None and not _rate(self.max_rate):
            raise ConfigurationError(
                f"RateControl.max_rate must be a number from {SLOWEST_RATE} up (or None)"
            )
        if self.retry_budget is not None and not isinstance(self.retry_budget, RetryBudget):
            raise ConfigurationError("RateControl.retry_budget must be a RetryBudget (or None)")
        if not _positive(self.backoff) or self.backoff >= 1.0:
            raise ConfigurationError("RateControl.backoff must be in (0, 1)")
        if not _positive(self.stated_share) or self.stated_share > 1.0:
            raise ConfigurationError("RateControl.stated_share must be in (0, 1]")
        if not _positive(self.recovery):
            raise ConfigurationError("RateControl.recovery must be a positive number")
        if not _rate(self.min_rate):
            raise ConfigurationError(
                f"RateControl.min_rate must be a number from {SLOWEST_RATE} up"
            )


SLOWEST_RATE = 0.001  # requests per second: the slowest pace a setting or a server may set


def _finite(value: object) -> bool:
    """A real number that a float holds (not bool, NaN, infinity, or an int too large)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond any float
        return False


def _positive(value: object) -> bool:
    return _finite(value) and value > 0  # type: ignore[operator]


def _rate(value: object) -> bool:
    return _finite(value) and value >= SLOWEST_RATE  # type: ignore[operator]


_WINDOW = 1.0  # seconds of successful replies behind a limit estimate
_MIN_WINDOW = 0.25  # ... at least, so one early burst does not read as the limit
_MIN_SAMPLES = 10  # ... or at least this many replies, for slow limits
_IDLE = 10.0  # seconds without waiting for a slot (and no 429) before pacing stops
_CATCH_UP = 0.005  # seconds of late timer a paced release may make up at once
_DOUBLING = 0.25  # seconds in which a guessed pace doubles, until the next 429
_OPENING_RATE = 500.0  # requests per second until the first reply (10 in 20 ms)
_INITIAL_WINDOW = 10  # requests in flight at first (slow start)
_OPEN_WINDOW = 640  # ... grown each round trip until this many: then no window
_ROUND_TRIP_AT_MOST = 1.0  # seconds a cut waits at most for what was in flight to land
_QUIET_AT_LEAST = 0.005  # seconds after a cut whose sends still count as before it
_REFUSED_AGAIN = 3  # ... or 429s of requests sent after it
_FAR_BELOW = 0.5  # an estimate soon after a cut below this share of the last: rough
_SERVED_AGREES = 0.7  # the successes between two cuts count when at least this share
# of the estimate from the last window (less: they measured this client's slow pace)
_CYCLE_REQUESTS = 70  # a growth cycle lasts at least this many requests' time
_STEADY_DOUBLINGS = 2  # ... doubled for each cut that found the same limit, up to 2 times
_SHARED_FOR = 30.0  # seconds after a refusal below a pace that held: probe as if shared
_SEARCH_SPELL = 0.3  # ... not one this soon after the cut that set the estimate
_SQUEEZED = 3.0  # ... or one that cut the estimate below the highest lately / this
_BUSY_OPENING = 1.5 / _OPENING_RATE  # ... or a 429 for a request sent this soon after the
# first (one of the first two): the key was busy when the client opened
_SLOW_START_FOR = 5.0  # seconds after the first request: slow start ends regardless
_REFUSAL_WAIT = 0.5  # seconds a 429 without Retry-After costs its request (the retry's)
_FREED = 1.5  # a pace this far above the estimate, not refused: the key has room


class RateController:
    """The pace of one client's requests; shared by `with_options` copies.

    Read `rate` (requests per second it paces at, None while unpaced), `limit` (its
    estimate of the key's limit), `rate_limited` (429 replies seen), `responses`
    (replies seen) and `calls` (calls started) at any time, for progress displays and
    metrics.
    """

    def __init__(self, policy: RateControl) -> None:
        self.policy = policy
        self.rate: float | None = policy.max_rate
        self.limit: float | None = None
        self.rate_limited = 0
        self.responses = 0
        # Calls started, counted by the engine (`+= 1`: no call on the path every
        # request takes); each first attempt deposits its share of the retry budget.
        self.calls = 0
        self._stated: float | None = None  # the limit the server's headers state
        self._next_slot = float("-inf")  # when the next paced request may go
        self._waiters: deque[asyncio.Future[None]] = deque()  # paced requests, in order
        self._timer: asyncio.TimerHandle | None = None  # releases the first waiter
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of timer and waiters
        self._last_cut = -1.0  # when the rate was last decreased
        self._quiet_until = -1.0  # 429s of requests sent before this are not news
        self._since_sent = 0  # requests sent since the last cut
        self._since_refused = 0  # ... and of those, 429s past the quiet after the cut
        self._since_denied = 0  # ... 429s of requests sent since the cut, quiet or not
        self._since_ok = 0  # ... and successes
        self._since_ok_sent = 0.0  # ... the latest send among those successes
        self._cut_to = 0.0  # the pace the last cut set
        self._rtt = 0.0  # seconds from send to a successful reply, smoothed
        self._last_wait = float("-inf")  # when a request last had to wait for its slot
        self._first_send = 0.0
        self._spell_start = 0.0  # the first send after the client last stood idle
        self._idle_since = float("-inf")  # when the last request in flight landed
        self._window: float | None = _INITIAL_WINDOW if policy.adaptive else None
        self._opening = policy.adaptive  # until the first reply: sends spread out
        self._guessed = False  # the limit is a guess: no reply had said what gets through
        self._rough = False  # ... or an estimate from a few replies: regrow sooner
        self._held: float | None = None  # ... served between the last two cuts, if far less
        self._shared_at = float("-inf")  # the last refusal that showed others on the key
        self._peak, self._peak_at = 0.0, float("-inf")  # the highest estimate lately
        self._steady = 0  # cuts in a row that found about the same limit: longer cycles
        self._hold_until = float("-inf")  # a bulk run's last calls: no growth above
        self._hold_at = 0.0  # ... this pace until then
        self._refusal_wait = _REFUSAL_WAIT  # seconds a refused request waits to retry
        self._faulted = False  # a fault of its own stopped adaptation (`_give_up`)
        self._in_flight = 0  # requests admitted and not landed
        self._old = 0  # ... of those, sent before the last cut and not landed yet
        self._oks: deque[float] = deque()  # times of recent successful replies
        self._sent: deque[float] = deque(maxlen=4096)  # times of recent sends while unpaced
        budget = policy.retry_budget
        self._budget = budget
        # The reserve (ten seconds of `per_second`), as Finagle's budget starts: not the
        # shares of a thousand requests that have not been sent.
        self._balance = budget.per_second * 10.0 if budget else 0.0
        self._balance_at = time.monotonic()
        self._deposited = 0  # calls whose share the budget's balance holds

    def admit(self) -> Awaitable[None] | None:
        """Admit one request: None to send it now, else an awaitable that ends at its turn.

        Paced requests wait in order; one timer releases them `1 / rate` apart, at the
        rate in force when each is released (so a rate that rises takes effect at once).
        """
        if self.rate is None and self._in_flight and not self._waiters and not self._opening:
            # Unpaced, the spell under way, a place in the window if slow start holds:
            # most requests of a run on a key that never refused, kept to a few steps.
            # (Sends are noted only until a success: `_sending` reads them only then.)
            window = self._window
            if window is None:
                if not self._oks and self.policy.adaptive:
                    self._note_send(time.monotonic())
                self._in_flight += 1
                return None
            if self._in_flight < window:  # (a window is adaptive's)
                now = time.monotonic()
                if now - self._first_send <= _SLOW_START_FOR:
                    if not self._oks:
                        self._note_send(now)
                    self._in_flight += 1
                    return None
        try:
            return self._admit()
        except ConfigurationError:  # used from two running loops at once
            raise
        except Exception as error:  # a fault of the controller's own: send unpaced
            self._give_up(error)
            self._in_flight += 1
            return None

    def _admit(self) -> Awaitable[None] | None:
        if not self._in_flight and not self._waiters:
            self._start_spell()
        window = self._window
        if (window is not None or self.rate is not None) and self._loop is not None:
            self._adopt_loop()
        if window is not None:
            if self._first_send and time.monotonic() - self._first_send > _SLOW_START_FOR:
                self._end_slow_start()
                window = None
            elif self._in_flight >= window or self._waiters:
                return self._turn(self._queue(time.monotonic()))
        pace = self._pace()
        if pace is not None:
            now = time.monotonic()
            if self.rate is not None:
                self._grow(now)
                pace = self._pace()
            if pace is not None:
                if self._waiters or now < self._next_slot:
                    return self._turn(self._queue(now))
                self._next_slot = max(self._next_slot, now - _CATCH_UP) + 1.0 / pace
                self._since_sent += 1
        if self.rate is None and not self._oks and self.policy.adaptive:
            self._note_send(time.monotonic())
        self._in_flight += 1
        return None

    def _note_send(self, now: float) -> None:
        """An unpaced send before any success of the spell: a first refusal with no
        success to go by reads the pace from these (`_sending`)."""
        if not self._sent:
            self._first_send = now
        self._sent.append(now)  # (the oldest drop out past 4096)

    def landed(self, sent_at: float | None = None) -> None:
        """A request admitted earlier (sent at `sent_at`, if it was) has its reply or
        failed: frees its place."""
        if self._in_flight > 1:
            self._in_flight -= 1
        else:
            self._in_flight = 0
            self._idle_since = time.monotonic()
        if self._old > 0 and (sent_at is None or sent_at < self._last_cut):
            self._old -= 1
        if self._window is not None and self._waiters and self._timer is None:
            self._release()

    def _give_up(self, error: Exception) -> None:
        """A fault in the controller itself (a bug): stop adapting rather than fail or
        stall the caller's calls. Every waiting request goes at once; `max_rate`, if
        set, still paces the requests admitted after."""
        if not self._faulted:
            self._faulted = True
            log.warning(
                "rate control stopped adapting after an internal error; requests go"
                " unpaced (a bug in edgedelivery-async: please report it)",
                exc_info=error,
            )
        self.policy = replace(self.policy, adaptive=False)
        self.rate, self.limit, self._stated = self.policy.max_rate, None, None
        self._window, self._opening, self._hold_until = None, False, float("-inf")
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)

    def _start_spell(self) -> None:
        """Nothing in flight or waiting: after a pause of more than `_WINDOW`, the
        replies from before it say nothing of what the key serves now (a long-lived
        client's first refusal in a new bulk run read 3 replies over 20 s as 0.15/s).
        Unpaced, the client opens again as a fresh one does (slow start, spread sends;
        TCP restarts its window after idle too, RFC 5681 4.1): a client that had read
        three ids sent the next bulk run's first 100 requests at once, and 61 of its 121
        replies on a 5/s key were 429."""
        now = time.monotonic()
        if now - self._idle_since > _WINDOW:
            self._spell_start = now
            self._oks.clear()
            if not self._first_send:
                self._first_send = now
            if self.rate is None and self.policy.adaptive:
                self._window, self._opening = _INITIAL_WINDOW, True
                self._first_send = now
                self._sent.clear()

    async def _turn(self, waiter: asyncio.Future[None]) -> None:
        """Wait for a place; a place granted to a caller cancelled meanwhile is given back."""
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.landed()
            raise

    def _adopt_loop(self) -> None:
        """Called from another event loop than the last (a second `asyncio.run`, a
        notebook): the old loop's timer and waiters are gone with it, so forget them.
        A loop still running (in another thread) still has them: the call is refused."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            if self._loop is not None and self._loop.is_running():
                raise in_use_by_another_loop()
            self._loop, self._timer, self._in_flight, self._old = loop, None, 0, 0
            self._waiters.clear()

    def _queue(self, now: float) -> asyncio.Future[None]:
        self._loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        self._last_wait = now
        if self._timer is None and self._pace() is not None:
            self._arm(now)
        return waiter

    def _pace(self) -> float | None:
        """Requests per second to release at: the rate, or the opening's until a reply."""
        if self.rate is None and self._opening:
            return _OPENING_RATE
        return self.rate

    def _arm(self, now: float) -> None:
        delay = max(0.0, self._next_slot - now)
        self._timer = asyncio.get_running_loop().call_later(delay, self._release)

    def _release(self) -> None:
        """The timer: let the waiters whose turn has come go, and re-arm for the rest."""
        self._timer = None
        try:
            self._release_due()
        except Exception as error:  # the timer's caller is the event loop: nobody to tell
            self._give_up(error)

    def _release_due(self) -> None:
        now = time.monotonic()
        self._grow(now)
        waiters, rate, window = self._waiters, self._pace(), self._window
        slot = max(self._next_slot, now - _CATCH_UP)
        full = False
        while waiters and (rate is None or slot <= now):
            if window is not None and self._in_flight >= window:
                full = True  # slow start: the next place comes with a landing (`landed`)
                break
            waiter = waiters.popleft()
            if waiter.done():  # cancelled while waiting: its turn passes on
                continue
            self._in_flight += 1
            waiter.set_result(None)
            if rate is not None:
                slot += 1.0 / rate
                self._since_sent += 1
        self._next_slot = slot
        if waiters and rate is not None and not full:  # (re-armed at once, the timer
            # spun until the first reply: a million calls in one run's 2 ms of virtual time)
            self._arm(now)

    def observe(self, status: int, headers: Mapping[str, str], sent_at: float) -> None:
        """Learn from one reply of a request sent at `sent_at` (a `time.monotonic()`)."""
        self.responses += 1
        if status == 429:
            self.rate_limited += 1
        if not self.policy.adaptive:
            return
        try:
            now = time.monotonic()
            if headers and (
                "ratelimit-policy" in headers
                or "ratelimit-remaining" in headers
                or "x-ratelimit-remaining" in headers
            ):
                self._read_headers(headers, now)
            self._opening = False
            if status == 429:
                self._refused(headers, sent_at, now)
            elif status < 500:  # let through by the key's limit (written out here: every
                # successful reply takes this path)
                self._rtt = 0.9 * self._rtt + 0.1 * (now - sent_at) if self._rtt else now - sent_at
                if sent_at >= self._quiet_until > 0:
                    self._since_ok += 1
                    self._since_ok_sent = max(self._since_ok_sent, sent_at)
                oks = self._oks
                oks.append(now)
                while oks[0] < now - 4 * _WINDOW:
                    oks.popleft()
                if self._window is not None:
                    self._window += 0.5  # half one more per reply: x1.5 each round trip
                    if self._window >= _OPEN_WINDOW:
                        self._end_slow_start()
                if self.limit is not None:
                    self._grow(now)
        except Exception as error:
            self._give_up(error)

    def _refused(self, headers: Mapping[str, str], sent_at: float, now: float) -> None:
        """A 429: a cut, unless it says nothing new; slow start ends."""
        if sent_at - self._first_send < _BUSY_OPENING:  # the key was busy at the opening
            self._shared_at = now
        wait = parse_retry_after(headers.get("retry-after")) if headers else None
        self._refusal_wait = _REFUSAL_WAIT if wait is None else max(wait, _REFUSAL_WAIT)
        self._since_refused += sent_at >= self._quiet_until > 0
        self._since_denied += sent_at >= self._last_cut >= 0
        # One cut per round trip: not before the requests sent before the last cut
        # have landed (a slow one may take its token late) unless those sent after
        # it are refused again and again, nor for the first request at the new
        # pace (it may come before the empty bucket's next token).
        if sent_at >= self._quiet_until and (
            self._old <= 0
            or self._since_refused >= _REFUSED_AGAIN
            or now - self._last_cut > _ROUND_TRIP_AT_MOST
        ):
            self._cut(now)
        if self._window is not None:
            self._end_slow_start()

    def finishing(self, remaining: int) -> None:
        """A bulk run has read its last key and has `remaining` calls left (`fan_out`'s
        `finishing`).

        Once they fit in the wait a refusal would cost one of them (its `Retry-After`),
        a probe above what the key serves can only delay the run's end: until they are
        done the pace grows no further than the estimate, or 0.9 of what the last
        second delivered if that is more. A pace already far above the estimate and
        not refused (the key freed by others) keeps growing.
        """
        try:
            self._finishing(remaining)
        except Exception as error:
            self._give_up(error)

    def _finishing(self, remaining: int) -> None:
        rate, limit = self.rate, self.limit
        if rate is None or limit is None or self._guessed or remaining < 0:
            return
        now = time.monotonic()
        if now >= self._hold_until:
            if rate >= _FREED * limit:
                return
            delivered = self._delivered(now) or 0.0
            self._hold_at = max(limit, delivered * self.policy.backoff)
        pace = min(rate, self._hold_at)
        if remaining < pace * self._refusal_wait:
            self._hold_until = now + (remaining + 1) / pace

    def allow_retry(self) -> bool:
        """Withdraw one retry from the budget; False when it is spent.

        First attempts deposit their share here, from `calls`, rather than by a call
        each on the path every request takes (a redirect's next hop deposits nothing).
        """
        budget = self._budget
        if budget is None:
            return True
        calls = self.calls
        self._balance += budget.share * (calls - self._deposited)
        self._deposited = calls
        self._refill()
        if self._balance < 1.0:
            return False
        self._balance -= 1.0
        return True

    # ------------------------------------------------------------------ internals
    def _refill(self) -> None:
        budget = self._budget
        if budget is None:
            return
        now = time.monotonic()
        cap = budget.per_second * 10.0 + budget.share * 1000
        self._balance = min(cap, self._balance + (now - self._balance_at) * budget.per_second)
        self._balance_at = now

    def _cut(self, now: float) -> None:
        """Multiplicative decrease, from what the server let through (the module's
        docstring says how); a first refusal from a lone request changes nothing."""
        policy, rate, guessed, rough = self.policy, self.rate, False, False
        held: float | None = None
        if rate is None:  # the first refusal: what got through is all there is to go by
            if self._in_flight <= 1 and self.responses <= 1:
                return  # a lone request refused says nothing of a limit: its wait will do
            delivered = self._delivered(now)
            if delivered is None:  # no success yet: the rate it sent at, or the opening's
                sending = self._sending(now)
                delivered = _INITIAL_WINDOW / _MIN_WINDOW if sending is None else sending
            estimate = delivered
            guessed = len(self._oks) < _MIN_SAMPLES  # too few replies to tell a limit
        else:
            estimate, cut = rate, self._last_cut
            if cut < 0 or now - cut >= _WINDOW:  # a full window of replies at this pace
                delivered = self._delivered(now)
                if delivered is not None:
                    estimate = min(rate, delivered)
            else:  # refused again soon: the bucket served at most what was not refused
                ok, refused = self._since_ok, self._since_denied
                sent = max(self._since_sent, ok + refused)  # granted before, sent after
                got = sent - refused + 1
                estimate = min(estimate, got / (now - cut))
                if now - cut > 2.0 * self._rtt:  # ... and, once successes had time to
                    # land (429s come back sooner), the pace times the share that got through
                    share = rate * (ok + 1) / (ok + refused + 1)
                    # a share of a few replies may read low: regrow sooner from it
                    rough = share < estimate and ok < _MIN_SAMPLES
                    estimate = min(estimate, share)
                if self.limit is not None and estimate < _FAR_BELOW * self.limit:
                    # far below the last estimate, it reads a moment's share (another
                    # client of the key overshooting, say): regrow sooner from it
                    rough = True
                if self._held is not None and estimate < self._held:
                    # ... but not below what the key served over the spell before the
                    # last cut: a lone 5/s client read 4.0/s from one or two replies,
                    # regrew on the seconds scale from it and overshot again
                    estimate, rough = min(rate, self._held), False
            climbed = self._cut_to < 0.8 * rate and rate >= _CYCLE_REQUESTS
            if cut >= 0 and self._since_ok >= _MIN_SAMPLES and not climbed:
                # The bucket was empty at the last cut and again now, so what it served
                # between is what it refilled: the successes sent since the cut, up to
                # the latest of them that has landed. Less if it overflowed while the
                # pace was low, which is safe for a slow limit (a probe's 429 costs it
                # more), but not worth it for a fast one whose pace climbed far since.
                # Nor when it is far below what got through lately: then it counts this
                # client's own slow pace since the cut (a key shared with another client
                # that took most of it), and would hold that pace down for good.
                spell = max(self._since_ok_sent - cut, 1.0 / estimate)
                served = self._since_ok / spell
                if served >= _SERVED_AGREES * estimate:
                    estimate = min(estimate, served)
                else:  # ... but it held: a refusal above it is no sign of sharing
                    held = served
        estimate = max(estimate, policy.min_rate)
        new = estimate * policy.backoff
        if self.rate is not None and new >= self.rate:
            return  # already below what the server delivers: the refusal was in flight
        previous = self.limit
        if self._shares_the_key(now, estimate, guessed):
            self._shared_at = now
        self._held = held
        same = (
            previous is not None
            and not (guessed or rough or self._rough or self._guessed)
            and 0.85 * previous <= estimate <= 1.15 * previous
        )
        self._steady = self._steady + 1 if same else 0
        self.limit, self._guessed, self._rough = estimate, guessed, rough
        self._hold_at = min(self._hold_at, estimate)
        self._last_cut = now
        self._since_sent = self._since_refused = self._since_denied = self._since_ok = 0
        self._since_ok_sent = now
        self._old = self._in_flight  # in flight now (this request lands just after)
        self._set_rate(new)
        new = self.rate or new  # ... as `min_rate` (or a stated limit) bounds it
        self._cut_to = new
        # The bucket is empty: the next request at the new pace waits for its token.
        self._next_slot = max(self._next_slot, now + 1.0 / new)
        # Requests let go just before the cut may be sent just after it: not news either.
        self._quiet_until = now + max(1.5 / new, _QUIET_AT_LEAST)

    def _shares_the_key(self, now: float, estimate: float, guessed: bool) -> bool:
        """Whether this refusal says that others spend the key's tokens: it came at or
        below an estimate that had held (not in the search for it, right after the cut
        that set it), or it puts the estimate below a third of the highest one lately
        (squeezed by clients that opened on a busy key), once per such peak."""
        if guessed:  # a guess is neither a peak nor a squeeze, nor below anything
            return False
        previous, rate = self.limit, self.rate
        if previous is not None and self._held is not None and now - self._last_cut < _WINDOW:
            # An estimate read from the last second's replies counts the tokens the
            # bucket saved while the pace was low (a lone 5/s client read 7.9/s there,
            # then took its refusal at 7.2/s for a sign of sharing); what the key served
            # over the whole spell before that cut is the pace that held, unless the
            # new pace held for a second too (a squeezed client's share, refused there)
            previous = min(previous, self._held)
        below = (
            previous is not None
            and rate is not None
            and rate <= previous
            and not (self._guessed or self._rough)
            and now - self._last_cut >= _SEARCH_SPELL
        )
        if now - self._peak_at > _SHARED_FOR:
            self._peak = 0.0
        # An estimate read from the few replies after a guess is a step of the search
        # down from the guess, not a pace that held: no peak (on real sockets a lone
        # 5/s client read 25/s there, and took its next cuts for squeezes).
        if estimate >= self._peak and not self._guessed:
            self._peak, self._peak_at = estimate, now
        elif estimate * _SQUEEZED < self._peak:
            self._peak, self._peak_at = estimate, now  # one squeeze per peak
            return True
        return below

    def _grow(self, now: float) -> None:
        """CUBIC growth since the last cut: back to the limit in `recovery` s, then beyond.

        A client that has not filled its pace for a while goes back to unpaced (its
        next refusal measures the limit afresh), unless a cap or a stated limit holds.
        """
        limit = self.limit
        if limit is None:
            return
        policy = self.policy
        calm = now - self._last_cut
        if (
            calm > _IDLE
            and not self._waiters
            and now - self._last_wait > _IDLE
            and policy.max_rate is None
            and self._stated is None
        ):
            self.rate = None
            return
        if self._guessed:  # refused before any reply said what gets through: search up
            # (at most 2**60: a cap or a stated limit keeps a long-idle guess from pacing
            # down to unpaced, and 2.0**(calm / 0.25) overflows after 256 s)
            self._set_rate(limit * policy.backoff * 2.0 ** min(calm / _DOUBLING, 60.0))
            return
        # Slow limits: longer cycles, so a probe's 429 is rare. A limit that held at
        # the last cuts is approached more slowly still; a rough estimate regains its
        # limit sooner. Past the limit, the search up goes at the usual pace.
        # Shared or not as of the last cut, for the whole cycle: a squeezed client whose
        # cycle outlived `_SHARED_FOR` fell from its regrowth (5/s) onto the slow curve
        # of its small share (0.5/s) without a refusal, and finished alone at 0.5/s.
        shared = self._last_cut - self._shared_at < _SHARED_FOR
        slow = not (self._rough or shared)
        k = max(policy.recovery, _CYCLE_REQUESTS / limit) if slow else policy.recovery
        back = k * 2 ** min(self._steady, _STEADY_DOUBLINGS)
        if shared and calm > back + k:  # 10% above and still served: the others left
            doublings = min((calm - back - k) / policy.recovery, 20.0)
            rate = limit * (2.0 - policy.backoff) * 2.0**doublings
        else:
            scale = back if calm < back else k
            rate = limit * (1.0 + (1.0 - policy.backoff) * ((calm - back) / scale) ** 3)
        if now < self._hold_until:  # a bulk run's last calls: no probing above
            rate = min(rate, self._hold_at)
        self._set_rate(rate)

    def _end_slow_start(self) -> None:
        """No window from now on: whoever waits for a place goes (paced, if a rate holds)."""
        self._window, self._opening = None, False
        if self._waiters and self._timer is None:
            if self.rate is None:
                self._release()
            else:
                self._arm(time.monotonic())

    def _set_rate(self, rate: float) -> None:
        policy = self.policy
        rate = max(rate, policy.min_rate)
        if self._stated is not None:
            rate = min(rate, self._stated * policy.stated_share)
        if policy.max_rate is not None:
            rate = min(rate, policy.max_rate)
        rate = max(rate, SLOWEST_RATE)  # a slow stated limit times `stated_share`: no slower
        previous, self.rate = self.rate, rate
        if self._timer is not None and (previous is None or rate > previous * 1.5):
            # much faster now: the waiter armed at the old pace goes sooner
            self._timer.cancel()
            self._next_slot = min(self._next_slot, time.monotonic() + 1.0 / rate)
            self._arm(time.monotonic())

    def _delivered(self, now: float) -> float | None:
        """Successful replies per second over the recent window (since the last cut)."""
        oks, begun = self._oks, max(self._first_send, self._spell_start)
        start = max(now - _WINDOW, self._last_cut, begun)
        if now - start < _MIN_WINDOW:
            start = max(now - _MIN_WINDOW, begun)
        count = sum(1 for t in oks if t >= start)
        if count < _MIN_SAMPLES:  # a slow limit, or early days: take more replies
            if len(oks) >= _MIN_SAMPLES:
                start, count = min(start, oks[-_MIN_SAMPLES]), max(count, _MIN_SAMPLES)
            else:  # all there are: the replies of the last 4 s (below 2.5/s, fewer than
                # ten), over 4 s or since the client began sending, if later
                start, count = max(begun, now - 4 * _WINDOW), len(oks)
            # Too high an estimate costs a few 429s and is cut again within a round
            # trip; too low a one costs seconds of climbing, so no floor of a second.
        return count / max(now - start, 0.05) if count else None

    def _sending(self, now: float) -> float | None:
        """Requests per second sent while unpaced, or None from fewer than `_MIN_SAMPLES`."""
        sent = self._sent
        while sent and sent[0] < now - 4 * _WINDOW:
            sent.popleft()
        if len(sent) < _MIN_SAMPLES:
            return None
        recent = sum(1 for t in sent if t >= now - _WINDOW)
        if recent >= _MIN_SAMPLES:
            return recent / max(now - max(now - _WINDOW, sent[0]), _MIN_WINDOW)
        return len(sent) / max(now - sent[0], _MIN_WINDOW)

    def _read_headers(self, headers: Mapping[str, str], now: float) -> None:
        """The limit a server states, and a quota it says is spent."""
        policy_value = headers.get("ratelimit-policy")
        if policy_value:
            stated = stated_rate(policy_value)
            if stated is not None and stated != self._stated:
                self._stated = stated
                self.limit = stated
                self._set_rate(stated)
        remaining = headers.get("ratelimit-remaining") or headers.get("x-ratelimit-remaining")
        if remaining is not None and remaining.strip() == "0":
            reset = headers.get("ratelimit-reset") or headers.get("x-ratelimit-reset")
            seconds = reset_seconds(reset, time.time())
            if seconds is not None and 0 < seconds <= 60:  # paced requests wait for it
                self._next_slot = max(self._next_slot, now + seconds)


def stated_rate(value: str) -> float | None:
    """Requests per second from a `RateLimit-Policy` value, or None if unreadable.

    Both drafts' forms: `100;w=60` and `"default";q=100;w=60` (the first policy).
    """
    first = value.split(",", 1)[0]
    quota = window = None
    for index, part in enumerate(first.split(";")):
        part = part.strip()
        name, sep, number = part.partition("=")
        try:
            if not sep and index == 0:
                if not part.startswith('"'):  # a quoted name is draft 07's form
                    quota = float(part)
            elif name.strip() == "q":
                quota = float(number)
            elif name.strip() == "w":
                window = float(number)
        except ValueError:
            return None
    if quota is None or window is None or not quota > 0 or not window > 0:
        return None
    rate = quota / window
    return rate if SLOWEST_RATE <= rate < float("inf") else None


def reset_seconds(value: str | None, wall_now: float) -> float | None:
    """Seconds until a rate-limit reset: delta-seconds, or a Unix time (GitHub's form)."""
    if not value:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    if number != number or number < 0:
        return None
    if number > 1_000_000_000:  # a Unix timestamp
        return max(0.0, number - wall_now)
    return number
