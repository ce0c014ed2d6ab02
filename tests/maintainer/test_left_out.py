"""An operation that gets no method (OPTIONS, TRACE) is named when regenerating, with the
reason and what to use instead; it was left out in silence."""

from __future__ import annotations

from typing import Any

from .test_naming import emit_sdk

OK = {"200": {"description": "ok"}}


def test_operations_left_out_are_named_with_the_reason() -> None:
    paths: dict[str, Any] = {
        "/notes": {
            "get": {"operationId": "Note_List", "tags": ["Note"], "responses": OK},
            "options": {"operationId": "Note_Options", "tags": ["Note"], "responses": OK},
            "trace": {"operationId": "Note_Trace", "tags": ["Note"], "responses": OK},
        }
    }
    spec = {"openapi": "3.0.3", "paths": paths, "tags": [], "components": {}}
    emitter = emit_sdk.Emitter(spec, set(), emit_sdk.Surface.read(""))
    (resource,) = emitter.resources()
    assert [method.operation_id for method in resource.methods] == ["Note_List"]
    assert emit_sdk.left_out(spec) == [
        "left out OPTIONS /notes (Note_Options): no method is made for OPTIONS operations;"
        " send it with client.request('OPTIONS', '/notes')",
        "left out TRACE /notes (Note_Trace): no method is made for TRACE operations;"
        " send it with client.request('TRACE', '/notes')",
    ]
