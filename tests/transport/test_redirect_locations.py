"""A redirect is followed only to a Location that every URL parser reads the same way.

The engine decides "same origin" with urllib; the Rust transports parse the target
their own (WHATWG) way, where a backslash ends the host. So a Location outside RFC
3986's characters is not followed, on any transport, and the key goes nowhere else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIConnectionError, APIStatusError

from .loopback import EVERY_TRANSPORT, RawServer, open_client, raw_server

KEY = "k" * 30 + "secret"


@pytest.fixture
async def hosts() -> AsyncIterator[tuple[RawServer, RawServer]]:
    """The API and another origin (another port on the same address)."""
    async with raw_server() as api, raw_server() as other:
        yield api, other


def redirect(location: bytes) -> bytes:
    return b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % location


UNUSABLE = [
    "http://127.0.0.1:{other}\\@127.0.0.1:{api}/ok",  # WHATWG: host 127.0.0.1:{other}
    "/\\127.0.0.1:{other}/x",  # WHATWG: "/\" is "//", another host
    "\\\\127.0.0.1:{other}/x",
    "http://127.0.0.1:{api}/a\x01b",  # a control character
    "http://127.0.0.1:{api}/a\tb",
    "/a b",
    "http://user:pw@127.0.0.1:{api}/ok",  # credentials, on the API's own origin
]


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
@pytest.mark.parametrize("location", UNUSABLE)
async def test_a_location_outside_rfc_3986_is_not_followed(
    transport: str,
    location: str,
    hosts: tuple[RawServer, RawServer],
    caplog: pytest.LogCaptureFixture,
) -> None:
    api, other = hosts
    api.answer = redirect(location.format(api=api.port, other=other.port).encode())
    async with open_client(transport, KEY, f"http://127.0.0.1:{api.port}", max_retries=0) as client:
        with pytest.raises((APIStatusError, APIConnectionError)) as info:
            await client.request("GET", "/pullzone/1")

    assert len(api.heads) == 1
    assert other.heads == []
    if isinstance(info.value, APIStatusError):
        assert info.value.status_code == 302
        assert "not following a redirect" in caplog.text
    else:  # a control character: some libraries refuse the reply itself
        assert transport != "aiohttp"
        assert "\x01" in location or "\t" in location
    assert "secret" not in caplog.text


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
async def test_a_location_in_utf_8_is_followed_percent_encoded(
    transport: str, hosts: tuple[RawServer, RawServer]
) -> None:
    api, _ = hosts
    api.answer = redirect("/café/ü".encode())
    async with open_client(transport, KEY, f"http://127.0.0.1:{api.port}", max_retries=0) as client:
        with pytest.raises(APIStatusError):  # the same 302 again: a loop, ended after five
            await client.request("GET", "/pullzone/1")

    if transport == "reqwest":  # pyreqwest reads no value outside ASCII: no Location
        assert len(api.heads) == 1
        return
    first, second = api.heads[:2]
    assert first.startswith(b"GET /pullzone/1 ")
    assert second.startswith(b"GET /caf%C3%A9/%C3%BC HTTP/1.1\r\n")


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
async def test_a_post_answered_with_an_unreadable_location_is_sent_once(
    transport: str, hosts: tuple[RawServer, RawServer]
) -> None:
    """httpx refuses to read `http:127.0.0.1:9/x` even with redirects off, after the
    reply came: its InvalidURL was taken for "not sent", and the POST was sent three
    times. Sent it was: a POST is not sent again, whatever the error."""
    api, _ = hosts
    api.answer = redirect(b"http:127.0.0.1:9/x")
    async with open_client(transport, KEY, api.base_url, max_retries=2) as client:
        with pytest.raises((APIStatusError, APIConnectionError)) as info:
            await client.registries.add(display_name="main")

    assert len(api.heads) == 1
    assert getattr(info.value, "request_sent", True) is True


async def test_an_invalid_request_url_on_httpx_is_not_sent() -> None:
    """httpx refuses its own request's URL (a path of 70,000 bytes) before sending:
    that InvalidURL is "not sent"; only one read from a reply is "sent"."""
    async with open_client(
        "httpx", KEY, "http://127.0.0.1:9/" + "a" * 70_000, max_retries=0
    ) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.add(display_name="main")
    assert info.value.request_sent is False
