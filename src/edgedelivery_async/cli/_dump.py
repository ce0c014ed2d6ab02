"""`edgedelivery shield dump`: the shield configuration of many pull zones, as JSON lines.

One line per pull zone, in the order results arrive:

    {"pullZoneId": 7, "ok": true, "configuration": {...}}
    {"pullZoneId": 8, "ok": false, "error": {"type": "NotFoundError", "status": 404, ...}}

Exit status 0 when every pull zone was read, 1 when some failed (all lines are still
written), 2 for bad input, 130 after Ctrl-C (what was written stays, whole lines only).

`--resume FILE` carries on a dump that crashed or was interrupted: ids with an
`"ok": true` line in FILE are skipped, and new lines are appended to it. Repeated ids
(overlapping ranges, or an id the file names again) are read once.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import IO, TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from ._commands import Concurrency, Number
from ._options import settings
from ._output import (
    FAILED,
    INTERRUPTED,
    NOT_WRITABLE,
    OK,
    USAGE,
    LineWriter,
    NotWritable,
    error_record,
    say,
    to_jsonable,
)

if TYPE_CHECKING:  # imported when a dump runs: `--help` loads none of the SDK
    from edgedelivery_openapi.models import ShieldZoneConfig

    from .. import BulkResult, EdgeDeliveryClient
    from ._ids import IdRanges, IdsFile
    from ._progress import RunStats

T = TypeVar("T")
ResultHook = Callable[["BulkResult[int, ShieldZoneConfig]", str], None]


def record(result: BulkResult[int, ShieldZoneConfig]) -> dict[str, Any]:
    """The JSON line of one pull zone."""
    if result.error is None:
        return {"pullZoneId": result.key, "ok": True, "configuration": to_jsonable(result.value)}
    return {"pullZoneId": result.key, "ok": False, "error": error_record(result.error)}


def _write(writer: LineWriter, result: BulkResult[int, ShieldZoneConfig]) -> tuple[str, str | None]:
    """Write one pull zone's line: (the line, the failure's type or None when it was read).

    A configuration too deeply nested to write as JSON is that pull zone's failure, and
    the run goes on.
    """
    try:
        line = writer.write(record(result))
    except (NotWritable, RecursionError):  # (RecursionError: the model's to_dict())
        error = {"type": "ResultNotWritable", "status": None, "message": NOT_WRITABLE}
        return writer.write({"pullZoneId": result.key, "ok": False, "error": error}), error["type"]
    return line, None if result.error is None else type(result.error).__name__


async def dump(
    client: EdgeDeliveryClient,
    ids: AsyncIterator[int],
    writer: LineWriter,
    stats: RunStats,
    *,
    concurrency: int,
    rate_limit: float | None,
    total: int | None,
    show_progress: bool,
    on_result: ResultHook | None = None,
    description: str = "shield dump",
) -> None:
    """Read every id's shield zone and write one line each, filling `stats` as it goes.

    Cancellation (Ctrl-C under `asyncio.run`) stops the requests in flight, marks
    `stats.interrupted` and propagates; the caller closes `writer`.
    """
    import asyncio

    from .. import BulkProgress
    from ._progress import LiveProgress

    counters = BulkProgress()
    results = client.shield.iter_zones_by_pull_zones(
        ids, concurrency=concurrency, rate_limit=rate_limit, progress=counters
    )
    live = LiveProgress(
        counters,
        total=total,
        description=description,
        enabled=show_progress,
        controller=client.rate_controller,
        cap=rate_limit,
    )
    try:
        async with (
            live,
            _flushing(writer),
            _closing(ids),
            _closing(results),
        ):
            async for result in results:
                try:
                    line, failure = _write(writer, result)
                except BrokenPipeError:
                    stats.output_closed = True
                    break
                except OSError:  # a full disk, an I/O error: `writer.error` says which
                    break
                if failure is None:
                    stats.succeeded += 1
                else:
                    stats.failed += 1
                    stats.errors_by_type[failure] += 1
                if on_result is not None:
                    on_result(result, line)
    except asyncio.CancelledError:
        stats.interrupted = True
        raise
    finally:
        stats.elapsed = counters.elapsed


@contextlib.asynccontextmanager
async def _flushing(writer: LineWriter) -> AsyncIterator[None]:
    """Flush the lines every `flush_interval` even when no new line comes to do it."""
    import asyncio

    async def flush() -> None:
        while True:
            await asyncio.sleep(writer.flush_interval)
            writer.flush()

    task = asyncio.get_running_loop().create_task(flush())
    try:
        yield
    finally:
        task.cancel()


@contextlib.asynccontextmanager
async def _closing(iterator: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """Close an async generator on the way out (cancels a fan-out's requests in flight)."""
    try:
        yield iterator
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()


def status_of(stats: RunStats) -> int:
    """130 interrupted, 2 bad input, 1 some failed (or output closed or failed), else 0."""
    if stats.interrupted:
        return INTERRUPTED
    if stats.input_error:
        return USAGE
    if stats.failed or stats.output_closed or stats.output_error:
        return FAILED
    return OK


def run_to_end(
    main: Callable[[], Coroutine[Any, Any, None]],
    stats: RunStats,
    writer: LineWriter,
    report: Callable[[], object] | None = None,
) -> None:
    """Run `main()` in a new event loop, close `writer`, then `report()` if given.

    Ctrl-C (or SIGTERM) cancels the run (requests in flight too) and marks it
    interrupted. A second one while it winds down, or while the lines are flushed,
    ends the process: what can be flushed is, the report (else the summary) is said,
    and the exit status is 130. A press during the last report lets it finish (it is
    the run's summary); a second one there ends the process at once (a stderr nobody
    reads can stall the report). After the report, SIGTERM ends the process at once
    and Ctrl-C is ignored.
    A signal the parent set to be ignored stays ignored. (asyncio's own second Ctrl-C
    raised KeyboardInterrupt in the middle of the loop's clean-up, which then printed
    tracebacks or hung.)
    """
    import asyncio
    import signal
    import time

    started = time.monotonic()
    task: asyncio.Task[None] | None = None
    presses = 0
    reporting = False
    presses_in_report = 0

    def on_signal(signum: int, frame: object) -> None:
        nonlocal presses, presses_in_report
        presses += 1
        stats.interrupted = True
        if task is None:  # the run has not begun
            raise KeyboardInterrupt
        if presses == 1 and not task.done():
            task.get_loop().call_soon_threadsafe(task.cancel)
            return
        if reporting:
            presses_in_report += 1
            if presses_in_report > 1:
                _exit_now()
            return
        stats.elapsed = stats.elapsed or time.monotonic() - started
        _quit_now(writer, stats, report)

    async def run() -> None:
        nonlocal task
        task = asyncio.current_task()
        await main()

    previous = _handle_signals(on_signal)
    try:
        try:
            with asyncio.Runner() as runner:
                runner.get_loop().set_exception_handler(_quiet_about_interrupts)
                try:
                    runner.run(run())
                except asyncio.CancelledError:
                    if not presses:  # cancelled by something other than Ctrl-C
                        raise
        except KeyboardInterrupt:
            stats.interrupted = True
        finally:
            writer.close()
        if report is not None:
            reporting = True
            report()
    finally:
        if presses:  # interrupted: the process is on its way out, and one more signal
            # ends it at once (exit 130, not a traceback); Ctrl-C is ignored from here,
            # as the interpreter's shutdown resets handlers set from Python, and one
            # then killed the process by the signal
            _handle_signals(lambda signum, frame: _exit_now())
            if signal.SIGINT in previous:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        else:
            _restore(previous)


def _handle_signals(handler: Callable[[int, Any], None]) -> dict[int, Any]:
    """Install `handler` for SIGINT and SIGTERM (`timeout`, `kill`, a service manager
    stopping the job: Python's default ends the process without flushing the lines);
    the handlers it replaces. A signal set to be ignored (`cmd &` in a shell without
    job control ignores SIGINT) is left alone, and so is everything where signals
    cannot be handled (not the main thread): asyncio's own handling applies there."""
    import signal

    replaced: dict[int, Any] = {}
    try:
        for number in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(number) is not signal.SIG_IGN:
                replaced[number] = signal.signal(number, handler)
    except ValueError:
        pass
    return replaced


def _restore(replaced: dict[int, Any]) -> None:
    """Put back the handlers `_handle_signals` replaced (one not set from Python: the
    default)."""
    import signal

    for number, handler in replaced.items():
        signal.signal(number, signal.SIG_DFL if handler is None else handler)


def _quit_now(writer: LineWriter, stats: RunStats, report: Callable[[], object] | None) -> None:
    """End the process now, keeping what was written: flush, report, exit 130. Each
    step on its own (a flush stalled by a reader that stopped reading fails or blocks;
    one more signal then ends the process at once)."""
    _handle_signals(lambda signum, frame: _exit_now())
    steps = (writer.close, report or (lambda: say(stats.summary())), sys.stderr.flush)
    for step in steps:
        with contextlib.suppress(BaseException):  # (the exit status says it was interrupted)
            step()
    _exit_now()


def _exit_now() -> NoReturn:
    os._exit(INTERRUPTED)


def _quiet_about_interrupts(loop: Any, context: dict[str, Any]) -> None:
    """The loop's report of an error nobody awaited, except a second Ctrl-C's: it lands
    in whichever call was running, whose task then reports it ("Task exception was never
    retrieved", with a traceback), while the run has already said it was interrupted."""
    if not isinstance(context.get("exception"), KeyboardInterrupt | SystemExit):
        loop.default_exception_handler(context)


def report_output_error(writer: LineWriter, output: str | None, stats: RunStats) -> None:
    """A write that failed (a full disk, an I/O error): say so, and mark the run."""
    if writer.error is not None:
        where = "stdout" if output in (None, "-") else repr(output)
        stats.output_error = f"cannot write {where}: {writer.error}"
        say(f"error: {stats.output_error}")


def _open_ids(path: str) -> tuple[IO[str] | IO[bytes], str]:
    """The ids file, in bytes where it can be (`IdsFile` decodes them, so that bytes
    that are not UTF-8 make only their own line malformed, whatever the locale)."""
    if path == "-":
        if sys.stdin is None:
            raise typer.BadParameter("stdin is closed", param_hint="--ids-file")
        return getattr(sys.stdin, "buffer", sys.stdin), "stdin"
    try:
        return open(path, "rb"), path  # (closed by the dump's ExitStack)
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path!r}: {exc}", param_hint="--ids-file") from None


