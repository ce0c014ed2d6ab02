"""EDGEDELIVERY_LOG, as a user sets it: read once when the SDK is imported (subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Imports the SDK, calls the setup a second time, and reports the logger's state.
PROGRAM = """
import logging
import edgedelivery_async
from edgedelivery_async._logging import setup_from_environment
setup_from_environment()
logger = logging.getLogger("edgedelivery_async")
ours = [h for h in logger.handlers if getattr(h, "_edgedelivery", False)]
print(logging.getLevelName(logger.level), len(ours))
"""


def run(value: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "EDGEDELIVERY_LOG"}
    if value is not None:
        env["EDGEDELIVERY_LOG"] = value
    return subprocess.run(
        [sys.executable, "-c", PROGRAM],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


@pytest.mark.parametrize(
    ("value", "level"),
    [("debug", "DEBUG"), ("INFO", "INFO"), (" Warning ", "WARNING"), ("error", "ERROR")],
)
def test_known_levels_in_any_case_set_the_level_silently(value: str, level: str) -> None:
    result = run(value)
    assert result.stdout.split() == [level, "1"]
    assert result.stderr == ""


@pytest.mark.parametrize("value", [None, "", "  "])
def test_unset_or_empty_is_silent_and_off(value: str | None) -> None:
    result = run(value)
    assert result.stdout.split() == ["NOTSET", "0"]
    assert result.stderr == ""


@pytest.mark.parametrize("value", ["yes", "1", "verbose", "trace"])
def test_unknown_value_warns_once_naming_the_accepted_values(value: str) -> None:
    result = run(value)
    assert result.stdout.split() == ["NOTSET", "0"]  # logging stays off
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # once, though the setup ran twice
    [line] = lines
    assert f"EDGEDELIVERY_LOG={value!r}" in line
    assert "debug, info, warning, error" in line
