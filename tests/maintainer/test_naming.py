"""One naming rule for resources, methods and arguments (codegen/emit_sdk.py, README Naming):
never a collision, a keyword or an invalid identifier; readable names for operations without
an operationId; no method renamed by an addition; hints win."""

from __future__ import annotations

import ast
import importlib.util
import sys
import unicodedata
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _emit_sdk() -> ModuleType:
    """codegen/emit_sdk.py as a module, its folder first on sys.path as when run as a
    script (it imports codegen/docstrings.py beside it)."""
    if str(ROOT / "codegen") not in sys.path:
        sys.path.insert(0, str(ROOT / "codegen"))
    spec = importlib.util.spec_from_file_location("emit_sdk", ROOT / "codegen/emit_sdk.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["emit_sdk"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


emit_sdk = _emit_sdk()
OK = {"204": {"description": "done"}}


def _op(operation_id: str | None, tag: str = "Video", **extra: Any) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": [tag], "responses": OK, **extra}
    if operation_id is not None:
        op["operationId"] = operation_id
    return op


def _names(paths: dict[str, Any], previous: str = "", tags: list[Any] | None = None) -> Any:
    spec = {"openapi": "3.0.3", "paths": paths, "tags": tags or [], "components": {}}
    emitter = emit_sdk.Emitter(spec, set(), emit_sdk.Surface.read(previous))
    resources = emitter.resources()
    return emitter, {r.attribute: {m.operation_id: m for m in r.methods} for r in resources}


def test_short_names_that_meet_become_qualified_names() -> None:
    emitter, found = _names(
        {
            "/w": {"post": _op("AddWatermarkEndpoint_AddWatermark")},
            "/lw": {"post": _op("AddLiveWatermarkEndpoint_AddWatermark")},
            "/v": {"get": _op("Video_Get")},
        }
    )
    assert emitter.problems == []
    names = {i: m.name for i, m in found["video"].items()}
    assert names == {
        "AddWatermarkEndpoint_AddWatermark": "add_watermark_endpoint_add_watermark",
        "AddLiveWatermarkEndpoint_AddWatermark": "add_live_watermark_endpoint_add_watermark",
        "Video_Get": "get",
    }


def test_a_name_in_the_surface_snapshot_is_kept_when_a_new_operation_meets_it() -> None:
    previous = (
        "resource video: Video\nmethod video.add_watermark(x: int) -> None  # Old_AddWatermark\n"
    )
    emitter, found = _names(
        {"/a": {"post": _op("Old_AddWatermark")}, "/b": {"post": _op("New_AddWatermark")}},
        previous,
    )
    assert emitter.problems == []
    assert found["video"]["Old_AddWatermark"].name == "add_watermark"
    assert found["video"]["New_AddWatermark"].name == "new_add_watermark"


def test_x_sdk_method_wins_and_two_equal_hints_are_the_documents_fault() -> None:
    _, found = _names({"/a": {"get": _op("A_Get", **{"x-sdk-method": "fetch"})}})
    assert found["video"]["A_Get"].name == "fetch"
    emitter, _ = _names(
        {
            "/a": {"get": _op("A_Get", **{"x-sdk-method": "fetch"})},
            "/b": {"get": _op("B_Get", **{"x-sdk-method": "fetch"})},
        }
    )
    assert any("x-sdk-method 'fetch'" in problem for problem in emitter.problems)


def test_an_operation_without_an_id_is_named_from_its_method_and_path() -> None:
    # codegen/prepare_spec.py gives it the id `METHOD /path`.
    _, found = _names(
        {
            "/log/forwarding": {"get": _op("GET /log/forwarding", "Log")},
            "/log/forwarding/{appId}": {"delete": _op("DELETE /log/forwarding/{appId}", "Log")},
        }
    )
    names = {m.name for m in found["log"].values()}
    assert names == {"get_log_forwarding", "delete_log_forwarding_by_app_id"}


def test_keywords_and_invalid_characters_make_valid_identifiers() -> None:
    parameters = [
        {"name": "class", "in": "query", "schema": {"type": "string"}},
        {"name": "2fa", "in": "query", "schema": {"type": "string"}},
        {"name": "X-Request-Tag", "in": "header", "schema": {"type": "string"}},
    ]
    _, found = _names(
        {
            "/i": {"post": _op("Thing_Import", parameters=parameters)},
            "/s": {"get": _op("Get Access Lists")},
        },
        tags=[],
    )
    method = found["video"]["Thing_Import"]
    assert method.name == "import_"
    assert [p.python_name for p in method.arguments] == ["class_", "n_2fa", "x_request_tag"]
    assert found["video"]["Get Access Lists"].name == "get_access_lists"
    for m in found["video"].values():
        assert m.name.isidentifier()


def test_path_query_header_and_body_names_that_meet_are_told_apart_by_place() -> None:
    body = {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "Id": {"type": "integer"},
                        "zoneId": {"type": "integer"},
                        "self": {"type": "string"},
                        "Object": {"type": "string"},
                    },
                }
            }
        }
    }
    parameters = [
        {"name": "zoneId", "in": "path", "required": True, "schema": {"type": "integer"}},
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
        {"name": "Id", "in": "query", "schema": {"type": "integer"}},
        {"name": "id", "in": "header", "schema": {"type": "string"}},
    ]
    emitter, found = _names(
        {
            "/z/{zoneId}/r/{id}": {
                "post": _op("Record_Update", parameters=parameters, requestBody=body)
            }
        }
    )
    assert emitter.problems == []
    method = found["video"]["Record_Update"]
    assert [p.python_name for p in method.arguments] == [
        "zone_id",
        "id",
        "query_id",
        "header_id",
        "body_id",
        "body_zone_id",
        "body_self",
        "body_object",
    ]
    compile("def f(self, " + ", ".join(method.signature) + "): pass", "<signature>", "exec")


