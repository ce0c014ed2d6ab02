"""A reply that has no body (204, 304, one to HEAD), sent with one anyway.

RFC 9110 ends such a reply with its head: the bytes after it are no part of it. aiohttp's
parser, given the head and those bytes in one read, took them for the status line of a
next reply and lost the reply (`APIConnectionError`, on aiohttp only). Now every stack of
the SDK gives the caller the reply as it gives one without a body, and the stray bytes
are not read as the next reply: the POST sent next (which is never retried) gets its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from edgedelivery_async import APIStatusError, EdgeDeliveryClient

from .loopback import STACKS, kept_server, open_client

KEY = "edk-bodyless-4e1"
STRAY = b'{"ok": true}'
LENGTH = b"Content-Length: %d\r\n" % len(STRAY)


async def force_ssl(client: EdgeDeliveryClient) -> Any:
    return await client.pull_zones.set_force_ssl(1, hostname="cdn.example.com", force_ssl=True)


async def registry(client: EdgeDeliveryClient) -> Any:
    try:
        return await client.registries.get(5)
    except APIStatusError as exc:  # how the SDK gives a 304, with a body or without
        return exc.status_code


async def head(client: EdgeDeliveryClient) -> Any:
    return await client.request("HEAD", "/pullzone/1")


# A reply's head, the call that gets it, and what the call returns.
REPLIES: dict[str, tuple[bytes, Callable[[EdgeDeliveryClient], Awaitable[Any]], Any]] = {
    "204": (b"HTTP/1.1 204 No Content\r\n" + LENGTH + b"\r\n", force_ssl, None),
    "204, closing": (
        b"HTTP/1.1 204 No Content\r\n" + LENGTH + b"Connection: close\r\n\r\n",
        force_ssl,
        None,
    ),
    "204, chunked": (
        b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n",
        force_ssl,
        None,
    ),
    "204 after 103": (
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n"
        + LENGTH
        + b"\r\n",
        force_ssl,
        None,
    ),
    "304": (b"HTTP/1.1 304 Not Modified\r\n" + LENGTH + b"\r\n", registry, 304),
    "HEAD": (b"HTTP/1.1 200 OK\r\n" + LENGTH + b"\r\n", head, None),
}


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize("reply", list(REPLIES))
async def test_a_reply_without_a_body_sent_with_one_is_read_as_it_ends(
    name: str, reply: str
) -> None:
    answer, call, expected = REPLIES[reply]
    async with kept_server() as server:
        server.answers = [(answer + STRAY, b"")]  # the head and the body in one read
        async with open_client(name, KEY, server.base_url, max_retries=0) as client:
            assert await call(client) == expected
            assert await force_ssl(client) is None
    assert len(server.heads) == 2


async def test_a_204_that_frames_a_body_does_not_keep_its_connection() -> None:
    """The body comes after the head, just before the next reply on that connection.

    aiohttp kept the connection and read the stray bytes as the next reply's status line.
    The Rust stacks' pools (hyper) keep it too; the SDK cannot close one of their
    connections (README, Reliability).
    """
    answer = REPLIES["204"][0]
    async with kept_server() as server:
        server.answers = [(answer, STRAY)]
        async with open_client("aiohttp", KEY, server.base_url, max_retries=0) as client:
            assert await force_ssl(client) is None
            assert await force_ssl(client) is None
    assert server.connections == 2
