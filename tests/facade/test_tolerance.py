"""What real servers send: unknown fields, nulls, missing fields, extra wrapper members."""

from __future__ import annotations

import datetime
import json
from typing import Any

import httpx
import pytest

from edgedelivery_async import APIResponseValidationError, models

from .conftest import REGISTRY, SCRIPT_VARIABLE, SHIELD_CONFIG, TEMPLATE, Recorder, mock_client


async def call_with(body: Any, call: Any) -> Any:
    async with mock_client(Recorder(httpx.Response(200, json=body))) as client:
        return await call(client)


def shield(c: Any) -> Any:
    return c.shield.get_zone_by_pull_zone(42)


def scanning(c: Any) -> Any:
    return c.shield.get_upload_scanning(9001)


def registry(c: Any) -> Any:
    return c.registries.get(31)


def template(c: Any) -> Any:
    return c.containers.set_environment("app", "ct", {})


def variable(c: Any) -> Any:
    return c.compute.add_script_variable(1, name="A")


# --------------------------------------------------------------- unknown fields


async def test_unknown_shield_fields_are_kept() -> None:
    body = {"data": {**SHIELD_CONFIG, "botDetection": {"level": 2}, "wafRuleSets": ["owasp"]}}
    body["data"]["wafEngineConfig"] = [{"name": "x", "valueEncoded": "MQ==", "source": "api"}]

    config = await call_with(body, shield)

    assert config.additional_properties == {"botDetection": {"level": 2}, "wafRuleSets": ["owasp"]}
    assert config["botDetection"] == {"level": 2}
    assert "wafRuleSets" in config
    assert config.waf_engine_config[0]["source"] == "api"
    assert config.waf_enabled is True


async def test_unknown_fields_everywhere() -> None:
    nested = {
        **TEMPLATE,
        "imagePullPolicy": "neverSeenBefore",
        "endpoints": [{**TEMPLATE["endpoints"][0], "region": "eu-1"}],
    }
    got = await call_with(nested, template)
    assert got["imagePullPolicy"] == "neverSeenBefore"  # an unlisted enum value, kept as text
    assert got.endpoints[0]["region"] == "eu-1"
    assert got.endpoints[0].public_host == "api-6c1.edge.example.net"

    got = await call_with({**REGISTRY, "tier": "gold"}, registry)
    assert (got.id, got["tier"]) == (31, "gold")

    got = await call_with({**SCRIPT_VARIABLE, "Scope": "global"}, variable)
    assert (got.id, got["Scope"]) == (17, "global")

    body = {"error": {"success": True}, "data": {"shieldZoneId": 1, "isEnabled": False, "mode": 3}}
    got = await call_with(body, scanning)
    assert (got.is_enabled, got["mode"]) == (False, 3)


# ------------------------------------------------------------------------ nulls


async def test_nulls_in_non_nullable_shield_fields() -> None:
    body = {
        "data": {
            **SHIELD_CONFIG,
            "learningModeUntil": None,
            "wafEnabled": None,
            "wafDisabledRules": None,
            "wafEngineConfig": [None, {"name": "a", "valueEncoded": None}],
            "rateLimitRulesLimit": None,
        }
    }

    config = await call_with(body, shield)

    assert config.shield_zone_id == 9001
    assert config.learning_mode_until is None  # sent as null: None, never UNSET
    assert config.waf_enabled is None
    assert config.waf_disabled_rules is None
    assert config.waf_engine_config[0] is None
    assert config.waf_engine_config[1].name == "a"
    assert config.waf_engine_config[1].value_encoded is None


@pytest.mark.parametrize(
    ("body", "call"),
    [
        ({**REGISTRY, "createdAt": None, "lastUpdatedAt": None, "isPublic": None}, registry),
        ({**TEMPLATE, "endpoints": None, "probes": None, "entryPoint": None}, template),
        ({**TEMPLATE, "environmentVariables": [None, {"name": "A", "value": None}]}, template),
        ({"data": {"shieldZoneId": None, "isEnabled": None}, "error": None}, scanning),
        ({**SCRIPT_VARIABLE, "Name": None, "DefaultValue": None}, variable),
    ],
)
async def test_nulls_do_not_fail_a_call(body: Any, call: Any) -> None:
    assert await call_with(body, call) is not None


# -------------------------------------------------------------- missing fields


