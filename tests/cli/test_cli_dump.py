"""`edgedelivery shield dump` and `edgedelivery demo` in-process, against the fake on loopback."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ._support import Served, plain
from .conftest import Run


def read_lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def by_id(lines: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    found = {line["pullZoneId"]: line for line in lines}
    assert len(found) == len(lines), "a pull zone has more than one line"
    return found


def test_all_succeed_exit_0(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.seed_pull_zones(300)
    out = tmp_path / "out.jsonl"
    result = cli(
        "--base-url", served.url, "shield", "dump", "--pull-zones", "1-250,300", "-o", str(out)
    )
    assert result.code == 0, result.err
    lines = by_id(read_lines(out))
    assert set(lines) == set(range(1, 251)) | {300}
    assert all(line["ok"] for line in lines.values())
    assert lines[300]["configuration"]["pullZoneId"] == 300
    assert lines[300]["configuration"]["shieldZoneId"] == served.fake.shield_zone_id_for(300)
    summary = result.err.strip().splitlines()[-1]
    assert summary.startswith("done: 251 pull zones: 251 succeeded, 0 failed in ")
    assert "req/s" in summary
    assert result.out == ""


def test_partial_failures_exit_1_and_every_line_is_written(cli: Run, served: Served) -> None:
    served.fake.seed_pull_zones(40)
    for missing in (41, 42):
        served.fake.add_pull_zone(missing)  # no shield zone: 404
    served.fake.fail_next("ShieldZone_GetByPullZone", status=500, times=3)  # 3 tries: fails once
    result = cli(
        "--base-url", served.url, "--max-retries", "2",
        "shield", "dump", "-p", "1-42,1000", "--concurrency", "1",
    )  # fmt: skip
    assert result.code == 1
    lines = by_id(result.lines())
    assert set(lines) == set(range(1, 43)) | {1000}
    failed = {key: line["error"] for key, line in lines.items() if not line["ok"]}
    assert set(failed) >= {41, 42, 1000}
    assert failed[41] == {
        "type": "NotFoundError",
        "status": 404,
        "message": failed[41]["message"],
    }
    assert failed[41]["message"].startswith("GET /shield/shield-zone/get-by-pullzone/41 -> 404")
    assert [e["status"] for e in failed.values()].count(500) == 1
    assert len(failed) == 4
    summary = result.err.strip().splitlines()[-1]
    assert (
        "43 pull zones: 39 succeeded, 4 failed (NotFoundError 3, InternalServerError 1)" in summary
    )


def test_retried_faults_do_not_fail(cli: Run, served: Served) -> None:
    served.fake.seed_pull_zones(200)
    served.fake.set_faults(rate_503=0.05, rate_429=0.02, retry_after=0)
    result = cli(
        "--base-url", served.url, "--max-retries", "8", "shield", "dump", "-p", "1-200", "-c", "20"
    )
    assert result.code == 0, result.err
    assert len(result.lines()) == 200
    assert any(item.fault for item in served.fake.requests)


def test_ids_file_with_comments_after_ranges(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.seed_pull_zones(30)
    ids = tmp_path / "ids.txt"
    ids.write_text("# pull zones of team A\n\n7\n  8  \n10-12  # a range\n\n# done\n")
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1,2", "--ids-file", str(ids))
    assert result.code == 0, result.err
    assert sorted(line["pullZoneId"] for line in result.lines()) == [1, 2, 7, 8, 10, 11, 12]


def test_ids_from_stdin(cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    served.fake.seed_pull_zones(5)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n2\n\n5\n"))
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", "-")
    assert result.code == 0, result.err
    assert sorted(line["pullZoneId"] for line in result.lines()) == [1, 2, 5]


def test_malformed_line_in_ids_file_stops_after_what_came_before(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(5)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n2\nthree\n4\n")
    out = tmp_path / "out.jsonl"
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", str(ids), "-o", str(out))
    assert result.code == 2
    assert sorted(line["pullZoneId"] for line in read_lines(out)) == [1, 2]
    assert f"error: {ids}, line 3: 'three' is neither an id nor a range" in result.err
    assert result.err.strip().splitlines()[-1].startswith("stopped at bad input: 2 pull zones")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("1-x", "is neither an id nor a range"),
        ("5-1", "ends before it starts"),
        ("1,,2", "empty item"),
        ("", "empty item"),
        ("-3", "is neither an id nor a range"),
        ("0", "0 is not an id; ids are positive integers"),
        ("0-5", "0 is not an id; ids are positive integers"),
        ("7,0", "0 is not an id; ids are positive integers"),
    ],
)
def test_malformed_range_spec_is_a_usage_error(
    cli: Run, served: Served, tmp_path: Path, spec: str, message: str
) -> None:
    out = tmp_path / "out.jsonl"
    result = cli("--base-url", served.url, "shield", "dump", "--pull-zones", spec, "-o", str(out))
    assert result.code == 2
    assert message in plain(result.err)
    assert not out.exists()
    assert served.fake.requests == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --pull-zones, --ids-file, or both"),
        (["-p", "1", "--concurrency", "0"], "--concurrency"),
        (["-p", "1", "--rate-limit", "0"], "requests per second from 0.001 up"),
        (["-p", "1", "--rate-limit", "0.0005"], "requests per second from 0.001 up"),  # traceback
        (["-p", "1", "--rate-limit", "nan"], "'--rate-limit': 'nan' is not a number"),
        (["--ids-file", "/nonexistent/ids.txt"], "cannot read"),
    ],
)
def test_usage_errors(cli: Run, served: Served, args: list[str], message: str) -> None:
    result = cli("--base-url", served.url, "shield", "dump", *args)
    assert result.code == 2
    assert message in plain(result.err)
    assert served.fake.requests == []


def test_rate_limit_still_reads_everything(cli: Run, served: Served) -> None:
    served.fake.seed_pull_zones(10)
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1-10", "--rate-limit", "500")
    assert result.code == 0, result.err
    assert len(result.lines()) == 10


def test_unusable_base_url_is_a_usage_error(cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = cli("--base-url", "ftp://x", "shield", "dump", "-p", "1", "-o", str(out))
    assert result.code == 2
    assert "error: base_url must be an absolute http:// or https:// URL" in result.err
    assert not out.exists()


def test_demo_succeeds(cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "demo.jsonl"
    result = cli("demo", "--pull-zones", "600", "--latency", "0", "-o", str(out))
    assert result.code == 0, result.err
    lines = by_id(read_lines(out))
    assert set(lines) == set(range(1, 601))
    assert sorted(key for key, line in lines.items() if not line["ok"]) == [250, 500]
    assert (
        "ok: the 2 failures are exactly the pull zones seeded without a shield zone" in result.err
    )
    assert "done: 600 pull zones: 598 succeeded, 2 failed (NotFoundError 2)" in result.err


def test_demo_prints_samples_without_output_file(cli: Run) -> None:
    result = cli("demo", "--pull-zones", "300", "--latency", "0")
    assert result.code == 0, result.err
    ok_line, failed_line = result.lines()
    assert ok_line["ok"] is True
    assert failed_line == {
        "pullZoneId": 250,
        "ok": False,
        "error": {
            "type": "NotFoundError",
            "status": 404,
            "message": failed_line["error"]["message"],
        },
    }


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--latency", "nan"),
        ("--latency", "inf"),
        ("--latency", "61"),
        ("--rate-limit", "nan"),
        ("--rate-limit", "inf"),
        ("--rate-limit", "0.0001"),
        ("--rate-limit", "1e10"),
    ],
)
def test_demo_refuses_a_pace_the_fake_cannot_serve(cli: Run, option: str, value: str) -> None:
    """NaN and infinity passed typer's range checks: a traceback, or a demo that hung."""
    result = cli("demo", "--pull-zones", "10", "--quiet", option, value)
    assert result.code == 2
    said = plain(result.err)  # nan and inf are no number (ASCII decimal) to the option's type
    assert f"Invalid value for {option}: must be" in said or (
        f"Invalid value for '{option}': '{value}' is not a number" in said
    )
    assert "Traceback" not in result.err


