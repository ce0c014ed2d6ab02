"""`scripts/regenerate.sh --check`: passes on the tree, fails when the document changes alone,
and marks what goes away from the public surface (generated/PUBLIC_API.txt) as BREAKING.

The script runs with PYTHON set to the interpreter running the tests, so the pinned generator
and ruff beside it are used wherever the virtual environment lives (here or in CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from ._document import ROOT

FIELD = "firstPasswordSymbols"  # a field of ContainerRegistry


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
def tree_copy(tmp_path: Path, project_copy: ModuleType) -> Path:
    root: Path = project_copy.copy_project(tmp_path / "repo")
    return root


def test_check_passes_on_the_tree() -> None:
    result = run_check(ROOT)
    assert result.returncode == 0, result.stderr
    assert "match openapi/edge-delivery-1.0.0.yaml" in result.stdout


def test_check_passes_on_an_unchanged_copy(tree_copy: Path) -> None:
    result = run_check(tree_copy)
    assert result.returncode == 0, result.stderr


def test_check_fails_when_a_field_is_deleted_without_regenerating(tree_copy: Path) -> None:
    spec = tree_copy / "openapi" / "edge-delivery-1.0.0.yaml"
    document = yaml.load(spec.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    del document["components"]["schemas"]["ContainerRegistry"]["properties"][FIELD]
    spec.write_text(yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False), "utf-8")

    result = run_check(tree_copy)
    assert result.returncode != 0
    assert "stale" in result.stderr
    assert "models/container_registry.py" in result.stderr
    assert "openapi.json" in result.stderr
    # Nothing was written: --check leaves generated/ alone.
    original = ROOT / "generated" / "edgedelivery_openapi" / "models" / "container_registry.py"
    copied = tree_copy / "generated" / "edgedelivery_openapi" / "models" / "container_registry.py"
    assert copied.read_bytes() == original.read_bytes()
    # The public surface loses the field: a breaking change.
    assert "BREAKING -field ContainerRegistry.firstPasswordSymbols" in result.stderr


def surface(root: Path) -> Path:
    return root / "generated" / "PUBLIC_API.txt"


def test_check_fails_when_a_line_of_the_public_api_is_removed(tree_copy: Path) -> None:
    """A snapshot that lost a method line no longer matches what the document generates."""
    lines = surface(tree_copy).read_text(encoding="utf-8").splitlines(keepends=True)
    removed = next(line for line in lines if line.startswith("method "))
    surface(tree_copy).write_text("".join(x for x in lines if x != removed), encoding="utf-8")

    result = run_check(tree_copy)
    assert result.returncode == 1
    assert "BREAKING" in result.stderr
    assert "PUBLIC_API.txt is stale" in result.stderr
    assert "+" + removed.rstrip("\n") in result.stderr.splitlines()
    # Only the snapshot is stale: the generated package still matches the document.
    assert "generated/edgedelivery_openapi is stale" not in result.stderr
    # --check writes nothing: the snapshot still lacks the line.
    assert removed not in surface(tree_copy).read_text(encoding="utf-8").splitlines(keepends=True)


def test_check_marks_a_removed_operation_as_breaking(tree_copy: Path) -> None:
    """An operation that leaves the document leaves the public API: its method line is
    printed as BREAKING."""
    spec_path = tree_copy / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    path, method = next(
        (p, m)
        for p, item in spec["paths"].items()
        for m, op in item.items()
        if op.get("operationId") == "ComputeScript_AddVariable"
    )
    del spec["paths"][path][method]
    if not spec["paths"][path]:
        del spec["paths"][path]
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    (line,) = [
        x
        for x in surface(tree_copy).read_text(encoding="utf-8").splitlines()
        if x.endswith("# ComputeScript_AddVariable")
    ]

    result = run_check(tree_copy)
    assert result.returncode == 1
    assert f"BREAKING -{line}" in result.stderr.splitlines()


def test_the_generator_settings_are_read_from_the_top_level(tree_copy: Path) -> None:
    """generator-config.yaml sits beside pyproject.toml (the design's layout) and is read there."""
    assert (ROOT / "generator-config.yaml").is_file()
    assert not (ROOT / "codegen" / "generator-config.yaml").exists()
    config = tree_copy / "generator-config.yaml"
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert settings["package_name_override"] == "edgedelivery_openapi"
    settings["docstrings_on_attributes"] = True  # changes the generated models
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    result = run_check(tree_copy)
    assert result.returncode == 1, result.stdout
    assert "generated/edgedelivery_openapi is stale" in result.stderr
