"""Every generated model round-trips the document's examples.

`Model.from_dict(example).to_dict() == example` for each request and response example and for
every object nested in it that the document describes with a component schema; response
examples are also parsed by the generated endpoint itself (on a pytest-httpx mock), and an
unknown field added to every response object survives (`additional_properties`) unless the
schema says `additionalProperties: false`.

One normalization: a date-time value is compared as the instant it denotes, because the
models write `+00:00` where the example says `Z` (see test_date_time_representation).
"""

from __future__ import annotations

import datetime as dt
import inspect
from typing import Any

import attrs
import pytest
from edgedelivery_openapi import models
from edgedelivery_openapi.types import Unset
from pytest_httpx import HTTPXMock

from ._calls import anonymous_client, body_type, call, status_for
from ._document import Example, examples, pointer, resolve
from ._walk import UNKNOWN_KEY, component_objects, inject_unknown, normalize_dates

EXAMPLES = list(examples())
REQUESTS = [e for e in EXAMPLES if e.kind == "request"]
RESPONSES = [e for e in EXAMPLES if e.kind == "response"]
# Generated models that no example of the document reaches, and why.
NOT_REACHED = {
    # The problem-style container error body has no example of its own; its fields are in
    # the merged *ResponseDefault models, which are reached.
    "ProblemDetails",
    # The shield error example has `formatters: []` (the reference gives the items no fields).
    "ObjectResultErrorFormattersItem",
    "ShieldZoneGetByPullZoneResponseDefaultFormattersItem",
    # The template examples probe with httpGet and tcpSocket; none uses gRPC.
    "GrpcProbe",
    "GrpcProbeRequest",
}


def schema_of(example: Example) -> Any:
    return pointer(example.schema_pointer)


def same(actual: Any, expected: Any, schema: Any) -> bool:
    return normalize_dates(actual, schema) == normalize_dates(expected, schema)


def model_tree(value: Any) -> list[Any]:
    """Every generated model instance in a parsed value, the value itself included."""
    found = []
    if attrs.has(type(value)):
        found.append(value)
        for field in attrs.fields(type(value)):
            found.extend(model_tree(getattr(value, field.name)))
    elif isinstance(value, list):
        for item in value:
            found.extend(model_tree(item))
    return found


def model_classes() -> set[str]:
    return {
        name
        for name in models.__all__
        if inspect.isclass(cls := getattr(models, name)) and hasattr(cls, "from_dict")
    }


def component_class(name: str) -> Any:
    schema = resolve({"$ref": f"#/components/schemas/{name}"})
    cls = getattr(models, name, None)
    if schema.get("type") == "object":
        assert cls is not None, f"no generated model for component {name}"
    return cls


def round_trip_nested(example: Example) -> set[str]:
    """Round-trip every component object nested in the example; the classes used."""
    used = set()
    schema = schema_of(example)
    for name, obj in component_objects(example.value, schema):
        cls = component_class(name)
        if cls is None:
            continue
        component_schema = {"$ref": f"#/components/schemas/{name}"}
        assert same(cls.from_dict(obj).to_dict(), obj, component_schema), name
        used.add(name)
    return used


def round_trip_tree(parsed: Any) -> set[str]:
    """Every model in the parsed tree survives its own round trip; the classes seen."""
    seen = set()
    for model in model_tree(parsed):
        again = type(model).from_dict(model.to_dict())
        assert again.to_dict() == model.to_dict(), type(model).__name__
        seen.add(type(model).__name__)
    return seen


@pytest.mark.parametrize("example", REQUESTS, ids=[e.id for e in REQUESTS])
def test_request_model_round_trips(example: Example) -> None:
    cls = body_type(example.operation)
    parsed = cls.from_dict(example.value)
    assert same(parsed.to_dict(), example.value, schema_of(example))
    round_trip_tree(parsed)
    round_trip_nested(example)


async def parse(example: Example, httpx_mock: HTTPXMock, value: Any) -> Any:
    httpx_mock.add_response(status_code=status_for(example.status or ""), json=value)
    response = await call(example.operation, anonymous_client())
    return response.parsed


def as_dict(parsed: Any) -> Any:
    return parsed.to_dict() if attrs.has(type(parsed)) else parsed


@pytest.mark.parametrize("example", RESPONSES, ids=[e.id for e in RESPONSES])
async def test_response_model_round_trips(example: Example, httpx_mock: HTTPXMock) -> None:
    parsed = await parse(example, httpx_mock, example.value)
    assert same(as_dict(parsed), example.value, schema_of(example))
    round_trip_tree(parsed)
    round_trip_nested(example)


@pytest.mark.parametrize("example", RESPONSES, ids=[e.id for e in RESPONSES])
async def test_unknown_response_fields_survive(example: Example, httpx_mock: HTTPXMock) -> None:
    schema = schema_of(example)
    with_unknown = inject_unknown(example.value, schema)
    parsed = await parse(example, httpx_mock, with_unknown)
    assert same(as_dict(parsed), with_unknown, schema)
    if resolve(schema).get("additionalProperties") is not False:
        assert UNKNOWN_KEY in as_dict(parsed)


def test_closed_models_drop_unknown_fields() -> None:
    """`additionalProperties: false` (ApiErrorData): the generated model has no
    `additional_properties` and drops an unknown key without an error."""
    value = {"ErrorKey": None, "Field": "Hostname", "Message": "m", UNKNOWN_KEY: 1}
    parsed = models.ApiErrorData.from_dict(value)
    assert not hasattr(parsed, "additional_properties")
    assert parsed.to_dict() == {"ErrorKey": None, "Field": "Hostname", "Message": "m"}
    assert isinstance(models.ApiErrorData.from_dict({}).error_key, Unset)


def test_date_time_representation() -> None:
    parsed = models.ContainerRegistry.from_dict({"id": 1, "createdAt": "2026-11-01T08:30:00Z"})
    assert parsed.created_at == dt.datetime(2026, 11, 1, 8, 30, tzinfo=dt.UTC)
    assert parsed.to_dict()["createdAt"] == "2026-11-01T08:30:00+00:00"


async def test_every_model_is_reached_by_an_example(httpx_mock: HTTPXMock) -> None:
    reached: set[str] = set()
    for example in REQUESTS:
        reached |= round_trip_tree(body_type(example.operation).from_dict(example.value))
        reached |= round_trip_nested(example)
    for example in RESPONSES:
        reached |= round_trip_tree(await parse(example, httpx_mock, example.value))
        reached |= round_trip_nested(example)
    assert model_classes() - reached == NOT_REACHED
