"""The project copy with the service's published documents merged in and regenerated,
shared by the corpus tests (test_corpus.py, test_prism.py): made once per test run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ._corpus import CORPUS, ROOT, published

COPIED = ("openapi", "codegen", "scripts", "generated", "src", "tests/cli")
PAGINATION = {"page": "page", "items": "Items", "has-more": "HasMoreItems"}


@pytest.fixture(scope="package")
def merged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project with the corpus merged in and regenerated."""
    published()  # the corpus must be there
    copy = tmp_path_factory.mktemp("corpus") / "project"
    for name in COPIED:
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")  # pytest's settings
    shutil.copy2(ROOT / "generator-config.yaml", copy / "generator-config.yaml")
    env = {**os.environ, "PYTHON": sys.executable}
    merge = [sys.executable, "scripts/merge-corpus.py", "--corpus", str(CORPUS)]
    merged = subprocess.run(merge, cwd=copy, env=env, capture_output=True, text=True, check=False)
    assert merged.returncode == 0, merged.stderr
    # The one line a maintainer adds: pagination, declared once for the whole document.
    document = copy / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.load(document.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    spec["x-sdk-pagination"] = PAGINATION
    document.write_text(yaml.dump(spec, Dumper=yaml.CSafeDumper, sort_keys=False), "utf-8")
    regenerate = subprocess.run(
        ["bash", "scripts/regenerate.sh"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert regenerate.returncode == 0, regenerate.stdout + regenerate.stderr
    (copy / "regenerate.log").write_text(regenerate.stdout, encoding="utf-8")
    return copy
