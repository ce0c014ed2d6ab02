"""`edgedelivery --help` starts without the SDK: only the document is read (issue 12).

The installed console script runs in a fresh interpreter, and the modules it loaded
are listed after it exits: the help of the top level, of a generated command and of
`shield dump` must load none of the SDK's runtime, HTTP stacks, validation or
generated code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from ._support import subprocess_env
from .test_cli_subprocess import console_script

FORBIDDEN = re.compile(
    r"(edgedelivery_async\._client|edgedelivery_async\._call|edgedelivery_async\._schema"
    r"|aiohttp|httpx|jsonschema|edgedelivery_openapi\.models|edgedelivery_openapi\.resources)"
    r"(\..*)?"
)

RUN_SCRIPT = """
import json, runpy, sys
script, *args = sys.argv[1:]
sys.argv = [script, *args]
try:
    runpy.run_path(script, run_name="__main__")
    code = 0
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def run_console_script(*args: str, **env: str) -> tuple[int, list[str]]:
    """Run the installed `edgedelivery` with `args`; its exit status and loaded modules."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_SCRIPT, console_script(), *args],
        env=subprocess_env(**env), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], report["modules"]


@pytest.mark.parametrize(
    "args",
    [["--help"], ["containers", "add-template", "--help"], ["shield", "dump", "--help"]],
    ids=["top", "generated-command", "dump"],
)
def test_help_imports_no_sdk_module(args: list[str]) -> None:
    code, modules = run_console_script(*args)
    assert code == 0
    assert "edgedelivery_async.cli._app" in modules
    loaded = [name for name in modules if FORBIDDEN.fullmatch(name)]
    assert loaded == [], f"edgedelivery {' '.join(args)} imported {loaded}"


def test_a_command_that_runs_imports_the_sdk() -> None:
    """The check above can fail: a command that runs loads the client."""
    code, modules = run_console_script("registries", "get", "1", EDGEDELIVERY_BASE_URL="ftp://x")
    assert code == 2  # the base URL is refused, after the client module was loaded
    assert "edgedelivery_async._client" in modules
    assert "aiohttp" in modules


# Runs the installed script with Ctrl-C (KeyboardInterrupt) raised where `argv[2]` loads.
INTERRUPT_SCRIPT = """
import runpy, sys
script, where = sys.argv[1:3]
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == where:
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
sys.argv = [script, "--help"]
runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize(
    "where",
    ["edgedelivery_async", "edgedelivery_async._logging", "edgedelivery_async.cli._app"],
)
def test_ctrl_c_while_the_console_script_loads_says_interrupted(where: str) -> None:
    """The script for `edgedelivery_async.cli:main` imported the SDK package before any
    of the CLI's code ran: Ctrl-C then printed a traceback. The entry point is now the
    top-level `edgedelivery_async_cli`, which imports the package inside its handling."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_SCRIPT, console_script(), where],
        env=subprocess_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr, done.stdout) == (130, "interrupted\n", "")
