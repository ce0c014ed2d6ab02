"""End to end: every reply shape of every operation, through the SDK, against the fake.

The table is (operation x shape x transport). Operations come from `_schema.operations()`,
shapes from `REPLY_SHAPES`; which shapes apply to an operation, and what the SDK must make
of each, is read here from the document (its `x-sdk-result` rules, declared 202 replies,
enum and date-time members), by the README's one rule for results:

- success: the documented result;
- failure-in-body: `APIResultError`, the failure reachable in `error.body`;
- accepted: `AcceptedWithoutResultError`;
- nulls: the result with `None` in every member sent as null (never `UNSET`), or
  `APIResponseValidationError` where the result member itself is null;
- unknown-enum: the result with the unknown value kept as a str; where a `failure`
  condition names the member (a registry `status`), `APIResultError` carrying the value;
- lowercase-timestamps: the timestamps parsed, time-zone aware.

Nothing may escape but an `EdgeDeliveryError`. Each operation is called through the SDK
in-process (httpx transport) and over loopback (the default aiohttp transport), after the
seeding helpers made what it reaches.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import re
import traceback
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import datetime
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    AcceptedWithoutResultError,
    APIResponseValidationError,
    APIResultError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    RetryPolicy,
    _schema,
)
from edgedelivery_async.testing import REPLY_SHAPES, FakeEdgeDelivery, _app
from edgedelivery_async.testing._calls import document_call

KEY = "shapes-e2e-key"
FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002)
OPERATIONS = sorted(_schema.operations())
TRANSPORTS = ("in-process", "loopback")
PASSWORD = "s3cret-Pa55"

Arguments = tuple[tuple[Any, ...], dict[str, Any]]


def _template(fake: FakeEdgeDelivery) -> Arguments:
    app = fake.add_app()
    return (app, fake.add_template(app), {"LOG_LEVEL": "debug"}), {}


def _shield_zone(fake: FakeEdgeDelivery) -> int:
    return fake.add_shield_zone(fake.add_pull_zone())


def _pull_zone_with_shield(fake: FakeEdgeDelivery) -> Arguments:
    pull_zone = fake.add_pull_zone()
    fake.add_shield_zone(pull_zone)
    return (pull_zone,), {}


#: How to call each stateful operation of the fake so that it reaches a stored resource:
#: the seeding helpers make it, and the call's arguments name it. Every other operation is
#: called with arguments read from the document (`arguments`): no line per operation.
SEEDS: dict[str, Callable[[FakeEdgeDelivery], Arguments]] = {
    "PullZonePublic_SetForceSSL": lambda fake: (
        (fake.add_pull_zone(hostnames=["cdn.example.test"]),),
        {"hostname": "cdn.example.test", "force_ssl": True},
    ),
    "ComputeScript_AddVariable": lambda fake: (
        (fake.add_script(),),
        {"name": "API_URL", "required": True, "default_value": "https://x.test"},
    ),
    "DnsZone_Add": lambda fake: (
        (),
        {"domain": "example.test", "records": [{"Name": "www", "Ttl": 300, "Value": "192.0.2.1"}]},
    ),
    "ContainerTemplate_SetEnvironmentVariables": _template,
    "ContainerRegistry_Add": lambda fake: (
        (),
        {
            "display_name": "main",
            "type": "gitHub",
            "password_credentials": {"userName": "u", "password": PASSWORD},
        },
    ),
    "ContainerTemplate_Add": lambda fake: (
        (fake.add_app(),),
        {
            "name": "api",
            "image": "registry.example.test/team/api:1.0",
            "environment_variables": {"A": "1"},
            "endpoints": [
                {
                    "displayName": "public",
                    "cdn": {
                        "isSslEnabled": True,
                        "pullZoneId": 42,
                        "portMappings": [{"containerPort": 8080, "exposedPort": 443}],
                    },
                }
            ],
        },
    ),
    "ContainerRegistry_Get": lambda fake: ((fake.add_registry("main", password=PASSWORD),), {}),
    "ShieldZone_GetByPullZone": _pull_zone_with_shield,
    "ShieldZone_GetUploadScanning": lambda fake: ((_shield_zone(fake),), {}),
}


# ------------------------------------------------------------- the document
def deref(node: Any) -> Any:
    return _schema.deref(node) if isinstance(node, dict) else node


def raw_operation(operation_id: str) -> dict[str, Any]:
    operation = _schema.operations()[operation_id]
    node: dict[str, Any] = _schema.spec()["paths"][operation.path][operation.method.lower()]
    return node


def rule_of(operation_id: str) -> dict[str, Any]:
    return dict(_schema.operations()[operation_id].result_rule or {})


def value_schema(operation_id: str) -> dict[str, Any] | None:
    """The schema of the result: the `x-sdk-result` value member's, else the body's."""
    schema = _schema.operations()[operation_id].result_schema
    name = rule_of(operation_id).get("value")
    if schema is None or not name:
        return schema
    member = deref(schema).get("properties", {}).get(name)
    return None if member is None else deref(member)


def members(schema: Any, test: Callable[[dict[str, Any]], bool]) -> list[tuple[str, ...]]:
    """Paths (member names; "[]" for array items) of the members `test` picks."""
    found: list[tuple[str, ...]] = []

    def walk(node: Any, path: tuple[str, ...], depth: int) -> None:
        node = deref(node)
        if not isinstance(node, dict) or depth > 8:
            return
        for variant in (*node.get("allOf", ()), *node.get("anyOf", ()), *node.get("oneOf", ())):
            walk(variant, path, depth + 1)
        for name, sub in (node.get("properties") or {}).items():
            flat = flatten(sub)
            if test(flat):
                found.append((*path, name))
            walk(sub, (*path, name), depth + 1)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*path, "[]"), depth + 1)

    walk(schema, (), 0)
    return found


def flatten(schema: Any) -> dict[str, Any]:
    """The schema with its `allOf` merged in, and the member of a one-member `oneOf` or
    `anyOf` (a `$ref` made nullable: `{nullable: true, oneOf: [$ref]}`)."""
    node = deref(schema)
    merged = dict(node)
    for variant in node.get("allOf", ()):
        merged = {**flatten(variant), **merged}
    for key in ("oneOf", "anyOf"):
        variants = node.get(key) or ()
        if len(variants) == 1:
            merged = {**flatten(variants[0]), **merged}
    return merged


def expected_shapes(operation_id: str) -> set[str]:
    """The shapes the document allows for an operation, read independently of the fake."""
    shapes = {"success"}
    raw = raw_operation(operation_id)
    if "202" in raw["responses"]:
        shapes.add("accepted")
    schema = _schema.operations()[operation_id].result_schema
    if schema is None:
        return shapes
    shapes.add("nulls")
    if rule_of(operation_id).get("failure"):
        shapes.add("failure-in-body")
    if members(schema, lambda node: bool(node.get("enum"))):
        shapes.add("unknown-enum")
    if members(schema, lambda node: node.get("format") == "date-time"):
        shapes.add("lowercase-timestamps")
    return shapes


def holds(condition: Mapping[str, Any], body: Any) -> bool:
    found = body
    for name in condition["member"]:
        if not isinstance(found, Mapping) or name not in found:
            return False
        found = found[name]
    if "equals" in condition:
        return type(found) is type(condition["equals"]) and found == condition["equals"]
    if "not-in" in condition:
        return found is not None and found not in condition["not-in"]
    return bool(condition.get("non-empty")) and bool(found)


# ---------------------------------------------------------------- helpers
@pytest.fixture(params=TRANSPORTS)
async def wired(
    request: pytest.FixtureRequest,
) -> AsyncIterator[tuple[FakeEdgeDelivery, EdgeDeliveryClient]]:
    """A fake and an SDK client on it: in-process through httpx, or over loopback."""
    fake = FakeEdgeDelivery(KEY)
    if request.param == "in-process":
        async with (
            httpx.AsyncClient(transport=fake) as http,
            EdgeDeliveryClient(KEY, "https://fake.test", http_client=http, retry=FAST) as client,
        ):
            yield fake, client
    else:
        async with fake.serve() as url, EdgeDeliveryClient(KEY, url, retry=FAST) as client:
            yield fake, client


async def attempt(client: EdgeDeliveryClient, operation_id: str, call: Arguments) -> Any:
    """The call's `APIResponse`, or the `EdgeDeliveryError` it raised; nothing else escapes."""
    args, kwargs = call
    try:
        return await client.operation(operation_id).with_response(*args, **kwargs)
    except EdgeDeliveryError as error:
        return error
    except Exception as escaped:  # pragma: no cover - the assertion this test exists for
        trace = "".join(traceback.format_exception(escaped))
        pytest.fail(f"{operation_id}: {type(escaped).__name__} escaped the SDK:\n{trace}")


