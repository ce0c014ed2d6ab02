"""`inspect.signature`, `help()` and IPython show each method's real parameters and the type
its await returns; `inspect.iscoroutinefunction` is true for every awaited method. Every
operation of the document, read from the generated package."""

from __future__ import annotations

import asyncio
import inspect
import pydoc

import pytest
from edgedelivery_openapi.resources import OPERATIONS

from edgedelivery_async import EdgeDeliveryClient


@pytest.fixture(scope="module")
def client() -> EdgeDeliveryClient:
    return EdgeDeliveryClient("k3y", "https://api.example.invalid")


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_every_method_shows_its_parameters_and_result(
    client: EdgeDeliveryClient, operation_id: str
) -> None:
    resource, name = OPERATIONS[operation_id]
    bound = getattr(getattr(client, resource), name)
    function = getattr(type(getattr(client, resource)), name).__wrapped__
    declared = inspect.signature(function)
    shown = inspect.signature(bound)
    assert list(shown.parameters.values()) == list(declared.parameters.values())[1:]
    assert "P.args" not in str(shown)
    returned = declared.return_annotation
    assert returned.startswith("Call[")
    assert shown.return_annotation == returned[len("Call[") : -1]
    assert inspect.iscoroutinefunction(bound)
    assert asyncio.iscoroutinefunction(bound)
    text = pydoc.render_doc(bound, renderer=pydoc.plaintext)
    assert f"async {name}(" in text
    assert operation_id in text
    assert bound.__annotations__["return"] == shown.return_annotation


def test_the_bound_method_still_calls_describes_and_maps(client: EdgeDeliveryClient) -> None:
    call = client.registries.get.describe(7)
    assert call.operation_id == "ContainerRegistry_Get"
    assert dict(call.path) == {"registryId": 7}
    assert callable(client.registries.get.map)
