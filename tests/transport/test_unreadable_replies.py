"""A reply the HTTP library cannot read, said the same way on every transport.

Each stack words a broken reply its own way (aiohttp's parser, h11, hyper through wreq or
pyreqwest), and every one of them was reported only as "the connection to HOST:PORT
failed", its reason left in `__cause__`. The message now says the cause in the SDK's
words, one wording per cause, quoting nothing the server sent. A body that does not
decode is not retried: a server that sends it once most likely sends it again.
"""

from __future__ import annotations

import pickle

import pytest

from edgedelivery_async import APIConnectionError, RetryPolicy

from .loopback import EVERY_TRANSPORT, open_client, raw_server

NOT_HTTP = "the reply is not valid HTTP/1.1 ({})"
BAD_STATUS = NOT_HTTP.format("bad status line")
KEY = "edk-unreadable-Secret-77"
ONE_QUICK_RETRY = RetryPolicy(max_retries=1, initial_delay=0.001, jitter=0)
BODY = b'{"id": 5}'


def reply(head: bytes, body: bytes = BODY) -> bytes:
    """A reply with `head`'s lines after the status line, closing its connection."""
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + head + b"\r\n" + body


def sized(body: bytes, *lines: bytes) -> bytes:
    length = b"Content-Length: %d\r\n" % len(body)
    return reply(b"".join(lines) + length + b"Connection: close\r\n", body)


# name -> (the reply, the SDK's words for it, whether a GET is retried)
CASES = {
    "not gzip": (
        sized(b"not gzip at all", b"Content-Encoding: gzip\r\n"),
        "the reply's body is not valid gzip",
        False,
    ),
    "not deflate": (
        sized(b"\x00\x01\x02\x03 no", b"Content-Encoding: deflate\r\n"),
        "the reply's body is not valid",  # (wreq drops the header as it decodes: no name)
        False,
    ),
    "bad chunked framing": (
        reply(b"Transfer-Encoding: chunked\r\nConnection: close\r\n", b"zz\r\nabc\r\n0\r\n\r\n"),
        NOT_HTTP.format("bad chunked framing"),
        True,
    ),
    "conflicting Content-Length": (
        sized(BODY, b"Content-Length: 3\r\n"),
        NOT_HTTP.format("bad or conflicting Content-Length"),
        True,
    ),
    "a header line without a colon": (
        sized(BODY, b"X-Echo " + KEY.encode() + b"\r\n"),
        NOT_HTTP.format("a header line is malformed"),
        True,
    ),
    "a bad status line": (b"HTTP/1.1 abc\r\nConnection: close\r\n\r\n", BAD_STATUS, True),
    "no HTTP at all": (b"\x16\x03\x01 not http\r\n\r\n", BAD_STATUS, True),
    "status 000": (
        b"HTTP/1.1 000 Zero\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        BAD_STATUS,
        True,
    ),
    "a body cut short": (
        reply(b"Content-Length: 100\r\nConnection: close\r\n", BODY),
        "the connection closed before the reply's body was complete",
        True,
    ),
}


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("case", list(CASES))
async def test_an_unreadable_reply_says_why(name: str, case: str) -> None:
    answer, words, retried = CASES[case]
    async with raw_server() as server:
        server.answer = answer
        async with open_client(name, KEY, server.base_url, retry=ONE_QUICK_RETRY) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.registries.get(5)
    error = caught.value
    host = server.base_url.removeprefix("http://")
    assert str(error).startswith(f"GET /mc/registries/5: the connection to {host} failed: {words}")
    assert error.request_sent
    assert error.retryable is retried
    assert pickle.loads(pickle.dumps(error)).retryable is retried  # (a process pool's copy)
    assert len(server.heads) == (2 if retried else 1)
    said = f"{error} {error.__cause__}"
    assert KEY not in said
    assert "X-Echo" not in str(error)  # no header line the server sent
