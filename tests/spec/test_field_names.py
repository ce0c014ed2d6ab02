"""Model attributes are named from the document: `x-sdk-name` where a property has one.

The generator's own split of a mixed-case wire name reads badly (`dDoSChallengeWindow` ->
`d_do_s_challenge_window`); a property says its Python name with `x-sdk-name`, as a
parameter does, and codegen/generate.py applies it to the generated models.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import attrs
import pytest
from edgedelivery_openapi import models

from ._document import document

# Properties of the document's component schemas that have a generated model.
FIELDS = [
    (schema_name, wire, prop)
    for schema_name, schema in document()["components"]["schemas"].items()
    if isinstance(getattr(models, schema_name, None), type)
    for wire, prop in (schema.get("properties") or {}).items()
]
HINTED = [(s, w, p["x-sdk-name"]) for s, w, p in FIELDS if "x-sdk-name" in p]


def attribute_for(cls: Any, wire: str) -> str:
    """The attribute `from_dict` fills from the wire name `wire` (read from its code)."""
    source = inspect.getsource(cls.from_dict)
    # `name = d.pop("wire")`, in a cast, or in an enum's constructor (a required enum).
    pop = r"(\w+) = (?:cast\([^,]+, )?(?:\w+\()?d\.pop\(\s*"
    found = re.findall(pop + re.escape(f'"{wire}"'), source)
    assert len(found) == 1, (cls.__name__, wire, found)
    name: str = found[0].lstrip("_")
    assert name in {f.name for f in attrs.fields(cls)}, (cls.__name__, wire, name)
    return name


def test_the_document_names_ddos_challenge_window() -> None:
    config = models.ShieldZoneConfig.from_dict({"dDoSChallengeWindow": 1800})
    assert config.ddos_challenge_window == 1800
    assert config.to_dict() == {"dDoSChallengeWindow": 1800}
    assert not hasattr(config, "d_do_s_challenge_window")


@pytest.mark.parametrize(("schema", "wire", "name"), HINTED, ids=[f"{s}.{w}" for s, w, _ in HINTED])
def test_a_hinted_property_is_the_named_attribute(schema: str, wire: str, name: str) -> None:
    cls = getattr(models, schema)
    assert attribute_for(cls, wire) == name


def test_no_attribute_has_a_one_letter_word() -> None:
    """A one-letter word is the mark of a split acronym; the document should name it.

    A style rule of the hand-written part of the document: held for the schemas the
    reference's operations reach. A document taken as published keeps the generator's
    split (`d_do_s_mitigated`) until a maintainer adds an `x-sdk-name`; nothing else
    depends on it."""
    from .test_document import reference_components

    ours = reference_components()
    split = [
        f"{schema}.{wire} -> {attribute_for(getattr(models, schema), wire)}"
        for schema, wire, _ in FIELDS
        if schema in ours
        and re.search(r"(^|_)[a-z](_|$)", attribute_for(getattr(models, schema), wire))
    ]
    assert not split, f"give these properties an x-sdk-name: {split}"
