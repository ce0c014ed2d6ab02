"""scripts/regenerate.sh proves what it wrote (compiles, imports, one method per operation of
the document) and never fails without saying why; on failure nothing is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path("codegen") / "sdk_templates"


@pytest.fixture
def tree(tmp_path: Path, project_copy: ModuleType) -> Path:
    root: Path = project_copy.copy_project(tmp_path / "repo", extra=("src",))
    return root


def _regenerate(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(
        ["bash", "scripts/regenerate.sh"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _unchanged(root: Path) -> bool:
    shipped = ROOT / "generated" / "edgedelivery_openapi" / "resources" / "registries.py"
    copied = root / "generated" / "edgedelivery_openapi" / "resources" / "registries.py"
    return copied.read_bytes() == shipped.read_bytes()


def test_emitted_code_that_does_not_parse_fails_with_a_message(tree: Path) -> None:
    _edit(tree / TEMPLATES / "resource.py.jinja", "class {{", "def (\nclass {{")
    ran = _regenerate(tree)
    assert ran.returncode == 1, (ran.returncode, ran.stderr)
    assert "ruff could not read the emitted resources" in ran.stderr
    assert "nothing was written" in ran.stderr
    assert _unchanged(tree)


def test_a_package_that_does_not_import_fails_with_the_traceback(tree: Path) -> None:
    _edit(
        tree / TEMPLATES / "resource.py.jinja", "class {{", 'raise RuntimeError("boom")\nclass {{'
    )
    ran = _regenerate(tree)
    assert ran.returncode == 1, ran.stderr
    assert "RuntimeError: boom" in ran.stderr
    assert "does not import" in ran.stderr
    assert _unchanged(tree)


def test_an_operation_without_its_method_fails_naming_it(tree: Path) -> None:
    _edit(
        tree / TEMPLATES / "resources_init.py.jinja",
        "{% for method in resource.methods %}",
        "{% for method in resource.methods[1:] %}",
    )
    ran = _regenerate(tree)
    assert ran.returncode == 1, ran.stderr
    assert "operations without their method" in ran.stderr
    assert "POST /mc/registries (ContainerRegistry_Add)" in ran.stderr
    assert _unchanged(tree)


def test_a_module_that_does_not_compile_fails_naming_the_error(tree: Path) -> None:
    """It parses (ruff reads it) but does not compile: the message said only "a module of
    edgedelivery_openapi does not compile", with the file and the error kept back."""
    _edit(
        tree / TEMPLATES / "resource.py.jinja", "        self,\n", "        self,\n        self,\n"
    )
    ran = _regenerate(tree)
    assert ran.returncode == 1, ran.stderr
    assert "does not compile" in ran.stderr
    assert "duplicate argument 'self'" in ran.stderr
    assert "resources/registries.py" in ran.stderr
    assert _unchanged(tree)
