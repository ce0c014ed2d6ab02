"""Every code block of README.md runs as written against the fake (or says why not).

The blocks are read from README.md itself (`_blocks`), so the README cannot drift:

- ```python blocks all compile. Then:
  - a complete program (it calls `asyncio.run(`) runs in a subprocess, with
    EDGEDELIVERY_BASE_URL and EDGEDELIVERY_ACCESS_KEY naming a `FakeEdgeDelivery` this
    test serves on loopback, seeded with every id the README uses (`EXAMPLE_SEED`);
  - a block that defines `test_*` functions runs under pytest in an empty directory,
    configured by the README's own ```toml block (strict mode), and in auto mode;
  - any other block is a fragment: it runs as the body of
    `async with EdgeDeliveryClient() as client:` against the same served fake, with
    `fake` (that fake), `pytest`, the SDK's public names and `READER_NAMES` at hand.
- ```sh blocks run line by line, each line (or each `&&` part) in bash, from a scratch
  directory where `.venv` is this interpreter's venv and `examples/` the repository's,
  against a fake served by this test (or the one the block starts itself), following
  `SKIP_RULES`, `REPLACED` and `INPUTS` below.
- ```json blocks are seed files for `python -m edgedelivery_async.testing serve`.

A block the test cannot run is marked in the README on the line before it:
`<!-- readme-test: skip (the reason) -->`.
"""

from __future__ import annotations

import ast
import asyncio
import os
import re
import signal
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import edgedelivery_async
from edgedelivery_async import EdgeDeliveryClient
from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._seedfile import EXAMPLE_SEED, apply_seed, seed_fake

from ._blocks import ROOT, Block, blocks

KEY = "readme-test-key"
#: The shell fake holds what the README's own serve line asks for (`--pull-zones 7001`,
#: checked below), so `shield dump --pull-zones 1-5000,7001` reads every id.
SHELL_PULL_ZONES = 7001
LINE_TIMEOUT = 180.0

# ----------------------------------------------------------------- python blocks

#: Placeholders, and what they become: (README text, replacement).
PLACEHOLDERS: list[tuple[str, Callable[[str, str], str]]] = [
    ('access_key="..."', lambda url, key: f"access_key={key!r}"),
    ('base_url="https://api.example.com"', lambda url, key: f"base_url={url!r}"),
    ("EdgeDeliveryClient(...)", lambda url, key: "EdgeDeliveryClient()"),
]


class _Counter:
    def __init__(self) -> None:
        self.count = 0

    def inc(self) -> None:
        self.count += 1


#: Names the README's fragments leave to the reader, as the test fills them in.
READER_NAMES: dict[str, Any] = {
    "pull_zone_ids": [42, 1, 2],
    "shield_zone_ids": [9001],
    "use": lambda *args: None,
    "log": lambda *args: None,
    "new_request_id": lambda: "req-1",
    "RETRIES": _Counter(),
}


def kind(block: Block) -> str:
    """`program`, `pytest` or `fragment`."""
    if "asyncio.run(" in block.code:
        return "program"
    if re.search(r"^(async )?def test_", block.code, re.M):
        return "pytest"
    return "fragment"


def fragment_source(code: str) -> str:
    """A fragment as the body of an async function (top-level `await` is allowed there)."""
    return "async def readme_block():\n" + textwrap.indent(code, "    ") + "    pass\n"


def filled(code: str, url: str, key: str) -> str:
    for placeholder, replacement in PLACEHOLDERS:
        code = code.replace(placeholder, replacement(url, key))
    return code


PYTHON = blocks("python")


def test_the_readme_has_the_blocks_this_test_reads() -> None:
    kinds = [kind(b) for b in PYTHON]
    assert kinds.count("program") >= 1
    assert kinds.count("pytest") >= 2
    assert kinds.count("fragment") >= 8
    assert len(blocks("sh")) >= 8
    assert len(blocks("toml")) == 1


