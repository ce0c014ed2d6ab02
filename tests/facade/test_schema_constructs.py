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


# ------------------------------------------------- the document's own keywords (audit)


@pytest.fixture
def shipped_as(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make `document` the one `_schema` reads (the SDK's and the fake's shipped reading)."""

    def use(document: dict[str, Any]) -> None:
        monkeypatch.setattr(_schema, "spec", lambda: document)
        _schema._registry.cache_clear()
        _schema._validator.cache_clear()

    yield use
    _schema._registry.cache_clear()
    _schema._validator.cache_clear()


def _both(document: dict[str, Any], shipped_as: Any, schema: dict[str, Any], value: Any) -> Any:
    """The problems the SDK finds (the document shipped: `$ref`s into its registry) and the
    fake finds (the document passed in: inlined), which must agree."""
    from edgedelivery_async.testing._document import Document

    fake = [str(p) for p in Document(document).validate(schema, value)]
    shipped_as(document)
    sdk = [str(p) for p in _schema.validate(schema, value, exact_integers=True)]
    assert sdk == fake
    return sdk


PETS = {
    "components": {
        "schemas": {
            "Cat": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string"}, "meows": {"type": "boolean"}},
            },
            "Dog": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string"}, "barks": {"type": "boolean"}},
            },
            "Pet": {
                "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in ("Cat", "Dog")],
                "discriminator": {"propertyName": "kind"},
            },
            "MappedPet": {
                "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in ("Cat", "Dog")],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {"cat": "#/components/schemas/Cat", "dog": "Dog"},
                },
            },
        }
    }
}


@pytest.mark.parametrize(
    ("name", "value", "problems"),
    [
        ("Pet", {"kind": "Cat", "meows": True}, []),  # fits Dog too: oneOf alone refused it
        ("Pet", {"kind": "Dog", "barks": False}, []),
        ("Pet", {"kind": "Cat", "meows": "yes"}, ["meows: 'yes' is not of type 'boolean'"]),
        ("Pet", {"kind": "Dog", "meows": "yes"}, []),  # Dog is open: meows is its extra
        ("Pet", {"kind": "Bird"}, ["kind: 'Bird' is not one of ['Cat', 'Dog']"]),
        ("Pet", {"meows": True}, ["kind: 'kind' is a required property"]),
        ("MappedPet", {"kind": "cat", "meows": True}, []),
        ("MappedPet", {"kind": "dog", "barks": 1}, ["barks: 1 is not of type 'boolean'"]),
        ("MappedPet", {"kind": "Cat"}, ["kind: 'Cat' is not one of ['cat', 'dog']"]),
    ],
)
def test_a_discriminator_selects_the_one_variant_checked(
    shipped_as: Any, name: str, value: Any, problems: list[str]
) -> None:
    """OpenAPI's discriminator, which JSON Schema lacks: a Cat that an open Dog also fits
    was refused ("is valid under each of") by the SDK and by the fake."""
    schema = {"$ref": f"#/components/schemas/{name}"}
    assert _both(PETS, shipped_as, schema, value) == problems


ITEMS = {
    "components": {
        "schemas": {
            "Identifier": {"type": "integer", "readOnly": True},
            "AuditItem": {
                "type": "object",
                "required": ["Id", "Ref", "Name"],
                "properties": {
                    "Id": {"type": "integer", "readOnly": True},
                    "Ref": {"$ref": "#/components/schemas/Identifier"},
                    "Name": {"type": "string"},
                },
            },
        }
    }
}


@pytest.mark.parametrize(
    ("value", "problems"),
    [
        ({"Name": "n"}, []),  # was "Id: 'Id' is a required property" (and Ref)
        ({}, ["Name: 'Name' is a required property"]),
        ({"Name": "n", "Id": "x"}, ["Id: 'x' is not of type 'integer'"]),  # still checked
    ],
)
def test_a_read_only_property_is_not_required_in_a_request(
    shipped_as: Any, value: Any, problems: list[str]
) -> None:
    """OpenAPI 3.0: readOnly properties are not required in requests. The emitter leaves
    them out of the method's arguments, and the SDK and the fake then refused the body."""
    schema = {"$ref": "#/components/schemas/AuditItem"}
    assert _both(ITEMS, shipped_as, schema, value) == problems


def test_a_cycle_of_refs_is_a_value_error_not_a_loop_for_ever() -> None:
    """`A: {$ref: B}, B: {$ref: A}` (in a document edited by hand: regeneration refuses
    it) made `deref` loop for ever."""
    import threading

    document = {
        "components": {
            "schemas": {
                "A": {"$ref": "#/components/schemas/B"},
                "B": {"$ref": "#/components/schemas/A"},
            }
        }
    }
    raised: list[BaseException] = []

    def follow() -> None:
        try:
            _schema.deref({"$ref": "#/components/schemas/A"}, document)
        except BaseException as exc:  # (reported below)
            raised.append(exc)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "deref loops for ever on a cycle of $refs"
    (error,) = raised
    assert isinstance(error, ValueError)
    assert "$ref cycle at #/components/schemas/A" in str(error)
