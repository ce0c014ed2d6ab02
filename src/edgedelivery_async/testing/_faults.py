"""Fault injection: latency, a share of 429/500/503 replies, dropped connections.

Two mechanisms, checked in this order for every routed request:
- a FIFO queue of exact faults (`fail_next`, `drop_next`, and the reply shapes of
  `reply_next`) for deterministic tests;
- rates (`FaultRates`), globally or per operationId, drawn from a seeded RNG so a run
  can be reproduced.

Injected statuses may lie outside the document (Force SSL declares neither 429 nor 503);
that is the point of testing retry handling, so keep faults off when checking the fake
against the document.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from .._exceptions import ConfigurationError


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Shares of requests that fail, and latency added to every request (seconds)."""

    latency: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_503: float = 0.0
    drop_rate: float = 0.0
    retry_after: int | None = 1  # seconds, sent with injected 429 and 503 replies

    def __post_init__(self) -> None:
        shares = (self.rate_429, self.rate_500, self.rate_503, self.drop_rate)
        if any(not _within(share, 1.0) for share in shares) or sum(shares) > 1.0:
            raise ConfigurationError("fault rates must each be in [0, 1] and add up to at most 1")
        if not _within(self.latency, _LONGEST) or not (
            self.retry_after is None or _within(self.retry_after, _LONGEST)
        ):
            raise ConfigurationError(
                f"latency and retry_after must be numbers of seconds from 0 to {_LONGEST:g}"
            )


_LONGEST = 86_400.0  # a day: a longer latency or Retry-After is a hang, not a fault


def _within(value: object, most: float) -> bool:
    """True for a number (not a bool) from 0 to `most` (so neither NaN nor infinity)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= most


@dataclass(frozen=True, slots=True)
class InjectedStatus:
    """Reply with this status (and Retry-After, if set) instead of handling the request."""

    status: int
    retry_after: int | None = None


@dataclass(frozen=True, slots=True)
class DroppedConnection:
    """Close the connection without a reply; `after_processing` applies the request first."""

    after_processing: bool = False


@dataclass(frozen=True, slots=True)
class ShapedReply:
    """Answer as usual, then give a success reply this shape (see `_shapes`)."""

    shape: str


Fault = InjectedStatus | DroppedConnection | ShapedReply


def check_times(times: object) -> None:
    """Raise ConfigurationError unless `times` (how many requests a queued fault takes)
    is a whole number of 1 or more."""
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise ConfigurationError(f"times must be a whole number of 1 or more, not {times!r}")


class UnknownOperation(ConfigurationError, KeyError):
    """An operationId the document does not have (a KeyError too, as it was first)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(slots=True)
class _Queued:
    operation_id: str | None
    fault: Fault
    remaining: int


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one request: wait `latency` seconds, then `fault` (None: answer)."""

    latency: float
    fault: Fault | None


def _seed(seed: object) -> int | None:
    """`seed` if it is a whole number or None; else ConfigurationError (a list was random's
    TypeError, and 1.5 or "x" were taken though the seed is documented as an int)."""
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
        return seed
    raise ConfigurationError(f"seed is a whole number or None, not {seed!r}")


class Faults:
    """The fault plan of one fake; `operation_ids` (if given) are the ones it may target."""

    def __init__(self, seed: int | None = 0, operation_ids: Iterable[str] | None = None) -> None:
        self._known = None if operation_ids is None else frozenset(operation_ids)
        self.default = FaultRates()
        self.per_operation: dict[str, FaultRates] = {}
        self._queue: deque[_Queued] = deque()
        self._rng = random.Random(_seed(seed))  # noqa: S311 - reproducible test faults, not crypto

    def __repr__(self) -> str:
        return (
            f"<Faults default={self.default} per_operation={self.per_operation} "
            f"queued={len(self._queue)}>"
        )

    def set_rates(self, rates: FaultRates, operation_id: str | None = None) -> None:
        """Use `rates` for every operation, or for one operationId (replacing its override)."""
        if operation_id is None:
            self.default = rates
        else:
            self.per_operation[self._check(operation_id)] = rates

    def queue(self, fault: Fault, operation_id: str | None, times: int) -> None:
        """Apply `fault` to the next `times` requests of `operation_id` (any if None)."""
        check_times(times)
        self._queue.append(_Queued(operation_id and self._check(operation_id), fault, times))

    def reseed(self, seed: int | None) -> None:
        """Restart the random draws from `seed`."""
        self._rng.seed(_seed(seed))

    def clear(self) -> None:
        """No latency, no rates, nothing queued."""
        self.default = FaultRates()
        self.per_operation.clear()
        self._queue.clear()

    @property
    def pending(self) -> int:
        """How many queued faults are still to fire."""
        return sum(item.remaining for item in self._queue)

    def _check(self, operation_id: str) -> str:
        if self._known is not None and operation_id not in self._known:
            known = ", ".join(sorted(self._known))
            raise UnknownOperation(f"unknown operation id {operation_id!r}; known: {known}")
        return operation_id

    def decide(self, operation_id: str) -> Decision:
        """The fate of the next request to `operation_id`."""
        rates = self.per_operation.get(operation_id, self.default)
        for item in self._queue:
            if item.operation_id in (None, operation_id):
                item.remaining -= 1
                if item.remaining == 0:
                    self._queue.remove(item)
                return Decision(rates.latency, item.fault)
        return Decision(rates.latency, self._draw(rates))

    def _draw(self, rates: FaultRates) -> Fault | None:
        if not (rates.rate_429 or rates.rate_500 or rates.rate_503 or rates.drop_rate):
            return None
        roll = self._rng.random()
        outcomes: list[tuple[float, Fault]] = [
            (rates.drop_rate, DroppedConnection()),
            (rates.rate_429, InjectedStatus(429, rates.retry_after)),
            (rates.rate_500, InjectedStatus(500)),
            (rates.rate_503, InjectedStatus(503, rates.retry_after)),
        ]
        for share, fault in outcomes:
            if roll < share:
                return fault
            roll -= share
        return None
