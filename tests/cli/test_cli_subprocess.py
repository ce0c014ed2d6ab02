"""The installed `edgedelivery` console script, run as a subprocess against a loopback fake.

Covers what only a real process shows: the console script entry point, ids piped on
stdin, Ctrl-C (SIGINT) during a dump, and the message when typer/rich are missing.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from edgedelivery_async.testing import FakeEdgeDelivery

from ._support import KEY, Served, serve_in_thread, subprocess_env


def console_script() -> str:
    """The `edgedelivery` script installed next to this interpreter."""
    beside = Path(sys.executable).with_name("edgedelivery")
    found = str(beside) if beside.exists() else shutil.which("edgedelivery")
    assert found, "the edgedelivery console script is not installed (pip install -e '.[dev]')"
    return found


@pytest.fixture
def slow() -> Iterator[Served]:
    """A fake of 20 000 pull zones that takes 0.2 s per request."""
    fake = FakeEdgeDelivery(KEY, pull_zones=20_000)
    fake.set_faults(latency=0.2)
    with serve_in_thread(fake) as url:
        yield Served(fake, url)


def test_console_script_runs_an_operation(served: Served) -> None:
    served.fake.add_pull_zone(42, hostnames=["cdn.example.com"])
    env = subprocess_env(EDGEDELIVERY_ACCESS_KEY=KEY, EDGEDELIVERY_BASE_URL=served.url)
    args = ["pull-zones", "set-force-ssl", "42", "--hostname", "cdn.example.com", "--on"]
    done = subprocess.run(
        [console_script(), *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["forceSSL"] is True
    assert served.fake.force_ssl(42, "cdn.example.com") is True


def test_console_script_dumps_ids_piped_on_stdin(served: Served) -> None:
    served.fake.seed_pull_zones(50)
    ids = "".join(f"{n}\n" for n in range(1, 61))  # 51..60 have no pull zone: 404
    done = subprocess.run(
        [console_script(), "--base-url", served.url, "shield", "dump", "--ids-file", "-"],
        input=ids, env=subprocess_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(line["pullZoneId"] for line in lines) == list(range(1, 61))
    assert sum(not line["ok"] for line in lines) == 10
    assert "done: 60 pull zones: 50 succeeded, 10 failed (NotFoundError 10)" in done.stderr


def test_ids_from_a_slow_pipe_are_written_as_they_finish(served: Served, tmp_path: Path) -> None:
    """Five ids, then a pipe that stays open: their lines are written without waiting
    for more ids (the old bulk loop filled its window of 100 from the source first and
    wrote nothing), and Ctrl-C then keeps them."""
    served.fake.seed_pull_zones(5)
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [console_script(), "--base-url", served.url, "shield", "dump", "--ids-file", "-",
         "-o", str(out)],
        env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        assert process.stdin is not None
        process.stdin.write("1\n2\n3\n4\n5\n")
        process.stdin.flush()  # and the pipe stays open: more ids may come
        deadline = time.monotonic() + 30
        while not (out.exists() and out.read_text().count("\n") == 5):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the finished ids were not written"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(line["pullZoneId"] for line in lines) == [1, 2, 3, 4, 5]
    assert "interrupted: 5 pull zones: 5 succeeded" in stderr


def test_ctrl_c_stops_cleanly_and_keeps_complete_lines(slow: Served, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [console_script(), "--base-url", slow.url, "shield", "dump",
         "-p", "1-20000", "--concurrency", "10", "-o", str(out)],
        env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell without job control starts background jobs with SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (out.exists() and out.stat().st_size > 0):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no line was written"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    text = out.read_text()
    assert text.endswith("\n")
    lines = [json.loads(line) for line in text.splitlines()]
    assert 0 < len(lines) < 20_000
    assert len({line["pullZoneId"] for line in lines}) == len(lines)
    assert all(line["ok"] for line in lines)
    summary = stderr.strip().splitlines()[-1]
    noun = "pull zone" if len(lines) == 1 else "pull zones"
    assert summary.startswith(f"interrupted: {len(lines)} {noun}: {len(lines)} succeeded")
    assert "Traceback" not in stderr
    assert stdout == ""


def signalled_dump(
    slow: Served, out: Path, send: Callable[[subprocess.Popen[str]], None]
) -> tuple[int, str, list[Any]]:
    """A dump of 500 ids, stdout block-buffered; once its first line is in `out`,
    `send(process)` signals it. Its exit status, stderr and the lines written."""
    env = subprocess_env()
    del env["PYTHONUNBUFFERED"]  # (lines reach the file through the writer's own flushes)
    process = subprocess.Popen(
        [console_script(), "--base-url", slow.url, "shield", "dump", "-q",
         "-p", "1-500", "--concurrency", "20", "-o", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (out.exists() and out.stat().st_size > 0):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no line was written"
            time.sleep(0.05)
        send(process)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    text = out.read_text()
    assert text.endswith("\n")
    return process.returncode, stderr, [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("gap", [0.0, 0.001, 0.01, 0.05, 0.3])
def test_a_second_ctrl_c_ends_at_once_and_keeps_the_lines(
    slow: Served, tmp_path: Path, gap: float
) -> None:
    """Ctrl-C twice, `gap` seconds apart: asyncio's second KeyboardInterrupt landed in
    the loop's clean-up, which printed tracebacks ("Exception ignored", "Event loop
    stopped before Future completed") or, now and then, hung. Now the second press
    ends the process: exit 130, the summary, complete lines only."""

    def twice(process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGINT)
        time.sleep(gap)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)

    code, stderr, lines = signalled_dump(slow, tmp_path / "out.jsonl", twice)
    assert code == 130, stderr
    assert all(line["ok"] for line in lines)
    assert stderr.strip().splitlines() == [
        line for line in stderr.strip().splitlines() if line.startswith("interrupted: ")
    ], stderr
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith(f"interrupted: {len(lines)} pull zones: {len(lines)} succeeded")


def test_sigterm_ends_the_dump_as_ctrl_c_does(slow: Served, tmp_path: Path) -> None:
    """`timeout`, `kill` or a service manager sends SIGTERM: Python's default ended the
    process at once, and the lines not yet flushed (up to 0.2 s of them) were lost."""

    def terminate(process: subprocess.Popen[str]) -> None:
        time.sleep(0.1)  # (between two of the writer's flushes)
        process.send_signal(signal.SIGTERM)

    code, stderr, lines = signalled_dump(slow, tmp_path / "out.jsonl", terminate)
    assert code == 130, stderr
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith(f"interrupted: {len(lines)} pull zones: {len(lines)} succeeded")
    assert "Traceback" not in stderr


def test_closed_stdout_stops_the_dump_quietly(served: Served) -> None:
    served.fake.seed_pull_zones(2000)
    process = subprocess.Popen(
        [console_script(), "--base-url", served.url, "shield", "dump", "-p", "1-2000", "-c", "5"],
        env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    stderr = process.stderr.read()
    assert process.wait(timeout=30) == 1
    assert json.loads(first)["ok"] is True
    assert "stopped, the output was closed" in stderr
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr


def test_a_reader_gone_between_writes_stops_the_dump(slow: Served) -> None:
    """Stdout block-buffered (no PYTHONUNBUFFERED, as for most users) and a slow server:
    the reader's going away is first seen by the background flush, not by a write. The
    dump used to go on reading every id, drop the lines, and report "done", exit 0."""
    env = subprocess_env()
    del env["PYTHONUNBUFFERED"]
    process = subprocess.Popen(
        [console_script(), "--base-url", slow.url, "shield", "dump", "-p", "1-60", "-c", "1", "-q"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 1, stderr
    assert json.loads(first)["ok"] is True
    assert "stopped, the output was closed" in stderr
    assert "done:" not in stderr
    assert "Traceback" not in stderr
    assert len(slow.fake.requests) < 60  # it stopped reading


def test_demo_as_a_subprocess(tmp_path: Path) -> None:
    done = subprocess.run(
        [console_script(), "demo", "--pull-zones", "1000", "--latency", "0"],
        env=subprocess_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "fake Edge Delivery API on http://127.0.0.1:" in done.stderr
    assert "ok: the 4 failures are exactly" in done.stderr


def test_without_typer_main_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['typer'] = None\n"
        "from edgedelivery_async.cli import main\n"
        "sys.exit(main(['--help']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=subprocess_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "pip install 'edgedelivery-async[cli]'" in done.stderr
    assert done.stdout == ""