@pytest.mark.parametrize(
    ("body", "call", "model"),
    [
        ({"data": {}}, shield, models.ShieldZoneConfig),
        ({"data": {}}, scanning, models.UploadScanningConfig),
        ({}, registry, models.ContainerRegistry),
        ({}, template, models.ContainerTemplate),
        ({"Id": 5}, variable, models.ScriptVariable),
        ({"data": {"shieldZoneId": 1}}, shield, models.ShieldZoneConfig),
    ],
)
async def test_missing_optional_fields(body: Any, call: Any, model: type) -> None:
    assert isinstance(await call_with(body, call), model)


# ------------------------------------------------------------ wrapper members


async def test_extra_wrapper_members() -> None:
    config = await call_with(
        {"data": SHIELD_CONFIG, "meta": {"requestId": "r-1"}, "error": None, "page": 1}, shield
    )
    assert config.shield_zone_id == 9001

    config = await call_with(
        {"data": SHIELD_CONFIG, "error": {"success": True, "message": ""}}, shield
    )
    assert config.shield_zone_id == 9001

    state = await call_with(
        {
            "error": {"success": True, "message": "", "errorKey": "", "traceId": "t"},
            "data": {"shieldZoneId": 9001, "isEnabled": True},
            "requestId": "r-2",
        },
        scanning,
    )
    assert state.is_enabled is True

    state = await call_with({"data": {"isEnabled": False}}, scanning)  # no `error` member
    assert state.is_enabled is False


@pytest.mark.parametrize("error", ["", None])
async def test_registry_add_with_extra_members(error: Any) -> None:
    body = {"id": 9, "error": error, "warnings": ["slow"], "createdAt": "2026-01-01"}
    assert await call_with(body, lambda c: c.registries.add(display_name="main")) == 9


async def test_dates_with_offsets() -> None:
    body = {**REGISTRY, "createdAt": "2026-11-01T10:30:00+02:00", "lastUpdatedAt": "2026-11-02"}
    got = await call_with(body, registry)
    assert got.created_at == datetime.datetime(2026, 11, 1, 8, 30, tzinfo=datetime.UTC)
    assert got.last_updated_at == datetime.datetime(2026, 11, 2)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode(),
        lambda text: b"\xef\xbb\xbf" + text.encode(),  # UTF-8 with a BOM
        lambda text: text.encode("utf-16"),
        lambda text: text.encode("utf-32-le"),
    ],
    ids=["utf-8", "utf-8 with BOM", "utf-16", "utf-32"],
)
async def test_json_bodies_read_in_every_encoding_json_allows(encode: Any) -> None:
    """Bodies are decoded as UTF-8 text first; anything else falls back to json's sniffing."""
    body = encode(json.dumps({"id": 31, "displayName": "mäin"}))
    async with mock_client(Recorder(httpx.Response(200, content=body))) as client:
        found = await registry(client)
    assert (found.id, found.display_name) == (31, "mäin")


@pytest.mark.parametrize("body", [b"\xff\xfe{not json", b'{"id": 31', b"\x80abc"])
async def test_bodies_that_are_not_json_are_a_validation_error(body: bytes) -> None:
    async with mock_client(Recorder(httpx.Response(200, content=body))) as client:
        with pytest.raises(APIResponseValidationError, match="not JSON"):
            await registry(client)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"a": 1}, "the result is not a JSON array"),
        ([{"Id": 1}, None], "item 1 of the result cannot be read as ContainerRegistry"),
        (["text", {"Id": 1}], "item 0 of the result cannot be read as ContainerRegistry"),
    ],
)
def test_a_list_of_models_that_does_not_fit_is_a_validation_error(body: Any, message: str) -> None:
    """A result typed `list[Model]` (the live documents' list operations): an item that is
    not the model is the SDK's error, naming the item, never a raw TypeError."""
    from edgedelivery_openapi.models import ContainerRegistry

    from edgedelivery_async import APIResponseValidationError
    from edgedelivery_async._http import RawResponse
    from edgedelivery_async._response import ListOf, parse

    raw = RawResponse("GET", "https://x.invalid/a", "/a", 200, {}, json.dumps(body).encode())
    with pytest.raises(APIResponseValidationError, match=message):
        parse(ListOf(ContainerRegistry), raw, body)
    fine = parse(ListOf(ContainerRegistry), raw, [{"id": 1, "New": 1}, {}])
    assert [type(item) for item in fine] == [ContainerRegistry, ContainerRegistry]
    assert fine[0].additional_properties == {"New": 1}
