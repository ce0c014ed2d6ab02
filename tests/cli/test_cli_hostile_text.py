"""Text the CLI cannot print as it came: it prints it escaped, never a traceback.

A reply may hold a lone surrogate (JSON's "\\ud800"), a terminal may take only ASCII,
and a server's error message may hold line breaks or terminal escapes. JSON output then
uses \\u escapes (the same JSON), messages on stderr stay one line with their control
characters escaped, and a closed stderr keeps messages out of stdout. Run as the
installed console script, so the real streams and their encodings apply.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import typer

from edgedelivery_async._exceptions import status_error
from edgedelivery_async._http import RawResponse
from edgedelivery_async.cli import _app
from edgedelivery_async.cli._options import Settings
from edgedelivery_async.cli._output import fail

from ._support import Served, subprocess_env
from .conftest import Run
from .test_cli_subprocess import console_script

SURROGATE = "bad\ud800name"


def run(served: Served, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [console_script(), *served.options, *args],
        env=subprocess_env(**env), capture_output=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "env"),
    [
        (SURROGATE, {}),
        ("café", {"PYTHONIOENCODING": "ascii"}),
        ("café", {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}),
    ],
    ids=["lone surrogate", "ascii stdout", "C locale"],
)
def test_a_result_is_printed_as_json_the_stream_can_take(
    served: Served, name: str, env: dict[str, str]
) -> None:
    registry = served.fake.add_registry(name)
    done = run(served, "registries", "get", str(registry), **env)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert json.loads(done.stdout)["displayName"] == name


TERMINAL_CONTROLS = "csi\u009b31m red \u202eevil\u202c \u2066iso\u2069 \u2028line"


def test_terminal_controls_from_a_server_are_written_escaped(
    served: Served, tmp_path: Path
) -> None:
    """An 8-bit control (U+009B opens a terminal escape sequence) or a bidirectional
    override in a reply reached the terminal raw: JSON escapes only the 7-bit controls.
    They are now written as \\u escapes, the same JSON, in a result and a dump line."""
    registry = served.fake.add_registry(TERMINAL_CONTROLS)
    served.fake.add_pull_zone(1)
    served.fake.add_shield_zone(1, 777, wafDisabledRules=[TERMINAL_CONTROLS])
    got = run(served, "registries", "get", str(registry))
    dumped = run(served, "shield", "dump", "-p", "1")
    for done in (got, dumped):
        assert done.returncode == 0, done.stderr
        text = done.stdout.decode()
        assert not any(char in text for char in "\u009b\u202e\u202c\u2066\u2069\u2028")
        assert "\\u009b31m" in text
    assert json.loads(got.stdout)["displayName"] == TERMINAL_CONTROLS
    line = json.loads(dumped.stdout.splitlines()[0])
    assert TERMINAL_CONTROLS in json.dumps(line, ensure_ascii=False)


def test_a_dump_writes_every_line_when_a_reply_holds_a_lone_surrogate(
    served: Served, tmp_path: Path
) -> None:
    served.fake.seed_pull_zones(5)
    served.fake.add_pull_zone(6)
    served.fake.add_shield_zone(6, 777, wafDisabledRules=[SURROGATE])
    for output in ("-", str(tmp_path / "out.jsonl")):
        done = run(served, "shield", "dump", "-p", "1-6", "-o", output)
        text = done.stdout if output == "-" else Path(output).read_bytes()
        lines = [json.loads(line) for line in text.splitlines()]
        assert done.returncode == 0, done.stderr
        assert sorted(line["pullZoneId"] for line in lines) == [1, 2, 3, 4, 5, 6]
        assert b"done: 6 pull zones: 6 succeeded" in done.stderr


def test_a_closed_stderr_keeps_messages_out_of_stdout(served: Served) -> None:
    served.fake.seed_pull_zones(3)
    done = subprocess.run(
        [console_script(), *served.options, "shield", "dump", "-p", "1-3"],
        env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60,
        check=False, preexec_fn=lambda: __import__("os").close(2),
    )  # fmt: skip
    assert done.returncode == 0
    assert [json.loads(line)["pullZoneId"] for line in done.stdout.splitlines()] == [1, 2, 3]


def test_an_error_message_stays_one_line_of_plain_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A server's message with a line break and terminal escapes: it printed a forged
    second `error:` line and set the terminal's title."""
    body = {"Message": "first line\nerror: a forged line\x1b]0;pwned\x07\x1b[2J"}
    raw = RawResponse("GET", "http://h/x", "/x", 400, {}, json.dumps(body).encode())
    with pytest.raises(typer.Exit) as info:
        fail(status_error(raw, body))

    err = capsys.readouterr().err
    assert info.value.exit_code == 1
    assert err.count("\n") == 1
    assert "\x1b" not in err
    assert "\\nerror: a forged line\\x1b]0;pwned\\x07\\x1b[2J" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["registries", "get", "31"], "interrupted\n"),
        (["shield", "dump", "-p", "1-3"], "interrupted: 0 pull zones"),
    ],
)
def test_ctrl_c_while_the_client_is_made_says_interrupted(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    """Ctrl-C before the call (the SDK loading, the client being made): typer turned it
    into exit 130 with nothing said, and the dump printed no summary."""

    def interrupt(self: Settings) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Settings, "client", interrupt)
    result = cli(*served.options, *args)
    assert result.code == 130
    assert said in result.err
    assert served.fake.requests == []


def test_ctrl_c_that_typer_takes_says_interrupted(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While typer parses the command line, or a command's module loads."""
    tiny = typer.Typer()

    @tiny.command()
    def stop() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_app, "app", tiny)
    result = cli()
    assert result.code == 130
    assert result.err == "interrupted\n"


def test_a_reply_with_nan_prints_valid_json() -> None:
    """A reply's NaN (Python's JSON parser reads it) was printed as NaN: not JSON."""
    from edgedelivery_async.cli._output import json_text

    value = {"displayName": float("nan"), "sizes": [1.5, float("inf"), -float("inf")]}
    text = json_text(value, None, indent=2)
    assert json.loads(text, parse_constant=lambda name: pytest.fail(name)) == {
        "displayName": None,
        "sizes": [1.5, None, None],
    }
