"""Valid documents whose schemas stopped code generation (or made code that does not type
check): recursive schemas, names that meet the generator's or the runtime's own, YAML
dates, type lists, enums of other than strings and integers, array header parameters,
cookie parameters, bodies that are not JSON (the command line's --body FILE). Unit tests
call codegen/prepare_spec.py and codegen/emit_sdk.py on small documents."""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from ._copies import run_in_copy
from .test_naming import emit_sdk
from .test_repairs import prepare_spec

OK = {"204": {"description": "done"}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _document(paths: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.0.3", "paths": paths, "components": {"schemas": schemas}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _methods(spec: dict[str, Any], models: set[str]) -> dict[str, Any]:
    emitter = emit_sdk.Emitter(spec, models)
    resources = emitter.resources()
    assert emitter.problems == []
    return {m.operation_id: m for r in resources for m in r.methods}


RECURSIVE = {
    "ConfigNode": {  # a map of itself
        "type": "object",
        "properties": {"Value": {"type": "string"}},
        "additionalProperties": _ref("ConfigNode"),
    },
    "Nested": {"type": "array", "items": _ref("Nested")},  # an array of itself
    "Ring": {"type": "array", "items": {"type": "array", "items": _ref("Ring")}},
    "Request": {
        "type": "object",
        "properties": {"Root": _ref("ConfigNode"), "Children": _ref("Nested")},
    },
}


def test_recursive_schemas_are_typed_loosely_where_they_recur() -> None:
    """A map of itself as a body field recursed without end in the emitter."""
    spec = _document(
        {"/c": {"put": {"operationId": "C_Put", "requestBody": _body(_ref("Request"))}}},
        RECURSIVE,
    )
    spec["paths"]["/c"]["put"]["responses"] = OK
    (method,) = _methods(spec, {"ConfigNode", "Request"}).values()
    types = {p.wire_name: emit_sdk.plain_type(p.type) for p in method.body_fields}
    assert types == {
        "Root": "ConfigNode | Mapping[str, Any] | None | Unset",
        "Children": "Sequence[Any] | None | Unset",
    }


def test_recursive_array_items_are_any_value_for_the_generator_only() -> None:
    """The generator refused an array whose items refer back to it ("Recursive and
    circular references are not supported directly in an array schema's 'items'")."""
    spec = _document({}, RECURSIVE)
    notes: list[str] = []
    prepared = prepare_spec.prepare(spec, notes)
    schemas = prepared["components"]["schemas"]
    assert schemas["Nested"]["items"] == {}
    assert schemas["Ring"]["items"]["items"] == {}
    assert "additionalProperties" in schemas["ConfigNode"]  # the generator reads it
    assert spec["components"]["schemas"]["Nested"]["items"] == _ref("Nested")  # a copy
    assert notes == [
        f"components/schemas/{name}: array items refer back to {name}; the generator reads"
        " them as any value (it refuses recursive array items)"
        for name in ("Nested", "Ring")
    ]


def _inline_reply(name: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {name: {"type": "integer"}}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_ids_the_generator_would_name_alike_are_told_apart_for_it_only() -> None:
    """`listItems` and `ListItems` (and `GET /a-b`, `GET /a_b`: operations without an id)
    each with an inline reply: "Attempted to generate duplicate models with name
    ListItemsResponse200" stopped the generator."""
    spec = _document(
        {
            "/a": {"get": {"operationId": "listItems", "responses": _inline_reply("Count")}},
            "/b": {"get": {"operationId": "ListItems", "responses": _inline_reply("Total")}},
            "/a-b": {"get": {"responses": _inline_reply("Count")}},
            "/a_b": {"get": {"responses": _inline_reply("Total")}},
        },
        {},
    )
    repaired, _ = prepare_spec.repair(spec)
    prepared = prepare_spec.prepare(repaired)
    ids = [item["get"]["operationId"] for item in prepared["paths"].values()]
    assert ids[0] == "listItems"  # the first keeps its id
    assert ids[2] == "GET /a-b"
    generated = [prepare_spec.snake_case(i) for i in ids]
    assert len(set(generated)) == 4, ids
    assert repaired["paths"]["/b"]["get"]["operationId"] == "ListItems"  # the document's own
    names = {m.operation_id: m.name for m in _methods(repaired, set()).values()}
    assert names == {
        "listItems": "list_items",
        "ListItems": "list_items_2",
        "GET /a-b": "get_a_b",
        "GET /a_b": "get_a_b_2",
    }


def _get(operation_id: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    content = {"application/json": {"schema": schema}}
    reply = {"200": {"description": "ok", "content": content}}
    return {"get": {"operationId": operation_id, "tags": ["Audit"], "responses": reply, **extra}}


NOTES = {"type": "array", "items": _ref("AuditNote")}
TEXT_QUERY = [{"name": "q", "in": "query", "schema": {"type": "string"}}]
SHADOWING = {  # `Foo_List` is a common operationId; its method `list` shadows the builtin
    "/notes": _get("Audit_List", NOTES),
    "/notes/raw": _get("Audit_Str", {"type": "string"}),
    "/notes/other": _get("Audit_Other", {"type": "string"}, parameters=TEXT_QUERY),
    "/notes/recent": _get("Audit_Recent", NOTES),
}


def test_builtins_a_method_shadows_are_written_through_builtins() -> None:
    """mypy: 'Function "Audit.list" is not valid as a type' for a later `list[AuditNote]`."""
    spec = _document(SHADOWING, {"AuditNote": {"type": "object", "properties": {}}})
    emitter = emit_sdk.Emitter(spec, {"AuditNote"})
    (resource,) = emitter.resources()
    other = resource.methods[2]
    assert resource.annotation(resource.methods[0].result_type) == "_b.list[AuditNote]"
    assert other.signature_as(resource.annotation) == ["*", "q: _b.str | None | Unset = UNSET"]
    assert other.signature == ["*", "q: str | None | Unset = UNSET"]  # the surface's
    del resource.methods[:2]  # no method shadows a builtin: the types as they are
    assert resource.annotation("list[AuditNote] | str") == "list[AuditNote] | str"


WIDGET = {"type": "object", "properties": {"Name": {"type": "string"}}}
INTEGER = {"type": "integer"}


def test_models_named_like_the_modules_own_names_are_written_through_models() -> None:
    """A schema `Resource` ('Incompatible import of "Resource"'), a tag `Resource` (`class
    Resource(Resource)`), a class `Widget` kept from the surface beside a new schema
    `Widget` (mypy no-redef): the runtime's names are private aliases, and a model the
    module has another use for is `_models.X` there."""
    paths = {
        "/w": _get("Widget_Get", _ref("Widget"), tags=["Widget"]),
        "/r": _get("Thing_Get", _ref("Resource")),
        "/n": _get("Audit_Endpoint", INTEGER),  # a method `endpoint`
    }
    spec = _document(paths, {"Widget": WIDGET, "Resource": WIDGET})
    spec["paths"]["/w"]["get"]["tags"] = ["Widget"]
    spec["paths"]["/c"] = {"get": {**_get("Resource_Count", INTEGER)["get"], "tags": ["Resource"]}}
    previous = emit_sdk.Surface.read("resource widget: Widget\n")
    emitter = emit_sdk.Emitter(spec, {"Widget", "Resource"}, previous)
    found = {r.attribute: r for r in emitter.resources()}
    assert emitter.problems == []
    widget, audit = found["widget"], found["audit"]
    assert widget.class_name == "Widget"  # kept: never renamed
    assert widget.imported_models == []
    assert widget.annotation(widget.methods[0].result_type) == "_models.Widget"
    assert audit.imported_models == ["Resource"]  # the runtime's Resource is `_Resource`
    assert audit.annotation(audit.methods[0].result_type) == "Resource"
    assert found["resource"].class_name == "ResourceResource"  # a model has the name
    surface = emit_sdk.surface(list(found.values()), emitter)
    assert "method widget.get() -> Widget  # Widget_Get" in surface


TWO_FACTOR = {"type": "object", "properties": {"Enabled": {"type": "boolean"}}}


def test_a_schema_name_starting_with_a_digit_is_the_generators_class() -> None:
    """The generator names `2FAStatus` `Field2FAStatus` (its field_prefix); the emitter
    stopped: "no generated model 2FAStatus"."""
    spec = _document({"/t": _get("Audit_TwoFactor", _ref("2FAStatus"))}, {"2FAStatus": TWO_FACTOR})
    emitter = emit_sdk.Emitter(spec, {"Field2FAStatus"})
    resources = emitter.resources()
    assert emitter.problems == []
    assert resources[0].methods[0].result_type == "_models.Field2FAStatus"
    assert "field Field2FAStatus.Enabled\n" in emit_sdk.surface(resources, emitter)


def test_an_unquoted_yaml_date_is_read_as_the_string_json_has(tmp_path: Path) -> None:
    """`example: 2024-01-31` was a datetime.date: "Object of type date is not JSON
    serializable" stopped prepare_spec."""
    source = tmp_path / "document.yaml"
    source.write_text(
        "openapi: 3.0.3\npaths: {}\ncomponents: {schemas: {}}\n"
        "info: {released: 2024-01-31, at: 2024-01-31T10:00:00Z}\n",
        encoding="utf-8",
    )
    assert prepare_spec.load(str(source))["info"] == {
        "released": "2024-01-31",
        "at": "2024-01-31T10:00:00Z",
    }
    assert (
        prepare_spec.main(str(source), str(tmp_path / "in.json"), str(tmp_path / "out.json")) == 0
    )
    shipped = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert shipped["info"]["released"] == "2024-01-31"
    assert isinstance(yaml.safe_load("a: 2024-01-31")["a"], datetime.date)  # no global change


def test_plain_yaml_scalars_are_read_as_yaml_1_2_and_json_read_them(tmp_path: Path) -> None:
    """YAML 1.1 read a property `On` as the key True, `enum: [on, off]` as booleans and
    `12:30` as 750; YAML 1.2 (which OpenAPI recommends) and JSON have strings there."""
    source = tmp_path / "document.yaml"
    source.write_text(
        "values: [on, Off, yes, no, 12:30, '1_000', 1_000, 017, true, False, null, ~]\n"
        "numbers: [0, -3, +4, 0x1F, 0o17, 1.5, -.5, 2., 1e3, 1.0e-05, .inf, -.Inf]\n"
        "On: {type: string, enum: [on, off]}\n",
        encoding="utf-8",
    )
    loaded = prepare_spec.load(str(source))
    assert loaded["values"] == [
        *("on", "Off", "yes", "no", "12:30", "1_000", "1_000", "017"),
        *(True, False, None, None),
    ]
    assert loaded["numbers"] == [
        0,
        -3,
        4,
        31,
        15,
        1.5,
        -0.5,
        2.0,
        1000.0,
        1e-05,
        math.inf,
        -math.inf,
    ]
    assert loaded["On"] == {"type": "string", "enum": ["on", "off"]}


LIMIT = {"name": "limit", "in": "query", "schema": {"type": ["integer", "null"]}}
EITHER = {"name": "key", "in": "query", "schema": {"type": ["integer", "string"]}}


def test_openapi_3_1_type_lists_are_typed() -> None:
    """`type: [integer, 'null']` on a query parameter: "unhashable type: 'list'"."""
    paths = {
        "/l": {"get": {"operationId": "A_List", "parameters": [LIMIT, EITHER], "responses": OK}}
    }
    (method,) = _methods(_document(paths, {}), set()).values()
    assert method.signature == [
        "*",
        "limit: int | None | Unset = UNSET",
        "key: int | str | None | Unset = UNSET",
    ]


ENUMS = {
    "Flagged": {"type": "object", "properties": {"Enabled": {"type": "boolean", "enum": [True]}}},
    "Rated": {"type": "object", "properties": {"Ratio": {"type": "number", "enum": [0.5, 1.5]}}},
    "Level": {"type": "string", "enum": ["Low", "High"]},
    "Code": {"type": "integer", "enum": [1, 2]},
    "Switch": {"type": "boolean", "enum": [False]},
}


def test_enums_of_other_than_strings_and_integers_are_plain_values_for_the_generator() -> None:
    """`{type: boolean, enum: [true]}` and `{type: number, enum: [0.5, 1.5]}` stopped the
    generator ("Unable to process schema"); it makes enum classes of strings and integers."""
    prepared = prepare_spec.prepare(_document({}, ENUMS))["components"]["schemas"]
    assert "enum" not in prepared["Flagged"]["properties"]["Enabled"]
    assert "enum" not in prepared["Rated"]["properties"]["Ratio"]
    assert "enum" not in prepared["Switch"]
    assert prepared["Level"]["enum"] == ["Low", "High"]
    assert prepared["Code"]["enum"] == [1, 2]
    paths = {"/s": {"post": {"operationId": "A_Set", "requestBody": _body(_ref("Switch"))}}}
    paths["/s"]["post"]["responses"] = OK
    (method,) = _methods(_document(paths, ENUMS), set()).values()  # no model `Switch`
    assert method.signature == ["body: bool | None = None"]


META = {
    "type": "object",
    "properties": {
        "additional_properties": {"type": "string"},
        "to_dict": {"type": "string"},
        "d": {"type": "string"},
        "Self": {"type": "string"},
        "cls": {"type": "integer", "x-sdk-name": "kind"},  # the document's own name: kept
        "Name": {"type": "string"},
    },
}


def test_properties_named_like_the_models_own_names_get_attributes_of_their_own() -> None:
    """A property `additional_properties` or `to_dict` broke the generated model (15 mypy
    errors); `d` or `cls` its from_dict."""
    spec = _document({}, {"Meta": META})
    prepared = prepare_spec.prepare(spec)["components"]["schemas"]["Meta"]["properties"]
    names = {wire: prop.get("x-sdk-name") for wire, prop in prepared.items()}
    assert names == {
        "additional_properties": "additional_properties_",
        "to_dict": "to_dict_",
        "d": "d_",
        "Self": "self_",
        "cls": "kind",
        "Name": None,
    }
    assert "x-sdk-name" not in META["properties"]["to_dict"]  # the document's own: as it is
    surface = emit_sdk.surface([], emit_sdk.Emitter(spec, set()))
    assert "field Meta.to_dict as to_dict_\n" in surface
    assert "field Meta.Name\n" in surface


STRINGS = {"type": "array", "items": {"type": "string"}}
TAGS_HEADER = {"name": "X-Tags", "in": "header", "schema": STRINGS}
SESSION = {"name": "session", "in": "cookie", "required": True, "schema": {"type": "string"}}
COUNT_COOKIE = {"name": "n", "in": "cookie", "schema": {"type": "integer", "minimum": 1}}


def test_header_and_cookie_parameters_are_strings_for_the_generator_only() -> None:
    """An array header parameter stopped the generator ("list[str] | Unset is not allowed in
    header"); the runtime sends it (simple style: `X-Tags: a,b`). A cookie parameter stopped
    the emitter ("cookie parameters are not supported"); it is an argument now, sent in the
    `Cookie` header, with a `cookie_` name where another argument has its name."""
    shared = {"name": "X-Ids", "in": "header", "schema": {"type": "array", "items": INTEGER}}
    q_cookie = {"name": "q", "in": "cookie", "schema": INTEGER}
    parameters = [TAGS_HEADER, *TEXT_QUERY, SESSION, q_cookie]
    paths = {"/h": _get("Audit_HeaderTags", INTEGER, parameters=parameters)}
    paths["/h"]["get"]["parameters"].append({"$ref": "#/components/parameters/Ids"})
    spec = _document(paths, {})
    spec["components"]["parameters"] = {"Ids": shared}
    prepared = prepare_spec.prepare(spec)
    tags, query, session, q, ids = prepared["paths"]["/h"]["get"]["parameters"]
    assert tags == {"name": "X-Tags", "in": "header", "schema": {"type": "string"}}
    assert ids == {"name": "X-Ids", "in": "header", "schema": {"type": "string"}}
    assert session == {**SESSION, "schema": {"type": "string"}}
    assert q == {**q_cookie, "schema": {"type": "string"}}
    assert query == TEXT_QUERY[0]
    assert prepared["components"]["parameters"]["Ids"]["schema"] == {"type": "string"}
    assert TAGS_HEADER["schema"]["type"] == "array"  # the document's own: as it is
    assert shared["schema"]["type"] == "array"
    (method,) = _methods(spec, set()).values()
    assert method.signature == [
        "*",
        "q: str | None | Unset = UNSET",
        "x_tags: Sequence[str] | None | Unset = UNSET",
        "x_ids: Sequence[int] | None | Unset = UNSET",
        "session: str",
        "cookie_q: int | None | Unset = UNSET",
    ]
    hinted = emit_sdk.with_hints(spec, emit_sdk.Emitter(spec, set()).resources())
    named = hinted["paths"]["/h"]["get"]["parameters"][3]
    assert (named["in"], named["x-sdk-name"]) == ("cookie", "cookie_q")  # the CLI reads it


# ------------------------------------------------------------------ on a project copy
# Each fault above in one document: regenerated, the resources type check (mypy --strict)
# and the operations answer through the fake.
ODD_PATHS: dict[str, Any] = {
    "/audit/config": {
        "put": {
            "operationId": "Audit_PutConfig",
            "tags": ["Audit"],
            "requestBody": _body(_ref("OddRequest")),
            "responses": OK,
        }
    },
}
for path, operation_id, member in (
    ("/audit/a", "listItems", "Count"),
    ("/audit/b", "ListItems", "Total"),
    ("/audit/a-b", None, "Count"),
    ("/audit/a_b", None, "Total"),
):
    ODD_PATHS[path] = {"get": {"tags": ["Audit"], "responses": _inline_reply(member)}}
    if operation_id:
        ODD_PATHS[path]["get"]["operationId"] = operation_id
ODD_PATHS.update({f"/audit{path}": item for path, item in SHADOWING.items()})
SINCE = {"name": "since", "in": "query", "schema": {"type": "string", "format": "date"}}
SINCE["example"] = datetime.date(2024, 1, 31)  # dumped unquoted, as hand-written YAML has it
ODD_PATHS.update(
    {
        "/audit/endpoint": _get("Audit_Endpoint", INTEGER),
        "/audit/meta": _get("Audit_Meta", _ref("Meta")),
        "/audit/rated": _get("Audit_Rated", _ref("Rated")),
        "/audit/flagged": _get("Audit_Flagged", _ref("Flagged")),
        "/audit/tl": _get("Audit_TypeList", INTEGER, parameters=[LIMIT]),
        "/audit/htags": _get("Audit_HeaderTags", INTEGER, parameters=[TAGS_HEADER]),
        "/audit/session": _get("Audit_GetSession", INTEGER, parameters=[SESSION, COUNT_COOKIE]),
        "/audit/since": _get("Audit_Since", INTEGER, parameters=[SINCE]),
        "/audit/tfa": _get("Audit_TwoFactor", _ref("2FAStatus")),
        "/audit/res/count": _get("Resource_Count", INTEGER, tags=["Resource"]),
        "/audit/widgets/count": _get("Widget_Count", INTEGER, tags=["Widget"]),
    }
)
# Bodies that are not JSON: the command line gives them with --body FILE.
KEY = {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}
BLOB = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
ODD_PATHS["/audit/blobs/{key}"] = {
    "put": {
        "operationId": "Audit_PutBlob",
        "tags": ["Audit"],
        "parameters": [KEY],
        "requestBody": {"required": True, "content": BLOB},
        "responses": OK,
    }
}
ODD_PATHS["/audit/notes/text"] = {
    "post": {
        "operationId": "Audit_PutText",
        "tags": ["Audit"],
        "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
        "responses": OK,
    }
}
ODD_PATHS["/audit/notes/text"]["post"]["requestBody"]["x-sdk-body"] = "note"
# An object query parameter (deepObject): typed Mapping[str, str], sent as filter[k]=v.
FILTER = {
    "name": "filter",
    "in": "query",
    "style": "deepObject",
    "explode": True,
    "schema": {"type": "object", "additionalProperties": {"type": "string"}},
}
ODD_PATHS["/audit/filtered"] = _get("Audit_Filtered", INTEGER, parameters=[FILTER])
ODD_TAGS = [{"name": "Resource"}, {"name": "Widget"}]
# The second regeneration: schemas named like the resource classes the first one made,
# `Resource` also like the runtime's base class.
AFTER_PATHS = {
    "/audit/widgets": _get("Widget_Get", _ref("Widget"), tags=["Widget"]),
    "/audit/resources": _get("Audit_GetResource", _ref("Resource")),
}
ODD_SCHEMAS: dict[str, Any] = {
    "Meta": META,
    "Flagged": ENUMS["Flagged"],
    "Rated": ENUMS["Rated"],
    "2FAStatus": TWO_FACTOR,
    "AuditNote": {"type": "object", "properties": {"Text": {"type": "string"}}},
    "ConfigNode": RECURSIVE["ConfigNode"],
    "Nested": RECURSIVE["Nested"],
    "OddRequest": {
        "type": "object",
        "properties": {"Root": _ref("ConfigNode"), "Children": _ref("Nested")},
    },
}
ODD_SCRIPT = textwrap.dedent(
    """
    import asyncio
    import httpx
    from edgedelivery_async import EdgeDeliveryClient, InvalidRequestError
    from edgedelivery_async.testing import FakeEdgeDelivery

    fake = FakeEdgeDelivery(access_key="k")

    async def main():
        http = httpx.AsyncClient(transport=fake)
        async with EdgeDeliveryClient("k", "https://fake.test", http_client=http) as client:
            root = {"Value": "a", "b": {"Value": "c", "d": {}}}
            assert await client.audit.put_config(root=root, children=[[[]], []]) is None
            assert set(await client.audit.list_items_2()) <= {"Total"}
            assert set(await client.audit.get_audit_a_b_2()) <= {"Total"}
            assert isinstance(await client.audit.str(), str)
            assert all(hasattr(note, "text") for note in await client.audit.list())
            assert (await client.audit.get_resource()).name == "string"
            assert isinstance(await client.audit.endpoint(), int)
            assert isinstance(await client.resource.count(), int)
            meta = await client.audit.meta()
            assert (meta.to_dict_, meta.additional_properties_, meta.d_) == ("string",) * 3
            assert meta.to_dict()["to_dict"] == "string"
            assert (await client.audit.rated()).ratio == 0.5
            assert (await client.audit.flagged()).enabled is True
            assert isinstance(await client.audit.type_list(limit=5), int)
            assert isinstance(await client.audit.header_tags(x_tags=["a", "b"]), int)
            assert isinstance(await client.audit.get_session(session="s.1", n=2), int)
            try:
                await client.audit.get_session(session="a b")
                raise AssertionError("a space was sent in a cookie")
            except InvalidRequestError as refused:
                assert "RFC 6265" in str(refused), refused
            answer = await http.get("https://fake.test/audit/session", headers={"AccessKey": "k"})
            assert answer.status_code == 400, answer  # the required cookie is missing
            assert isinstance(await client.audit.since(since="2024-01-31"), int)
            assert (await client.audit.two_factor()).enabled in (True, False)
            assert (await client.widget.get()).name == "string"
            assert isinstance(await client.audit.filtered(filter={"a b": "c"}), int)
        (sent,) = fake.requests_for("Audit_Filtered")
        assert sent.path.endswith("?filter[a%20b]=c"), sent.path
        (sent,) = fake.requests_for("Audit_PutConfig")
        assert sent.json == {"Root": root, "Children": [[[]], []]}, sent.json
        (sent,) = fake.requests_for("Audit_HeaderTags")
        assert (sent.status, sent.headers["x-tags"]) == (200, "a,b"), sent
        sent, missing = fake.requests_for("Audit_GetSession")
        assert (sent.status, sent.headers["cookie"]) == (200, "session=s.1; n=2"), sent
        assert missing.status == 400, missing

    asyncio.run(main())

    import contextlib, io
    from edgedelivery_async.cli._app import run
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert run(["audit", "type-list", "--help"]) == 0
    assert "--limit" in shown.getvalue() and "INTEGER" in shown.getvalue(), shown.getvalue()
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert run(["audit", "get-session", "--help"]) == 0
    assert "--session" in shown.getvalue() and "--n" in shown.getvalue(), shown.getvalue()

    import pathlib, tempfile, threading
    served, stop = {}, threading.Event()

    async def serve():
        async with fake.serve() as url:
            served["url"] = url
            while not stop.is_set():
                await asyncio.sleep(0.01)

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    while "url" not in served and thread.is_alive():
        stop.wait(0.01)
    given = ["--base-url", served["url"], "--access-key", "k", "audit"]
    blob = pathlib.Path(tempfile.mkdtemp()) / "blob"
    blob.write_bytes(bytes(range(256)) * 3)
    assert run([*given, "put-blob", "k1", "--body", str(blob)]) == 0
    (sent,) = fake.requests_for("Audit_PutBlob")
    assert sent.content == bytes(range(256)) * 3, sent.content
    assert sent.headers["content-type"] == "application/octet-stream", sent.headers
    blob.write_text("café\\n", encoding="utf-8")
    assert run([*given, "put-text", "--body", str(blob)]) == 0
    (sent,) = fake.requests_for("Audit_PutText")
    assert sent.content == "café\\n".encode(), sent.content
    assert sent.headers["content-type"].startswith("text/plain"), sent.headers
    stop.set()
    thread.join(10)
    print("ok")
    """
)


def _regenerate(copy: Path) -> str:
    env = {**os.environ, "PYTHON": sys.executable}
    ran = subprocess.run(
        ["bash", "scripts/regenerate.sh"], cwd=copy, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran.stdout


def test_odd_schemas_regenerate_type_check_and_run(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    copy: Path = project_copy.copy_project(tmp_path / "project", extra=("src",))
    document = copy / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.safe_load(document.read_text(encoding="utf-8"))
    spec["paths"].update(ODD_PATHS)
    spec["components"]["schemas"].update(ODD_SCHEMAS)
    spec["tags"].extend(ODD_TAGS)
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    printed = _regenerate(copy)
    assert "repaired components/schemas/Nested: array items refer back to Nested" in printed
    spec["paths"].update(AFTER_PATHS)
    spec["components"]["schemas"].update({"Widget": WIDGET, "Resource": WIDGET})
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    _regenerate(copy)
    surface = (copy / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    assert "resource widget: Widget\n" in surface
    assert "resource resource: Resource\n" in surface

    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy")]
    checked = subprocess.run(
        [*mypy, "generated/edgedelivery_openapi/resources"],
        cwd=copy,
        env={**os.environ, "MYPYPATH": str(copy / "src")},
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    ran = run_in_copy(copy, ODD_SCRIPT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip().endswith("ok")