def _same_file(first: str, second: str) -> bool:
    """Whether two paths name one file (spelt differently, or linked)."""
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet): compare where they point
        return os.path.realpath(first) == os.path.realpath(second)


def _stdin_is(path: str) -> bool:
    """Whether stdin reads the file at `path` (`< ids.txt`, with `-o ids.txt`)."""
    try:
        ours = os.fstat(sys.stdin.fileno())
        theirs = os.stat(path)
    except (AttributeError, OSError, ValueError):  # no stdin, no descriptor, no such file
        return False
    same = (ours.st_dev, ours.st_ino) == (theirs.st_dev, theirs.st_ino)
    return same and stat.S_ISREG(theirs.st_mode)  # (not /dev/null for both, say)


def _check_files(ids_file: str | None, output: str, resume: str | None) -> None:
    """Refuse a dump that would read its ids from, or resume, something it cannot."""
    if resume is not None:
        if resume == "-":
            raise typer.BadParameter(
                "needs a file: the dump reads it and appends to it", param_hint="--resume"
            )
        if os.path.exists(resume) and not os.path.isfile(resume):
            raise typer.BadParameter(
                f"{resume!r} is not a regular file (it is read, then appended to)",
                param_hint="--resume",
            )
    if ids_file == "-" and output != "-" and _stdin_is(output):
        hint = "--resume" if resume is not None else "-o"
        raise typer.BadParameter(
            f"{output!r} is also stdin, the --ids-file: writing it would lose the ids",
            param_hint=hint,
        )
    if ids_file not in (None, "-") and output != "-" and _same_file(ids_file, output):
        hint = "--resume" if resume is not None else "-o"
        raise typer.BadParameter(
            f"{output!r} is also the --ids-file: writing it would lose the ids",
            param_hint=hint,
        )


