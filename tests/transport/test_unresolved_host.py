"""A host name that does not resolve gets a message that says so and names the host.

`.invalid` is reserved never to resolve (RFC 6761, 6.4): the resolver answers at once
that the name does not exist, and no server is ever reached.
"""

from __future__ import annotations

import pytest

from edgedelivery_async import APIConnectionError, APITimeoutError

from .loopback import EVERY_TRANSPORT, open_client

HOST = "no-such-host.invalid"


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_an_unresolved_host_is_named(name: str) -> None:
    async with open_client(name, "edk-dns-1", f"https://{HOST}", max_retries=0) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.request("GET", "/mc/registries/1")
    error = info.value
    assert not isinstance(error, APITimeoutError)
    assert str(error) == (
        f"GET /mc/registries/1: could not connect to {HOST}:443: "
        f"the host name {HOST} could not be resolved"
    )
    assert error.request_sent is False
