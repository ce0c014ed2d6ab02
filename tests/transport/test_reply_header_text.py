"""Header values outside ASCII are read, or left out, never a raw error.

aiohttp and wreq read them as UTF-8 (other bytes as lone surrogates), a caller's httpx
client its own way; pyreqwest reads no value outside visible ASCII, so on reqwest such
a field is left out and the rest of the reply is read. `http_response` and an error's
`response` (httpx objects) take them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIStatusError

from .loopback import EVERY_TRANSPORT, open_client


class Replies:
    """A loopback server whose every reply has the status and extra header lines given."""

    def __init__(self) -> None:
        self.status = b"200 OK"
        self.lines = b""
        self.base_url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(
                b"HTTP/1.1 %s\r\n%sContent-Type: application/json\r\nContent-Length: 7\r\n"
                b'Connection: close\r\n\r\n{"a":1}' % (self.status, self.lines)
            )
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Replies]:
    replies = Replies()
    listening = await asyncio.start_server(replies.handle, "127.0.0.1", 0)
    replies.base_url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}"
    async with listening:
        yield replies


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
async def test_a_utf_8_header_value_is_read(transport: str, server: Replies) -> None:
    server.lines = "X-Note: café\r\nX-Plain: ok\r\n".encode()
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
    transport: str, value: bytes, server: Replies
) -> None:
    server.status = b"500 Internal Server Error"
    server.lines = b"X-Note: %s\r\nRetry-After: %s\r\n" % (value, value)
    async with open_client(transport, "k" * 36, server.base_url, max_retries=0) as client:
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")

    assert info.value.status_code == 500
    assert info.value.response.status_code == 500
    assert info.value.response.json() == {"a": 1}
