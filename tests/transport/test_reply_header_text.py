"""Header values outside ASCII are read, or left out, never a raw error.

aiohttp and wreq read them as UTF-8 (other bytes as lone surrogates), a caller's httpx
client its own way; pyreqwest reads no value outside visible ASCII, so on reqwest such
a field is left out and the rest of the reply is read. `http_response` and an error's
`response` (httpx objects) take them all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIStatusError

from .loopback import EVERY_TRANSPORT, RawServer, open_client, raw_server


def answer(status: bytes, lines: bytes) -> bytes:
    """A reply with this status and these extra header lines, and a JSON body."""
    return (
        b"HTTP/1.1 %s\r\n%sContent-Type: application/json\r\nContent-Length: 7\r\n"
        b'Connection: close\r\n\r\n{"a":1}' % (status, lines)
    )


@pytest.fixture
async def server() -> AsyncIterator[RawServer]:
    async with raw_server() as raw:
        yield raw


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
async def test_a_utf_8_header_value_is_read(transport: str, server: RawServer) -> None:
    server.answer = answer(b"200 OK", "X-Note: café\r\nX-Plain: ok\r\n".encode())
    async with open_client(transport, "k" * 36, server.base_url, max_retries=0) as client:
        reply = await client.request.with_response("GET", "/pullzone/1")

    assert reply.parsed == {"a": 1}
    http = reply.http_response
    assert http.headers["x-plain"] == "ok"
    if transport == "reqwest":
        assert "x-note" not in http.headers
    else:
        assert http.headers["x-note"] == "café"


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
@pytest.mark.parametrize("value", [b"caf\xe9", b"\xff\xfe", "ü".encode() * 10])
async def test_an_error_reply_with_such_values_is_the_status_error(
    transport: str, value: bytes, server: RawServer
) -> None:
    lines = b"X-Note: %s\r\nRetry-After: %s\r\n" % (value, value)
    server.answer = answer(b"500 Internal Server Error", lines)
    async with open_client(transport, "k" * 36, server.base_url, max_retries=0) as client:
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")

    assert info.value.status_code == 500
    assert info.value.response.status_code == 500
    assert info.value.response.json() == {"a": 1}
