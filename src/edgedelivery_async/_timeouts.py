"""Timeouts as one small value object, the same for every HTTP stack."""

from __future__ import annotations

from dataclasses import dataclass

from ._exceptions import ConfigurationError


@dataclass(frozen=True, slots=True)
class Timeout:
    """Seconds allowed to connect, to wait for reply data, and for a whole attempt.

    `read` is the longest wait for reply data: from the start of the attempt until the
    reply begins, then between pieces of it, so a reply that keeps coming is not cut.
    On the default transport `read` and `total` may fire up to a tenth of the shorter
    one late (at most 0.5 s), never early (`_watchdog`).
    """

    connect: float = 5.0
    read: float = 30.0
    total: float = 60.0

    def __post_init__(self) -> None:
        for name in ("connect", "read", "total"):
            if not _seconds(getattr(self, name)):
                raise ConfigurationError(f"Timeout.{name} must be {_SECONDS}")

    @classmethod
    def of(cls, value: Timeout | float) -> Timeout:
        """A Timeout from a Timeout or a number of seconds for the whole attempt."""
        if isinstance(value, Timeout):
            return value
        if not _seconds(value):
            raise ConfigurationError(f"timeout must be a Timeout or {_SECONDS}")
        return cls(connect=min(5.0, value), read=value, total=value)


# The longest timeout: about 31 years. The Rust transports take at most about 2,700
# years (a timedelta); NaN, infinity and an int past any float are refused with it.
LONGEST = 1e9
_SECONDS = f"a number of seconds above 0 and at most {LONGEST:,.0f}"


def _seconds(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return 0 < value <= LONGEST  # (False for NaN; an int of any size compares)