def test_every_placeholder_and_reader_name_is_still_used() -> None:
    code = "\n".join(b.code for b in PYTHON)
    for placeholder, _ in PLACEHOLDERS:
        assert placeholder in code, f"{placeholder!r} is no longer in the README: drop it here"
    used = {n.id for b in PYTHON for n in ast.walk(_parsed(b)) if isinstance(n, ast.Name)}
    assert set(READER_NAMES) <= used, set(READER_NAMES) - used


def test_few_python_blocks_are_skipped() -> None:
    skipped = [(b.id, b.skip) for b in PYTHON if b.skip]
    assert len(skipped) <= 3, skipped


def _parsed(block: Block) -> ast.Module:
    source = block.code if kind(block) != "fragment" else fragment_source(block.code)
    return ast.parse(source, f"README.md:{block.line}")


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_block_compiles(block: Block) -> None:
    compile(_parsed(block), f"README.md:{block.line}", "exec")


@asynccontextmanager
async def served_fake(pull_zones: int = 0) -> AsyncIterator[tuple[FakeEdgeDelivery, str]]:
    """A fake with the README's ids (and pull zones 1..N), on loopback."""
    fake = seed_fake(FakeEdgeDelivery(KEY))
    fake.seed_pull_zones(pull_zones)
    async with fake.serve() as url:
        yield fake, url


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any EDGEDELIVERY_* setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    env.update(extra)
    return env


async def run(
    argv: list[str], *, cwd: Path, env: dict[str, str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin), LINE_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


PROGRAMS = [b for b in PYTHON if kind(b) == "program" and not b.skip]
FRAGMENTS = [b for b in PYTHON if kind(b) == "fragment" and not b.skip]
TESTS = [b for b in PYTHON if kind(b) == "pytest" and not b.skip]


@pytest.mark.parametrize("block", PROGRAMS, ids=[b.id for b in PROGRAMS])
async def test_python_program_runs_against_the_fake(block: Block, tmp_path: Path) -> None:
    async with served_fake() as (_, url):
        script = tmp_path / "readme_program.py"
        script.write_text(filled(block.code, url, KEY))
        env = clean_env(EDGEDELIVERY_BASE_URL=url, EDGEDELIVERY_ACCESS_KEY=KEY)
        code, out, err = await run([sys.executable, str(script)], cwd=tmp_path, env=env)
    assert code == 0, f"README.md:{block.line}\n{out}\n{err}"


@pytest.mark.parametrize("block", FRAGMENTS, ids=[b.id for b in FRAGMENTS])
async def test_python_fragment_runs_against_the_fake(
    block: Block, monkeypatch: pytest.MonkeyPatch
) -> None:
    names: dict[str, Any] = {n: getattr(edgedelivery_async, n) for n in edgedelivery_async.__all__}
    names.update(READER_NAMES, pytest=pytest, __name__="readme_block")
    async with served_fake() as (fake, url):
        source = fragment_source(filled(block.code, url, KEY))
        exec(compile(source, f"README.md:{block.line}", "exec"), names)
        for name in [k for k in os.environ if k.startswith("EDGEDELIVERY_")]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("EDGEDELIVERY_BASE_URL", url)
        monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", KEY)
        async with EdgeDeliveryClient() as client:
            names.update(client=client, fake=fake)
            await names["readme_block"]()


#: Fragments that make a client and send nothing: they must also work pasted as they are,
#: with no EDGEDELIVERY_* variable set (so each says where its base URL comes from).
def _runs_at_top_level(code: str) -> bool:
    """Whether `code` is a module as it stands (no `await`/`async with` outside a function)."""
    try:
        compile(code, "<readme>", "exec")
    except SyntaxError:
        return False
    return True


STANDALONE = [
    b for b in FRAGMENTS if "EdgeDeliveryClient(" in b.code and _runs_at_top_level(b.code)
]


@pytest.mark.parametrize("block", STANDALONE, ids=[b.id for b in STANDALONE])
async def test_a_client_snippet_works_pasted_as_written(block: Block, tmp_path: Path) -> None:
    assert "base_url" in block.code, "say where the URL comes from"
    assert "access_key" in block.code, "say where the key comes from"
    script = tmp_path / "pasted.py"
    script.write_text(block.code)  # verbatim: no placeholder filled, no variable set
    code, out, err = await run([sys.executable, str(script)], cwd=tmp_path, env=clean_env())
    assert code == 0, f"README.md:{block.line}\n{out}\n{err}"


def test_the_retries_and_timeouts_snippet_is_one_of_them() -> None:
    assert "retries-and-timeouts" in " ".join(b.id for b in STANDALONE)


def _pytest_config() -> str:
    (toml,) = blocks("toml")
    return toml.code


@pytest.mark.parametrize("block", TESTS, ids=[b.id for b in TESTS])
async def test_python_test_block_passes_under_pytest(block: Block, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_pytest_config())
    (tmp_path / "test_readme_block.py").write_text(block.code)
    modes = ["strict", "auto"] if "@pytest.mark.asyncio" in block.code else ["auto"]
    for mode in modes:
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        if mode == "auto":
            argv += ["-o", "asyncio_mode=auto"]
        code, out, err = await run(argv, cwd=tmp_path, env=clean_env())
        assert code == 0, f"README.md:{block.line} in {mode} mode\n{out}\n{err}"
        assert re.search(r"\b[1-9]\d* passed\b", out), out


def test_the_pytest_configuration_is_strict_as_written() -> None:
    assert 'asyncio_mode = "strict"' in _pytest_config()


# ------------------------------------------------------------------ json blocks

JSON_BLOCKS = blocks("json")


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=[b.id for b in JSON_BLOCKS])
def test_json_block_is_a_seed_file(block: Block) -> None:
    import json

    fake = FakeEdgeDelivery(KEY)
    apply_seed(fake, json.loads(block.code))
    assert fake.state.pull_zones or fake.state.apps or fake.state.registries


