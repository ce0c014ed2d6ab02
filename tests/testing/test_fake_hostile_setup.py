"""The fake under odd set-ups and odd requests (found by a hostile audit of the fake):
arguments it refused with Python's own exceptions or took silently, state it let a
request corrupt, a seed file that hung, a limit that re-setting bypassed, a request log
that grew without bound, and a fault of its own that escaped as an exception."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from edgedelivery_async import ConfigurationError
from edgedelivery_async.testing import FakeEdgeDelivery, RateLimit
from edgedelivery_async.testing._fake import MAX_RECORDED_BODY
from edgedelivery_async.testing._seedfile import apply_seed

from .conftest import AUTH, KEY


# ------------------------------------------------------------ arguments
@pytest.mark.parametrize(
    "make",
    [
        lambda: FakeEdgeDelivery(123),  # type: ignore[arg-type]
        lambda: FakeEdgeDelivery("\ud800"),
        lambda: FakeEdgeDelivery("key\n"),
        lambda: FakeEdgeDelivery(" key"),
        lambda: FakeEdgeDelivery(KEY, request_log_limit=-1),
        lambda: FakeEdgeDelivery(KEY, request_log_limit="100"),  # type: ignore[arg-type]
        lambda: FakeEdgeDelivery(KEY, pull_zones="3"),  # type: ignore[arg-type]
        lambda: FakeEdgeDelivery(KEY, pull_zones=2.0),  # type: ignore[arg-type]
        lambda: FakeEdgeDelivery(KEY, pull_zones=-5),
        lambda: FakeEdgeDelivery(KEY, pull_zones=10**12),
        lambda: FakeEdgeDelivery(KEY, document="x"),  # type: ignore[arg-type]
        lambda: FakeEdgeDelivery(KEY, document={"paths": {"/a": {"get": {"responses": {}}}}}),
    ],
)
def test_the_constructor_refuses_what_it_cannot_use(make: Callable[[], object]) -> None:
    with pytest.raises(ConfigurationError):
        make()


def test_a_log_of_every_request_is_allowed() -> None:
    fake = FakeEdgeDelivery(KEY, request_log_limit=None)
    assert fake.requests == []


@pytest.mark.parametrize(
    "call",
    [
        lambda fake: fake.seed_pull_zones("3"),
        lambda fake: fake.add_script("7"),
        lambda fake: fake.add_app(5),
        lambda fake: fake.add_app(""),
        lambda fake: fake.add_template("no-such-app"),
        lambda fake: fake.add_template("app-1", "x"),
        lambda fake: fake.add_registry(password=None),
        lambda fake: fake.add_registry(display_name=3),
        lambda fake: fake.add_registry(is_public="yes"),
        lambda fake: fake.set_upload_scanning(100001, "yes"),
        lambda fake: fake.has_registry_password(1, None),
        lambda fake: fake.reply_next("ContainerRegistry_Get", "nulls", times="2"),
        lambda fake: fake.reply_next("ContainerRegistry_Get", "nulls", times=None),
        lambda fake: fake.reply_next("Nope_Get", "nulls"),
        lambda fake: fake.fail_next("Nope_Get"),
        lambda fake: fake.drop_next("Nope_Get"),
        lambda fake: fake.set_faults(operation_id="Nope_Get"),
        lambda fake: fake.serve(port=70000),
        lambda fake: fake.serve(port=1.5),
        lambda fake: fake.serve(port=None),
        lambda fake: fake.serve(host=None),
    ],
)
def test_helpers_refuse_bad_arguments_with_a_configuration_error(
    fake: FakeEdgeDelivery, call: Callable[[FakeEdgeDelivery], object]
) -> None:
    fake.add_registry(password="secret")
    with pytest.raises(ConfigurationError):
        call(fake)


def test_an_unknown_operation_id_is_one_error_for_every_helper(fake: FakeEdgeDelivery) -> None:
    """It was a KeyError from three helpers and a ValueError from the fourth; it is both."""
    for call in (
        lambda: fake.fail_next("Nope_Get"),
        lambda: fake.reply_next("Nope_Get", "nulls"),
    ):
        with pytest.raises(KeyError, match="unknown operation id 'Nope_Get'"):
            call()
        with pytest.raises(ValueError, match="unknown operation id 'Nope_Get'"):
            call()


@pytest.mark.parametrize(
    ("read", "what"),
    [
        (lambda fake: fake.hostnames(999), "no pull zone 999"),
        (lambda fake: fake.force_ssl(999, "a.test"), "no pull zone 999"),
        (lambda fake: fake.script_variables(999), "no script 999"),
        (lambda fake: fake.templates("nope"), "no app 'nope'"),
        (lambda fake: fake.registry(999), "no registry 999"),
        (lambda fake: fake.shield_zone(999), "no shield zone for pull zone 999"),
        (lambda fake: fake.shield_zone_id_for([1]), "no shield zone for pull zone"),
    ],
)
def test_read_back_of_what_is_not_there_says_what(
    fake: FakeEdgeDelivery, read: Callable[[FakeEdgeDelivery], object], what: str
) -> None:
    with pytest.raises(KeyError, match=what):
        read(fake)


# ---------------------------------------------------------------- state
def test_shield_zone_overrides_keep_the_ids_and_the_types(fake: FakeEdgeDelivery) -> None:
    zone = fake.add_pull_zone()
    for overrides in ({"shieldZoneId": 5}, {"pullZoneId": 999}, {"wafEnabled": "nope"},
                      {"wafProfileId": True}, {"wafDisabledRules": "x"}):  # fmt: skip
        with pytest.raises(ConfigurationError):
            fake.add_shield_zone(zone, **overrides)
    shield = fake.add_shield_zone(zone, wafEnabled=False, wafDisabledRules=["1"])
    assert fake.shield_zone(zone)["shieldZoneId"] == shield
    assert fake.shield_zone(zone)["wafEnabled"] is False


@pytest.mark.parametrize(
    "add",
    [
        lambda fake: fake.add_shield_zone(99999),  # no such pull zone
        lambda fake: fake.add_shield_zone(fake.add_pull_zone(), wafNope=1),
        lambda fake: _two_shield_zones(fake, fake.add_pull_zone()),
        lambda fake: fake.add_pull_zone(fake.add_pull_zone()),  # exists
        lambda fake: fake.add_script(fake.add_script()),
        lambda fake: fake.add_app(fake.add_app()),
        lambda fake: fake.add_template(fake.add_app(), {"name": 5}),
    ],
)
def test_a_seeding_helper_refuses_with_configuration_error(
    fake: FakeEdgeDelivery, add: Callable[[FakeEdgeDelivery], object]
) -> None:
    """They raised a bare ValueError or TypeError, where the README says
    ConfigurationError (the SDK's own tree, still a ValueError)."""
    with pytest.raises(ConfigurationError):
        add(fake)


def _two_shield_zones(fake: FakeEdgeDelivery, pull_zone: int) -> None:
    fake.add_shield_zone(pull_zone)
    fake.add_shield_zone(pull_zone)  # the pull zone has one already


async def test_dns_record_ids_are_the_fakes_own(http: httpx.AsyncClient) -> None:
    body = {"Domain": "ids.example.test", "Records": [{"Id": 1, "Name": "www"}, {"Id": 1}]}
    created = await http.post("/dnszone", json=body, headers=AUTH)
    assert created.status_code in (200, 201), created.text
    ids = [record["Id"] for record in created.json()["Records"]]
    assert len(set(ids)) == 2
    assert all(isinstance(record_id, int) for record_id in ids)


async def test_environment_reads_variables_without_a_value(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    body = {"name": "app", "image": "nginx:latest", "environmentVariables": [{"name": "A"}]}
    created = await http.post("/mc/apps/app-1/containers", json=body, headers=AUTH)
    assert created.status_code in (200, 201), created.text
    assert fake.environment("app-1", created.json()["id"]) == {"A": ""}


def test_a_seed_file_asking_for_large_ids_is_applied_at_once() -> None:
    """The ids were reached by adding and deleting one registry (template) at a time:
    id 2**31 - 1 took hours."""
    fake = FakeEdgeDelivery(KEY)
    seed = {
        "registries": [{"id": 2**31 - 1, "displayName": "far"}],
        "apps": [{"id": "app-9", "templates": [{"id": "tpl-100000000"}]}],
    }
    apply_seed(fake, seed)
    assert fake.registry(2**31 - 1)["displayName"] == "far"
    assert fake.add_registry() == 2**31
    assert [t["id"] for t in fake.templates("app-9")] == ["tpl-100000000"]
    assert fake.add_template("app-9") == "tpl-100000001"


# ---------------------------------------------------------- rate limit
async def test_setting_a_limit_again_hands_out_no_fresh_burst(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.set_rate_limit(RateLimit(0.01, burst=2))
    statuses = [(await http.get("/mc/registries/1", headers=AUTH)).status_code]
    statuses.append((await http.get("/mc/registries/1", headers=AUTH)).status_code)
    for limit in (RateLimit(0.01, burst=2), RateLimit(0.01, burst=5), RateLimit(0.001, burst=1)):
        fake.set_rate_limit(limit)
        statuses.append((await http.get("/mc/registries/1", headers=AUTH)).status_code)
    assert statuses[2:] == [429, 429, 429]


async def test_a_lower_burst_holds_a_key_to_it(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.set_rate_limit(RateLimit(0.01, burst=10))
    assert (await http.get("/mc/registries/1", headers=AUTH)).status_code != 429
    fake.set_rate_limit(RateLimit(0.01, burst=2))
    statuses = [(await http.get("/mc/registries/1", headers=AUTH)).status_code for _ in range(3)]
    assert statuses.count(429) == 1


# ---------------------------------------------------- the fake's own faults
async def test_a_fault_of_the_fake_is_a_500_of_the_operation_and_is_recorded(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    """State a test changed by hand (here a password that is not a string) made the
    request raise: in-process a TypeError out of the transport, on loopback aiohttp's
    text/plain 500, and the request was not recorded."""
    registry = fake.add_registry(password="secret")
    fake.state.registries[registry].password = None  # type: ignore[assignment]
    reply = await http.get(f"/mc/registries/{registry}", headers=AUTH)
    assert reply.status_code == 500
    assert reply.headers["content-type"].startswith("application/")
    assert "TypeError" in reply.text
    assert KEY not in reply.text
    assert fake.requests[-1].status == 500


# ------------------------------------------------------------- the log
async def test_a_huge_body_is_recorded_as_a_placeholder(fake: FakeEdgeDelivery) -> None:
    """A log of 10,000 requests kept every body parsed: 1 MB bodies took 3.9 MiB each.
    (In-process: on loopback, aiohttp refuses a body this long before the fake.)"""
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        await _post_three(http, fake)


async def _post_three(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    big = b'{"Domain": "' + b"a" * (MAX_RECORDED_BODY + 1) + b'"}'
    headers = {**AUTH, "Content-Type": "application/json"}
    await http.post("/dnszone", content=big, headers=headers)
    await http.post("/no/such/path", content=b'{"a": 1}', headers=headers)
    first, second = fake.requests[-2:]
    assert isinstance(first.json, str)
    assert "not kept" in first.json
    assert second.json is None
    small: dict[str, Any] = {"Domain": "small.example.test"}
    await http.post("/dnszone", json=small, headers=AUTH)
    assert fake.requests[-1].json == small


@pytest.mark.parametrize(
    ("target", "message"),
    [("#/components/schemas/CycleA", "$ref cycle"), ("#/components/schemas/Gone", "Gone")],
)
def test_a_document_whose_refs_cannot_be_followed_is_refused_at_once(
    target: str, message: str
) -> None:
    """A cycle of `$ref`s (or a `$ref` to nothing) below an operation's body: the fake took
    the document, then a request raised the bare ValueError out of the transport."""
    import copy

    from edgedelivery_async.testing._document import Document

    spec = copy.deepcopy(Document().spec)
    schemas = spec["components"]["schemas"]
    if "Cycle" in target:
        schemas["CycleA"] = {"$ref": "#/components/schemas/CycleB"}
        schemas["CycleB"] = {"$ref": "#/components/schemas/CycleA"}
    holder = {"type": "object", "properties": {"x": {"$ref": target}}}
    spec["paths"]["/cycle"] = {
        "post": {
            "operationId": "Cycle_Post",
            "requestBody": {"content": {"application/json": {"schema": holder}}},
            "responses": {"204": {"description": "done"}},
        }
    }
    with pytest.raises(ConfigurationError, match="cannot serve this document") as raised:
        FakeEdgeDelivery(KEY, document=spec)
    assert message in str(raised.value)


def test_a_document_with_a_pattern_that_is_no_regular_expression_is_refused_at_once() -> None:
    """The fake took it; the operation's sampled reply (or a request checked against the
    pattern) then raised re.error out of FakeEdgeDelivery.handle."""
    import copy

    from edgedelivery_async.testing._document import Document

    spec = copy.deepcopy(Document().spec)
    reply = {"application/json": {"schema": {"type": "string", "pattern": "(a+)+["}}}
    spec["paths"]["/pattern"] = {
        "get": {
            "operationId": "Pattern_Get",
            "responses": {"200": {"description": "done", "content": reply}},
        }
    }
    with pytest.raises(ConfigurationError, match=r"cannot serve this document.*'\(a\+\)\+\['"):
        FakeEdgeDelivery(KEY, document=spec)


def test_a_document_whose_operation_has_a_recursive_schema_is_refused_at_once() -> None:
    """A tree (a node whose optional children are nodes) as a body: the fake took the
    document, then every request to the operation raised the validator's bare ValueError
    ("a recursive schema ... is not supported here") out of FakeEdgeDelivery.handle."""
    import copy

    from edgedelivery_async.testing._document import Document

    spec = copy.deepcopy(Document().spec)
    node = {"$ref": "#/components/schemas/Node"}
    spec["components"]["schemas"]["Node"] = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": node}},
    }
    spec["paths"]["/tree"] = {
        "post": {
            "operationId": "Tree_Post",
            "requestBody": {"content": {"application/json": {"schema": node}}},
            "responses": {"204": {"description": "done"}},
        }
    }
    with pytest.raises(ConfigurationError, match=r"cannot serve this document.*recursive schema"):
        FakeEdgeDelivery(KEY, document=spec)
