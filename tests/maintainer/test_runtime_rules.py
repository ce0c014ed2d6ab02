"""The generator's customizations read the runtime's own rules, not copies of them
(codegen/runtime_rules.py): which media types are JSON, and which values fit a schema."""

from __future__ import annotations

import copy
import json
from typing import Any

from edgedelivery_async import _schema
from edgedelivery_async.testing import FakeEdgeDelivery

from .test_naming import emit_sdk

CHARSET_JSON = "application/json; charset=utf-8"
TEXT = {"type": "object", "properties": {"Text": {"type": "string"}}}


def _charset_operation() -> dict[str, Any]:
    return {
        "operationId": "Added_PutCharset",
        "tags": ["Added"],
        "parameters": [
            {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
        ],
        "requestBody": {"required": True, "content": {CHARSET_JSON: {"schema": TEXT}}},
        "responses": {"200": {"description": "ok", "content": {CHARSET_JSON: {"schema": TEXT}}}},
    }


def _method(paths: dict[str, Any]) -> Any:
    spec = {"openapi": "3.0.3", "paths": paths, "tags": [], "components": {}}
    emitter = emit_sdk.Emitter(spec, set(), emit_sdk.Surface.read(""))
    resources = emitter.resources()
    assert emitter.problems == []
    return resources[0].methods[0]


def test_json_with_a_charset_is_json_to_the_method_and_to_the_fake() -> None:
    """`application/json; charset=utf-8` is JSON to the runtime; the emitter typed the body
    `bytes | IO[bytes]`, the result bytes (with `to_file`), and the fake refused the JSON
    the SDK sends (it compared the declared type, parameters and all, with the received)."""
    method = _method({"/added/charset/{name}": {"put": _charset_operation()}})
    assert method.body_param is None
    assert [field.wire_name for field in method.body_fields] == ["Text"]
    assert method.result_type != "bytes"
    assert method.download is False
    assert "to_file" not in method.description

    document = copy.deepcopy(_schema.spec())
    document["paths"]["/added/charset/{name}"] = {"put": _charset_operation()}
    fake = FakeEdgeDelivery("k", document=document)
    for content_type in (CHARSET_JSON, "application/json"):
        headers = {"AccessKey": "k", "Content-Type": content_type}
        reply = fake.handle("PUT", "/added/charset/n", headers, json.dumps({"Text": "x"}).encode())
        assert reply.status == 200, reply.body