# ------------------------------------------------------------------ shell blocks


@dataclass(frozen=True)
class Rule:
    pattern: str
    why: str

    def matches(self, command: str) -> bool:
        return re.search(self.pattern, command) is not None


#: Commands the test does not run, and why. Each is checked to still match something.
SKIP_RULES = [
    Rule(r"\bpip install\b|-m venv\b", "installs packages; the test runs in the installed venv"),
    Rule(r"\bscripts/test\.sh\b", "the whole suite, which runs this test"),
    Rule(r"\bscripts/(regenerate|docs)\.sh\b", "maintainer scripts the suite runs itself"),
    Rule(r"\bbenchmarks/", "benchmarks: nginx from Debian (needs the network), minutes of load"),
]
#: Commands the test stands in for.
REPLACED = [
    Rule(r"^export EDGEDELIVERY_", "settings: the test points EDGEDELIVERY_* at its fake"),
]
#: A line that starts the shell fake: the test starts it (on a free port, `--port 0`),
#: reads what it prints, and points the block's later lines at it.
SERVE = re.compile(r"^(\.venv/bin/)?python3? -m edgedelivery_async\.testing serve\b")
#: Lines that run examples/ get no EDGEDELIVERY_* (so they start fakes of their own).
EXAMPLES = re.compile(r"\bexamples/")
#: Inputs the README's commands read, as the test provides them (file name -> content);
#: `some-query` stands for any command that prints ids.
INPUTS = {"ids.txt": "# pull zones\n1-100\n7001\n"}
SOME_QUERY = "#!/bin/sh\nprintf '1-50\\n7001\\n'\n"

SH = blocks("sh")


def commands(block: Block) -> list[str]:
    """The block's commands: its lines, `&&` chains split, comments and blanks left out."""
    found = []
    for line in block.code.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            found += [part.strip() for part in stripped.split(" && ")]
    return found


def disposition(command: str) -> tuple[str, str | None]:
    for rule in SKIP_RULES:
        if rule.matches(command):
            return "skip", rule.why
    for rule in REPLACED:
        if rule.matches(command):
            return "replaced", rule.why
    return ("serve", None) if SERVE.search(command) else ("run", None)