@pytest.mark.parametrize("count", ["1000001", str(2**63 - 1), str(2**64)])
def test_demo_seeds_at_most_a_million_pull_zones(cli: Run, count: str) -> None:
    """Unbounded, 2**63 - 1 raised OverflowError and 10**8 ran out of memory seeding."""
    from edgedelivery_async.cli._demo import MOST_PULL_ZONES
    from edgedelivery_async.testing.__main__ import MOST_PULL_ZONES as SERVE_MOST

    assert MOST_PULL_ZONES == SERVE_MOST == 1_000_000
    result = cli("demo", "--pull-zones", count, "--quiet")
    assert result.code == 2
    assert "Invalid value for '--pull-zones'" in plain(result.err)
    assert "Traceback" not in result.err


def test_demo_fails_when_retries_cannot_absorb_the_faults(cli: Run) -> None:
    result = cli("--max-retries", "0", "demo", "--pull-zones", "300", "--latency", "0")
    assert result.code == 1
    assert "failures were not intended; the first:" in result.err
    assert "the SDK's retries absorbed 0 of them" in result.err


def test_id_zero_in_an_ids_file_stops_the_dump(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.seed_pull_zones(2)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n0\n2\n")
    result = cli("--base-url", served.url, "shield", "dump", "--ids-file", str(ids))
    assert result.code == 2
    assert f"error: {ids}, line 2: '0': 0 is not an id" in result.err
    assert [line["pullZoneId"] for line in result.lines()] == [1]


def test_summary_grammar_for_one(cli: Run, served: Served) -> None:
    served.fake.add_pull_zone(1)  # no shield zone: 404
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1")
    assert result.code == 1
    summary = result.err.strip().splitlines()[-1]
    assert summary.startswith("done: 1 pull zone: 0 succeeded, 1 failed (NotFoundError 1) in ")


def test_plural() -> None:
    from edgedelivery_async.cli._progress import plural

    assert [plural(n, "error") for n in (0, 1, 2)] == ["0 errors", "1 error", "2 errors"]
    assert plural(1, "pull zone") == "1 pull zone"


def test_repeated_ids_are_read_once_from_ranges_and_file(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    """One rule for repeats: overlapping ranges, a file naming an id again, and ids of both
    the file and --pull-zones are each read once, and the summary counts the repeats."""
    served.fake.seed_pull_zones(20)
    ids = tmp_path / "ids.txt"
    ids.write_text("3\n15-17\n16\n18\n")  # 3 is in -p; 16 twice; 15-17 overlaps -p
    out = tmp_path / "out.jsonl"
    result = cli(
        "--base-url", served.url, "shield", "dump",
        "-p", "1-10,5-15", "--ids-file", str(ids), "-o", str(out),
    )  # fmt: skip
    assert result.code == 0, result.err
    lines = read_lines(out)
    assert sorted(line["pullZoneId"] for line in lines) == list(range(1, 19))
    assert len(served.fake.requests_for("ShieldZone_GetByPullZone")) == 18
    # repeats: 5-10 in -p (6), 3 and 15 from the file, 16 again: 9
    assert "done: 18 pull zones: 18 succeeded, 0 failed" in result.err
    assert "; skipped 9 repeated" in result.err


@pytest.mark.parametrize("ending", ["\r", "\r\n"])
def test_resume_after_a_line_ended_by_a_carriage_return(
    cli: Run, served: Served, tmp_path: Path, ending: str
) -> None:
    """A last line ended by a bare CR is not ended for tools that split on LF: a line
    break goes first, or the first new line would join it. (Read with universal
    newlines, the CR looked like a line end.) CRLF is a line end."""
    served.fake.seed_pull_zones(2)
    out = tmp_path / "dump.jsonl"
    earlier = '{"pullZoneId": 1, "ok": true}' + ending
    out.write_bytes(earlier.encode())
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1-2", "--resume", str(out))
    assert result.code == 0, result.err
    written = out.read_bytes().decode()
    between = "\n" if ending == "\r" else ""
    assert written.startswith(earlier + between + '{"pullZoneId":2,')
    assert [json.loads(line)["pullZoneId"] for line in written.split("\n") if line] == [1, 2]


def test_resume_skips_what_was_read_and_appends(cli: Run, served: Served, tmp_path: Path) -> None:
    """A dump cut by a crash: ok lines are kept and skipped, a failed line is read again,
    a half-written last line is left apart, and the new lines are appended."""
    served.fake.seed_pull_zones(10)
    out = tmp_path / "dump.jsonl"
    earlier = [
        {"pullZoneId": 1, "ok": True, "configuration": {"pullZoneId": 1}},
        {"pullZoneId": 2, "ok": False, "error": {"type": "APIConnectionError"}},
        {"pullZoneId": 3, "ok": True, "configuration": {"pullZoneId": 3}},
    ]
    text = "".join(json.dumps(line) + "\n" for line in earlier) + '{"pullZoneId": 4, "ok": tr'
    out.write_text(text)
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1-6", "--resume", str(out))
    assert result.code == 0, result.err
    written = out.read_text()
    assert written.startswith(text + "\n")  # kept as it was, the cut line ended
    new = [json.loads(line) for line in written[len(text) + 1 :].splitlines()]
    assert sorted(line["pullZoneId"] for line in new) == [2, 4, 5, 6]
    assert all(line["ok"] for line in new)
    assert sorted(
        int(r.path.rsplit("/", 1)[1]) for r in served.fake.requests_for("ShieldZone_GetByPullZone")
    ) == [2, 4, 5, 6]
    assert "done: 4 pull zones: 4 succeeded, 0 failed" in result.err
    assert "; skipped 2 already read (--resume)" in result.err


def test_resume_of_a_missing_file_starts_it(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.seed_pull_zones(3)
    out = tmp_path / "new.jsonl"
    result = cli("--base-url", served.url, "shield", "dump", "-p", "1-3", "--resume", str(out))
    assert result.code == 0, result.err
    assert sorted(line["pullZoneId"] for line in read_lines(out)) == [1, 2, 3]


def test_resume_with_another_output_is_a_usage_error(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    result = cli(
        "--base-url", served.url, "shield", "dump", "-p", "1",
        "--resume", str(tmp_path / "a.jsonl"), "-o", str(tmp_path / "b.jsonl"),
    )  # fmt: skip
    assert result.code == 2
    assert "--resume appends to" in plain(result.err)


async def test_progress_shows_current_rate_pace_and_429s() -> None:
    """The bar's fields: results per second now, the controller's pace, its 429 count."""
    from edgedelivery_async import BulkProgress, RateControl
    from edgedelivery_async._rate_control import RateController
    from edgedelivery_async.cli._progress import LiveProgress

    controller = RateController(RateControl())
    counters = BulkProgress()
    live = LiveProgress(counters, total=None, description="d", enabled=False, controller=controller)
    assert live.pace() == ("unpaced", "0 429 replies")
    controller.rate, controller.rate_limited = 187.4, 1
    assert live.pace() == ("pace 187/s", "1 429 reply")
    live.cap = 50  # `--rate-limit 50`: it said "unpaced" while the run went at 50/s
    assert live.pace() == ("cap 50/s", "1 429 reply")
    controller.rate = None
    assert live.pace() == ("cap 50/s", "1 429 reply")
    live.cap = 500
    controller.rate = 187.4
    assert live.pace() == ("pace 187/s", "1 429 reply")
    live._samples.append((live._samples[0][0] - 2.0, 0) if live._samples else (0.0, 0))
    counters.succeeded = 100
    assert live.current_rate() > 0


def test_a_second_ctrl_c_in_a_call_prints_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """A second Ctrl-C lands in whichever call was running; that task then reported it
    ("Task exception was never retrieved", a traceback) after the summary."""
    import asyncio
    import gc

    from edgedelivery_async.cli._dump import run_to_end
    from edgedelivery_async.cli._output import LineWriter
    from edgedelivery_async.cli._progress import RunStats

    async def interrupted_in_a_call() -> None:
        async def call() -> None:
            await asyncio.sleep(0)
            raise KeyboardInterrupt

        calls = [asyncio.get_running_loop().create_task(call()) for _ in range(3)]
        await asyncio.sleep(1)
        del calls

    stats = RunStats()
    run_to_end(interrupted_in_a_call, stats, LineWriter(None, owned=False))
    gc.collect()
    assert stats.interrupted
    assert "never retrieved" not in caplog.text


def deeper_than_json_can_write() -> list[Any]:
    """A value nested so deep that json.dumps raises RecursionError, compact or indented.
    (How deep depends on the version: 3.11's C encoder stops at the recursion limit,
    3.12's near 2,000 levels, 3.13's near 10,000.)"""
    import json
    import sys

    depth = sys.getrecursionlimit() + 100
    while True:
        value: list[Any] = []
        for _ in range(depth):
            value = [value]
        for options in ({}, {"indent": 2}, {"ensure_ascii": False, "separators": (",", ":")}):
            try:
                json.dumps(value, **options)
            except RecursionError:
                continue
            break
        else:
            return value
        depth *= 2


def test_a_result_json_cannot_write_is_that_pull_zones_failure(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK refuses replies that deep; should one get through, the dump wrote nothing
    and ended with a RecursionError traceback, no summary."""
    from edgedelivery_async.cli import _dump

    served.fake.seed_pull_zones(3)
    real = _dump.to_jsonable
    deep = deeper_than_json_can_write()

    def to_jsonable(value: Any) -> Any:
        return deep if getattr(value, "pull_zone_id", None) == 2 else real(value)

    monkeypatch.setattr(_dump, "to_jsonable", to_jsonable)
    result = cli(*served.options, "shield", "dump", "-p", "1-3", "--concurrency", "1")
    assert result.code == 1, result.err
    lines = by_id(result.lines())
    assert set(lines) == {1, 2, 3}
    assert lines[1]["ok"]
    assert lines[3]["ok"]
    assert lines[2] == {
        "pullZoneId": 2,
        "ok": False,
        "error": {
            "type": "ResultNotWritable",
            "status": None,
            "message": "the result is nested too deeply to write as JSON",
        },
    }
    summary = result.err.strip().splitlines()[-1]
    assert "3 pull zones: 2 succeeded, 1 failed (ResultNotWritable 1)" in summary


def test_a_result_json_cannot_write_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from edgedelivery_async.cli._output import print_json

    with pytest.raises(typer.Exit) as info:
        print_json({"deep": deeper_than_json_can_write()})
    assert info.value.exit_code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error: cannot write the result: the result is nested too deeply" in captured.err
