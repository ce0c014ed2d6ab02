"""Documents taken as published: codegen/prepare_spec.py repairs what a rule can mend and
names the operation; what it cannot mend fails with the operation, the reason and the fix.
scripts/regenerate.sh prints one line per repair."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _prepare_spec() -> ModuleType:
    spec = importlib.util.spec_from_file_location("prepare_spec", ROOT / "codegen/prepare_spec.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


prepare_spec = _prepare_spec()
OK = {"204": {"description": "done"}}


def _document(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.0.3", "paths": paths, "components": {"schemas": {}}}


def test_a_nullable_path_parameter_becomes_a_required_string() -> None:
    parameter = {"name": "ruleId", "in": "path", "schema": {"type": "string", "nullable": True}}
    document = _document(
        {
            "/rules/{ruleId}": {
                "delete": {"operationId": "Rule_Delete", "parameters": [parameter], "responses": OK}
            }
        }
    )
    repaired, done = prepare_spec.repair(document)
    (fixed,) = repaired["paths"]["/rules/{ruleId}"]["delete"]["parameters"]
    assert fixed == {"name": "ruleId", "in": "path", "required": True, "schema": {"type": "string"}}
    assert done == [
        "DELETE /rules/{ruleId} (Rule_Delete): path parameter 'ruleId' was nullable;"
        " it is a required string"
    ]
    assert document["paths"]["/rules/{ruleId}"]["delete"]["parameters"] == [parameter]


def test_a_parameter_default_that_breaks_its_own_schema_is_dropped() -> None:
    """`page` default 0 with `minimum: 1` (as published): refused by openapi-spec-validator,
    and a method that sent it could not be called without arguments. Valid defaults stay."""
    page = {
        "name": "page",
        "in": "query",
        "schema": {"type": "integer", "format": "int32", "default": 0, "minimum": 1},
    }
    size = {"name": "perPage", "in": "query", "schema": {"$ref": "#/components/schemas/Size"}}
    valid = {"name": "search", "in": "query", "schema": {"type": "string", "default": "a"}}
    document = _document(
        {
            "/zones": {
                "get": {
                    "operationId": "Zone_List",
                    "parameters": [page, size, valid],
                    "responses": OK,
                }
            }
        }
    )
    document["components"]["schemas"]["Size"] = {"type": "integer", "default": 5, "maximum": 3}
    repaired, done = prepare_spec.repair(document)
    fixed = repaired["paths"]["/zones"]["get"]["parameters"]
    assert fixed[0]["schema"] == {"type": "integer", "format": "int32", "minimum": 1}
    assert fixed[1]["schema"] == {"type": "integer", "maximum": 3}
    assert fixed[2] == valid
    assert done == [
        "GET /zones (Zone_List): parameter 'page' default 0 breaks its schema (0 is out of"
        " range); dropped (not sent, the server applies its own)",
        "GET /zones (Zone_List): parameter 'perPage' default 5 breaks its schema (5 is out of"
        " range); dropped (not sent, the server applies its own)",
    ]
    # The component a parameter refers to stays as published; the input is not changed.
    assert repaired["components"]["schemas"]["Size"]["default"] == 5
    assert document["paths"]["/zones"]["get"]["parameters"] == [page, size, valid]


@pytest.mark.parametrize(
    ("schema", "bad", "why", "good"),
    [
        ({"type": "integer", "minimum": 0, "exclusiveMinimum": True}, 0,
         "0 is less than or equal to the minimum of 0", 1),
        ({"type": "string", "pattern": "^[a-z]+$"}, "A1", "'A1' does not match '^[a-z]+$'", "a"),
        ({"type": "integer", "multipleOf": 10}, 5, "5 is not a multiple of 10", 20),
        ({"type": "integer"}, 1.0, "1.0 is not of type 'integer'", 1),  # 1.0 would be sent
        ({"allOf": [{"$ref": "#/components/schemas/Small"}]}, 9, "9 is out of range", 2),
    ],
)  # fmt: skip
def test_a_default_is_judged_by_the_runtimes_own_validator(
    schema: dict[str, Any], bad: Any, why: str, good: Any
) -> None:
    """The hand-written check knew type, enum, bounds and lengths only: a default 0 with
    `exclusiveMinimum`, one that missed its `pattern` or `multipleOf` stayed, and `list()`
    with no arguments raised InvalidRequestError for the SDK's own default."""
    parameter = {"name": "size", "in": "query", "schema": {**schema, "default": bad}}
    operation = {"operationId": "Z_List", "parameters": [parameter], "responses": OK}
    document = _document({"/z": {"get": operation}})
    document["components"]["schemas"]["Small"] = {"type": "integer", "maximum": 3}
    repaired, done = prepare_spec.repair(document)
    assert repaired["paths"]["/z"]["get"]["parameters"][0]["schema"] == schema
    assert done == [
        f"GET /z (Z_List): parameter 'size' default {json.dumps(bad)} breaks its"
        f" schema ({why}); dropped (not sent, the server applies its own)"
    ]
    parameter["schema"] = {**schema, "default": good}
    assert prepare_spec.repair(document)[1] == []