def dump_command(
    ctx: typer.Context,
    pull_zones: Annotated[
        str | None,
        typer.Option(
            "--pull-zones",
            "-p",
            metavar="SPEC",
            help="Ids and inclusive ranges, comma-separated: 1-5000,7001.",
            show_default=False,
        ),
    ] = None,
    ids_file: Annotated[
        str | None,
        typer.Option(
            "--ids-file",
            metavar="FILE",
            help="One id or range per line (- for stdin); blank lines and # comments skipped. "
            "Read after --pull-zones.",
            show_default=False,
        ),
    ] = None,
    concurrency: Concurrency = 100,
    rate_limit: Annotated[
        float | None,
        typer.Option(
            "--rate-limit",
            metavar="N",
            click_type=Number(),
            help="At most N requests per second (default: no limit).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Where the JSON lines go (- for stdout, the default).",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="FILE",
            help="Carry on the dump in FILE: skip ids it has an ok line for, append the rest.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar (the summary is still printed).")
    ] = False,
) -> None:
    """Read the shield configuration of many pull zones: one JSON line per pull zone.

    Lines are written as results arrive: {"pullZoneId", "ok": true, "configuration"} or
    {"pullZoneId", "ok": false, "error": {"type", "status", "message"}}. Repeated ids are
    read once. --resume FILE skips the ids FILE already has an ok line for and appends
    to it (failed ids are read again). A progress bar is shown on stderr when it is a
    terminal, and a summary line at the end. Exit status: 0 all read, 1 some failed
    (all still written), 2 bad input, 130 interrupted.
    """
    from ._ids import (
        IdsFile,
        Skipped,
        chain,
        count_in,
        parse_ranges,
        read_done,
        repeats_in,
        unique,
    )
    from ._progress import RunStats, stderr_is_terminal

    if pull_zones is None and ids_file is None:
        raise typer.BadParameter(
            "give --pull-zones, --ids-file, or both", param_hint="--pull-zones"
        )
    ranges: IdRanges | None = None
    skipped = Skipped()
    if pull_zones is not None:
        try:
            ranges = parse_ranges(pull_zones)
            skipped.repeated = repeats_in(pull_zones)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--pull-zones") from None
    if resume is not None:
        if output is not None and output != "-" and _same_file(output, resume):
            output = resume
        if output not in (None, resume):
            raise typer.BadParameter(
                f"--resume appends to {resume!r}; drop -o or give the same file",
                param_hint="--resume",
            )
        output = resume
    output = output if output is not None else "-"
    _check_files(ids_file, output, resume)
    done: frozenset[int] = frozenset()
    cut_line = False
    if resume is not None:
        try:
            done, cut_line = read_done(resume)
        except OSError as exc:
            message = f"cannot read {resume!r}: {exc}"
            raise typer.BadParameter(message, param_hint="--resume") from None
    from .._rate_control import SLOWEST_RATE

    if rate_limit is not None and not rate_limit >= SLOWEST_RATE:
        message = f"must be a number of requests per second from {SLOWEST_RATE} up"
        raise typer.BadParameter(message, param_hint="--rate-limit")
    stats = RunStats()
    source: IdsFile | None = None
    writer: LineWriter | None = None

    def report() -> None:
        """The run's last words: what it skipped, an output or input error, the summary."""
        stats.skipped_done, stats.skipped_repeated = skipped.done, skipped.repeated
        if writer is not None:
            report_output_error(writer, output, stats)
        if source is not None and source.error and not stats.interrupted:
            stats.input_error = source.error
            say(f"error: {source.error}")
        say(stats.summary())

    try:
        client = settings(ctx).client()
        with contextlib.ExitStack() as files:
            if ids_file is not None:
                stream, name = _open_ids(ids_file)
                if stream not in (sys.stdin, getattr(sys.stdin, "buffer", None)):
                    files.callback(stream.close)
                source = IdsFile(stream, name)
            writer = out = LineWriter.open(output, append=resume is not None, new_line=cut_line)
            to_terminal = output == "-" and bool(getattr(sys.stdout, "isatty", lambda: False)())
            total = None
            if ranges is not None and source is None:
                total = len(ranges) - count_in(ranges, done)

            async def main() -> None:
                async with client:
                    await dump(
                        client,
                        unique(chain(ranges, source), ranges, done, skipped),
                        out,
                        stats,
                        concurrency=concurrency,
                        rate_limit=rate_limit,
                        total=total,
                        show_progress=not quiet and stderr_is_terminal() and not to_terminal,
                    )

            run_to_end(main, stats, out, report)
    except KeyboardInterrupt:  # before the run began: while the SDK loaded, say
        stats.interrupted = True
        if writer is not None:
            writer.close()
        report()
    raise typer.Exit(status_of(stats))