def normalized(value: Any) -> Any:
    """JSON with timestamps as datetimes, so `to_dict()` and the wire form compare equal."""
    if isinstance(value, dict):
        return {key: normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalized(item) for item in value]
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}[Tt]\d", value):
        try:
            return datetime.fromisoformat(value.upper())
        except ValueError:
            return value
    return value


def as_json(parsed: Any) -> Any:
    return parsed.to_dict() if hasattr(parsed, "to_dict") else parsed


def result_member(operation_id: str, body: Any) -> Any:
    name = rule_of(operation_id).get("value")
    return body[name] if name else body


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def at(value: Any, path: tuple[str, ...]) -> list[Any]:
    """Every value at a member path ("[]" steps into each array item)."""
    found = [value]
    for step in path:
        nxt: list[Any] = []
        for item in found:
            if step == "[]" and isinstance(item, list):
                nxt += item
            elif isinstance(item, dict) and step in item:
                nxt.append(item[step])
        found = nxt
    return found


@functools.cache
def attribute_of(cls: type, wire: str) -> str:
    """The attribute a generated model's `from_dict` fills from a wire name (read from its
    code: the generator's spelling, `x-sdk-name`s and keyword escapes included)."""
    source = inspect.getsource(cls.from_dict)  # type: ignore[attr-defined]
    pop = r"(\w+) = (?:cast\([^,]+, )?(?:[\w.]+\()?d\.pop\(\s*"
    found = re.findall(pop + re.escape(f'"{wire}"'), source)
    return found[0].lstrip("_") if found else snake(wire)


