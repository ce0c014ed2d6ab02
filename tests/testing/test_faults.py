"""Fault injection: exact queued faults, seeded shares, latency and dropped connections."""

from __future__ import annotations

import asyncio
import types

import httpx
import pytest

from edgedelivery_async import ConfigurationError
from edgedelivery_async.testing import FakeEdgeDelivery, _fake

from .conftest import AUTH, KEY

SHIELD = "/shield/shield-zone/get-by-pullzone/1"


async def test_fail_next_with_retry_after(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    fake.fail_next("ShieldZone_GetByPullZone", status=429, times=2, retry_after=3)
    statuses = [(await http.get(SHIELD)) for _ in range(3)]
    assert [r.status_code for r in statuses] == [429, 429, 200]
    assert statuses[0].headers["retry-after"] == "3"
    assert statuses[0].json()["status"] == 429
    assert "retry-after" not in statuses[2].headers
    assert [r.fault for r in fake.requests] == ["status", "status", None]


async def test_fail_next_targets_one_operation(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.fail_next("ContainerRegistry_Get", status=500)
    assert (await http.get(SHIELD)).status_code == 200
    failed = await http.get("/mc/registries/1", headers=AUTH)
    assert failed.status_code == 500
    assert "retry-after" not in failed.headers


async def test_fail_next_without_operation_hits_the_next_request(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.fail_next(status=503, retry_after=0)
    response = await http.post("/dnszone", json={"Domain": "a.test"}, headers=AUTH)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "0"
    assert response.json()["ErrorKey"] == "fake.injected_fault"
    assert fake.dns_zones() == []  # an injected reply does not touch the state


async def test_faults_keep_force_ssl_bodies_empty(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.fail_next("PullZonePublic_SetForceSSL", status=500)
    fake.fail_next("PullZonePublic_SetForceSSL", status=503, retry_after=1)
    for status in (500, 503):
        response = await http.post(
            "/pullzone/1/setForceSSL",
            json={"Hostname": "pz1.example.test", "ForceSSL": True},
            headers=AUTH,
        )
        assert response.status_code == status
        assert response.content == b""


async def test_rates_with_a_per_operation_override(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.set_faults(rate_500=1.0)
    fake.set_faults(operation_id="ShieldZone_GetByPullZone")  # this one: no faults
    assert (await http.get("/mc/registries/1", headers=AUTH)).status_code == 500
    assert (await http.get(SHIELD)).status_code == 200
    fake.clear_faults()
    assert (await http.get("/shield/shield-zone/100001/upload-scanning")).status_code == 200


async def test_rate_429_sends_retry_after(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    fake.set_faults(rate_429=1.0, retry_after=2)
    response = await http.get(SHIELD)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"


async def _statuses(seed: int) -> list[int]:
    fake = FakeEdgeDelivery(KEY, seed=seed, pull_zones=1)
    fake.set_faults(rate_429=0.2, rate_500=0.2, rate_503=0.2)
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        return [(await http.get(SHIELD)).status_code for _ in range(60)]


async def test_shares_are_reproducible_from_the_seed() -> None:
    first, again, other = await _statuses(1), await _statuses(1), await _statuses(2)
    assert first == again
    assert first != other
    assert {429, 500, 503, 200} == set(first)


async def test_dropped_before_the_request_is_a_connect_error(fake: FakeEdgeDelivery) -> None:
    fake.drop_next("ComputeScript_AddVariable")
    async with httpx.AsyncClient(transport=fake.transport(), base_url="https://fake.test") as http:
        with pytest.raises(httpx.ConnectError):
            await http.post("/compute/script/7/variables/add", json={"Name": "A"}, headers=AUTH)
        assert fake.script_variables(7) == []
        assert (
            await http.post("/compute/script/7/variables/add", json={"Name": "A"}, headers=AUTH)
        ).status_code == 200
    assert [r.status for r in fake.requests] == [None, 200]


async def test_dropped_after_processing_loses_only_the_reply(fake: FakeEdgeDelivery) -> None:
    fake.drop_next(after_processing=True)
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post("/compute/script/7/variables/add", json={"Name": "A"}, headers=AUTH)
    assert [v["Name"] for v in fake.script_variables(7)] == ["A"]


async def test_dropped_connection_over_loopback(fake: FakeEdgeDelivery) -> None:
    fake.drop_next("DnsZone_Add")
    async with fake.serve() as url, httpx.AsyncClient(base_url=url) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post("/dnszone", json={"Domain": "a.test"}, headers=AUTH)
        # The server goes on answering on fresh connections.
        assert (await http.post("/dnszone", json={"Domain": "a.test"}, headers=AUTH)).is_success


async def test_drop_rate_over_loopback(fake: FakeEdgeDelivery) -> None:
    fake.set_faults(drop_rate=1.0)
    async with fake.serve() as url, httpx.AsyncClient(base_url=url) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.get(SHIELD)


async def test_latency_is_added_per_operation(
    fake: FakeEdgeDelivery, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(_fake, "asyncio", types.SimpleNamespace(sleep=sleep))
    fake.set_faults(latency=0.25)
    fake.set_faults(latency=1.5, operation_id="ShieldZone_GetUploadScanning")
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        await http.get(SHIELD)
        await http.get("/shield/shield-zone/100001/upload-scanning")
        await http.get("/not/an/operation")
    assert slept == [0.25, 1.5]


def test_bad_fault_settings_are_refused(fake: FakeEdgeDelivery) -> None:
    with pytest.raises(KeyError, match="unknown operation id"):
        fake.fail_next("NoSuchOperation")
    with pytest.raises(ValueError, match="add up"):
        fake.set_faults(rate_429=0.6, rate_500=0.6)
    with pytest.raises(ValueError, match="4xx or 5xx"):
        fake.fail_next(status=200)
    with pytest.raises(ValueError, match="times"):
        fake.drop_next(times=0)


@pytest.mark.parametrize(
    "settings",
    [
        {"latency": float("inf")},
        {"latency": float("nan")},
        {"latency": 86_401},
        {"latency": True},
        {"rate_503": float("nan")},
        {"retry_after": float("inf")},
        {"retry_after": -1},
    ],
)
def test_latencies_and_shares_it_cannot_keep_are_refused(
    fake: FakeEdgeDelivery, settings: dict[str, float]
) -> None:
    """latency=inf (or NaN) was accepted, and every request then waited for ever."""
    with pytest.raises(ConfigurationError, match=r"latency and retry_after|fault rates"):
        fake.set_faults(**settings)  # type: ignore[arg-type]


async def test_an_access_key_that_is_not_utf8_is_refused_with_401(fake: FakeEdgeDelivery) -> None:
    """Bytes that are not UTF-8 in the AccessKey header were a 500 from the fake's own
    UnicodeEncodeError."""
    async with fake.serve() as url:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"GET /mc/registries/1 HTTP/1.1\r\nHost: x\r\n"
            b"AccessKey: \xff\xfeabc\r\nConnection: close\r\n\r\n"
        )
        await writer.drain()
        status_line = await reader.readline()
        writer.close()
    assert status_line.split()[1] == b"401", status_line


@pytest.mark.parametrize(
    "options",
    [
        {"times": 1.5},  # never stopped: faults.pending went to -3.5
        {"times": "2"},
        {"status": "503"},
        {"retry_after": "soon"},  # was sent as the Retry-After header
        {"retry_after": -5},
    ],
)
def test_fail_next_refuses_nonsense(fake: FakeEdgeDelivery, options: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        fake.fail_next("ShieldZone_GetByPullZone", **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [[1], {}, object(), 1.5, "x", True])
def test_a_seed_that_is_not_a_whole_number_is_refused(seed: object) -> None:
    """A list, a dict or an object was random's raw TypeError; 1.5, "x" and True were
    taken, though the seed is documented as an int (or None)."""
    with pytest.raises(ConfigurationError, match="seed is a whole number or None"):
        FakeEdgeDelivery(KEY, seed=seed)  # type: ignore[arg-type]
    fake = FakeEdgeDelivery(KEY, seed=None)
    with pytest.raises(ConfigurationError, match="seed is a whole number or None"):
        fake.faults.reseed(seed)  # type: ignore[arg-type]
    fake.faults.reseed(2**80)  # (any whole number)