def test_a_tag_named_like_a_client_attribute_gets_another_resource_name() -> None:
    _, found = _names({"/c": {"get": _op("Thing_Get", "Call")}})
    assert list(found) == ["call_api"]
    _, found = _names({"/r": {"get": _op("Thing_Get", "Rate Controller")}})
    assert list(found) == ["rate_controller_api"]  # every client failed to set it before


def test_every_public_name_of_the_client_is_reserved() -> None:
    """Read from the client's source, so a property added there needs no list kept."""
    from edgedelivery_async import EdgeDeliveryClient

    public = {name for name in dir(EdgeDeliveryClient) if not name.startswith("_")}
    assert public <= emit_sdk.RESERVED_RESOURCES
    assert {"request", "rate_controller", "with_options"} <= emit_sdk.RESERVED_RESOURCES


@pytest.mark.parametrize(
    "text",
    ['Widgets, also called "gadgets"', "stored under C:\\Users\\name", 'a """ b', "\\", '"'],
)
def test_a_tag_description_becomes_a_docstring_that_parses(text: str) -> None:
    """A quote before the closing one, or a backslash escape, left the module unparseable."""
    made = emit_sdk.docstring_text(text)
    assert eval('"""' + made + '"""') == text.replace('"""', "'''")


def test_a_default_that_breaks_its_own_schema_is_not_the_arguments_default() -> None:
    parameters = [
        {"name": "page", "in": "query", "schema": {"type": "integer", "default": 0, "minimum": 1}},
        {"name": "perPage", "in": "query", "schema": {"type": "integer", "default": 100}},
        {"name": "view", "in": "query", "schema": {"type": "string", "default": 3}},
    ]
    _, found = _names({"/z": {"get": _op("Zone_Index", parameters=parameters)}})
    declared = found["video"]["Zone_Index"].signature
    assert "page: int | None | Unset = UNSET" in declared
    assert "per_page: int = 100" in declared
    assert "view: str | None | Unset = UNSET" in declared


def test_a_body_the_document_does_not_require_is_an_optional_argument() -> None:
    body = {"content": {"application/json": {"schema": {"type": "array", "items": {}}}}}
    _, found = _names({"/p": {"post": _op("Zone_Purge", requestBody=body)}})
    assert found["video"]["Zone_Purge"].signature == ["body: Sequence[Any] | None = None"]


def _listing(operation_id: str, parameters: list[Any], **extra: Any) -> dict[str, Any]:
    body = {
        "type": "object",
        "properties": {
            "Items": {"type": "array", "items": {}},
            "HasMoreItems": {"type": "boolean"},
        },
    }
    content = {"application/json": {"schema": body}}
    return _op(
        operation_id,
        parameters=parameters,
        responses={"200": {"description": "ok", "content": content}},
        **extra,
    )


PAGE = {"name": "page", "in": "query", "schema": {"type": "integer", "default": 0, "minimum": 1}}
HINT = {"page": "page", "items": "Items", "has-more": "HasMoreItems"}