def attributes(model: Any, path: tuple[str, ...]) -> list[Any]:
    """The model's attributes at a member path (names as the generator spells them; the
    wire names in a result read as plain JSON)."""
    found = [model]
    for step in path:
        nxt: list[Any] = []
        for item in found:
            if step == "[]" and isinstance(item, list):
                nxt += item
            elif isinstance(item, dict) and step in item:  # a result read as plain JSON
                nxt.append(item[step])
            elif hasattr(type(item), "from_dict") and hasattr(
                item, name := attribute_of(type(item), step)
            ):
                nxt.append(getattr(item, name))
        found = nxt
    return found


def leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


# ------------------------------------------------------------------ the table
def arguments(fake: FakeEdgeDelivery, operation_id: str) -> Arguments:
    """The seeded call of a stateful operation, else the document's own arguments."""
    if operation_id in SEEDS:
        return SEEDS[operation_id](fake)
    return document_call(operation_id)


def test_seeding_is_only_for_the_fakes_stateful_operations() -> None:
    assert set(SEEDS) <= set(_app.HANDLERS)


@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_the_fake_offers_the_shapes_the_document_allows(operation_id: str) -> None:
    fake = FakeEdgeDelivery(KEY)
    assert set(fake.shapes_for(operation_id)) == expected_shapes(operation_id)


@pytest.mark.parametrize("shape", REPLY_SHAPES)
@pytest.mark.parametrize("operation_id", OPERATIONS)
async def test_reply_shape_through_the_sdk(
    wired: tuple[FakeEdgeDelivery, EdgeDeliveryClient], operation_id: str, shape: str
) -> None:
    fake, client = wired
    call = arguments(fake, operation_id)
    if shape not in expected_shapes(operation_id):
        with pytest.raises(ValueError, match=re.escape(operation_id)):
            fake.reply_next(operation_id, shape)  # type: ignore[arg-type]
        return
    fake.reply_next(operation_id, shape)  # type: ignore[arg-type]
    before = copy.deepcopy(fake.state.__dict__)
    outcome = await attempt(client, operation_id, call)
    recorded = fake.requests_for(operation_id)
    assert [r.shape for r in recorded] == [shape], "one request, answered with the shape"
    CHECKS[shape](fake, operation_id, outcome)
    if shape in ("failure-in-body", "accepted"):
        assert fake.state.__dict__ == before, "a failed or accepted request changes nothing"
    assert fake.faults.pending == 0


