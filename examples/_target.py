"""Where the examples send requests: the real API when configured, else a fake one.

With EDGEDELIVERY_ACCESS_KEY and EDGEDELIVERY_BASE_URL set, `connect()` returns a client
for the real API. Otherwise it starts `FakeEdgeDelivery` (the SDK's stateful fake),
seeds it, and returns a client wired to it: in-process through its httpx transport, or
on 127.0.0.1 over the SDK's default aiohttp transport with `loopback=True`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import httpx

from edgedelivery_async import EdgeDeliveryClient, EdgeDeliveryError
from edgedelivery_async.testing import FakeEdgeDelivery


def run(main: Coroutine[Any, Any, None]) -> None:
    """Run an example; an error of the SDK's is one line on stderr and exit status 1."""
    try:
        asyncio.run(main)
    except EdgeDeliveryError as error:
        sys.exit(f"error: {error}")


def using_real_api() -> bool:
    """Whether the environment names a real account."""
    return bool(
        os.environ.get("EDGEDELIVERY_ACCESS_KEY") and os.environ.get("EDGEDELIVERY_BASE_URL")
    )


@asynccontextmanager
async def connect(
    seed: Callable[[FakeEdgeDelivery], object] | None = None, *, loopback: bool = False
) -> AsyncIterator[EdgeDeliveryClient]:
    """A client for the real API if configured, else for a fake seeded by `seed`."""
    if using_real_api():
        print(f"using the API at {os.environ['EDGEDELIVERY_BASE_URL']}")
        async with EdgeDeliveryClient() as client:  # key and URL from the environment
            yield client
        return
    fake = FakeEdgeDelivery()
    if seed is not None:
        seed(fake)
    if loopback:
        async with fake.serve() as url, EdgeDeliveryClient(fake.access_key, url) as client:
            print(f"using a fake API on {url}")
            yield client
        return
    print("using an in-process fake API")
    async with (
        httpx.AsyncClient(transport=fake.transport()) as http,
        EdgeDeliveryClient(fake.access_key, "https://fake.test", http_client=http) as client,
    ):
        yield client
