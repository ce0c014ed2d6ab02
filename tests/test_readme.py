"""The README's two commands are exactly what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Two commands", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_has_two_commands_and_ci_runs_them_verbatim() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for command in commands:
        assert command in ci


def test_the_test_command_runs_pytest_and_the_checks() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text()
    for check in ("ruff check", "mypy", "lint-spec.sh", "regenerate.sh --check", "pytest"):
        assert check in script
