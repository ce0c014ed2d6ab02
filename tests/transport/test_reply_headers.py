"""The same limits on a reply's header fields on every transport.

`MAX_HEADER_BYTES` counts names and values. A reply at the limit is read; one byte over
it (however the bytes are spread: one long field, many fields, a name given many times)
ends with `APIConnectionError` before the body is read, on every transport. So does one
field more than `MAX_HEADER_FIELDS` (hyper's limit, which pyreqwest cannot raise).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIConnectionError
from edgedelivery_async._http import MAX_HEADER_BYTES, MAX_HEADER_FIELDS

from .loopback import EVERY_TRANSPORT, RawServer, open_client, raw_server

FIELD = 4000  # a value's bytes, well within every library's limit on one line
LIMITS = (
    f"the reply's headers are past the SDK's limits (at most {MAX_HEADER_FIELDS} fields"
    f" holding at most {MAX_HEADER_BYTES} bytes)"
)


@pytest.fixture
async def server() -> AsyncIterator[RawServer]:
    async with raw_server() as raw:
        yield raw


def answer_with(fields: list[tuple[str, str]]) -> bytes:
    """A 200 reply with these header fields and the body `{}`."""
    head = "".join(f"{name}: {value}\r\n" for name, value in fields)
    return f"HTTP/1.1 200 OK\r\n{head}\r\n{{}}".encode("latin-1")


def fields_of(total: int, *, name: str | None = None) -> list[tuple[str, str]]:
    """Fields whose names and values hold `total` bytes, with the reply's own two.

    With `name`, every filler field has that name (a name given many times).
    """
    fields = [("Content-Type", "application/json"), ("Content-Length", "2")]
    left = total - sum(len(n) + len(v) for n, v in fields)
    index = 0
    while left > 0:
        field_name = name or f"X-Filler-{index:03d}"
        value = "v" * max(1, min(FIELD, left - len(field_name)))
        fields.append((field_name, value))
        left -= len(field_name) + len(value)
        index += 1
    assert sum(len(n) + len(v) for n, v in fields) == total
    return fields


async def fetch(name: str, server: RawServer) -> object:
    async with open_client(name, "edk-head-1", server.base_url, max_retries=0) as client:
        return await client.request("GET", "/mc/registries/1")


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_200_kb_header_is_refused(name: str, server: RawServer) -> None:
    fields = [("Content-Type", "application/json"), ("Content-Length", "2")]
    server.answer = answer_with([*fields, ("X-Big", "a" * 200_000)])
    with pytest.raises(APIConnectionError) as info:
        await fetch(name, server)
    assert info.value.request_sent is True
    assert info.value.path == "/mc/registries/1"


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("spread", ["many names", "one name"])
async def test_one_byte_over_the_limit_is_refused(
    name: str, spread: str, server: RawServer
) -> None:
    server.answer = answer_with(
        fields_of(MAX_HEADER_BYTES + 1, name="Set-Cookie" if spread == "one name" else None)
    )
    with pytest.raises(APIConnectionError) as info:
        await fetch(name, server)
    if name != "httpx":  # a caller's httpx client may stop earlier, in its own words
        assert LIMITS in str(info.value)


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("spread", ["many names", "one name"])
async def test_a_reply_at_the_limit_is_read(name: str, spread: str, server: RawServer) -> None:
    server.answer = answer_with(
        fields_of(MAX_HEADER_BYTES, name="Set-Cookie" if spread == "one name" else None)
    )
    assert await fetch(name, server) == {}


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_an_ordinary_reply_with_a_long_field_is_read(name: str, server: RawServer) -> None:
    """A field longer than aiohttp's own 8190-byte line limit, well within the SDK's."""
    fields = [("Content-Type", "application/json"), ("Content-Length", "2")]
    server.answer = answer_with([*fields, ("Content-Security-Policy", "x" * 9000)])
    assert await fetch(name, server) == {}


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("count", [MAX_HEADER_FIELDS, MAX_HEADER_FIELDS + 1])
async def test_at_most_so_many_fields(name: str, count: int, server: RawServer) -> None:
    """Small fields, far within the bytes: aiohttp allowed 128 and httpx any number,
    while wreq and reqwest failed past 100 with no word of why."""
    fields = [("Content-Type", "application/json"), ("Content-Length", "2")]
    server.answer = answer_with([*fields, *((f"X-F{index}", "a") for index in range(count - 2))])
    if count <= MAX_HEADER_FIELDS:
        assert await fetch(name, server) == {}
        return
    with pytest.raises(APIConnectionError) as info:
        await fetch(name, server)
    assert LIMITS in str(info.value)
