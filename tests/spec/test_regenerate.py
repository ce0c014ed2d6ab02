"""`scripts/regenerate.sh --check`: passes on the tree, fails when the document changes alone.

The script runs with PYTHON set to the interpreter running the tests, so the pinned generator
and ruff beside it are used wherever the virtual environment lives (here or in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ._document import ROOT

COPIED = ("openapi", "codegen", "scripts", "generated")
FIELD = "        firstPasswordSymbols:\n          type: string\n"


def run_check(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(
        ["bash", str(root / "scripts" / "regenerate.sh"), "--check"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name in COPIED:
        shutil.copytree(
            ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    return root


def test_check_passes_on_the_tree() -> None:
    result = run_check(ROOT)
    assert result.returncode == 0, result.stderr
    assert "matches" in result.stdout


def test_check_passes_on_an_unchanged_copy(tree_copy: Path) -> None:
    result = run_check(tree_copy)
    assert result.returncode == 0, result.stderr


def test_check_fails_when_a_field_is_deleted_without_regenerating(tree_copy: Path) -> None:
    spec = tree_copy / "openapi" / "edge-delivery-1.0.0.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count(FIELD) == 1
    spec.write_text(text.replace(FIELD, ""), encoding="utf-8")

    result = run_check(tree_copy)
    assert result.returncode != 0
    assert "stale" in result.stderr
    assert "models/container_registry.py" in result.stderr
    assert "openapi.json" in result.stderr
    # Nothing was written: --check leaves generated/ alone.
    original = ROOT / "generated" / "edgedelivery_openapi" / "models" / "container_registry.py"
    copied = tree_copy / "generated" / "edgedelivery_openapi" / "models" / "container_registry.py"
    assert copied.read_bytes() == original.read_bytes()
