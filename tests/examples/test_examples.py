"""Every script in examples/ runs against the fake (no credentials) and exits 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

EXPECTED = {
    "force_ssl.py": [
        "pull zone 42: HTTPS forced for cdn.example.com",
        "pull zone 42: HTTPS no longer forced for cdn.example.com",
        "refused, nothing sent: Hostname",
        "an unknown pull zone: 404 NotFoundError",
    ],
    "container_template.py": [
        "template tpl-1 created in app-demo",
        "environment: {'LOG_LEVEL': 'info', 'REGION': 'eu'}",
        "environment now: {'LOG_LEVEL': 'debug', 'FEATURE_X': 'on'}",
    ],
    "registry.py": [
        "registry 1 added",
        "example-registry: host",
    ],
    "bulk_shield_read.py": [
        "using a fake API on http://127.0.0.1:",
        "read 1000 pull zones in ",
        "succeeded: 990, failed: 10 {'NotFoundError': 10}",
        "retried: ",  # the fake answers 2% of requests 503; the SDK retries them
        "WAF off in ",
    ],
}


def test_every_example_is_covered() -> None:
    scripts = {p.name for p in EXAMPLES.glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(EXPECTED)


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_example_runs_against_the_fake(script: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    for expected in EXPECTED[script]:
        assert expected in done.stdout, done.stdout


def test_the_bulk_read_shows_the_retries_the_readme_promises() -> None:
    """The README describes it "with retried 503s": its output counts them."""
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    (described,) = [line for line in readme.splitlines() if "examples/bulk_shield_read.py " in line]
    assert "retried 503s" in described
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "bulk_shield_read.py")],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    found = re.search(r"^retried: (\d+) requests \{'503': (\d+)\}$", done.stdout, re.M)
    assert found is not None, done.stdout
    assert int(found[1]) == int(found[2]) > 0


def test_an_error_of_the_sdk_ends_an_example_with_one_line() -> None:
    """An app the fake does not hold ended in a traceback of NotFoundError."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "container_template.py"), "nope-app"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr == (
        "error: POST /mc/apps/nope-app/containers -> 404 Not Found: no app 'nope-app'\n"
    )
