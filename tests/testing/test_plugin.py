"""The pytest plugin's fixtures, loaded through the package's `pytest11` entry point."""

from __future__ import annotations

from edgedelivery_async import EdgeDeliveryClient
from edgedelivery_async.testing import FakeEdgeDelivery


def test_fake_fixture_is_fresh_and_keyed(edgedelivery_fake: FakeEdgeDelivery) -> None:
    assert isinstance(edgedelivery_fake, FakeEdgeDelivery)
    assert edgedelivery_fake.access_key
    assert edgedelivery_fake.requests == []
    assert edgedelivery_fake.state.pull_zones == {}


async def test_client_fixture_talks_to_the_fake(
    edgedelivery_fake: FakeEdgeDelivery, edgedelivery_client: EdgeDeliveryClient
) -> None:
    edgedelivery_fake.seed_pull_zones(2)
    config = await edgedelivery_client.shield.get_zone_by_pull_zone(2)
    assert config.shield_zone_id == 100_002
    [recorded] = edgedelivery_fake.requests
    assert recorded.operation_id == "ShieldZone_GetByPullZone"
    assert recorded.status == 200
