"""Seeding helpers, read-back accessors and the framework-free core."""

from __future__ import annotations

import json

import pytest

from edgedelivery_async import ConfigurationError
from edgedelivery_async.testing import SEED_SHIELD_ZONE_OFFSET, FakeEdgeDelivery


def test_seed_pull_zones_is_deterministic() -> None:
    fake = FakeEdgeDelivery("k", pull_zones=3)
    assert sorted(fake.state.pull_zones) == [1, 2, 3]
    assert fake.hostnames(2) == {"pz2.example.test": False}
    assert [fake.shield_zone_id_for(z) for z in (1, 2, 3)] == [
        SEED_SHIELD_ZONE_OFFSET + z for z in (1, 2, 3)
    ]
    assert fake.shield_zone(3)["pullZoneId"] == 3
    fake.seed_pull_zones(4)  # tops up, keeps what exists
    assert sorted(fake.state.pull_zones) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "arguments",
    [
        {"hostnames": "abc"},  # made three one-letter hostnames
        {"hostnames": b"abc"},
        {"hostnames": ["a.example.test", 7]},
        {"hostnames": 5},  # (was list()'s raw TypeError)
        {"id": "5"},
        {"id": True},
        {"id": 2.5},
    ],
)
def test_add_pull_zone_refuses_what_is_not_a_pull_zone(arguments: dict[str, object]) -> None:
    fake = FakeEdgeDelivery("k")
    with pytest.raises(ConfigurationError, match=r"hostnames is a list|pull zone id is an inte"):
        fake.add_pull_zone(**arguments)  # type: ignore[arg-type]
    assert fake.state.pull_zones == {}


def test_add_pull_zone_reads_hostnames_from_any_iterable_once() -> None:
    fake = FakeEdgeDelivery("k")
    zone = fake.add_pull_zone(hostnames=(f"h{n}.example.test" for n in range(2)))
    assert fake.hostnames(zone) == {"h0.example.test": False, "h1.example.test": False}


def test_add_helpers_pick_free_ids_and_refuse_duplicates() -> None:
    fake = FakeEdgeDelivery("k")
    assert fake.add_pull_zone(hostnames=[]) == 1
    assert fake.add_pull_zone(10) == 10
    assert fake.add_pull_zone() == 11
    assert fake.add_script() == 1
    assert fake.add_app() == "app-1"
    assert fake.add_shield_zone(1) == 1
    with pytest.raises(ConfigurationError, match="exists"):
        fake.add_pull_zone(10)
    with pytest.raises(ConfigurationError, match="already has a shield zone"):
        fake.add_shield_zone(1)
    with pytest.raises(ConfigurationError, match="no pull zone"):
        fake.add_shield_zone(99)
    with pytest.raises(ConfigurationError, match="unknown shield zone fields"):
        fake.add_shield_zone(10, wafEnable=True)


def test_add_template_validates_against_the_document() -> None:
    fake = FakeEdgeDelivery("k")
    app = fake.add_app()
    with pytest.raises(ValueError, match="image or imageRegistryId"):
        fake.add_template(app, {"name": "x"})
    template_id = fake.add_template(app, {"name": "x", "image": "nginx"})
    assert fake.template(app, template_id)["image"] == "nginx"


def test_the_core_answers_raw_requests_without_a_framework() -> None:
    fake = FakeEdgeDelivery("k", pull_zones=1)
    reply = fake.handle(
        "POST",
        "/pullzone/1/setForceSSL?ignored=1",
        {"AccessKey": "k", "Content-Type": "application/json"},
        json.dumps({"Hostname": "pz1.example.test", "ForceSSL": True}).encode(),
    )
    assert (reply.status, reply.body) == (204, b"")
    assert fake.force_ssl(1, "pz1.example.test") is True
    shield = fake.handle("GET", "/shield/shield-zone/get-by-pullzone/1", {}, b"")
    assert shield.header("content-type") == "application/json"
    assert json.loads(shield.body)["data"]["shieldZoneId"] == 100_001
    assert fake.requests == []  # `handle` neither injects faults nor records


def test_the_key_stays_out_of_reprs() -> None:
    fake = FakeEdgeDelivery("sk-very-secret")
    assert "sk-very-secret" not in repr(fake) + repr(fake.app) + repr(fake.transport())
    with pytest.raises(ValueError, match="access_key"):
        FakeEdgeDelivery("")


def test_request_log_is_bounded() -> None:
    fake = FakeEdgeDelivery("k", request_log_limit=2)
    for _ in range(3):
        fake._record("GET", "/x", None, {}, b"", 404, None)
    assert len(fake.requests) == 2
    fake.clear_requests()
    assert fake.requests == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"id": "x"},  # was served as "shieldZoneId": "x", and the next add was a TypeError
        {"id": 1.5},
        {"id": True},
        {"id": 0},
        {"pull_zone_id": 1.0},  # was served as "pullZoneId": 1.0
        {"upload_scanning": "yes"},
    ],
)
def test_add_shield_zone_refuses_ids_and_flags_the_document_cannot_hold(
    arguments: dict[str, object],
) -> None:
    fake = FakeEdgeDelivery("k")
    fake.add_pull_zone(1)
    with pytest.raises(ConfigurationError):
        fake.add_shield_zone(**{"pull_zone_id": 1, **arguments})  # type: ignore[arg-type]
    assert fake.add_shield_zone(1) == 1  # nothing half-added; the next id is drawn as ever
    assert fake.shield_zone(1)["shieldZoneId"] == 1
