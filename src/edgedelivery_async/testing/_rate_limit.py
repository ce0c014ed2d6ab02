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


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A per-key limit: `rate` requests per second, bursts of up to `burst`.

    `burst` defaults to a tenth of a second's worth (at least 1). `retry_after` is the
    Retry-After a 429 carries, in seconds (None: no header). `headers` adds
    `RateLimit-Policy`, `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
    to every reply. `changes` are `(seconds, rate)` pairs: `seconds` after the first
    limited request, the rate becomes `rate` (the burst stays).
    """

    rate: float
    burst: float | None = None
    retry_after: float | None = 1.0
    headers: bool = False
    changes: tuple[tuple[float, float], ...] = field(default=())

    def __post_init__(self) -> None:
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float):
            raise ValueError("rate must be a number of requests per second")
        if not 0 < self.rate < math.inf:
            raise ValueError("rate must be a positive number of requests per second")
        if self.burst is not None and not self.burst >= 1:
            raise ValueError("burst must be at least 1")
        if self.retry_after is not None and not self.retry_after >= 0:
            raise ValueError("retry_after must be >= 0 (or None)")
        for when, rate in self.changes:
            if not when >= 0 or not rate > 0:
                raise ValueError("changes are (seconds >= 0, rate > 0) pairs")

    @property
    def bucket_size(self) -> float:
        """The burst, or its default."""
        return self.burst if self.burst is not None else max(1.0, self.rate / 10)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """The buckets of every key under one `RateLimit`; not thread-safe (the fake locks)."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.refused = 0  # 429 replies given
        self.allowed = 0
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._started: float | None = None

    def rate_now(self, now: float) -> float:
        """The rate in force at `now` (after any scheduled change)."""
        rate = self.limit.rate
        if self._started is not None:
            for when, changed in sorted(self.limit.changes):
                if now - self._started >= when:
                    rate = changed
        return rate

    def take(self, key: str) -> tuple[bool, tuple[tuple[str, str], ...]]:
        """Take a token from `key`'s bucket: (allowed, headers to add to the reply)."""
        now = self._clock()
        if self._started is None:
            self._started = now
        rate, size = self.rate_now(now), self.limit.bucket_size
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(size, now)
        bucket.tokens = min(size, bucket.tokens + (now - bucket.updated) * rate)
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
                ("RateLimit-Policy", f"{rate:g};w=1;burst={size:g}"),
                ("RateLimit-Limit", f"{size:g}"),
                ("RateLimit-Remaining", str(int(bucket.tokens))),
                ("RateLimit-Reset", str(reset)),
            )
        if not allowed and self.limit.retry_after is not None:
            headers = (*headers, ("Retry-After", f"{self.limit.retry_after:g}"))
        return allowed, headers
