"""scripts/merge-corpus.py merges the published documents and touches nothing else."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from ._corpus import ROOT, merge_script, operations, published
from .conftest import PAGINATION

DOCUMENT = ROOT / "openapi" / "edge-delivery-1.0.0.yaml"


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def test_the_merge_keeps_ours_adds_theirs_and_tells_ids_apart(tmp_path: Path) -> None:
    output = tmp_path / "merged.yaml"
    assert merge_script().main(["--document", str(DOCUMENT), "--output", str(output)]) == 0
    ours = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    merged = yaml.safe_load(output.read_text(encoding="utf-8"))

    # Our operations are unchanged and where they were.
    for method, path, op in operations(ours):
        assert merged["paths"][path][method] == op
    # Every published operation is there once: ours where the wire path is ours.
    ours_shapes = {(m, _shape(p)) for m, p, _ in operations(ours)}
    expected = len(operations(ours))
    for document in published().values():
        base = re.sub(r"^https?://[^/]+", "", document["servers"][0]["url"]).rstrip("/")
        for method, path, _ in operations(document):
            expected += (method, _shape(base + path)) not in ours_shapes
    assert len(operations(merged)) == expected
    # operationIds are unique; every $ref resolves.
    ids = [op["operationId"] for _, _, op in operations(merged) if "operationId" in op]
    assert len(ids) == len(set(ids))
    for ref in _refs(merged):
        target: Any = merged
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
    # Our components are ours, unchanged.
    for name, schema in ours["components"]["schemas"].items():
        assert merged["components"]["schemas"][name] == schema


def test_a_repeated_operation_id_is_told_apart_by_its_method() -> None:
    document: dict[str, Any] = {"paths": {}, "components": {"schemas": {}}}
    op = {"operationId": "Update Rule", "responses": {"204": {"description": "ok"}}}
    source = {
        "servers": [{"url": "https://api.example.invalid/mc"}],
        "security": [{"AccessKey": []}],
        "paths": {"/rules/{id}": {"put": copy.deepcopy(op), "patch": copy.deepcopy(op)}},
        "components": {"schemas": {"Rule": {"type": "object"}}},
    }
    notes = merge_script().merge(document, source, "Shield")
    item = document["paths"]["/mc/rules/{id}"]
    assert item["put"]["operationId"] == "Update Rule"
    assert item["patch"]["operationId"] == "Update Rule (PATCH)"
    assert item["patch"]["security"] == [{"AccessKey": []}]
    assert any("told apart" in note for note in notes)


def test_a_taken_component_name_is_renamed_and_its_refs_follow() -> None:
    document: dict[str, Any] = {
        "paths": {},
        "components": {"schemas": {"Problem": {"type": "object", "properties": {"a": {}}}}},
    }
    source = {
        "paths": {
            "/x": {
                "get": {
                    "operationId": "X_Get",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Problem"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {"schemas": {"Problem": {"type": "object", "properties": {"b": {}}}}},
    }
    merge_script().merge(document, source, "Core")
    assert document["components"]["schemas"]["CoreProblem"]["properties"] == {"b": {}}
    media = document["paths"]["/x"]["get"]["responses"]["200"]["content"]["application/json"]
    assert media["schema"] == {"$ref": "#/components/schemas/CoreProblem"}


YAML_1_1_TRAPS = (
    "openapi: 3.0.3\n"
    "info: {title: t, version: '1', released: 2024-01-31}\n"
    "paths: {}\n"
    "components:\n"
    "  schemas:\n"
    "    Switch:\n"
    "      type: object\n"
    "      properties:\n"
    "        On: {type: string, enum: [on, off, yes, no], example: 12:30}\n"
)


def test_the_merge_and_the_project_copy_read_the_document_as_prepare_spec_does(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    """Both read the document as YAML 1.1 (`yaml.CSafeLoader`) and wrote it back: a key
    `On:` came back as `true:`, `enum: [on, off]` as booleans, `12:30` as 750, while
    codegen/prepare_spec.py reads YAML 1.2. Now both read it with `prepare_spec.load`."""
    from maintainer.test_repairs import prepare_spec

    document = tmp_path / "document.yaml"
    document.write_text(YAML_1_1_TRAPS, encoding="utf-8")
    before = prepare_spec.load(str(document))
    assert before["components"]["schemas"]["Switch"]["properties"]["On"]["example"] == "12:30"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    published = {"openapi": "3.0.0", "servers": [{"url": "https://x.test"}], "paths": {}}
    (corpus / "x-api.json").write_text(json.dumps(published), encoding="utf-8")
    merged = tmp_path / "merged.yaml"
    argv = ["--corpus", str(corpus), "--document", str(document), "--output", str(merged)]
    assert merge_script().main(argv) == 0
    assert prepare_spec.load(str(merged)) == before

    project_copy.declare_pagination(merged)
    assert prepare_spec.load(str(merged)) == {**before, "x-sdk-pagination": PAGINATION}
    assert project_copy.read_document(merged)["x-sdk-pagination"] == PAGINATION


def test_a_path_items_parameters_reach_its_operations_less_those_they_redeclare() -> None:
    """OpenAPI's rule, the one the client and the fake read (`operation_parameters`):
    the path item's parameters apply to each operation under it, and an operation's own
    parameter of the same name and place (here, through a `$ref`) overrides it."""
    document: dict[str, Any] = {"paths": {}, "components": {"schemas": {}}}
    shared_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    own_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    verbose = {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}
    ok = {"200": {"description": "ok"}}
    source = {
        "servers": [{"url": "https://api.example.invalid"}],
        "paths": {
            "/rules/{id}": {
                "parameters": [shared_id, verbose],
                "get": {"operationId": "Rule_Get", "responses": ok},
                "delete": {
                    "operationId": "Rule_Delete",
                    "parameters": [{"$ref": "#/components/parameters/Id"}],
                    "responses": ok,
                },
            }
        },
        "components": {"schemas": {}, "parameters": {"Id": own_id}},
    }
    merge_script().merge(document, source, "Shield")
    item = document["paths"]["/rules/{id}"]
    assert item["get"]["parameters"] == [shared_id, verbose]
    assert item["delete"]["parameters"] == [verbose, {"$ref": "#/components/parameters/Id"}]
