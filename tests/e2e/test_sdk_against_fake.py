"""End to end: the SDK (default aiohttp transport) against the fake served on loopback.

Every request the SDK sends is checked afterwards by an independent validator,
openapi-core, against openapi/edge-delivery-1.0.0.yaml as regenerate.sh read it: after
codegen/prepare_spec.py's repairs (our document needs none; one taken as published may
have a default that breaks its own minimum, which openapi-core refuses).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers

from edgedelivery_async import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    EdgeDeliveryClient,
    InternalServerError,
    NotFoundError,
    RateLimitError,
    RetryPolicy,
    collect,
)
from edgedelivery_async.testing import FakeEdgeDelivery

ROOT = Path(__file__).parents[2]
SPEC = ROOT / "openapi" / "edge-delivery-1.0.0.yaml"
KEY = "e2e-secret-key"
FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002)


@dataclass
class RecordedForOpenAPI:
    """A recorded request in the shape openapi-core reads."""

    host_url: str
    path: str
    method: str
    content_type: str
    body: bytes | None
    parameters: RequestParameters = field(default_factory=RequestParameters)


def repaired() -> dict[str, Any]:
    """The document after prepare_spec's repairs."""
    spec = importlib.util.spec_from_file_location("prepare_spec", ROOT / "codegen/prepare_spec.py")
    assert spec is not None
    assert spec.loader is not None
    prepare_spec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prepare_spec)
    document = yaml.load(SPEC.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    fixed: dict[str, Any] = prepare_spec.repair(document)[0]
    return fixed


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    return OpenAPI.from_dict(repaired())


def documented_server() -> str:
    """The document's server URL: requests are matched by path, method and body, not host."""
    spec = yaml.safe_load(SPEC.read_text())
    return str(spec["servers"][0]["url"])


@dataclass
class World:
    fake: FakeEdgeDelivery
    client: EdgeDeliveryClient
    url: str
    pull_zone: int
    script: int
    app: str


@pytest.fixture
async def world(openapi: OpenAPI) -> AsyncIterator[World]:
    fake = FakeEdgeDelivery(access_key=KEY)
    pull_zone = fake.add_pull_zone(hostnames=["cdn.example.test", "img.example.test"])
    fake.add_shield_zone(pull_zone)
    script = fake.add_script()
    app = fake.add_app()
    async with fake.serve() as url, EdgeDeliveryClient(KEY, url, retry=FAST) as client:
        yield World(fake, client, url, pull_zone, script, app)
    # The SDK's requests conform to the document: up to five of each operation and status
    # (openapi-core takes tens of milliseconds a request; the bulk test sends hundreds).
    seen: dict[tuple[str | None, int | None], int] = {}
    for recorded in fake.requests:
        kind = (recorded.operation_id, recorded.status)
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] > 5:
            continue
        body = None if recorded.json is None else json.dumps(recorded.json).encode()
        request = RecordedForOpenAPI(
            host_url=documented_server(),
            path=recorded.path,
            method=recorded.method.lower(),
            content_type=recorded.headers.get("content-type", ""),
            body=body,
            parameters=RequestParameters(header=Headers(recorded.headers)),
        )
        openapi.validate_request(request)  # raises on any violation


async def test_set_force_ssl(world: World) -> None:
    result = await world.client.pull_zones.set_force_ssl(
        world.pull_zone, hostname="img.example.test", force_ssl=True
    )
    assert result is None
    assert world.fake.force_ssl(world.pull_zone, "img.example.test") is True
    assert world.fake.force_ssl(world.pull_zone, "cdn.example.test") is False


async def test_force_ssl_error_paths(world: World) -> None:
    with pytest.raises(NotFoundError) as missing:
        await world.client.pull_zones.set_force_ssl(99_999, hostname="x.test", force_ssl=True)
    assert missing.value.status_code == 404
    with pytest.raises(BadRequestError) as unknown_host:
        await world.client.pull_zones.set_force_ssl(
            world.pull_zone, hostname="other.test", force_ssl=True
        )
    assert unknown_host.value.field == "Hostname"
    assert unknown_host.value.message


async def test_script_variables_get_increasing_ids(world: World) -> None:
    first = await world.client.compute.add_script_variable(
        world.script, name="API_URL", required=True, default_value="https://x.test"
    )
    second = await world.client.compute.add_script_variable(world.script, name="LEVEL")
    assert (first.name, first.required, first.default_value) == ("API_URL", True, "https://x.test")
    assert second.id > first.id
    assert [v["Name"] for v in world.fake.script_variables(world.script)] == ["API_URL", "LEVEL"]


async def test_dns_zone_add_and_duplicate(world: World) -> None:
    records = [{"Name": "www", "Ttl": 300, "Value": "192.0.2.1", "EnviromentalVariables": []}]
    created = await world.client.dns_zones.add(domain="example.test", records=records)
    # The SDK returns the body as the server sent it, parsed, without reshaping it.
    assert created == world.fake.dns_zones()[0]
    assert created["Domain"] == "example.test"
    assert created["Records"][0]["Value"] == "192.0.2.1"
    with pytest.raises(BadRequestError) as duplicate:
        await world.client.dns_zones.add(domain="example.test")
    assert duplicate.value.field == "Domain"
    assert duplicate.value.error_key == "dnszone.domain_taken"


