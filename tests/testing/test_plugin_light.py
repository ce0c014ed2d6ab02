"""The pytest plugin as a user's project meets it: pytest runs in a subprocess in a tmp project.

- The fixtures work in pytest-asyncio's strict mode (tests marked `@pytest.mark.asyncio`)
  and in auto mode.
- Loading the plugin imports nothing of the SDK nor its heavy dependencies; a test that
  requests a fixture imports them then.
- Without pytest-asyncio, `edgedelivery_client` fails with the line to install.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = """
import pytest

def test_fake_fixture(edgedelivery_fake):
    assert edgedelivery_fake.access_key
    assert edgedelivery_fake.requests == []

{mark}
async def test_client_fixture(edgedelivery_fake, edgedelivery_client):
    edgedelivery_fake.seed_pull_zones(2)
    config = await edgedelivery_client.shield.get_zone_by_pull_zone(2)
    assert config.shield_zone_id == 100_002
    [recorded] = edgedelivery_fake.requests
    assert recorded.operation_id == "ShieldZone_GetByPullZone"
"""

HEAVY = ["edgedelivery_async", "edgedelivery_async._client", "aiohttp", "httpx", "jsonschema"]

# Runs before any test and after every plugin is loaded (conftest files come after them).
LIGHT_CONFTEST = f"""
import sys

HEAVY = {HEAVY!r}
LOADED_BY_PLUGINS = [name for name in HEAVY if name in sys.modules]


def pytest_configure(config):
    assert config.pluginmanager.has_plugin("edgedelivery")
"""

LIGHT_TESTS = """
import sys

from conftest import HEAVY, LOADED_BY_PLUGINS


def test_loading_the_plugin_imported_nothing_heavy():
    assert LOADED_BY_PLUGINS == []
    assert [name for name in HEAVY if name in sys.modules] == []


def test_requesting_a_fixture_imports_the_sdk(edgedelivery_fake):
    assert "edgedelivery_async._client" in sys.modules
"""


def run_pytest(
    project: Path,
    *args: str,
    autoload: bool = True,
    pythonpath: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m pytest` in `project`, isolated from this run's options and cache."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
        and not k.startswith("EDGEDELIVERY_")
    }
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def project(tmp_path: Path, ini: str, **files: str) -> Path:
    """An unrelated project: its own pytest.ini (so it is the rootdir) and test files."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pytest.ini").write_text(textwrap.dedent(ini))
    for name, text in files.items():
        (root / f"{name}.py").write_text(textwrap.dedent(text))
    return root


def asyncio_ini(mode: str) -> str:
    """The configuration the README shows (the loop scope keeps pytest-asyncio quiet)."""
    return f"[pytest]\nasyncio_mode = {mode}\nasyncio_default_fixture_loop_scope = function\n"


def test_strict_mode_with_marked_tests(tmp_path: Path) -> None:
    root = project(
        tmp_path, asyncio_ini("strict"), test_user=TESTS.format(mark="@pytest.mark.asyncio")
    )
    result = run_pytest(root, "-W", "error")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("2 passed in ")  # and no warnings


def test_auto_mode(tmp_path: Path) -> None:
    root = project(tmp_path, asyncio_ini("auto"), test_user=TESTS.format(mark=""))
    result = run_pytest(root, "-W", "error")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("2 passed in ")


def test_loading_the_plugin_imports_nothing_heavy(tmp_path: Path) -> None:
    # Only our plugin (other installed plugins, such as pytest-httpx, import httpx).
    root = project(tmp_path, "[pytest]\n", conftest=LIGHT_CONFTEST, test_light=LIGHT_TESTS)
    result = run_pytest(root, "-p", "edgedelivery", autoload=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_without_pytest_asyncio_the_client_fixture_says_what_to_install(tmp_path: Path) -> None:
    # A `pytest_asyncio` that cannot be imported stands for a project without the extra.
    shadow = tmp_path / "shadow"
    (shadow / "pytest_asyncio").mkdir(parents=True)
    (shadow / "pytest_asyncio" / "__init__.py").write_text("raise ImportError('not installed')\n")
    root = project(
        tmp_path,
        "[pytest]\n",
        test_user="""
        def test_client(edgedelivery_client):
            pass
        """,
    )
    result = run_pytest(root, "-p", "edgedelivery", autoload=False, pythonpath=shadow)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "the edgedelivery_client fixture needs pytest-asyncio" in result.stdout
    assert "pip install 'edgedelivery-async[testing]'" in result.stdout
