"""The fake's samples fit patterns with negative lookaheads (published documents use them)."""

from __future__ import annotations

import copy
import re

import pytest

from edgedelivery_async.testing._document import Document
from edgedelivery_async.testing._samples import from_pattern, sample


@pytest.mark.parametrize(
    "pattern",
    [
        r"^/(?!.*//)(?!.*\.\.)(?!.*\s)([a-zA-Z0-9._-]+/?)+$",
        r"^(?!-)[a-z0-9-]{3,}$",
    ],
)
def test_a_negative_lookahead_is_skipped_and_the_result_checked(pattern: str) -> None:
    text = from_pattern(pattern)
    assert text is not None
    assert re.search(pattern, text)


def test_a_positive_lookahead_gives_no_sample() -> None:
    assert from_pattern(r"^(?=.*[A-Z])[a-z]+$") is None


def test_a_required_array_of_its_own_schema_is_sampled_finite() -> None:
    """A tree node whose children (required) are nodes: the sampler recursed for ever."""
    spec = copy.deepcopy(Document().spec)
    spec["components"]["schemas"]["Node"] = {
        "type": "object",
        "required": ["Name", "Children"],
        "properties": {
            "Name": {"type": "string"},
            "Children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        },
    }
    document = Document(spec)
    node = sample({"$ref": "#/components/schemas/Node"}, document)
    depth = 0
    while node["Children"]:
        assert isinstance(node["Name"], str)
        node, depth = node["Children"][0], depth + 1
    assert 0 < depth < 50


def test_a_discriminated_variant_is_sampled_with_its_discriminator_value() -> None:
    """A discriminated `oneOf` was sampled as `{"kind": "string", ...}`, which fits no
    variant: the sample now picks a variant and sets the property to its value (its
    `mapping` key, else the schema's name)."""
    spec = copy.deepcopy(Document().spec)
    schemas = spec["components"]["schemas"]
    for name, flag in (("Cat", "meows"), ("Dog", "barks")):
        schemas[name] = {
            "type": "object",
            "required": ["kind", flag],
            "properties": {"kind": {"type": "string"}, flag: {"type": "boolean"}},
        }
    schemas["Bird"] = copy.deepcopy(schemas["Cat"])
    variants = [{"$ref": f"#/components/schemas/{name}"} for name in ("Cat", "Dog")]
    schemas["Pet"] = {"oneOf": variants, "discriminator": {"propertyName": "kind"}}
    schemas["MappedPet"] = {
        "anyOf": [{"$ref": "#/components/schemas/Bird"}, *variants],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {"bird": "#/components/schemas/Bird", "dog": "Dog"},
        },
    }
    schemas["DogFirst"] = {
        "oneOf": variants[::-1],
        "discriminator": {"propertyName": "kind", "mapping": {"dog": "Dog"}},
    }
    document = Document(spec)
    assert sample({"$ref": "#/components/schemas/DogFirst"}, document) == {
        "kind": "dog",
        "barks": True,
    }
    pet = sample({"$ref": "#/components/schemas/Pet"}, document)
    assert pet == {"kind": "Cat", "meows": True}
    assert sample({"$ref": "#/components/schemas/MappedPet"}, document) == {
        "kind": "bird",
        "meows": True,
    }


_LOOP = {"$ref": "#/components/schemas/Loop"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "required": ["Next"], "properties": {"Next": _LOOP}},
        {"allOf": [_LOOP, {"type": "object"}]},
    ],
)
def test_a_schema_that_only_recurses_is_sampled_without_a_recursion_error(
    schema: dict[str, object],
) -> None:
    """A required member of its own type (or an allOf of itself) has no finite value: the
    sampler recursed until RecursionError, out of FakeEdgeDelivery.handle."""
    spec = copy.deepcopy(Document().spec)
    spec["components"]["schemas"]["Loop"] = schema
    sample(_LOOP, Document(spec))  # returns, whatever it is
