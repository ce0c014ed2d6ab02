"""One reading of an odd status line on every transport.

A status below 100 is no HTTP status: hyper and h11 refuse the reply, and aiohttp read
`HTTP/1.1 000` as the status 0 (an `APIStatusError` with `status_code` 0 there, an
`APIConnectionError` everywhere else). Now each transport raises `APIConnectionError`,
and retries a GET as it does a failed connection. A three-digit status past 599 is a status
the SDK reads as a server error on each of them.
"""

from __future__ import annotations

import pytest

from edgedelivery_async import APIConnectionError, APIStatusError

from .loopback import EVERY_TRANSPORT, open_client, raw_server

BODY = b'{"id": 5}'


def answer(status_line: bytes) -> bytes:
    return (
        status_line + b"\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
        b"Connection: close\r\n\r\n" % len(BODY) + BODY
    )


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("line", [b"HTTP/1.1 000 Zero", b"HTTP/1.1 099 Low"])
async def test_a_status_below_100_is_a_connection_error(name: str, line: bytes) -> None:
    async with raw_server() as server:
        server.answer = answer(line)
        async with open_client(name, "edk-status-1", server.base_url, max_retries=2) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.registries.get(5)
    assert not isinstance(caught.value, APIStatusError)
    assert len(server.heads) == 3  # a GET, retried as a failed connection is


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_status_past_599_is_a_server_error(name: str) -> None:
    async with raw_server() as server:
        server.answer = answer(b"HTTP/1.1 600 High")
        async with open_client(name, "edk-status-1", server.base_url, max_retries=0) as client:
            with pytest.raises(APIStatusError) as caught:
                await client.registries.get(5)
    assert caught.value.status_code == 600
