"""A result the document lets be null (`nullable: true`, a type list with "null"): the method
is typed `X | None` (codegen/emit_sdk.py) and a JSON null reads None (_response._Reader). It
was typed `X` and a null was APIResponseValidationError "the result is not a JSON str"."""

from __future__ import annotations

from typing import Any

import pytest

from edgedelivery_async._exceptions import APIResponseValidationError
from edgedelivery_async._http import RawResponse
from edgedelivery_async._response import read_result
from edgedelivery_async._schema import Operation

from .test_naming import _names

NULLABLE = [
    ({"type": "string", "nullable": True}, str, "str | None"),
    ({"type": ["integer", "null"]}, int, "int | None"),
    ({"type": "object", "nullable": True}, dict, "dict[str, Any] | None"),
]


def _reply(content: bytes) -> RawResponse:
    return RawResponse("GET", "https://x.test/n", "/n", 200, {}, content)


def _operation(schema: dict[str, Any]) -> Operation:
    return Operation("Thing_Nullable", "GET", "/n", (), False, None, result_schema=schema)


@pytest.mark.parametrize(("schema", "parser", "typed"), NULLABLE)
def test_a_nullable_result_is_typed_and_read_as_none(
    schema: dict[str, Any], parser: type, typed: str
) -> None:
    content = {"application/json": {"schema": schema}}
    operation = {"tags": ["Video"], "responses": {"200": {"description": "ok", "content": content}}}
    emitter, found = _names({"/n": {"get": {"operationId": "Thing_Nullable", **operation}}})
    assert emitter.problems == []
    assert found["video"]["Thing_Nullable"].result_type == typed
    assert read_result(_operation(schema), _reply(b"null"), parser) is None


def test_a_result_the_document_does_not_let_be_null_is_still_refused() -> None:
    with pytest.raises(APIResponseValidationError, match="not a JSON str"):
        read_result(_operation({"type": "string"}), _reply(b"null"), str)
