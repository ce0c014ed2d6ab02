"""A server that closes the connection after each reply without saying so.

No `Connection: close`: the client keeps the connection, and the server's close reaches
it just after the reply. aiohttp took that connection from its pool for the next call
before the event loop had read the close, then found it closing when it came to write
the request: every second POST failed with `APIConnectionError` (a POST is not resent;
aiohttp resends a GET itself). The server had not seen those requests. Now the aiohttp
transport lets the event loop read what has arrived before it sends a POST, so a
connection closed by then is not taken, on the default event loop and on uvloop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from .loopback import EVERY_TRANSPORT, open_client, raw_server

try:
    import uvloop
except ImportError:  # no uvloop (Windows, or no speed extra)
    uvloop = None

CALLS = 4
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"  # then the server closes the connection


async def posts(name: str) -> list[Any]:
    async with raw_server() as server:
        server.answer = NO_CONTENT
        async with open_client(name, "edk-closes-7d2", server.base_url, max_retries=0) as client:
            results = [
                await client.pull_zones.set_force_ssl(1, hostname="cdn.example.com", force_ssl=True)
                for _ in range(CALLS)
            ]
    assert len(server.heads) == CALLS
    return results


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_posts_in_a_row_to_a_server_that_closes_each_connection(name: str) -> None:
    assert await posts(name) == [None] * CALLS


@pytest.mark.parametrize(
    "new_loop",
    [
        pytest.param(
            getattr(uvloop, "new_event_loop", None),
            id="uvloop",
            marks=pytest.mark.skipif(uvloop is None, reason="uvloop is not installed"),
        ),
    ],
)
def test_posts_in_a_row_on_uvloop(new_loop: Callable[[], asyncio.AbstractEventLoop]) -> None:
    with asyncio.Runner(loop_factory=new_loop) as runner:
        assert runner.run(posts("aiohttp")) == [None] * CALLS
