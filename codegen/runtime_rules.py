"""The runtime's own rules, read by the generator's customizations: one rule, never a copy.

Modules of `src/edgedelivery_async` (of the tree being regenerated) are loaded without
running the package's `__init__`, which would import the generated package that is being
rewritten: `_media` (which media types are JSON) and `_notes` (the document's text
without its notes for maintainers) import nothing, `_schema` (the OpenAPI to JSON Schema
translation and validation) only `_media`, and `jsonschema` when it first validates.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "edgedelivery_async"
_PACKAGE = "_edgedelivery_runtime_rules"


def load(name: str) -> types.ModuleType:
    """`src/edgedelivery_async/<name>.py` as a module, its package's `__init__` not run."""
    if _PACKAGE not in sys.modules:
        package = types.ModuleType(_PACKAGE)
        package.__path__ = [str(SRC)]
        sys.modules[_PACKAGE] = package
    return importlib.import_module(f"{_PACKAGE}.{name}")


media = load("_media")
schema = load("_schema")