def test_a_path_parameter_the_path_lacks_is_dropped_and_an_undeclared_one_added() -> None:
    operation = {
        "operationId": "Script_Publish",
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "uuid", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "q", "in": "query", "schema": {"type": "string"}},
        ],
        "responses": OK,
    }
    other = {"operationId": "Script_Undeclared", "responses": OK}
    repaired, done = prepare_spec.repair(
        _document({"/script/{id}/publish": {"post": operation}, "/x/{name}": {"get": other}})
    )
    names = [p["name"] for p in repaired["paths"]["/script/{id}/publish"]["post"]["parameters"]]
    assert names == ["id", "q"]
    (added,) = repaired["paths"]["/x/{name}"]["get"]["parameters"]
    assert added == {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
    assert done == [
        "POST /script/{id}/publish (Script_Publish): path parameter 'uuid' is not in the path;"
        " dropped",
        "GET /x/{name} (Script_Undeclared): path parameter 'name' was not declared;"
        " it is a required string",
    ]


def test_an_operation_without_an_id_gets_its_method_and_path() -> None:
    repaired, done = prepare_spec.repair(_document({"/log/forwarding": {"get": {"responses": OK}}}))
    assert repaired["paths"]["/log/forwarding"]["get"]["operationId"] == "GET /log/forwarding"
    assert done == ["GET /log/forwarding: no operationId; it is 'GET /log/forwarding'"]


def test_accept_content_type_and_authorization_header_parameters_are_dropped() -> None:
    """OpenAPI: such a header parameter's definition SHALL be ignored. They were method
    arguments (`upload(..., content_type="image/png")`) whose values the SDK's own headers
    replaced on the wire. Names compare case-insensitively; a `$ref`'d one counts too."""
    header = {"name": "X-Tags", "in": "header", "schema": {"type": "string"}}
    text = {"type": "string"}
    operation = {
        "operationId": "Audit_Upload",
        "parameters": [
            {"name": "Content-Type", "in": "header", "required": True, "schema": text},
            {"name": "accept", "in": "header", "schema": {"type": "string"}},
            {"$ref": "#/components/parameters/Auth"},
            {"name": "Accept", "in": "query", "schema": {"type": "string"}},  # not a header
            header,
        ],
        "responses": OK,
    }
    document = _document({"/up": {"put": operation}})
    document["components"]["parameters"] = {
        "Auth": {"name": "AUTHORIZATION", "in": "header", "schema": {"type": "string"}}
    }
    repaired, done = prepare_spec.repair(document)
    kept = repaired["paths"]["/up"]["put"]["parameters"]
    assert kept == [{"name": "Accept", "in": "query", "schema": {"type": "string"}}, header]
    assert done == [
        f"PUT /up (Audit_Upload): header parameter {name!r} is ignored, as OpenAPI says (the"
        " SDK sends that header itself); dropped"
        for name in ("Content-Type", "accept", "AUTHORIZATION")
    ]
    assert len(operation["parameters"]) == 5  # the input is not changed
    from .test_naming import emit_sdk

    methods = emit_sdk.Emitter(repaired, set()).resources()[0].methods
    assert methods[0].signature == [
        "*",
        "accept: str | None | Unset = UNSET",
        "x_tags: str | None | Unset = UNSET",
    ]


def test_the_api_key_header_parameter_is_dropped() -> None:
    """A header parameter named as an apiKey security scheme's header (read from the
    document: here `X-Api-Key`, in any case, `$ref`'d too) was a method argument whose value
    the runtime's own key header (`_http.headers_with_key`) silently replaced. It is dropped
    with a repair line naming the scheme; other headers, and a query parameter of that name,
    are kept."""
    text = {"type": "string"}
    other = {"name": "X-Tags", "in": "header", "schema": text}
    query = {"name": "X-Api-Key", "in": "query", "schema": text}
    operation = {
        "operationId": "Audit_Get",
        "parameters": [
            {"name": "x-api-key", "in": "header", "required": True, "schema": text},
            other,
            query,
        ],
        "responses": OK,
    }
    document = _document(
        {"/audit": {"get": operation, "put": {"operationId": "Audit_Put", "responses": OK}}}
    )
    document["paths"]["/audit"]["put"]["parameters"] = [{"$ref": "#/components/parameters/Key"}]
    document["components"]["parameters"] = {
        "Key": {"name": "X-API-KEY", "in": "header", "schema": text}
    }
    document["components"]["securitySchemes"] = {
        "Key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        "Bearer": {"type": "http", "scheme": "bearer"},
        "Cookie": {"type": "apiKey", "in": "cookie", "name": "X-Tags"},
    }
    repaired, done = prepare_spec.repair(document)
    assert repaired["paths"]["/audit"]["get"]["parameters"] == [other, query]
    assert repaired["paths"]["/audit"]["put"]["parameters"] == []
    assert done == [
        f"{where}: header parameter {name!r} is the API key of security scheme 'Key' (the SDK"
        " sends it from the client's access key); dropped"
        for where, name in (
            ("GET /audit (Audit_Get)", "x-api-key"),
            ("PUT /audit (Audit_Put)", "X-API-KEY"),
        )
    ]
    assert len(operation["parameters"]) == 3  # the input is not changed
    from .test_naming import emit_sdk

    methods = emit_sdk.Emitter(repaired, set()).resources()[0].methods
    assert [method.signature for method in methods] == [
        ["*", "x_api_key: str | None | Unset = UNSET", "x_tags: str | None | Unset = UNSET"],
        [],
    ]


def test_the_shipped_documents_key_header_is_its_security_schemes() -> None:
    """The rule reads the header's name from the document: the shipped one's is the header
    the runtime sends the key in."""
    from edgedelivery_async._http import ACCESS_KEY_HEADER

    text = (ROOT / "openapi/edge-delivery-1.0.0.yaml").read_text("utf-8")
    document = yaml.load(text, Loader=yaml.CSafeLoader)
    assert ACCESS_KEY_HEADER.lower() in prepare_spec._api_key_headers(document)


def test_path_level_parameters_move_onto_each_operation() -> None:
    shared = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    query = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    own = {"name": "q", "in": "query", "schema": {"type": "integer"}}
    item = {
        "parameters": [shared, query],
        "get": {"operationId": "A_Get", "responses": OK},
        "put": {"operationId": "A_Put", "parameters": [own], "responses": OK},
    }
    repaired, _ = prepare_spec.repair(_document({"/a/{id}": item}))
    assert "parameters" not in repaired["paths"]["/a/{id}"]
    assert repaired["paths"]["/a/{id}"]["get"]["parameters"] == [shared, query]
    assert repaired["paths"]["/a/{id}"]["put"]["parameters"] == [shared, own]  # its own wins


def test_the_shipped_document_needs_no_repair() -> None:
    """The hand-written operations (the API reference's) need no repair, and a repaired
    document needs none again. Held for the reference's operations: a document taken as
    published (scripts/corpus-suite.sh merges the corpus in) needs repairs by design."""
    from spec.test_document import REFERENCE_OPERATIONS  # tests/spec/test_document.py

    text = (ROOT / "openapi/edge-delivery-1.0.0.yaml").read_text("utf-8")
    document = yaml.load(text, Loader=yaml.CSafeLoader)
    repaired, done = prepare_spec.repair(document)
    ours = [(method.upper(), path) for method, path, _, _ in REFERENCE_OPERATIONS]
    assert ours
    for method, path in ours:
        assert not [line for line in done if line.startswith(f"{method} {path} ")], path
        assert repaired["paths"][path] == document["paths"][path], path
    assert prepare_spec.repair(repaired) == (repaired, [])


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (
            {
                "/a": {"put": {"operationId": "Same", "responses": OK}},
                "/b": {"patch": {"operationId": "Same", "responses": OK}},
            },
            "PATCH /b: operationId 'Same' is also the id of PUT /a. Fix: give one of them",
        ),
        (
            {
                "/a": {
                    "get": {
                        "operationId": "A_Get",
                        "responses": {
                            "200": {
                                "description": "ok",
                                "content": {
                                    "application/json": {
                                        "schema": {"$ref": "#/components/schemas/Gone"}
                                    }
                                },
                            }
                        },
                    }
                }
            },
            "GET /a (A_Get): $ref '#/components/schemas/Gone' points at nothing. Fix: add the",
        ),
    ],
)
def test_what_cannot_be_repaired_names_the_operation_reason_and_fix(
    paths: dict[str, Any], expected: str
) -> None:
    with pytest.raises(prepare_spec.Unrepairable, match="Fix") as raised:
        prepare_spec.repair(_document(paths))
    assert expected in str(raised.value)


