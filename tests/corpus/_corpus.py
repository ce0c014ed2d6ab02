"""The published documents (../shared/corpus relative to the repository) and their merge."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def merge_script() -> ModuleType:
    """scripts/merge-corpus.py as a module (its file name has a dash)."""
    spec = importlib.util.spec_from_file_location("merge_corpus", ROOT / "scripts/merge-corpus.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def published() -> dict[str, dict[str, Any]]:
    """Every published document, by file name; the corpus must be there."""
    paths = sorted(CORPUS.glob("*.json"))
    found = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in paths}
    assert found, f"no published documents in {CORPUS} (the corpus test needs ../shared/corpus)"
    return found


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) of every operation of a document."""
    return [
        (method, path, op)
        for path, item in document.get("paths", {}).items()
        for method, op in item.items()
        if method in METHODS and isinstance(op, dict)
    ]
