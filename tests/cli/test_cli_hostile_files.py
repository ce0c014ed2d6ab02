"""`shield dump` (and an operation's output) with files and streams that fight back.

Each case is one an audit of the command line found ending in a traceback, or losing
ids or results while exiting 0: a `--resume` file with odd lines, ids files with bad
bytes or endless lines, closed or full outputs, and files named twice.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
from pathlib import Path

import pytest

from edgedelivery_async.cli import main
from edgedelivery_async.cli._ids import IdRanges, count_in, parse_ranges

from ._support import Served, plain, subprocess_env
from .conftest import Run
from .test_cli_subprocess import console_script


def requested(served: Served) -> list[int]:
    """The pull zone ids the fake was asked for, sorted."""
    calls = served.fake.requests_for("ShieldZone_GetByPullZone")
    return sorted(int(call.path.rsplit("/", 1)[1]) for call in calls)


@pytest.mark.parametrize(
    ("earlier", "done"),
    [
        ('[{"pullZoneId": 1, "ok": true}]\n', []),  # an array, not an object
        ('"ok": true\n7\nnull\n', []),  # JSON that is no object at all
        ("[" * 100_000 + '{"pullZoneId": 1, "ok": true}' + "]" * 100_000 + "\n", []),
        ('{"pullZoneId": 1, "ok" : true}\n{"pullZoneId": 2,\t"ok":\ttrue}\n', [1, 2]),
        ('\ufeff{"pullZoneId": 1, "ok": true}\n', [1]),  # a byte-order mark
    ],
    ids=["array", "not-objects", "nested-too-deeply", "other-spacing", "bom"],
)
def test_resume_reads_odd_lines_without_failing(
    cli: Run, served: Served, tmp_path: Path, earlier: str, done: list[int]
) -> None:
    served.fake.seed_pull_zones(3)
    out = tmp_path / "dump.jsonl"
    out.write_text(earlier, encoding="utf-8")
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1-3", "--resume", str(out))
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    assert requested(served) == [n for n in (1, 2, 3) if n not in done]
    assert out.read_text(encoding="utf-8").startswith(earlier)


def test_repeats_of_an_id_already_read_count_as_repeats(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(3)
    out = tmp_path / "dump.jsonl"
    out.write_text('{"pullZoneId": 1, "ok": true}\n')
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n1\n2\n1\n")
    result = cli(
        "--base-url", served.url, "shield", "dump", "--ids-file", str(ids), "--resume", str(out)
    )  # fmt: skip
    assert result.code == 0, result.err
    assert requested(served) == [2]
    assert "; skipped 1 already read (--resume) and 2 repeated" in result.err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("\u0661-\u0663", "is neither an id nor a range"),  # Arabic-Indic digits
        ("\uff11,\uff12", "is neither an id nor a range"),  # full-width digits
        ("9" * 5000, "is beyond the 64-bit id range"),
        ("1-" + "9" * 20, "is beyond the 64-bit id range"),
        ("0" * 5000, "0 is not an id"),  # int() refuses 5,000 digits, zeros too
        ("2-" + "0" * 5000 + "1", "ends before it starts"),
    ],
    ids=[
        "arabic-indic-digits",
        "full-width-digits",
        "5000-digits",
        "20-digits",
        "5000-zeros",
        "5000-zeros-in-a-range",
    ],
)
def test_ids_are_ascii_digits_within_64_bits(
    cli: Run, served: Served, spec: str, message: str
) -> None:
    result = cli("--base-url", served.url, "shield", "dump", "-p", spec)
    assert result.code == 2
    assert message in plain(result.err)
    assert len(plain(result.err)) < 2000  # a 5,000-digit id is not echoed whole
    assert served.fake.requests == []


def test_ids_file_with_bytes_that_are_not_utf8_stops_at_that_line(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(5)
    ids = tmp_path / "ids.txt"
    ids.write_bytes(b"1\n2\n\xff\xfe\n3\n")
    out = tmp_path / "out.jsonl"
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", str(ids), "-o", str(out))
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    assert f"error: {ids}, line 3:" in result.err
    assert sorted(json.loads(line)["pullZoneId"] for line in out.read_text().splitlines()) == [1, 2]


def test_ids_file_that_is_also_the_output_is_refused(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n2\n")
    spelt_otherwise = tmp_path / "." / "ids.txt"
    for output in (["-o", str(spelt_otherwise)], ["--resume", str(spelt_otherwise)]):
        result = cli("--base-url", served.url, "shield", "dump", "--ids-file", str(ids), *output)
        assert result.code == 2
        assert "is also the --ids-file" in plain(result.err)
        assert ids.read_text() == "1\n2\n"
    assert served.fake.requests == []


def test_resume_needs_a_regular_file(cli: Run, served: Served, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # reading it would wait for a writer for ever
    for resume, message in (
        ("-", "needs a file"),
        (str(fifo), "is not a regular file"),
        (os.devnull, "is not a regular file"),
        (str(tmp_path), "is not a regular file"),
    ):
        result = cli("--base-url", served.url, "shield", "dump", "-p", "1", "--resume", resume)
        assert result.code == 2, resume
        assert message in plain(result.err), resume
    assert served.fake.requests == []


def test_resume_and_output_spelt_differently_are_one_file(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(2)
    out = tmp_path / "dump.jsonl"
    out.write_text('{"pullZoneId": 1, "ok": true}\n')
    other = str(tmp_path / "sub" / ".." / "dump.jsonl")
    (tmp_path / "sub").mkdir()
    result = cli(
        "--base-url", served.url, "shield", "dump", "-p", "1-2", "--resume", str(out), "-o", other
    )  # fmt: skip
    assert result.code == 0, result.err
    assert requested(served) == [2]


def test_ids_from_a_closed_stdin_are_a_usage_error(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", None)
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", "-")
    assert result.code == 2
    assert "stdin is closed" in plain(result.err)


def test_json_nested_too_deeply_is_a_usage_error(cli: Run, served: Served, tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_text("[" * 100_000 + "]" * 100_000)
    result = cli("--base-url", served.url, "registries", "add", "--body", str(body))
    assert result.code == 2
    assert "nested too deeply" in plain(result.err)
    assert served.fake.requests == []


def test_ctrl_c_while_the_command_line_starts_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(argv: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("edgedelivery_async.cli._app.run", interrupted)
    assert main(["--help"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_count_in_matches_a_search_of_every_range() -> None:
    chooser = random.Random(7)
    for _ in range(50):
        spec = ",".join(
            f"{first}-{first + chooser.randrange(5)}"
            for first in (chooser.randrange(1, 200) for _ in range(chooser.randrange(1, 8)))
        )
        ranges: IdRanges = parse_ranges(spec)
        ids = frozenset(chooser.randrange(1, 220) for _ in range(40))
        expected = sum(any(a <= n <= b for a, b in ranges.ranges) for n in ids)
        assert count_in(ranges, ids) == expected, spec


# ------------------------------------------------------------ as a real process


def run_script(*args: str, **options: object) -> subprocess.CompletedProcess[str]:
    """The console script; stdout and stderr captured unless `options` say otherwise."""
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [console_script(), *args],
        env=subprocess_env(),
        text=True,
        timeout=60,
        check=False,
        **{**streams, **options},
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_an_output_that_cannot_be_written_is_an_error_not_a_traceback(served: Served) -> None:
    served.fake.seed_pull_zones(3)
    done = run_script(
        "--base-url", served.url, "shield", "dump", "-q", "-p", "1-3", "-o", "/dev/full"
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "error: cannot write '/dev/full': [Errno 28] No space left on device" in done.stderr
    assert "stopped, the output could not be written" in done.stderr
    assert "Traceback" not in done.stderr
    with open("/dev/full", "w") as full:
        shown = run_script(
            "--base-url", served.url, "shield", "dump", "-q", "-p", "1-3",
            stdout=full,
        )  # fmt: skip
        assert shown.returncode == 1, shown.stderr
        assert "error: cannot write stdout" in shown.stderr
        assert "Traceback" not in shown.stderr
        operation = run_script(
            "--base-url", served.url, "shield", "get", "1", stdout=full,
        )  # fmt: skip
        assert operation.returncode == 1, operation.stderr
        assert "error: cannot write the result" in operation.stderr
        assert "Traceback" not in operation.stderr
        for args in (("shield", "get", "--help"), ("shield",)):  # help and usage: rich's
            helped = run_script(*args, stdout=full)
            assert helped.returncode == 1, helped.stderr
            assert "error: cannot write stdout: No space left on device" in helped.stderr
            assert "Traceback" not in helped.stderr


def test_a_closed_stdout_is_refused_before_anything_is_read(served: Served) -> None:
    served.fake.seed_pull_zones(3)
    done = run_script(
        "--base-url", served.url, "shield", "dump", "-q", "-p", "1-3",
        stdout=None, preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "stdout is closed" in plain(done.stderr)
    assert "Traceback" not in done.stderr
    assert served.fake.requests_for("ShieldZone_GetByPullZone") == []


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("registries", "get", "--help")], ids=" ".join
)
def test_version_and_help_to_a_closed_stdout_fail(args: tuple[str, ...]) -> None:
    # as a result does: they printed nothing and exited 0
    done = run_script(*args, stdout=None, preexec_fn=lambda: os.close(1))
    assert done.returncode == 1, done.stderr
    assert "error: cannot write stdout: stdout is closed" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_piped_line_too_long_stops_at_that_line(served: Served) -> None:
    served.fake.seed_pull_zones(2)
    ids = "1\n#" + "x" * 2_000_000 + "\n2\n"
    done = run_script(
        "--base-url", served.url, "shield", "dump", "-q", "--ids-file", "-", input=ids,
        preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_DFL),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "error: stdin, line 2: longer than 1,048,576 bytes" in done.stderr
    assert "Traceback" not in done.stderr
    assert [json.loads(line)["pullZoneId"] for line in done.stdout.splitlines()] == [1]


def test_a_file_line_too_long_stops_at_that_line(cli: Run, served: Served, tmp_path: Path) -> None:
    """A regular file's lines have the pipe's limit too; before, a file (or `/dev/zero`,
    one endless line) was read a whole line at a time, without bound."""
    served.fake.seed_pull_zones(2)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n#" + "x" * 2_000_000 + "\n2\n")
    out = tmp_path / "out.jsonl"
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", str(ids), "-o", str(out))
    assert result.code == 2, result.err
    assert f"error: {ids}, line 2: longer than 1,048,576 bytes" in result.err
    assert [json.loads(line)["pullZoneId"] for line in out.read_text().splitlines()] == [1]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_as_the_ids_file_is_one_line_too_long(served: Served, tmp_path: Path) -> None:
    done = run_script(
        "--base-url", served.url, "shield", "dump", "-q", "--ids-file", "/dev/zero",
        "-o", str(tmp_path / "out.jsonl"),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "error: /dev/zero, line 1: longer than 1,048,576 bytes" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_a_read_that_fails_is_the_ids_files_error(served: Served, tmp_path: Path) -> None:
    """Reading /proc/self/mem from its start fails (EIO): that is the ids file's error,
    exit 2, with the summary; it was reported as "cannot write stdout", exit 1."""
    served.fake.seed_pull_zones(3)
    done = run_script(
        "--base-url", served.url, "shield", "dump", "-p", "1-3", "--ids-file", "/proc/self/mem",
        "-o", str(tmp_path / "out.jsonl"),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "error: cannot read /proc/self/mem: Input/output error" in done.stderr
    assert "stdout" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("stopped at bad input: 3 pull zones")


def test_stdin_with_a_strict_decoder_stops_at_the_bad_line(served: Served, tmp_path: Path) -> None:
    """Stdin from a file, with a strict UTF-8 decoder (PYTHONIOENCODING=utf-8, as most
    locales give): the ids before the bad byte are read and the line is named. Before,
    the decode error read as "line 1: longer than 1,048,576 bytes" and no id was read."""
    served.fake.seed_pull_zones(4)
    ids = tmp_path / "ids.txt"
    ids.write_bytes(b"1\n2\n3\n4\xff\n")
    with ids.open("rb") as stdin:
        done = subprocess.run(
            [console_script(), "--base-url", served.url, "shield", "dump", "-q", "--ids-file", "-"],
            env=subprocess_env(PYTHONIOENCODING="utf-8"), stdin=stdin, capture_output=True,
            text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "error: stdin, line 4:" in done.stderr
    assert "longer than" not in done.stderr
    assert sorted(json.loads(line)["pullZoneId"] for line in done.stdout.splitlines()) == [1, 2, 3]


def test_stdin_that_reads_the_output_file_is_refused(served: Served, tmp_path: Path) -> None:
    """`--ids-file - -o ids.txt < ids.txt` would truncate the ids before reading them, as
    `--ids-file ids.txt -o ids.txt` would (which was refused already)."""
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n2\n")
    for output in ("-o", "--resume"):
        with ids.open("rb") as stdin:
            done = subprocess.run(
                [console_script(), "--base-url", served.url, "shield", "dump", "--ids-file", "-",
                 output, str(ids)],
                env=subprocess_env(), stdin=stdin, capture_output=True, text=True, timeout=60,
                check=False,
            )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "is also stdin, the --ids-file" in plain(done.stderr)
        assert ids.read_text() == "1\n2\n"
    assert served.fake.requests == []


def test_a_byte_order_mark_before_the_first_id_is_skipped(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(2)
    ids = tmp_path / "ids.txt"
    ids.write_text("\ufeff1\n2\n", encoding="utf-8")
    result = cli("--base-url", served.url, "shield", "dump", "-q", "--ids-file", str(ids))
    assert result.code == 0, result.err
    assert requested(served) == [1, 2]


def test_an_id_with_thousands_of_leading_zeros_is_that_id(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    """A range spec, an ids-file line and an operation's id argument, each of 5,000
    leading zeros and then the id: int() alone raised past 4,300 digits (a traceback
    for `shield get`, Python's own message for `-p`)."""
    served.fake.seed_pull_zones(3)
    zeros = "0" * 5000
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{zeros}2\n")
    dump = cli("--base-url", served.url, "shield", "dump", "-q", "-p", f"{zeros}1",
               "--ids-file", str(ids))  # fmt: skip
    assert dump.code == 0, dump.err
    assert requested(served) == [1, 2]
    get = cli("--base-url", served.url, "shield", "get", f"{zeros}3")
    assert get.code == 0, get.err
    assert get.json()["pullZoneId"] == 3
    beyond = cli("--base-url", served.url, "shield", "get", f"{zeros}1{'0' * 19}")
    assert beyond.code == 2
    assert "is beyond the 64-bit id range" in plain(beyond.err)
    assert len(beyond.err) < 2000


@pytest.mark.parametrize("content", [b"1\r2\r3\r", b"1 # first\r2\r3\r", b"1\r\n2\r\n3"])
def test_lines_ended_by_a_bare_cr_are_lines(
    cli: Run, served: Served, tmp_path: Path, content: bytes
) -> None:
    """Read as bytes up to each line feed, a file of bare-CR line ends was one line: a
    bad id, or, after a `#`, every id but the first silently commented out."""
    served.fake.seed_pull_zones(3)
    ids = tmp_path / "ids.txt"
    ids.write_bytes(content)
    result = cli("--base-url", served.url, "shield", "dump", "-q", "--ids-file", str(ids))
    assert result.code == 0, result.err
    assert requested(served) == [1, 2, 3]
