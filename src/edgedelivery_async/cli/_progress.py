"""The live progress bar of a bulk read (rich, on stderr) and its closing summary."""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:
    from .. import BulkProgress, RateController

REFRESH_SECONDS = 0.1


def plural(count: int, noun: str) -> str:
    """`1 pull zone`, `2 pull zones`, `0 errors`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def stderr_is_terminal() -> bool:
    """Whether a live display on stderr would reach a person."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


class LiveProgress:
    """A progress bar fed from `BulkProgress` counters by a refresh task.

    Shows done (of total, when known), errors, results per second over the last few
    seconds, the pace the client's rate controller has settled on and the 429 replies
    it has seen (with `controller`), elapsed time and ETA. Disabled, it costs nothing
    and prints nothing.
    """

    def __init__(
        self,
        counters: BulkProgress,
        *,
        total: int | None,
        description: str,
        enabled: bool,
        controller: RateController | None = None,
        cap: float | None = None,
    ) -> None:
        self.counters = counters
        self.controller = controller
        self.cap = cap  # the run's own `rate_limit`, if any
        self._samples: deque[tuple[float, int]] = deque()  # (time, done), last few seconds
        self.total = total
        self.description = description
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._refresher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LiveProgress:
        if not self.enabled:
            return self
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[errors]}[/red]"),
            TextColumn("{task.fields[rate]:>6.0f} req/s"),
            TextColumn("{task.fields[pace]}"),
            TextColumn("[yellow]{task.fields[throttled]}[/yellow]"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            self.description,
            total=self.total,
            errors=plural(0, "error"),
            rate=0.0,
            pace="",
            throttled="",
        )
        self._refresher = asyncio.create_task(self._refresh())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
        if self._progress is not None:
            self.update()
            self._progress.stop()

    async def _refresh(self) -> None:
        while True:
            self.update()
            await asyncio.sleep(REFRESH_SECONDS)

    def update(self) -> None:
        """Copy the counters into the bar and redraw it."""
        if self._progress is None or self._task is None:
            return
        counters = self.counters
        pace, throttled = self.pace()
        self._progress.update(
            self._task,
            completed=counters.done,
            errors=plural(counters.failed, "error"),
            rate=self.current_rate(),
            pace=pace,
            throttled=throttled,
        )
        self._progress.refresh()

    def current_rate(self) -> float:
        """Results per second over the last three seconds (since the start, before that)."""
        now, done = time.monotonic(), self.counters.done
        samples = self._samples
        samples.append((now, done))
        while len(samples) > 2 and samples[1][0] <= now - 3.0:
            samples.popleft()
        then, before = samples[0]
        if now - then < 0.5:
            return self.counters.rate
        return (done - before) / (now - then)

    def pace(self) -> tuple[str, str]:
        """The pace calls go at (`pace 190/s`; `cap 50/s` when the run's own rate limit
        is the slower; `unpaced`) and the rate controller's 429 count."""
        controller = self.controller
        if controller is None:
            return "", ""
        rate, cap = controller.rate, self.cap
        if cap is not None and (rate is None or cap < rate):
            pace = f"cap {cap:,.0f}/s"
        else:
            pace = "unpaced" if rate is None else f"pace {rate:,.0f}/s"
        count = controller.rate_limited
        return pace, f"{count} 429 {'reply' if count == 1 else 'replies'}"


@dataclass(slots=True)
class RunStats:
    """What a bulk run did, for its summary and exit status."""

    succeeded: int = 0
    failed: int = 0
    errors_by_type: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    interrupted: bool = False
    output_closed: bool = False
    output_error: str | None = None  # the output could not be written (a full disk)
    input_error: str | None = None
    skipped_done: int = 0  # ids --resume found already read
    skipped_repeated: int = 0  # repeats of an id read once

    @property
    def total(self) -> int:
        """Items with a result (each written as one line)."""
        return self.succeeded + self.failed

    @property
    def rate(self) -> float:
        """Results per second."""
        return self.total / self.elapsed if self.elapsed > 0 else 0.0

    def summary(self, what: str = "pull zone") -> str:
        """One line: total, succeeded, failed (by type), elapsed, req/s, and how it ended.

        `what` is the singular noun of an item (`pull zone`); `-s` makes its plural.
        """
        failed = f"{self.failed} failed"
        if self.errors_by_type:
            kinds = ", ".join(
                f"{name} {count}" for name, count in self.errors_by_type.most_common()
            )
            failed += f" ({kinds})"
        text = (
            f"{plural(self.total, what)}: {self.succeeded} succeeded, {failed} "
            f"in {self.elapsed:.2f} s ({self.rate:.0f} req/s)"
        )
        skipped = []
        if self.skipped_done:
            skipped.append(f"{self.skipped_done} already read (--resume)")
        if self.skipped_repeated:
            skipped.append(f"{self.skipped_repeated} repeated")
        if skipped:
            text += f"; skipped {' and '.join(skipped)}"
        if self.interrupted:
            return f"interrupted: {text}; every line written is complete"
        if self.output_closed:
            return f"stopped, the output was closed: {text}"
        if self.output_error:
            return f"stopped, the output could not be written: {text}"
        if self.input_error:
            return f"stopped at bad input: {text}"
        return f"done: {text}"
