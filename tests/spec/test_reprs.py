"""Unset fields and defaults read `UNSET`, never an object's address.

Printing a model shows every field; one that was not given reads `UNSET`. The same text
is the default of the generated methods' parameters (`help()`, `inspect.signature`).
Every model and every operation, read from the generated package and the document.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import attrs
import pytest
from edgedelivery_openapi import models
from edgedelivery_openapi.resources import OPERATIONS
from edgedelivery_openapi.types import UNSET, Unset

from edgedelivery_async import EdgeDeliveryClient

from ._document import operations

ADDRESS = re.compile(r" object at 0x[0-9a-f]+")
MODELS = sorted(
    name
    for name in models.__all__
    if attrs.has(cls := getattr(models, name)) and inspect.isclass(cls)
)


def test_unset_reads_unset() -> None:
    assert repr(UNSET) == "UNSET"
    assert str(UNSET) == "UNSET"
    assert isinstance(UNSET, Unset)
    assert not UNSET


@pytest.mark.parametrize("name", MODELS)
def test_a_model_repr_shows_no_address(name: str) -> None:
    cls: Any = getattr(models, name)
    required = {f.name: None for f in attrs.fields(cls) if f.default is attrs.NOTHING}
    text = repr(cls(**required))
    assert not ADDRESS.search(text), text
    if any(f.default is UNSET for f in attrs.fields(cls) if f.repr):
        assert "=UNSET" in text, text


def test_a_model_with_unset_fields_reads_plainly() -> None:
    config = models.ShieldZoneConfig.from_dict({"shieldZoneId": 1})
    assert repr(config).startswith("ShieldZoneConfig(shield_zone_id=1, pull_zone_id=UNSET, ")


@pytest.mark.parametrize("operation_id", [o.operation_id for o in operations()])
def test_a_signature_shows_no_address(operation_id: str) -> None:
    client = EdgeDeliveryClient("edk-repr-1", "https://api.example.invalid")
    resource, method = OPERATIONS[operation_id]
    function = getattr(type(getattr(client, resource)), method).__wrapped__
    text = str(inspect.signature(function))
    assert not ADDRESS.search(text), text
    defaults = [p.default for p in inspect.signature(function).parameters.values()]
    if UNSET in defaults:
        assert "= UNSET" in text, text
