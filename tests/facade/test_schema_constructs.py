"""The runtime reads every schema construct published documents use (issue 20, item 4):
properties named like keywords, allOf/oneOf/anyOf, nullable anywhere, integer enums,
`format: byte`/`binary`, free-form objects, arrays of arrays, boolean exclusive bounds."""

from __future__ import annotations

from typing import Any

import pytest

from edgedelivery_async import _schema

KEYWORD_NAMES = ("format", "type", "nullable", "example", "pattern", "$ref", "items", "enum")


def _fields(schema: dict[str, Any], instance: Any) -> list[str]:
    return [problem.field for problem in _schema.validate(schema, instance)]


def test_properties_named_like_keywords_are_names() -> None:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "nullable": True} for name in KEYWORD_NAMES},
        "required": ["format"],
    }
    good = {name: "x" for name in KEYWORD_NAMES}
    assert _fields(schema, good) == []
    assert _fields(schema, {**good, "type": None}) == []
    assert _fields(schema, {**good, "format": 3}) == ["format"]
    assert _fields(schema, {"type": "x"}) == ["format"]
    translated = _schema._to_json_schema(schema)
    assert translated["properties"]["nullable"] == {"type": ["string", "null"]}
    assert translated["properties"]["$ref"] == {"type": ["string", "null"]}


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        # nullable inside allOf / oneOf / anyOf members and on the combinator itself
        (
            {
                "allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}],
                "nullable": True,
            },
            [None, {"a": 1}],
            [{"a": "x"}, 3],
        ),
        (
            {"oneOf": [{"type": "integer"}, {"type": "string", "nullable": True}]},
            [1, "x", None],
            [1.5, []],
        ),
        ({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, [1, True], ["x"]),
        # integer enums, nullable enums
        ({"type": "integer", "enum": [0, 1, 2]}, [0, 2], [5, "1"]),
        ({"type": "string", "enum": ["a"], "nullable": True}, ["a", None], ["b"]),
        # byte and binary are strings here
        ({"type": "string", "format": "byte"}, ["aGVsbG8="], [3]),
        ({"type": "string", "format": "binary"}, ["raw"], [3]),
        # free-form objects
        ({"type": "object"}, [{}, {"a": [1, {"b": None}]}], [[]]),
        ({"type": "object", "additionalProperties": {}}, [{"x": 1}], ["x"]),
        ({"type": "object", "additionalProperties": True}, [{"x": 1}], [1]),
        # arrays of arrays
        (
            {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
            [[[1, 2], [3]], []],
            [[[1, "x"]], [1]],
        ),
        # OpenAPI 3.0's boolean exclusive bounds
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, [2], [1]),
        ({"type": "integer", "maximum": 9, "exclusiveMaximum": False}, [9], [10]),
        # int64 keeps its range; a pattern's final $ is the end of the string
        ({"type": "integer", "format": "int64"}, [2**63 - 1], [2**63]),
        ({"type": "string", "pattern": "^a+$"}, ["aa"], ["aa\n"]),
    ],
)
def test_constructs_validate(schema: dict[str, Any], good: list[Any], bad: list[Any]) -> None:
    for value in good:
        assert _schema.validate(schema, value) == [], value
    for value in bad:
        assert _schema.validate(schema, value) != [], value


def test_the_shipped_components_translate_and_examples_and_extensions_go() -> None:
    translated = _schema._document_as_json_schema(_schema.spec())
    for schema in translated["components"]["schemas"].values():
        assert "example" not in schema
        assert not any(key.startswith("x-") for key in schema)