async def test_container_template_and_environment_replacement(world: World) -> None:
    template = await world.client.containers.add_template(
        world.app,
        name="api",
        image="registry.example.test/team/api:1.0",
        environment_variables={"A": "1", "B": "2"},
        endpoints=[
            {
                "displayName": "public",
                "cdn": {
                    "isSslEnabled": True,
                    "pullZoneId": world.pull_zone,
                    "portMappings": [{"containerPort": 8080, "exposedPort": 443}],
                },
            }
        ],
    )
    assert template.id
    assert template.package_id
    endpoint = template.endpoints[0]  # type: ignore[index]
    assert endpoint.id
    assert endpoint.public_host
    assert endpoint.pull_zone_id == str(world.pull_zone)

    updated = await world.client.containers.set_environment(
        world.app,
        template.id,
        {"C": "3"},  # type: ignore[arg-type]
    )
    env = {v.name: v.value for v in updated.environment_variables}  # type: ignore[union-attr]
    assert env == {"C": "3"}  # replaced, not merged
    assert world.fake.environment(world.app, template.id) == {"C": "3"}  # type: ignore[arg-type]


async def test_container_errors(world: World) -> None:
    with pytest.raises(NotFoundError):
        await world.client.containers.set_environment(world.app, "no-such-container", {"A": "1"})
    with pytest.raises(NotFoundError):
        await world.client.containers.add_template("no-such-app", name="x", image="nginx")


async def test_registry_add_get_and_password_never_whole(world: World) -> None:
    registry_id = await world.client.registries.add(display_name="main")
    registry = await world.client.registries.get(registry_id)
    assert registry.id == registry_id
    assert registry.display_name == "main"
    seeded = world.fake.add_registry("seeded", password="correct-horse-battery")
    record = await world.client.registries.get(seeded)
    assert record.first_password_symbols
    assert record.last_password_symbols
    assert "correct-horse-battery" not in json.dumps(record.to_dict())
    assert record.created_at is not None
    with pytest.raises(NotFoundError):
        await world.client.registries.get(987_654)


async def test_shield_reads(world: World) -> None:
    zone = await world.client.shield.get_zone_by_pull_zone(world.pull_zone)
    assert zone.pull_zone_id == world.pull_zone
    scanning = await world.client.shield.get_upload_scanning(zone.shield_zone_id)  # type: ignore[arg-type]
    assert scanning.shield_zone_id == zone.shield_zone_id
    with pytest.raises(NotFoundError):
        await world.client.shield.get_zone_by_pull_zone(424_242)
    with pytest.raises(NotFoundError) as no_scan:
        await world.client.shield.get_upload_scanning(424_242)
    assert no_scan.value.message


async def test_shield_needs_no_key(world: World) -> None:
    async with EdgeDeliveryClient(base_url=world.url) as anonymous:
        zone = await anonymous.shield.get_zone_by_pull_zone(world.pull_zone)
    assert zone.pull_zone_id == world.pull_zone
    assert "accesskey" not in world.fake.requests[-1].headers


async def test_wrong_key_is_an_authentication_error(world: World) -> None:
    async with EdgeDeliveryClient("wrong-key", world.url) as wrong:
        with pytest.raises(AuthenticationError) as core:
            await wrong.pull_zones.set_force_ssl(
                world.pull_zone, hostname="cdn.example.test", force_ssl=True
            )
        with pytest.raises(AuthenticationError) as container:
            await wrong.registries.add(display_name="x")
    assert "wrong-key" not in str(core.value) + str(container.value)
    assert container.value.message


async def test_retries_absorb_injected_faults(world: World) -> None:
    world.fake.fail_next("ShieldZone_GetByPullZone", status=503, times=2)
    reply = await world.client.shield.get_zone_by_pull_zone.with_response(world.pull_zone)
    assert reply.retries_taken == 2
    assert reply.status_code == 200

    world.fake.fail_next("ContainerRegistry_Add", status=429, times=1, retry_after=0)
    assert await world.client.registries.add(display_name="after-429") > 0

    world.fake.drop_next("ShieldZone_GetUploadScanning")
    zone_id = world.fake.shield_zone_id_for(world.pull_zone)
    assert (await world.client.shield.get_upload_scanning(zone_id)).shield_zone_id == zone_id


async def test_posts_are_not_retried_when_the_server_may_have_acted(world: World) -> None:
    world.fake.fail_next("ComputeScript_AddVariable", status=500, times=1)
    with pytest.raises(InternalServerError):
        await world.client.compute.add_script_variable(world.script, name="X")
    assert len(world.fake.requests_for("ComputeScript_AddVariable")) == 1

    world.fake.drop_next("ComputeScript_AddVariable", after_processing=True)
    with pytest.raises(APIConnectionError) as dropped:
        await world.client.compute.add_script_variable(world.script, name="Y")
    assert dropped.value.request_sent
    assert [v["Name"] for v in world.fake.script_variables(world.script)] == ["Y"]


async def test_persistent_rate_limit_surfaces_with_retry_after(world: World) -> None:
    # 1 + max_rate_limited_retries (6 by default): a 429's retries are counted apart
    world.fake.fail_next("ShieldZone_GetByPullZone", status=429, times=7, retry_after=0)
    with pytest.raises(RateLimitError) as limited:
        await world.client.shield.get_zone_by_pull_zone(world.pull_zone)
    assert limited.value.retry_after == 0


async def test_bulk_read_over_loopback(world: World) -> None:
    world.fake.seed_pull_zones(300)
    world.fake.set_faults(rate_503=0.1, operation_id="ShieldZone_GetByPullZone")
    outcome = await collect(
        world.client.with_options(max_retries=5).shield.iter_zones_by_pull_zones(
            range(1, 301), concurrency=50
        )
    )
    assert set(outcome.values) | set(outcome.errors) == set(range(1, 301))
    assert len(outcome.values) >= 290
    assert all(outcome.values[pz].pull_zone_id == pz for pz in outcome.values)
