#!/usr/bin/env python3
"""Merge the service's published OpenAPI documents into a copy of our document.

A maintainer's reproduction of "the document grows toward the live service"
(issue 20), and the input of the corpus test. It does what a merge must and nothing
else; every document is otherwise taken as published:

- a document whose server URL has a path (`https://host/mc`) gets that path in front
  of its paths, because our document carries it in the path;
- an operation our document already has (same method, same wire path) stays ours;
- a component whose name is taken by a different schema is renamed
  (`<Document><Name>`, e.g. `MagicContainersContainerRegistry`) and its `$ref`s follow;
- an operationId already used is told apart by its method (`Update Rule (PATCH)`);
- a document-wide `security` is written on its operations that have none (our
  document has no document-wide `security`), and missing security schemes and tags
  are added.

Usage: python scripts/merge-corpus.py [--corpus DIR] [--document PATH] [--output PATH]
  --corpus    the published documents (*.json); default ../shared/corpus of the repository
  --document  the document to merge into; default openapi/edge-delivery-1.0.0.yaml
  --output    where to write; default: the document itself
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

from edgedelivery_async._schema import deref, operation_parameters

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
SCHEMAS = "#/components/schemas/"


def _shape(path: str) -> str:
    """A path with its parameter names erased: `/a/{id}` and `/a/{x}` are one wire path."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _prefix(source: Path) -> str:
    """`magic-containers-api-v1.0.0.json` -> `MagicContainers`."""
    stem = re.sub(r"-api.*$|-v\d.*$", "", source.stem)
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", stem) if part)


def _rewrite_refs(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {key: _rewrite_refs(value, renames) for key, value in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS):
            name = ref[len(SCHEMAS) :]
            out["$ref"] = SCHEMAS + renames.get(name, name)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(item, renames) for item in node]
    return node


def _merge_components(target: dict[str, Any], source: dict[str, Any], prefix: str) -> None:
    """Copy `source`'s components into `target`, renaming the names already taken."""
    schemas: dict[str, Any] = target.setdefault("components", {}).setdefault("schemas", {})
    incoming: dict[str, Any] = source.get("components", {}).get("schemas", {})
    renames: dict[str, str] = {}
    for name in incoming:
        if name in schemas:
            new, n = f"{prefix}{name}", 2
            while new in schemas or new in incoming:
                new, n = f"{prefix}{name}{n}", n + 1
            renames[name] = new
    # Identical schemas (after the renames) are shared rather than copied.
    for name, schema in incoming.items():
        rewritten = _rewrite_refs(schema, renames)
        if name in renames and schemas.get(name) == rewritten:
            renames[name] = name
    for name, schema in incoming.items():
        new = renames.get(name, name)
        if new not in schemas:
            schemas[new] = _rewrite_refs(schema, renames)
    for section, values in source.get("components", {}).items():
        if section == "schemas":
            continue
        bucket = target["components"].setdefault(section, {})
        for name, value in values.items():
            bucket.setdefault(name, _rewrite_refs(value, renames))
    source["paths"] = _rewrite_refs(source.get("paths", {}), renames)


def merge(document: dict[str, Any], source: dict[str, Any], prefix: str) -> list[str]:
    """Merge `source` into `document` in place; returns what was told apart or dropped."""
    notes: list[str] = []
    source = copy.deepcopy(source)
    _merge_components(document, source, prefix)
    base = urlparse((source.get("servers") or [{}])[0].get("url", "")).path.rstrip("/")
    security = source.get("security")
    paths: dict[str, Any] = document.setdefault("paths", {})
    shapes = {_shape(path): path for path in paths}
    used = {
        op["operationId"]
        for item in paths.values()
        for method, op in item.items()
        if method in METHODS and isinstance(op, dict) and "operationId" in op
    }
    known_tags = {tag["name"] for tag in document.get("tags", [])}
    for tag in source.get("tags", []):
        if tag["name"] not in known_tags:
            document.setdefault("tags", []).append(copy.deepcopy(tag))
            known_tags.add(tag["name"])
    for path, item in source.get("paths", {}).items():
        wire = path if not base or path.startswith(base + "/") else base + path
        shared = item.get("parameters", [])
        key = shapes.get(_shape(wire), wire)
        for method, op in item.items():
            if method not in METHODS:
                continue
            existing = paths.get(key, {})
            if method in existing:
                notes.append(f"kept ours: {method.upper()} {key} (not {op.get('operationId')})")
                continue
            op = copy.deepcopy(op)
            if shared:  # the path item's parameters, as the client and the fake read them
                params = operation_parameters(item, op, lambda node: deref(node, source))
                op["parameters"] = copy.deepcopy(params)
            if key != wire:  # the same wire path under other parameter names: take ours
                ours = re.findall(r"\{([^}]*)\}", key)
                theirs = re.findall(r"\{([^}]*)\}", wire)
                renamed = dict(zip(theirs, ours, strict=True))
                for parameter in op.get("parameters", []):
                    if parameter.get("in") == "path":
                        parameter["name"] = renamed.get(parameter["name"], parameter["name"])
            if security is not None and "security" not in op:
                op["security"] = copy.deepcopy(security)
            operation_id = op.get("operationId")
            if operation_id is not None and operation_id in used:
                new = f"{operation_id} ({method.upper()})"
                n = 2
                while new in used:
                    new, n = f"{operation_id} ({method.upper()} {n})", n + 1
                notes.append(f"told apart: {method.upper()} {key} is {new!r}")
                op["operationId"] = operation_id = new
            if operation_id is not None:
                used.add(operation_id)
            paths.setdefault(key, {})[method] = op
            shapes.setdefault(_shape(key), key)
    return notes


def _project_copy() -> Any:
    """scripts/project_copy.py, beside this script: its `read_document` is the one rule of
    reading a document (prepare_spec's YAML 1.2) for both scripts."""
    found = importlib.util.spec_from_file_location("project_copy", ROOT / "scripts/project_copy.py")
    assert found is not None
    assert found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--document", type=Path, default=ROOT / "openapi/edge-delivery-1.0.0.yaml")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    sources = sorted(args.corpus.glob("*.json"))
    if not sources:
        print(f"merge-corpus: no *.json documents in {args.corpus}", file=sys.stderr)
        return 2
    document = _project_copy().read_document(args.document)
    for source in sources:
        published = json.loads(source.read_text(encoding="utf-8"))
        for note in merge(document, published, _prefix(source)):
            print(f"merge-corpus: {source.name}: {note}")
    output = args.output or args.document
    output.write_text(
        yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    count = sum(1 for item in document["paths"].values() for m in item if m in METHODS)
    print(f"merge-corpus: wrote {output} ({count} operations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