def test_the_skipped_shell_commands_are_few_and_every_rule_is_used() -> None:
    every = [c for b in SH if not b.skip for c in commands(b)]
    skipped = [
        (c, why) for c in every if (why := disposition(c)[1]) and disposition(c)[0] == "skip"
    ]
    run_ = [c for c in every if disposition(c)[0] in ("run", "serve")]
    assert len(skipped) <= 13, "\n".join(f"{c}  <- {why}" for c, why in skipped)
    assert len(run_) >= 12, run_
    for rule in SKIP_RULES + REPLACED:
        assert any(rule.matches(c) for c in every), f"unused rule: {rule.pattern}"
    assert len([b for b in SH if b.skip]) <= 1, [b.id for b in SH if b.skip]


def test_the_fake_the_shell_blocks_use_is_the_one_the_readme_starts() -> None:
    lines = [c for b in SH for c in commands(b) if disposition(c)[0] == "serve"]
    assert lines, "the README no longer starts the shell fake"
    for line in lines:
        assert f"--pull-zones {SHELL_PULL_ZONES}" in line, line
        assert "--seed-file" not in line, line
        assert "--empty" not in line, line


def scratch(tmp_path: Path) -> Path:
    """A directory like a clone's root for the README's commands."""
    (tmp_path / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    for name, content in INPUTS.items():
        (tmp_path / name).write_text(content)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "some-query").write_text(SOME_QUERY)
    (tools / "some-query").chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("block", SH, ids=[b.id for b in SH])
async def test_shell_block_runs_against_the_fake(block: Block, tmp_path: Path) -> None:
    if block.skip:
        pytest.skip(block.skip)
    cwd = scratch(tmp_path)
    path = f"{cwd / 'bin'}:{cwd / '.venv' / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    started: list[asyncio.subprocess.Process] = []
    ran = []
    async with served_fake(SHELL_PULL_ZONES) as (_, url):
        target = {"EDGEDELIVERY_BASE_URL": url, "EDGEDELIVERY_ACCESS_KEY": KEY}
        try:
            for command in commands(block):
                what, _ = disposition(command)
                if what == "serve":
                    process, target = await start_shell_fake(command, cwd, clean_env(PATH=path))
                    started.append(process)
                elif what == "run":
                    settings = {} if EXAMPLES.search(command) else target
                    env = clean_env(PATH=path, **settings)
                    code, out, err = await run(
                        ["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env
                    )
                    assert code == 0, f"README.md:{block.line}: {command}\n{out[-3000:]}\n{err}"
                    ran.append(command)
        finally:
            for process in started:
                await stop(process)
    if all(disposition(c)[0] == "skip" for c in commands(block)):
        pytest.skip("every command of this block is skipped by a rule")
    assert ran or started


async def start_shell_fake(
    command: str, cwd: Path, env: dict[str, str]
) -> tuple[asyncio.subprocess.Process, dict[str, str]]:
    """Start the README's serve line on a free port; its URL and key, from what it prints."""
    line = re.sub(r"--port \d+", "--port 0", command)
    process = await asyncio.create_subprocess_exec(
        "bash", "-c", f"exec {line}", cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    printed = []
    while not printed or printed[-1] != "stop with Ctrl-C":
        raw = await asyncio.wait_for(process.stdout.readline(), 60)
        assert raw, f"the shell fake ended early: {printed}"
        printed.append(raw.decode().rstrip("\n"))
    url = printed[0].removeprefix("serving ")
    key = next(p.removeprefix("access key: ") for p in printed if p.startswith("access key: "))
    assert any(p.startswith("pull zones (") and "42 cdn.example.com" in p for p in printed)
    return process, {"EDGEDELIVERY_BASE_URL": url, "EDGEDELIVERY_ACCESS_KEY": key}


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(process.wait(), 30)
    assert code == 0, f"the shell fake exited {code}"


def test_the_example_seed_holds_every_id_the_readme_uses() -> None:
    fake = seed_fake(FakeEdgeDelivery(KEY))
    assert fake.hostnames(42) == {"cdn.example.com": False}
    assert fake.shield_zone_id_for(42) == 9001
    assert {5, 7} <= set(fake.state.scripts)
    assert fake.template("app-1", "tpl-6c1")["name"] == "api"
    assert fake.registry(31)["displayName"] == "main"
    assert EXAMPLE_SEED["registries"][0]["id"] == 31
