"""Read and total timeouts of aiohttp exchanges, from one timer per event loop.

aiohttp enforces `total` and `sock_read` with timers armed for every request and
re-armed on every chunk; on the bulk path that is about 20 us of a request's 150 us
of CPU. Here each exchange in flight registers a `Watch` instead, and one periodic
check cancels those past their total time, or without reply data for their read
time; they end in `TimeoutError`. Reply data is seen through the byte count of the
reply's stream, so the hot path pays one small object and a set insertion.

A timeout fires at most one tick late, never early: a tick is a tenth of the shortest
timeout being watched, at most 0.5 s (aiohttp rounds timeouts above 5 s up to a
whole second). The read time counts from the start of the attempt until the reply's
first data, then between data.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ._timeouts import Timeout

_MAX_TICK = 0.5
_MIN_TICK = 0.001


class Watch:
    """One exchange in flight: its task, its limits, and the reply data seen so far."""

    __slots__ = (
        "cancelling",
        "expired",
        "last",
        "read",
        "seen",
        "started",
        "stream",
        "task",
        "total",
    )

    def __init__(self, task: asyncio.Task[Any], now: float, timeout: Timeout) -> None:
        self.task = task
        self.cancelling = task.cancelling()
        self.started = self.last = now
        self.read = timeout.read
        self.total = timeout.total
        self.stream: Any = None  # the reply's aiohttp StreamReader, once the headers are in
        self.seen = 0
        self.expired = False

    def timed_out(self) -> bool:
        """After a CancelledError: True when the watchdog caused it (and only it)."""
        return self.expired and self.task.uncancel() <= self.cancelling


class Watchdog:
    """Expires the exchanges of one event loop that ran out of time."""

    __slots__ = ("_handle", "_tick", "_watched", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._watched: set[Watch] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._tick = _MAX_TICK

    def watch(self, timeout: Timeout) -> Watch:
        """Start watching the running task's exchange; `done` must follow."""
        task = asyncio.current_task(self.loop)
        if task is None:  # pragma: no cover - aiohttp itself needs a task
            raise RuntimeError("an exchange must run in a task")
        watch = Watch(task, self.loop.time(), timeout)
        self._watched.add(watch)
        tick = min(max(min(timeout.read, timeout.total) / 10, _MIN_TICK), _MAX_TICK)
        if self._handle is None or tick < self._tick:
            if self._handle is not None:
                self._handle.cancel()
            self._tick = tick
            self._handle = self.loop.call_later(tick, self._check)
        return watch

    def done(self, watch: Watch) -> None:
        """Stop watching an exchange (it ended, one way or another)."""
        self._watched.discard(watch)

    def _check(self) -> None:
        now = self.loop.time()
        for watch in list(self._watched):
            stream = watch.stream
            if stream is not None and stream.total_bytes != watch.seen:
                watch.seen, watch.last = stream.total_bytes, now
            if now - watch.started >= watch.total or now - watch.last >= watch.read:
                self._watched.discard(watch)
                watch.expired = True
                watch.task.cancel()
        if self._watched:
            self._handle = self.loop.call_later(self._tick, self._check)
        else:
            self._handle, self._tick = None, _MAX_TICK
