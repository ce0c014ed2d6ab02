"""A redirect is followed only to a Location that every URL parser reads the same way.

The engine decides "same origin" with urllib; the Rust transports parse the target
their own (WHATWG) way, where a backslash ends the host. So a Location outside RFC
3986's characters is not followed, on any transport, and the key goes nowhere else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIConnectionError, APIStatusError, InvalidRequestError

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
    """A URL longer than every transport sends (a base URL of 70,000 bytes), which httpx
    refused as its InvalidURL ("not sent"), is an InvalidRequestError before sending."""
    async with open_client(
        "httpx", KEY, "http://127.0.0.1:9/" + "a" * 70_000, max_retries=0
    ) as client:
        with pytest.raises(InvalidRequestError, match="70,033 characters long"):
            await client.registries.add(display_name="main")


# A Location elsewhere (its path and query may hold anything: the key here) -> what the
# message says of it: the kind of origin and the origin, nothing more.
ELSEWHERE = {
    "http://localhost:{other}/x?key=" + KEY: "another host (http://localhost:{other})",
    "//localhost:{other}/x?key=" + KEY: "another host (http://localhost:{other})",
    "http://127.0.0.1:{other}/x?key=" + KEY: "another port (http://127.0.0.1:{other})",
    "https://127.0.0.1:{api}/x?key=" + KEY: "another scheme (https://127.0.0.1:{api})",
    "http://" + KEY + ".localhost:{other}/x": "another host (http://***.localhost:{other})",
}


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
@pytest.mark.parametrize("location", list(ELSEWHERE))
async def test_a_redirect_elsewhere_says_why_it_was_not_followed(
    transport: str, location: str, hosts: tuple[RawServer, RawServer]
) -> None:
    """It was refused as `-> 302 Found`, the reason only in a log warning."""
    api, other = hosts
    ports = {"api": api.port, "other": other.port}
    api.answer = redirect(location.format(**ports).encode())
    async with open_client(transport, KEY, api.base_url, max_retries=0) as client:
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")

    message = str(info.value)
    where = ELSEWHERE[location].format(**ports)
    assert message == (
        f"GET /pullzone/1 -> 302 Found: not followed: it points to {where}; the SDK follows"
        " redirects only within the API's origin, so the access key is not sent elsewhere"
    )
    assert other.heads == []


@pytest.mark.parametrize("transport", EVERY_TRANSPORT)
async def test_a_redirect_not_followed_on_the_api_s_origin_says_why(
    transport: str, hosts: tuple[RawServer, RawServer]
) -> None:
    """A POST moved by a 302, a loop, a Location with credentials, none at all."""
    api, _ = hosts
    async with open_client(transport, KEY, api.base_url, max_retries=0) as client:
        api.answer = redirect(b"/elsewhere")
        with pytest.raises(APIStatusError) as info:
            await client.request("POST", "/pullzone/1", json={})
        assert info.value.message is None  # (the server's text; this reply has none)
        assert str(info.value).endswith(
            "302 Found: not followed: a POST is redirected only by 307 or 308, which keep"
            " its method and body"
        )
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")
        assert str(info.value).endswith(
            "not followed: the SDK follows at most 5 redirects in a row"
        )
        api.answer = redirect(b"http://user:pw@127.0.0.1:%d/x" % api.port)
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")
        assert str(info.value).endswith("not followed: its Location holds credentials")
        assert "pw" not in str(info.value)
        api.answer = b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n"
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/pullzone/1")
        assert str(info.value).endswith("302 Found: not followed: the reply has no Location")