def check_success(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    assert not isinstance(outcome, EdgeDeliveryError), outcome
    operation = _schema.operations()[operation_id]
    if operation.reply != "json":  # a text or binary reply: its content, a str or bytes
        content = outcome.http_response.content
        assert content
        assert outcome.parsed == (content if operation.reply == "binary" else content.decode())
        return
    if operation.result_schema is None:
        assert outcome.parsed is None
        assert outcome.http_response.content == b""
        return
    body = outcome.http_response.json()
    assert normalized(as_json(outcome.parsed)) == normalized(result_member(operation_id, body))


def check_failure_in_body(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    assert type(outcome) is APIResultError, outcome
    assert 200 <= outcome.status_code < 300
    assert isinstance(outcome.body, dict)
    for condition in rule_of(operation_id)["failure"]:
        assert holds(condition, outcome.body), (condition, outcome.body)
    assert outcome.message, "the server's message is reachable"
    assert outcome.message in json.dumps(outcome.body)
    assert outcome.message in str(outcome)


RESULT_OBJECT = {"value", "formatters", "contentTypes", "declaredType", "statusCode", "location"}


def carries_a_result(operation_id: str, body: Any) -> bool:
    """Whether a 202 body is a result (README: a 202 with the result returns it): not an
    accepted-result object, and with the `x-sdk-result` value member when one is named.
    Documents as published declare some 202s with the result's own wrapper."""
    if not isinstance(body, dict) or set(body) <= RESULT_OBJECT:
        return False
    if {"statusCode", "declaredType"} <= set(body) and "data" not in body:
        return False
    name = rule_of(operation_id).get("value")
    return not name or body.get(name) is not None


def check_accepted(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    if not isinstance(outcome, EdgeDeliveryError) and carries_a_result(
        operation_id, outcome.http_response.json()
    ):
        assert outcome.status_code == 202
        assert outcome.parsed is not None
        return
    assert isinstance(outcome, AcceptedWithoutResultError), outcome
    assert outcome.status_code == 202
    declared = deref(deref(raw_operation(operation_id)["responses"]["202"]))
    media = declared["content"]["application/json"]
    schema = deref(media["schema"])
    assert isinstance(outcome.body, dict)
    assert set(outcome.body) <= set(schema["properties"])
    if "example" in media:  # the document's accepted-result example, some members absent
        assert outcome.body == media["example"]
        assert set(outcome.body) < set(schema["properties"]), "some members absent"


def check_nulls(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    schema = value_schema(operation_id) or {}
    kind = flatten(schema).get("type")
    items = flatten(flatten(schema).get("items") or {})
    objects = items.get("type") == "object" or "properties" in items
    scalar = kind in ("string", "integer", "number", "boolean") or (kind == "array" and not objects)
    if (rule_of(operation_id).get("value") and kind != "object") or scalar:
        # The result (or its member) itself is null: the reply carries no result.
        assert type(outcome) is APIResponseValidationError, outcome
        assert result_member(operation_id, outcome.body) is None
        return
    assert not isinstance(outcome, EdgeDeliveryError), outcome
    sent = result_member(operation_id, outcome.http_response.json())
    if flatten(schema).get("properties"):
        assert sent  # a map (only additionalProperties) may come empty
    assert all(leaf is None for leaf in leaves(sent)), sent
    # to_dict() holds a member read as None, and leaves out one read as UNSET: equal to
    # what was sent, every null member (nested ones too) was read as None.
    assert as_json(outcome.parsed) == sent


def check_unknown_enum(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    schema = _schema.operations()[operation_id].result_schema
    paths = members(schema, lambda node: bool(node.get("enum")))
    governed = {
        tuple(c["member"]) for c in rule_of(operation_id).get("failure", ()) if "not-in" in c
    }
    if governed & set(paths):
        # An unknown value of a member a failure condition governs is a failure.
        assert type(outcome) is APIResultError, outcome
        for path in governed & set(paths):
            (value,) = at(outcome.body, path)
            listed = flatten(at_schema(schema, path))["enum"]
            assert isinstance(value, str)
            assert value not in listed
            assert value in str(outcome), "an unknown value is reported with its value"
        return
    assert not isinstance(outcome, EdgeDeliveryError), outcome
    body = outcome.http_response.json()
    name = rule_of(operation_id).get("value")
    for path in paths:
        if name and path[0] != name:
            continue
        inner = path[1:] if name else path
        for sent, kept in zip(at(body, path), attributes(outcome.parsed, inner), strict=True):
            # kept as sent: a str for a string enum, an int for an integer enum
            assert type(kept) is type(sent)
            assert kept == sent


def at_schema(schema: Any, path: tuple[str, ...]) -> Any:
    node = deref(schema)
    for step in path:
        node = flatten(node)
        node = deref(node["items"] if step == "[]" else node["properties"][step])
    return node


def check_lowercase_timestamps(fake: FakeEdgeDelivery, operation_id: str, outcome: Any) -> None:
    assert not isinstance(outcome, EdgeDeliveryError), outcome
    sent = result_member(operation_id, outcome.http_response.json())
    paths = members(value_schema(operation_id), lambda node: node.get("format") == "date-time")
    seen = 0
    for path in paths:
        for text, parsed in zip(at(sent, path), attributes(outcome.parsed, path), strict=True):
            assert isinstance(text, str)
            assert text == text.lower()
            assert "t" in text
            if is_plain_json(outcome.parsed):  # a result read as plain JSON keeps the text
                assert parsed == text
                seen += 1
                continue
            assert isinstance(parsed, datetime), (path, parsed)
            assert parsed.tzinfo is not None
            assert parsed == datetime.fromisoformat(text.upper())
            seen += 1
    assert seen, "the reply carried timestamps"


def is_plain_json(value: Any) -> bool:
    """Whether a result is plain JSON (dicts, lists, scalars), no generated model in it."""
    if isinstance(value, dict):
        return all(is_plain_json(item) for item in value.values())
    if isinstance(value, list):
        return all(is_plain_json(item) for item in value)
    return not hasattr(value, "to_dict")


CHECKS: dict[str, Callable[[FakeEdgeDelivery, str, Any], None]] = {
    "success": check_success,
    "failure-in-body": check_failure_in_body,
    "accepted": check_accepted,
    "nulls": check_nulls,
    "unknown-enum": check_unknown_enum,
    "lowercase-timestamps": check_lowercase_timestamps,
}


def test_every_shape_has_a_check() -> None:
    assert set(CHECKS) == set(REPLY_SHAPES)


# -------------------------------------------------- registry credentials
def no_password_in(*texts: str) -> None:
    for text in texts:
        assert PASSWORD not in text


async def test_registry_credentials_round_trip(
    wired: tuple[FakeEdgeDelivery, EdgeDeliveryClient], caplog: pytest.LogCaptureFixture
) -> None:
    fake, client = wired
    caplog.set_level("DEBUG")
    registry_id = await client.registries.add(
        display_name="main",
        type="gitHub",
        password_credentials={"userName": "u", "password": PASSWORD},
    )
    assert fake.has_registry_password(registry_id, PASSWORD)
    assert not fake.has_registry_password(registry_id, "other")
    (recorded,) = fake.requests_for("ContainerRegistry_Add")
    assert recorded.json == {
        "displayName": "main",
        "type": "gitHub",
        "passwordCredentials": {"userName": "u", "password": "<redacted>"},
    }
    no_password_in(repr(fake.requests), json.dumps([r.json for r in fake.requests]), repr(fake))

    registry = await client.registries.get(registry_id)
    assert registry.user_name == "u"
    assert (registry.first_password_symbols, registry.last_password_symbols) == ("s3", "55")
    no_password_in(json.dumps(registry.to_dict()), repr(registry), json.dumps(fake.registry(1)))
    no_password_in(caplog.text)


@pytest.mark.parametrize("status", [400, 401, 404, 409, 429, 500, 503])
async def test_no_password_in_errors_of_a_failure_status(
    wired: tuple[FakeEdgeDelivery, EdgeDeliveryClient], status: int
) -> None:
    fake, client = wired
    fake.fail_next("ContainerRegistry_Add", status=status, times=10)  # more than any retries
    with pytest.raises(EdgeDeliveryError) as caught:
        await client.registries.add(
            display_name="main", password_credentials={"userName": "u", "password": PASSWORD}
        )
    error = caught.value
    assert getattr(error, "status_code", None) == status
    texts = (str(error), repr(error), "".join(traceback.format_exception(error)))
    no_password_in(*texts, json.dumps(getattr(error, "body", None)), repr(fake.requests))
    assert fake.state.registries == {}


async def test_no_password_in_errors_of_a_failure_in_the_body(
    wired: tuple[FakeEdgeDelivery, EdgeDeliveryClient],
) -> None:
    fake, client = wired
    fake.reply_next("ContainerRegistry_Add", "failure-in-body")
    with pytest.raises(APIResultError) as caught:
        await client.registries.add(
            display_name="main", password_credentials={"userName": "u", "password": PASSWORD}
        )
    error = caught.value
    assert error.body["status"] != "saved"
    assert error.message
    no_password_in(str(error), repr(error), json.dumps(error.body), repr(fake.requests))
    assert fake.state.registries == {}


async def test_no_password_in_the_fakes_own_refusal(
    wired: tuple[FakeEdgeDelivery, EdgeDeliveryClient],
) -> None:
    """A body the fake refuses (sent raw: the SDK would refuse it first) names no password."""
    fake, client = wired
    body = {"displayName": "", "passwordCredentials": {"userName": "u", "password": PASSWORD}}
    with pytest.raises(EdgeDeliveryError) as caught:
        await client.request("POST", "/mc/registries", json=body)
    error = caught.value
    assert getattr(error, "status_code", None) == 400
    no_password_in(str(error), repr(error), json.dumps(getattr(error, "body", None)))
    no_password_in(repr(fake.requests))
