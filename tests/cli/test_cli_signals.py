"""`run_to_end` and signals, in child processes: a stalled output, a signal the parent
set to be ignored, and presses during the last report (found by a review of the
second-Ctrl-C handling)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from ._support import subprocess_env

STALLED = """
import asyncio, os, sys
from edgedelivery_async.cli._dump import run_to_end
from edgedelivery_async.cli._output import LineWriter
from edgedelivery_async.cli._progress import RunStats
r, w = os.pipe()  # a reader that stalled: nobody reads r, and the pipe is full
os.set_blocking(w, False)
try:
    while True:
        os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(w, True)
writer = LineWriter(os.fdopen(w, "w"), owned=True, flush_interval=1000)
async def main():
    for n in range(10):
        writer.write({"pullZoneId": n, "ok": True})  # buffered, not flushed
    print("ready", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
run_to_end(main, RunStats(), writer)
"""

IGNORED = """
import asyncio, signal, sys
from edgedelivery_async.cli._dump import run_to_end
from edgedelivery_async.cli._output import LineWriter
from edgedelivery_async.cli._progress import RunStats
signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `cmd &` in a shell without job control
stats = RunStats()
async def main():
    print("ready", file=sys.stderr, flush=True)
    await asyncio.sleep(1.5)
run_to_end(main, stats, LineWriter(None, owned=False))
print("interrupted" if stats.interrupted else "finished", file=sys.stderr, flush=True)
"""

PRESSES = """
import asyncio, os, signal, sys
from edgedelivery_async.cli._dump import run_to_end
from edgedelivery_async.cli._output import LineWriter
from edgedelivery_async.cli._progress import RunStats
writer = LineWriter(sys.stdout, owned=False)
calls = 0
def report():
    global calls
    calls += 1
    print(f"report {calls} begins", file=sys.stderr, flush=True)
    if calls == 1:
        os.kill(os.getpid(), signal.SIGINT)  # one more press, while reporting
        for _ in range(1000):
            pass
    print(f"summary {calls}", file=sys.stderr, flush=True)
async def main():
    writer.write({"pullZoneId": 1, "ok": True})
    os.kill(os.getpid(), signal.SIGINT)  # the first press: cancel
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        os.kill(os.getpid(), signal.SIGINT)  # the second, while winding down
        for _ in range(1000):
            pass
        raise
run_to_end(main, RunStats(), writer, report)
"""

REPORT_PRESSES = """
import asyncio, os, signal, sys
from edgedelivery_async.cli._dump import run_to_end
from edgedelivery_async.cli._output import LineWriter
from edgedelivery_async.cli._progress import RunStats
presses = int(sys.argv[1])
writer = LineWriter(sys.stdout, owned=False)
def report():
    print("report begins", file=sys.stderr, flush=True)
    for _ in range(presses):
        os.kill(os.getpid(), signal.SIGINT)  # pressed while the report is said
        for _ in range(1000):
            pass
    print("summary", file=sys.stderr, flush=True)
async def main():
    writer.write({"pullZoneId": 1, "ok": True})
    os.kill(os.getpid(), signal.SIGINT)  # the first press: cancel
    await asyncio.sleep(10)
stats = RunStats()
run_to_end(main, stats, writer, report)
print("returned" if stats.interrupted else "not interrupted", file=sys.stderr, flush=True)
"""


def child(code: str, *args: str, **options: object) -> subprocess.Popen[str]:
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-c", code, *args],
        env=subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


def test_a_stalled_output_does_not_keep_signals_from_ending_the_process() -> None:
    """The reader stopped reading: the last flush blocks. Signals set to be ignored
    before that flush left only SIGKILL to end the process."""
    process = child(STALLED, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stderr is not None
        assert process.stderr.readline().strip() == "ready"
        for number in (signal.SIGINT, signal.SIGINT, signal.SIGTERM):
            time.sleep(0.3)
            if process.poll() is None:
                process.send_signal(number)
        assert process.wait(timeout=15) == 130
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def test_a_signal_the_parent_ignores_stays_ignored() -> None:
    process = child(IGNORED)
    try:
        assert process.stderr is not None
        assert process.stderr.readline().strip() == "ready"
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stderr
    assert stderr.strip() == "finished"


def test_a_press_during_the_report_ends_at_once_without_repeating_it(tmp_path: Path) -> None:
    """Three presses: the lines are kept, and the report is not said twice (the third
    press ran the whole quitting path again)."""
    process = child(PRESSES)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert stdout == '{"pullZoneId":1,"ok":true}\n'
    assert stderr.count("begins") == 1, stderr
    assert "Traceback" not in stderr


def test_one_press_during_the_report_lets_it_finish() -> None:
    """The second press landed while the run's last report was being said (CI: Ctrl-C
    twice 10 ms apart, the run wound down in less): the process ended at once, and
    the summary was never said."""
    process = child(REPORT_PRESSES, "1")
    stdout, stderr = process.communicate(timeout=30)
    assert stdout == '{"pullZoneId":1,"ok":true}\n'
    assert stderr.splitlines() == ["report begins", "summary", "returned"], stderr


def test_two_presses_during_the_report_end_the_process_at_once() -> None:
    """A stderr nobody reads can stall the report: a second press there still ends
    the process."""
    process = child(REPORT_PRESSES, "2")
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert stdout == '{"pullZoneId":1,"ok":true}\n'
    assert stderr.splitlines() == ["report begins"], stderr
