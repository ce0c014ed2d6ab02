"""Every generated model round-trips the document's examples.

`Model.from_dict(example).to_dict() == example` for each request and response example and for
every object nested in it that the document describes with a component schema; response
examples are also read through the client (`EdgeDeliveryClient.operation(id)` on a
pytest-httpx mock): a success example is the call's result (the `x-sdk-result` value member
of a wrapper) and any other example the body of the error it raises, read by the generated
model of its schema. An unknown field added to every response object survives
(`additional_properties`) unless the schema says `additionalProperties: false`.

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

from edgedelivery_async import APIError, APIResultError, APIStatusError

from ._calls import call, model_class, result_member, result_model, sample_of, status_for
from ._document import JSON, Example, _load, examples, operations, pointer, resolve
from ._walk import UNKNOWN_KEY, component_objects, inject_unknown, merged, normalize_dates

SCHEMAS = "#/components/schemas/"
EXAMPLES = list(examples())
REQUESTS = [e for e in EXAMPLES if e.kind == "request"]
RESPONSES = [e for e in EXAMPLES if e.kind == "response"]
# Generated models that no example of the document reaches, and why. An unreached model
# must be named here; one listed here that an example comes to reach is fine.
NOT_REACHED = {
    # The problem-style container error body has no example of its own; its fields are in
    # the merged *ResponseDefault models, which are reached.
    "ProblemDetails",
    # The shield error and accepted-result examples have `formatters: []` (the reference
    # gives the items no fields).
    "ObjectResultErrorFormattersType0ItemType0",
    "ShieldZoneGetByPullZoneResponseDefaultFormattersItem",
    "AcceptedResultFormattersType0ItemType0",
    # The template examples probe with httpGet and tcpSocket; none uses gRPC.
    "GrpcProbe",
    "GrpcProbeRequestType0",
    # The registry examples add no credentials (a field of the live service, issue 11).
    "PasswordCredentials",
}


def with_map_entries(value: Any, schema: Any) -> Any:
    """A copy of a sample with one entry in every map (an object of `additionalProperties`
    values only), so that the model of the values is reached too."""
    schema = merged(schema)
    if isinstance(value, list):
        return [with_map_entries(item, schema.get("items", {})) for item in value]
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties") or {}
    out = {key: with_map_entries(item, properties.get(key, {})) for key, item in value.items()}
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra and not properties and not out:
        out["key1"] = with_map_entries(sample_of(extra), extra)
    return out


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
    elif isinstance(value, dict):  # a map's values (`additional_properties`)
        for item in value.values():
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


def model_of(example: Example) -> Any:
    """The generated model of an example's schema: the component's, or, for an inline
    union, the generator's merged `<operationId>Response<status>` model. None for a
    schema the generator gives no model (any JSON)."""
    node = schema_of(example)
    if "$ref" in node:
        return result_model(node)
    assert example.kind == "response", example.id
    return model_class(f"{example.operation.operation_id}Response{example.status}")


@pytest.mark.parametrize("example", REQUESTS, ids=[e.id for e in REQUESTS])
def test_request_model_round_trips(example: Example) -> None:
    cls = model_of(example)
    assert cls is not None, f"{example.id}: the request body has no generated model"
    parsed = cls.from_dict(example.value)
    assert same(parsed.to_dict(), example.value, schema_of(example))
    round_trip_tree(parsed)
    round_trip_nested(example)


def is_result(example: Example) -> bool:
    return example.status == example.operation.success_status()


async def through_client(example: Example, httpx_mock: HTTPXMock, value: Any) -> Any:
    """What the client makes of a reply carrying `value`: the call's result for the result's
    reply; for any other, the body of the error it raises (an APIStatusError for a failure
    status, an APIResultError for another success reply)."""
    status = status_for(example.status or "")
    httpx_mock.add_response(status_code=status, json=value)
    if is_result(example):
        return (await call(example.operation)).parsed
    with pytest.raises(APIError) as raised:
        await call(example.operation)
    assert isinstance(raised.value, APIStatusError if status >= 300 else APIResultError)
    assert raised.value.status_code == status
    assert raised.value.body == value
    return raised.value.body


def as_dict(parsed: Any) -> Any:
    return parsed.to_dict() if attrs.has(type(parsed)) else parsed


def expected_result(example: Example, value: Any) -> tuple[Any, Any]:
    """(the result the client returns for a success body, the schema node it follows)."""
    member = result_member(example.operation)
    schema = schema_of(example)
    if member is None:
        return value, schema
    return value[member], resolve(schema)["properties"][member]


async def read(example: Example, httpx_mock: HTTPXMock, value: Any) -> tuple[Any, set[str]]:
    """Read a response body through the client and with its model; both must give it back.
    (What the client gave, the generated model classes seen.)"""
    seen: set[str] = set()
    schema = schema_of(example)
    got = await through_client(example, httpx_mock, value)
    if is_result(example):
        expected, node = expected_result(example, value)
        assert same(as_dict(got), expected, node)
        model = result_model(node)
        if model is not None:
            assert isinstance(got, model)
        seen |= round_trip_tree(got)
    cls = model_of(example)
    if cls is not None:
        parsed = cls.from_dict(value)
        assert same(parsed.to_dict(), value, schema)
        seen |= round_trip_tree(parsed)
    return got, seen


@pytest.mark.parametrize("example", RESPONSES, ids=[e.id for e in RESPONSES])
async def test_response_model_round_trips(example: Example, httpx_mock: HTTPXMock) -> None:
    await read(example, httpx_mock, example.value)
    round_trip_nested(example)


def allows_unknown(node: Any) -> bool:
    schema = resolve(node) if isinstance(node, dict) else {}
    return schema.get("additionalProperties") is not False


@pytest.mark.parametrize("example", RESPONSES, ids=[e.id for e in RESPONSES])
async def test_unknown_response_fields_survive(example: Example, httpx_mock: HTTPXMock) -> None:
    schema = schema_of(example)
    with_unknown = inject_unknown(example.value, schema)
    got, _ = await read(example, httpx_mock, with_unknown)
    cls = model_of(example)
    if cls is not None and allows_unknown(schema):
        assert UNKNOWN_KEY in cls.from_dict(with_unknown).to_dict()
    if is_result(example):
        _, node = expected_result(example, with_unknown)
        if isinstance(as_dict(got), dict) and allows_unknown(node):
            assert UNKNOWN_KEY in as_dict(got)


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
        reached |= round_trip_tree(model_of(example).from_dict(example.value))
        reached |= round_trip_nested(example)
    for example in RESPONSES:
        reached |= (await read(example, httpx_mock, example.value))[1]
        reached |= round_trip_nested(example)
    # A model no example reaches (documents as published give few examples) is reached by
    # a sample of its schema (the fake's, with one entry in each map), parsed and
    # round-tripped the same way: component schemas, and the inline object schemas of
    # responses (the generator's `<operationId>Response<status>` models).
    schemas = [(name, {"$ref": SCHEMAS + name}) for name in _load()["components"]["schemas"]] + [
        (f"{operation.operation_id}Response{status}", media["schema"])
        for operation in operations()
        for status, response in operation.op["responses"].items()
        for kind, media in (resolve(response).get("content") or {}).items()
        if kind == JSON and "$ref" not in media.get("schema", {"$ref": ""})
    ]
    for name, schema in schemas:
        node = resolve(schema)
        if name in reached or not (node.get("type") == "object" or "properties" in node):
            continue
        value = with_map_entries(sample_of(schema), schema)
        reached |= round_trip_tree(model_class(name).from_dict(value))
    unreached = model_classes() - reached
    assert unreached <= NOT_REACHED, sorted(unreached - NOT_REACHED)
