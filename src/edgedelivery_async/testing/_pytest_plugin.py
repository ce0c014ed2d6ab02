"""Pytest plugin (entry point `edgedelivery`): fixtures for testing code that uses the SDK.

- `edgedelivery_fake`: a fresh `FakeEdgeDelivery` accepting `EDGEDELIVERY_FAKE_KEY`.
- `edgedelivery_client`: an `EdgeDeliveryClient` wired to that fake in-process.

Pytest loads this module for everyone who has the package installed, so it imports only
pytest at module level; the async fixture uses pytest-asyncio when it is installed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pytest

from ._fake import FakeEdgeDelivery

if TYPE_CHECKING:
    from edgedelivery_async import EdgeDeliveryClient

EDGEDELIVERY_FAKE_KEY = "test-access-key"
EDGEDELIVERY_FAKE_URL = "https://fake.edgedelivery.test"

_F = TypeVar("_F", bound=Callable[..., Any])


def _async_fixture(func: _F) -> _F:
    """pytest-asyncio's fixture decorator when installed (works in strict mode too)."""
    try:
        import pytest_asyncio
    except ImportError:  # pragma: no cover - depends on the user's plugins
        return cast(_F, pytest.fixture(func))
    return cast(_F, pytest_asyncio.fixture(func))


@pytest.fixture
def edgedelivery_fake() -> FakeEdgeDelivery:
    """A fresh fake API with no data; its key is `fake.access_key`."""
    return FakeEdgeDelivery(EDGEDELIVERY_FAKE_KEY)


@_async_fixture
async def edgedelivery_client(
    edgedelivery_fake: FakeEdgeDelivery,
) -> AsyncIterator[EdgeDeliveryClient]:
    """A ready `EdgeDeliveryClient` talking to `edgedelivery_fake` in-process."""
    import httpx

    from edgedelivery_async import EdgeDeliveryClient

    async with httpx.AsyncClient(transport=edgedelivery_fake.transport()) as http:
        client = EdgeDeliveryClient(
            access_key=edgedelivery_fake.access_key,
            base_url=EDGEDELIVERY_FAKE_URL,
            http_client=http,
        )
        try:
            yield client
        finally:
            await client.aclose()
