"""A stateful fake Edge Delivery API for tests, in-process or on loopback.

    from edgedelivery_async.testing import FakeEdgeDelivery

    fake = FakeEdgeDelivery(access_key="test-key")
    zone = fake.add_pull_zone(hostnames=["cdn.example.test"])
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        ...

`fake.reply_next(operation_id, shape)` makes an operation answer as the live service may
(`REPLY_SHAPES`: a failure in a 2xx body, 202 without a result, nulls, ...).

`python -m edgedelivery_async.testing serve --port 8080 --access-key KEY` serves it on
loopback; the pytest plugin offers the `edgedelivery_fake` and `edgedelivery_client` fixtures.
"""

from ._fake import FakeEdgeDelivery, RecordedRequest
from ._faults import DroppedConnection, FaultRates, InjectedStatus
from ._httpx import FakeTransport
from ._rate_limit import RateLimit
from ._replies import Reply
from ._shapes import REPLY_SHAPES, ReplyShape
from ._state import SEED_SHIELD_ZONE_OFFSET

__all__ = [
    "REPLY_SHAPES",
    "SEED_SHIELD_ZONE_OFFSET",
    "DroppedConnection",
    "FakeEdgeDelivery",
    "FakeTransport",
    "FaultRates",
    "InjectedStatus",
    "RateLimit",
    "RecordedRequest",
    "Reply",
    "ReplyShape",
]
