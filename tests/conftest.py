"""What every folder of the suite shares: the one helper that copies the project."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def project_copy() -> ModuleType:
    """scripts/project_copy.py as a module: `copy_project(dest, extra)` copies what
    scripts/regenerate.sh needs (plus `extra` folders), `merge_corpus(dest, corpus)` merges
    the published documents into a copy and regenerates (as scripts/corpus-suite.sh does)."""
    spec = importlib.util.spec_from_file_location("project_copy", ROOT / "scripts/project_copy.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
