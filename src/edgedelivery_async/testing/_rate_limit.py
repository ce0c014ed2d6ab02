"""The fake's rate limit: a token bucket per access key, like a real API's.

Every key presented gets its own bucket of `burst` tokens, refilled at `rate` per
second; a request that finds the bucket empty is answered 429 (with `Retry-After` when
set, and the IETF draft's `RateLimit-*` headers when asked). The limit may change
during a run, on a schedule (`changes`) or by `FakeEdgeDelivery.set_rate_limit`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .._exceptions import ConfigurationError
from .._rate_control import SLOWEST_RATE

# What a fake limit may be: slower than the client's slowest pace (one request in about
# 17 minutes), or faster than a billion a second, is no API's limit, and past these the
# bucket's arithmetic (the reset time, the header numbers) leaves what a float holds.
SLOWEST = SLOWEST_RATE
LARGEST = 1e9


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A per-key limit: `rate` requests per second, bursts of up to `burst`.

    `burst` defaults to a tenth of a second's worth (at least 1). `retry_after` is the
    Retry-After a 429 carries, in seconds (None: no header). `headers` adds
    `RateLimit-Policy`, `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
    to every reply. `changes` are `(seconds, rate)` pairs: `seconds` after the first
    limited request, the rate becomes `rate` (the burst stays). Rates are from 0.001 to
    1e9 per second, the burst from 1 to 1e9, `retry_after` at most 1e9 seconds; anything
    else is a `ConfigurationError`.
    """

    rate: float
    burst: float | None = None
    retry_after: float | None = 1.0
    headers: bool = False
    changes: tuple[tuple[float, float], ...] = field(default=())

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: the checked values replace what was given
        set_(self, "rate", _number(self.rate, "rate", SLOWEST, "requests per second"))
        if self.burst is not None:
            set_(self, "burst", _number(self.burst, "burst", 1.0, "requests"))
        if self.retry_after is not None:
            set_(self, "retry_after", _number(self.retry_after, "retry_after", 0.0, "seconds"))
        try:
            pairs = [tuple(pair) for pair in self.changes]
        except TypeError:
            raise ConfigurationError("changes are (seconds, rate) pairs") from None
        changes = []
        for pair in pairs:
            if len(pair) != 2:
                raise ConfigurationError("changes are (seconds, rate) pairs")
            when = _number(pair[0], "a change's seconds", 0.0, "seconds")
            changes.append((when, _number(pair[1], "a change's rate", SLOWEST, "per second")))
        set_(self, "changes", tuple(sorted(changes)))

    @property
    def bucket_size(self) -> float:
        """The burst, or its default."""
        return self.burst if self.burst is not None else max(1.0, self.rate / 10)


def _number(value: object, name: str, least: float, unit: str) -> float:
    """`value` as a float from `least` to `LARGEST`, else ConfigurationError."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            found = float(value)
        except OverflowError:  # an int beyond any float
            found = math.inf
        if least <= found <= LARGEST:
            return found
    shown = f"{least:g}" if least else "0"
    raise ConfigurationError(f"{name} must be a number of {unit} from {shown} to {LARGEST:,.0f}")


def _decimal(value: float) -> str:
    """A header number as people and parsers read it: `2592000`, `1.5`, never `2.592e+06`."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


# Buckets are pruned once there are this many (and then at twice what is left): a
# bucket that has refilled is the same as none, so only the keys used within the
# last `burst / rate` seconds are kept, however many keys were ever presented.
_PRUNE_AT = 1024


class TokenBuckets:
    """The buckets of every key under one `RateLimit`; not thread-safe (the fake locks)."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.refused = 0  # 429 replies given
        self.allowed = 0
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._started: float | None = None
        self._prune_at = _PRUNE_AT

    def carry_over(self, old: TokenBuckets) -> None:
        """Start from `old`'s buckets, each refilled to now at the old limit and held to
        this burst: a new limit (or the same one set again) is no fresh burst."""
        now = self._clock()
        size = self.limit.bucket_size
        for key, bucket in old._buckets.items():
            tokens = min(old.limit.bucket_size, bucket.tokens + old._refill(bucket.updated, now))
            if tokens < size:
                self._buckets[key] = _Bucket(tokens, now)

    def rate_now(self, now: float) -> float:
        """The rate in force at `now` (after any scheduled change)."""
        rate = self.limit.rate
        if self._started is not None:
            for when, changed in self.limit.changes:
                if now - self._started >= when:
                    rate = changed
        return rate

    def _refill(self, since: float, now: float) -> float:
        """Tokens the bucket gains from `since` to `now`, each stretch at its own rate
        (a change of rate applies from its time on, not to the idle time before it)."""
        started = self._started if self._started is not None else now
        gained, at, rate = 0.0, since, self.limit.rate
        for when, changed in self.limit.changes:
            boundary = started + when
            if boundary > at:
                if boundary >= now:
                    break
                gained += (boundary - at) * rate
                at = boundary
            rate = changed
        return gained + (now - at) * rate

    def take(self, key: str) -> tuple[bool, tuple[tuple[str, str], ...]]:
        """Take a token from `key`'s bucket: (allowed, headers to add to the reply)."""
        now = self._clock()
        if self._started is None:
            self._started = now
        rate, size = self.rate_now(now), self.limit.bucket_size
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._prune_at:
                self._prune(now)
            bucket = self._buckets[key] = _Bucket(size, now)
        bucket.tokens = min(size, bucket.tokens + self._refill(bucket.updated, now))
        bucket.updated = now
        allowed = bucket.tokens >= 1.0 - 1e-9  # a refill of exactly one token counts
        if allowed:
            bucket.tokens -= 1.0
            self.allowed += 1
        else:
            self.refused += 1
        headers: tuple[tuple[str, str], ...] = ()
        if self.limit.headers:
            reset = math.ceil((size - bucket.tokens) / rate) if bucket.tokens < size else 0
            headers = (
                ("RateLimit-Policy", f"{_decimal(rate)};w=1;burst={_decimal(size)}"),
                ("RateLimit-Limit", _decimal(size)),
                ("RateLimit-Remaining", str(int(bucket.tokens))),
                ("RateLimit-Reset", str(reset)),
            )
        if not allowed and self.limit.retry_after is not None:
            headers = (*headers, ("Retry-After", _decimal(self.limit.retry_after)))
        return allowed, headers

    def _prune(self, now: float) -> None:
        """Forget the buckets that have refilled (as good as new)."""
        size = self.limit.bucket_size
        self._buckets = {
            key: bucket
            for key, bucket in self._buckets.items()
            if bucket.tokens + self._refill(bucket.updated, now) < size
        }
        self._prune_at = max(_PRUNE_AT, 2 * len(self._buckets))

    def __len__(self) -> int:
        """The buckets held (keys whose bucket has not refilled since last pruned)."""
        return len(self._buckets)
