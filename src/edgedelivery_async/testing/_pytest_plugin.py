"""What the pytest plugin's fixtures build; imported when a test requests one of them.

The plugin itself is the top-level module `edgedelivery_async_pytest` (the `pytest11`
entry point `edgedelivery`). It imports nothing of the SDK, so a project that has the
package installed but never uses these fixtures does not pay for importing it; it calls
into this module from inside the fixtures.

- `edgedelivery_fake`: `new_fake()`, a fresh `FakeEdgeDelivery` accepting
  `EDGEDELIVERY_FAKE_KEY`.
- `edgedelivery_client`: `client_for(fake)`, an `EdgeDeliveryClient` wired to that fake
  in-process, closed afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx

from edgedelivery_async import EdgeDeliveryClient

from ._fake import FakeEdgeDelivery

EDGEDELIVERY_FAKE_KEY = "test-access-key"
EDGEDELIVERY_FAKE_URL = "https://fake.edgedelivery.test"


def new_fake() -> FakeEdgeDelivery:
    """A fresh fake API with no data; its key is `fake.access_key`."""
    return FakeEdgeDelivery(EDGEDELIVERY_FAKE_KEY)


@contextlib.asynccontextmanager
async def client_for(fake: FakeEdgeDelivery) -> AsyncIterator[EdgeDeliveryClient]:
    """A ready `EdgeDeliveryClient` talking to `fake` in-process."""
    async with httpx.AsyncClient(transport=fake.transport()) as http:
        client = EdgeDeliveryClient(
            access_key=fake.access_key,
            base_url=EDGEDELIVERY_FAKE_URL,
            http_client=http,
        )
        try:
            yield client
        finally:
            await client.aclose()
