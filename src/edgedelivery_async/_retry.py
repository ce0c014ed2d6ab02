"""When to retry, and how long to wait: one small policy object.

Idempotent methods (GET, and the PUT that replaces a template's environment) are
retried after connection failures and on 408, 429, 500, 502, 503 and 504. A POST is
retried only when the server cannot have acted on it: 429, 503, or a connection
that never opened; never after a timeout waiting for the reply.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ._exceptions import APIConnectionError, ConfigurationError
from ._timeouts import LONGEST

_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_RETRY_IDEMPOTENT = frozenset({408, 429, 500, 502, 503, 504})
_RETRY_ANY_METHOD = frozenset({429, 503})

MAX_RETRIES = 100  # max_retries and max_rate_limited_retries at most (see RetryPolicy)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries with exponential backoff and jitter, honouring Retry-After up to a cap.

    The n-th retry waits `initial_delay * 2**n` seconds (at most `max_delay`), less up
    to `jitter` of it at random. A Retry-After of up to `max_retry_after` seconds is
    honoured, plus up to `jitter` of it at random, so the requests a 429 refused together
    do not return together; a longer one ends the retries, and the error carries it.
    A 429 is retried up to `max_rate_limited_retries` times, counted apart from
    `max_retries`: a rate limit's refusal says the pace was too high, not that the
    request failed (the client's rate control slows down, and its retry budget bounds
    all retries). Unset, it is 0 when `max_retries` is 0 and at least 6 otherwise.

    Both counts are at most `MAX_RETRIES` (100), else `ConfigurationError`: at the
    default `max_delay` of 8 s, 100 retries already wait about 13 minutes for one call,
    and a request refused 100 times in a row is not going to pass on the 101st; a
    count of 10**9 is a mistake, which would keep one call retrying a dead server for
    centuries. (The CLI's `--max-retries` has the same bound.)
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    jitter: float = 0.25
    max_rate_limited_retries: int | None = None

    def __post_init__(self) -> None:
        if self.max_rate_limited_retries is None and isinstance(self.max_retries, int):
            derived = max(self.max_retries, 6) if self.max_retries > 0 else 0
            object.__setattr__(self, "max_rate_limited_retries", derived)
        for name in ("max_retries", "max_rate_limited_retries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigurationError(f"{name} must be an integer")
            if not 0 <= value <= MAX_RETRIES:
                raise ConfigurationError(f"{name} must be between 0 and {MAX_RETRIES}")
        for name in ("initial_delay", "max_delay", "max_retry_after", "jitter"):
            value, most = getattr(self, name), 1 if name == "jitter" else int(LONGEST)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigurationError(f"{name} must be a number")
            if not 0 <= value <= most:  # (NaN and infinity too)
                raise ConfigurationError(f"{name} must be between 0 and {most:,}")

    def retryable_status(self, method: str, status: int) -> bool:
        """Whether a reply with this status may be retried for this method."""
        if method in _IDEMPOTENT:
            return status in _RETRY_IDEMPOTENT
        return status in _RETRY_ANY_METHOD

    def retryable_error(self, method: str, error: APIConnectionError) -> bool:
        """Whether a connection failure may be retried for this method (never one that
        would most likely happen again: `APIConnectionError.retryable`)."""
        return error.retryable and (method in _IDEMPOTENT or not error.request_sent)

    def delay(
        self, retries_taken: int, retry_after: float | None = None, *, rate_limited: bool = False
    ) -> float | None:
        """Seconds before the next attempt, or None when no attempt is left.

        `retries_taken` counts the retries of this kind: of 429s when `rate_limited`,
        of everything else otherwise.
        """
        limit = self.max_rate_limited_retries if rate_limited else self.max_retries
        if limit is None or retries_taken >= limit:
            return None
        if retry_after is not None:  # honoured, and spread: up to `jitter` of it later
            if retry_after > self.max_retry_after:
                return None
            return retry_after * (1.0 + self.jitter * random.random())  # noqa: S311
        backoff = min(self.initial_delay * 2.0 ** min(retries_taken, 64), self.max_delay)
        return backoff * (1.0 - self.jitter * random.random())  # noqa: S311 - jitter, not crypto