def test_regenerate_prints_each_repair_and_names_a_fault_it_cannot_mend(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    root: Path = project_copy.copy_project(tmp_path / "repo")
    document = root / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.safe_load(document.read_text(encoding="utf-8"))
    spec["paths"]["/pullzone/{pullZoneId}/edgerules/{edgeRuleId}"] = {
        "delete": {
            "operationId": "PullZonePublic_DeleteEdgeRule",
            "tags": ["Pull Zone"],
            "parameters": [
                {
                    "name": "pullZoneId",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "integer"},
                },
                {
                    "name": "edgeRuleId",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "nullable": True},
                },
            ],
            "responses": OK,
        }
    }
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    env = {**os.environ, "PYTHON": sys.executable}
    command = ["bash", "scripts/regenerate.sh"]
    ran = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert (
        "repaired DELETE /pullzone/{pullZoneId}/edgerules/{edgeRuleId}"
        " (PullZonePublic_DeleteEdgeRule): path parameter 'edgeRuleId' was nullable" in ran.stdout
    )
    surface = (root / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    assert "method pull_zones.delete_edge_rule(pull_zone_id: int, edge_rule_id: str" in surface

    spec["paths"]["/again"] = {
        "get": {"operationId": "PullZonePublic_DeleteEdgeRule", "responses": OK}
    }
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    failed = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert "GET /again: operationId 'PullZonePublic_DeleteEdgeRule' is also the id of" in (
        failed.stderr
    )
    assert "nothing was written" in failed.stderr


JSON = "application/json"


def test_a_union_of_inline_variants_is_left_to_the_generator() -> None:
    """An `anyOf` of scalars under a 200 made the error-union merge raise KeyError."""
    media = {"schema": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}
    document = _document(
        {"/count": {"get": {"responses": {"200": {"description": "n", "content": {JSON: media}}}}}}
    )
    prepare_spec.merge_error_body_unions(document)
    assert media["schema"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}


def test_error_shapes_by_reference_are_merged() -> None:
    media = {
        "schema": {
            "anyOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]
        }
    }
    document = _document(
        {"/x": {"get": {"responses": {"400": {"description": "e", "content": {JSON: media}}}}}}
    )
    document["components"]["schemas"] = {
        "A": {"type": "object", "properties": {"a": {"type": "string"}}},
        "B": {"type": "object", "properties": {"b": {"type": "integer"}}},
    }
    prepare_spec.merge_error_body_unions(document)
    assert media["schema"]["properties"] == {"a": {"type": "string"}, "b": {"type": "integer"}}


def test_enum_values_the_generator_would_name_alike_get_names_of_their_own() -> None:
    """`Low` and `low` are both LOW to the generator: it stopped with a traceback."""
    level = {"type": "string", "enum": ["", "1", "a-b", "None", "Low", "low", None]}
    plain = {"type": "string", "enum": ["small", "large"]}
    document = _document({})
    document["components"]["schemas"] = {"Level": level, "Size": plain}
    prepare_spec.distinct_enum_names(document)
    names = level["x-enum-varnames"]
    assert len(names) == 6
    assert len(set(names)) == 6
    assert "x-enum-varnames" not in plain  # no clash: the generator's own names


def test_a_path_parameter_name_the_generator_refuses_is_spelled_plain_for_it() -> None:
    parameter = {"name": "v.major", "in": "path", "required": True, "schema": {"type": "string"}}
    document = _document({"/w/{v.major}": {"get": {"parameters": [parameter], "responses": OK}}})
    prepare_spec.generator_path_names(document)
    assert list(document["paths"]) == ["/w/{_v_major}"]
    assert document["paths"]["/w/{_v_major}"]["get"]["parameters"][0]["name"] == "_v_major"
    assert parameter["name"] == "v.major"  # a copy: the document's own stays as it is


def test_a_long_operation_id_is_cut_for_the_generator_and_stays_unique() -> None:
    """A 250-character operationId stopped the generator ("File name too long")."""
    long_a, long_b = "A" * 120 + "_one", "A" * 120 + "_two"
    document = _document(
        {
            "/a": {"get": {"operationId": long_a, "responses": OK}},
            "/b": {"get": {"operationId": long_b, "responses": OK}},
            "/c": {"get": {"operationId": "Short_Get", "responses": OK}},
        }
    )
    prepared = prepare_spec.prepare(document)
    ids = [item["get"]["operationId"] for item in prepared["paths"].values()]
    assert all(len(i) <= 80 for i in ids)
    assert len(set(ids)) == 3
    assert ids[2] == "Short_Get"
    assert document["paths"]["/a"]["get"]["operationId"] == long_a  # the document's own


@pytest.mark.parametrize(
    "components",
    [None, {}, {"parameters": {}}],
    ids=["no components", "empty components", "no schemas"],
)
def test_a_document_without_component_schemas_is_prepared(components: Any) -> None:
    """`components` and `components.schemas` are optional: drop_property_combinators and
    merge_error_body_unions raised KeyError ('components', 'schemas') without them. A
    document without `paths` (optional in OpenAPI 3.1) is read as having no operations."""
    from .test_naming import emit_sdk

    reply = {"schema": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}
    responses = {"400": {"description": "e", "content": {JSON: reply}}, **OK}
    operation = {"operationId": "A_Get", "tags": ["A"], "responses": responses}
    document: dict[str, Any] = {"openapi": "3.0.3", "paths": {"/a": {"get": operation}}}
    if components is not None:
        document["components"] = components
    repaired, done = prepare_spec.repair(document)
    assert done == []
    prepared = prepare_spec.prepare(repaired)
    assert prepared["paths"]["/a"]["get"]["responses"]["400"]["content"][JSON] == reply
    emitter = emit_sdk.Emitter(repaired, set())
    (resource,) = emitter.resources()
    assert [m.name for m in resource.methods] == ["get"]
    assert emitter.problems == []
    assert emit_sdk.with_hints(repaired, [resource]) == repaired

    bare = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}
    assert prepare_spec.prepare(prepare_spec.repair(bare)[0]) == bare
    assert emit_sdk.Emitter(bare, set()).resources() == []


def test_a_cycle_of_refs_is_refused_as_one() -> None:
    """`A: {$ref: B}, B: {$ref: A}` is no schema: regeneration refused it as a `$ref` that
    "cannot be followed"; it now says it is a cycle."""
    document = _document(
        {"/a": {"get": {"operationId": "A_Get", "responses": OK}}},
    )
    document["components"]["schemas"] = {
        "A": {"$ref": "#/components/schemas/B"},
        "B": {"type": "object", "properties": {"C": {"$ref": "#/components/schemas/C"}}},
        "C": {"$ref": "#/components/schemas/D"},
        "D": {"$ref": "#/components/schemas/C"},
    }
    with pytest.raises(prepare_spec.Unrepairable, match="Fix") as raised:
        prepare_spec.repair(document)
    assert "components/schemas/B: $ref '#/components/schemas/C' is a cycle of $refs" in str(
        raised.value
    )