def _resolved(paths: dict[str, Any], hint: Any = HINT) -> dict[str, Any]:
    spec = {"openapi": "3.0.3", "paths": paths, "components": {}, "x-sdk-pagination": hint}
    emitter = emit_sdk.Emitter(spec, set())
    hinted = emit_sdk.with_hints(spec, emitter.resources())
    return {
        op["operationId"]: op.get("x-sdk-pagination")
        for item in hinted["paths"].values()
        for op in item.values()
    }


def test_pagination_declared_once_applies_where_the_page_and_items_are() -> None:
    found = _resolved(
        {
            "/z": {"get": _listing("Zone_Index", [PAGE])},
            "/y": {"get": _listing("Zone_All", [])},
            "/x": {"get": _listing("Zone_Off", [PAGE], **{"x-sdk-pagination": False})},
        }
    )
    assert found == {
        "Zone_Index": {
            "page": "page",
            "page-argument": "page",
            "items": "Items",
            "has-more": "HasMoreItems",
            "first": 1,  # the default 0 breaks the minimum 1
        },
        "Zone_All": None,  # no page parameter
        "Zone_Off": None,  # opted out
    }


def test_a_boolean_path_parameter_is_typed_bool() -> None:
    parameter = {"name": "flag", "in": "path", "required": True, "schema": {"type": "boolean"}}
    _, found = _names({"/w/{flag}": {"get": _op("Widget_Search", parameters=[parameter])}})
    method = found["video"]["Widget_Search"]
    assert any(declaration.startswith("flag: bool") for declaration in method.signature)


def _rendered(paths: dict[str, Any]) -> tuple[str, str]:
    """The resource module and resources/__init__.py the emitter writes for `paths`."""
    emitter = emit_sdk.Emitter({"openapi": "3.0.3", "paths": paths, "components": {}}, set())
    resources = emitter.resources()
    env = emit_sdk.template_environment(ROOT / "codegen" / "sdk_templates")
    (resource,) = resources
    module = env.get_template("resource.py.jinja").render(resource=resource)
    init = env.get_template("resources_init.py.jinja").render(resources=resources)
    return module, init


def _strings(source: str) -> set[str]:
    """The strings a module holds; it compiles first (a duplicate argument fails there)."""
    compile(source, "<emitted>", "exec")
    nodes = ast.walk(ast.parse(source))
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_ids_and_wire_names_with_quotes_or_backslashes_are_sent_as_written() -> None:
    """They were written between double quotes: a `"` left the module unparseable, and a
    backslash escape (`\\n`, `\\x41`) changed the name the request carried."""
    odd = ['q"uote', "back\\nslash", "hex\\x41", "tab\\t"]
    parameters = [
        {"name": odd[0], "in": "query", "schema": {"type": "string"}},
        {"name": odd[1], "in": "header", "schema": {"type": "string"}},
        {"name": odd[2], "in": "cookie", "schema": {"type": "string"}},
    ]
    body = {"type": "object", "properties": {odd[3]: {"type": "string"}}}
    operation = _op(
        'Thing_Say"Hi"\\x41\\N',
        parameters=parameters,
        requestBody={"content": {"application/json": {"schema": body}}},
    )
    module, init = _rendered({"/p": {"post": operation}})
    assert 'Thing_Say"Hi"\\x41\\N' in _strings(module) & _strings(init)
    assert set(odd) <= _strings(module)


def test_names_python_reads_as_one_are_told_apart() -> None:
    """Python reads identifiers in NFKC form: `ﬁnd` (a ligature) is `find`. The emitter saw
    two names, so the second method replaced the first in silence, and two arguments made a
    module that does not compile."""
    parameters = [
        {"name": name, "in": "query", "schema": {"type": "string"}}
        for name in ("ﬁlter", "filter", "x²")
    ]
    paths = {
        "/a": {"get": _op("Thing_ﬁnd", parameters=parameters)},
        "/b": {"get": _op("Thing_find")},
    }
    emitter, found = _names(paths)
    assert emitter.problems == []
    names = [m.name for m in found["video"].values()]
    assert len(set(names)) == 2, names
    module, _ = _rendered(paths)
    _strings(module)  # compiles: no duplicate argument
    tree = ast.parse(module)
    assert sorted(f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)) == sorted(names)
    for name in [*names, *(p.python_name for p in found["video"]["Thing_ﬁnd"].arguments)]:
        assert name.isidentifier()
        assert unicodedata.normalize("NFKC", name) == name
