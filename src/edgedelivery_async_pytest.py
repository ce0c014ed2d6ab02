"""The pytest plugin of edgedelivery-async (the `pytest11` entry point `edgedelivery`).

- `edgedelivery_fake`: a fresh `FakeEdgeDelivery` accepting `EDGEDELIVERY_FAKE_KEY`.
- `edgedelivery_client`: an `EdgeDeliveryClient` wired to that fake in-process.

Pytest imports this module in every run of every project that has the package installed.
So it lives outside the `edgedelivery_async` package (importing anything in it imports the
whole SDK) and imports only pytest and pytest-asyncio, which pytest has loaded already when
it is installed. The SDK is imported when a test requests one of the fixtures; their bodies
are in `edgedelivery_async.testing._pytest_plugin`.

`edgedelivery_client` is declared with `pytest_asyncio.fixture`, so it works in
pytest-asyncio's strict mode (tests then need `@pytest.mark.asyncio`) and in auto mode.
`pip install 'edgedelivery-async[testing]'` installs pytest and pytest-asyncio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pytest

if TYPE_CHECKING:
    from edgedelivery_async import EdgeDeliveryClient
    from edgedelivery_async.testing import FakeEdgeDelivery

__all__ = ["edgedelivery_client", "edgedelivery_fake"]

_F = TypeVar("_F", bound=Callable[..., Any])


@pytest.fixture
def edgedelivery_fake() -> FakeEdgeDelivery:
    """A fresh fake API with no data; its key is `fake.access_key`."""
    from edgedelivery_async.testing._pytest_plugin import new_fake

    return new_fake()


def _needs_pytest_asyncio() -> None:
    pytest.fail(
        "the edgedelivery_client fixture needs pytest-asyncio: "
        "pip install 'edgedelivery-async[testing]'",
        pytrace=False,
    )


def _async_fixture(func: _F) -> _F:
    """`pytest_asyncio.fixture` (strict and auto mode); without pytest-asyncio, a clear error."""
    try:
        import pytest_asyncio
    except ImportError:  # the `testing` extra was not installed
        return cast(_F, pytest.fixture(_needs_pytest_asyncio, name=func.__name__))
    return cast(_F, pytest_asyncio.fixture(func))


@_async_fixture
async def edgedelivery_client(
    edgedelivery_fake: FakeEdgeDelivery,
) -> AsyncIterator[EdgeDeliveryClient]:
    """A ready `EdgeDeliveryClient` talking to `edgedelivery_fake` in-process."""
    from edgedelivery_async.testing._pytest_plugin import client_for

    async with client_for(edgedelivery_fake) as client:
        yield client
