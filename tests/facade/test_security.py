"""The key goes only into the AccessKey header, only to the configured origin."""

from __future__ import annotations

import json
import logging
import traceback
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    APIConnectionError,
    APIError,
    APIStatusError,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
)

from .conftest import BASE, KEY, REGISTRY, SHIELD_CONFIG, UPLOAD_SCANNING, Recorder, mock_client

OK = httpx.Response(200, json=REGISTRY)


@pytest.fixture(autouse=True)
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDGEDELIVERY_ACCESS_KEY", raising=False)
    monkeypatch.delenv("EDGEDELIVERY_BASE_URL", raising=False)


def assert_no_key(*texts: object) -> None:
    for text in texts:
        assert KEY not in str(text)
        assert KEY not in repr(text)


async def test_key_only_in_the_access_key_header() -> None:
    recorder = Recorder(httpx.Response(200, json={"id": 1, "error": ""}))
    async with mock_client(recorder) as client:
        await client.registries.add(display_name="main")

    (request,) = recorder.requests
    assert request.headers["AccessKey"] == KEY
    assert KEY not in str(request.url)
    assert KEY.encode() not in request.content
    others = [v for k, v in request.headers.items() if k.lower() != "accesskey"]
    assert_no_key(*others)


def test_key_not_in_reprs() -> None:
    client = EdgeDeliveryClient(KEY, BASE)
    assert repr(client) == "EdgeDeliveryClient(base_url='https://api.edge.test', access_key='***')"
    assert_no_key(client, client.with_options(timeout=3), client._engine.access_key)
    assert_no_key(*vars(client).values())
    assert repr(EdgeDeliveryClient(None, BASE)).endswith("access_key=None)")


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(401, json={"Message": "Invalid key."}),
        httpx.Response(500, text="<html>boom</html>"),
        httpx.Response(200, json={"error": {"success": False, "message": "no"}}),
        httpx.Response(200, text="not json"),
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
    ],
    ids=["status", "html", "result", "validation", "connect", "timeout"],
)
async def test_key_not_in_errors(reply: Any) -> None:
    async with mock_client(Recorder(reply), max_retries=0) as client:
        with pytest.raises(EdgeDeliveryError) as info:
            await client.shield.get_upload_scanning(7)

    error = info.value
    assert_no_key(error, error.args, error.__cause__)
    if isinstance(error, APIConnectionError):
        return
    response = error.response  # type: ignore[attr-defined]
    assert "AccessKey" not in response.request.headers
    assert_no_key(response.request.headers, response.headers, response.request.url)


ESCAPED_KEY = "".join(f"\\u{ord(c):04X}" if c.isalpha() else c for c in KEY).encode()


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(401, json={"Message": f"The access key {KEY} is not valid."}),
        httpx.Response(403, text=f"<html>key {KEY} has no access</html>"),
        httpx.Response(404, json={"error": {"message": f"no zone for {KEY}"}}),
        httpx.Response(200, json={"error": {"success": False, "message": f"denied: {KEY}"}}),
        # The key with JSON escapes (ASP.NET writes `+` as \u002B): the bytes differ.
        httpx.Response(401, content=b'{"Message": "key %s is not valid"}' % ESCAPED_KEY),
        httpx.Response(
            200, content=b'{"error": {"success": false, "message": "denied %s"}}' % ESCAPED_KEY
        ),
        httpx.Response(401, json={"Message": "no"}, headers={"X-Echo": f"key={KEY}"}),
        # Shortened: the first characters, or the last (a long key cut in a message).
        httpx.Response(401, json={"Message": f"key {KEY[:10]}... is not valid"}),
        httpx.Response(400, text=f"Got more than 8190 bytes: b'...{KEY[-9:]}'"),
    ],
    ids=[
        "json",
        "html",
        "wrapped",
        "result",
        "escaped",
        "escaped-result",
        "header",
        "prefix",
        "suffix",
    ],
)
async def test_key_not_in_errors_that_quote_it(reply: Any) -> None:
    """A server may quote the key back; the error (message, body, reply) shows *** there."""
    async with mock_client(Recorder(reply), max_retries=0) as client:
        with pytest.raises(APIError) as info:
            await client.shield.get_upload_scanning(7)

    error = info.value
    assert "***" in error.response.text + str(error.response.headers)
    assert_no_key(error, error.args, repr(error), error.body, error.message, error.response.text)
    for start in range(len(KEY) - 8):  # no run of 9 of its characters either
        assert KEY[start : start + 9] not in str(error) + error.response.text
    assert_no_key(error.headers, error.response.headers)
    # ... and neither does the chain a traceback or logging shows (a 2xx body that
    # quoted it was read twice: the first error, with the key, was the __context__).
    chain = "".join(traceback.format_exception(error))
    assert_no_key(chain, repr(error.__context__), repr(error.__cause__))


async def test_key_not_in_validation_errors() -> None:
    async with mock_client(Recorder(OK)) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.registries.add(display_name=5)  # type: ignore[arg-type]
    assert_no_key(info.value)


@pytest.mark.parametrize("bad", ["line\nbreak", "tab\there", "ключ", "   "])
def test_bad_keys_are_refused_without_echoing_them(bad: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        EdgeDeliveryClient(bad, BASE)
    assert bad.strip() == "" or bad not in str(info.value)


async def test_key_not_in_debug_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = Recorder(
        httpx.Response(503, headers={"Retry-After": "0"}),
        httpx.ConnectError("refused"),
        httpx.Response(302, headers={"Location": "https://evil.test/x"}),
    )
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError):
            await client.registries.get(31)
        recorder.replies = [OK]
        await client.registries.get(31)

    assert len(caplog.records) >= 4
    for record in caplog.records:
        assert_no_key(record.getMessage(), record.args)


# ------------------------------------------------------------------- redirects


def two_hosts(location: str, status: int = 302) -> Recorder:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "api.edge.test" and request.url.path == "/mc/registries/31":
            return httpx.Response(status, headers={"Location": location})
        return OK

    return Recorder(handler)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize(
    "location",
    [
        "https://evil.test/mc/registries/31",
        "//evil.test/steal",
        "http://api.edge.test/mc/registries/32",
        "https://api.edge.test:8443/mc/registries/32",
        "https://api.edge.test.evil.test/x",
    ],
)
async def test_redirect_to_another_origin_is_not_followed(
    status: int, location: str, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = two_hosts(location, status)
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError) as info:
            await client.registries.get(31)

    assert info.value.status_code == status
    assert [str(r.url) for r in recorder.requests] == [f"{BASE}/mc/registries/31"]
    assert "not following a redirect" in caplog.text


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize(
    "location",
    [
        "/mc/registries/32",
        "https://api.edge.test/mc/registries/32",
        "32",
        "https://API.edge.test:443/mc/registries/32",  # the scheme's default port, written
    ],
)
async def test_same_origin_redirect_is_followed_for_get(status: int, location: str) -> None:
    recorder = two_hosts(location, status)
    async with mock_client(recorder) as client:
        registry = await client.registries.get(31)

    assert registry.id == 31
    _, second = recorder.requests
    assert str(second.url) == f"{BASE}/mc/registries/32"
    assert second.method == "GET"
    assert second.headers["AccessKey"] == KEY


@pytest.mark.parametrize("status", [307, 308])
async def test_same_origin_307_and_308_keep_a_post(status: int) -> None:
    recorder = Recorder(
        httpx.Response(status, headers={"Location": "/mc/registries-v2"}),
        httpx.Response(200, json={"id": 3, "error": ""}),
    )
    async with mock_client(recorder) as client:
        assert await client.registries.add(display_name="main") == 3

    first, second = recorder.requests
    assert second.method == "POST"
    assert second.url.raw_path == b"/mc/registries-v2"
    assert second.content == first.content == b'{"displayName":"main"}'


@pytest.mark.parametrize("status", [301, 302, 303])
async def test_post_is_not_turned_into_a_get(status: int) -> None:
    recorder = Recorder(httpx.Response(status, headers={"Location": "/elsewhere"}))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError) as info:
            await client.registries.add(display_name="main")
    assert info.value.status_code == status
    assert len(recorder.requests) == 1


async def test_redirect_loops_end() -> None:
    recorder = Recorder(httpx.Response(302, headers={"Location": "/mc/registries/31"}))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError) as info:
            await client.registries.get(31)
    assert info.value.status_code == 302
    assert len(recorder.requests) == 6  # the call and five redirects


@pytest.mark.parametrize("location", ["http://[bad/", "https://api.edge.test:99999/x", ""])
async def test_unreadable_location(location: str) -> None:
    recorder = Recorder(httpx.Response(302, headers={"Location": location}))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError):
            await client.registries.get(31)
    assert len(recorder.requests) == 1


# ------------------------------------------------------------ plain http, base URL


@pytest.mark.parametrize(
    "url", ["http://api.edge.test", "http://10.0.0.1:8080", "http://localhost.evil.test"]
)
def test_plain_http_to_a_remote_host_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match="allow_insecure_http"):
        EdgeDeliveryClient(KEY, url)
    assert EdgeDeliveryClient(KEY, url, allow_insecure_http=True).base_url == url


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9000", "http://127.9.9.9"]
)
async def test_plain_http_to_loopback_is_allowed(url: str) -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder, base_url=url) as client:
        await client.registries.get(31)
    assert str(recorder.requests[0].url) == f"{url}/mc/registries/31"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://api.edge.test",
        "https://",
        "api.edge.test",
        "https://user:pw@api.edge.test",
        "https://api.edge.test?x=1",
        "https://api.edge.test#frag",
        "https://api.edge.test:99999",
        "   ",
        "https://a..b",
        "https://" + "a" * 64 + ".test",
        "https://xn--.test",
        "https://\u2603.test",
        "https://api.edge.test/v\t1",
        "https://api.edge.test/v\x001",
    ],
)
def test_unusable_base_urls(url: str) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, url)


@pytest.mark.parametrize(
    "url", ["https://bücher.test", "https://xn--bcher-kva.test", "https://api_x.edge.test/v1"]
)
def test_usable_base_urls_with_international_or_unusual_hosts(url: str) -> None:
    """The IDNA checks (without httpx) refuse only what a transport could not send."""
    assert EdgeDeliveryClient(KEY, url).base_url == url


def test_no_base_url_at_all() -> None:
    with pytest.raises(ConfigurationError, match="EDGEDELIVERY_BASE_URL"):
        EdgeDeliveryClient(KEY)


# ----------------------------------------------------------- keys and environment


async def test_shield_calls_work_without_a_key() -> None:
    recorder = Recorder(
        lambda r: httpx.Response(
            200,
            json={"data": SHIELD_CONFIG}
            if b"get-by-pullzone" in r.url.raw_path
            else UPLOAD_SCANNING,
        )
    )
    async with mock_client(recorder, access_key=None) as client:
        assert (await client.shield.get_zone_by_pull_zone(42)).shield_zone_id == 9001
        assert (await client.shield.get_upload_scanning(9001)).is_enabled is True

    assert all("AccessKey" not in r.headers for r in recorder.requests)


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("/pullzone/", lambda c: c.pull_zones.set_force_ssl(1, hostname="h", force_ssl=True)),
        ("/compute/", lambda c: c.compute.add_script_variable(1, name="A")),
        ("/dnszone", lambda c: c.dns_zones.add(domain="example.com")),
        ("/mc/", lambda c: c.containers.set_environment("a", "c", {})),
        ("/mc/", lambda c: c.containers.add_template("a", name="n", image="i")),
        ("/mc/", lambda c: c.registries.add(display_name="main")),
        ("/mc/", lambda c: c.registries.get(1)),
    ],
)
async def test_keyed_calls_without_a_key_send_nothing(name: str, call: Any) -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder, access_key=None) as client:
        with pytest.raises(ConfigurationError, match="EDGEDELIVERY_ACCESS_KEY") as info:
            await call(client)
    assert name in str(info.value)
    assert recorder.requests == []


@pytest.mark.parametrize(
    ("base_url", "said"),
    [
        ("", "base_url is empty"),
        ("  ", "base_url is empty"),
        (5, "base_url must be a str URL, not a int"),
        (b"https://api.edge.test", "base_url must be a str URL, not a bytes"),
    ],
)
def test_a_base_url_given_but_unusable_is_not_called_missing(
    monkeypatch: pytest.MonkeyPatch, base_url: object, said: str
) -> None:
    """They all said "no base URL: pass base_url= or set EDGEDELIVERY_BASE_URL", even
    with the variable set."""
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", "https://env.edge.test")
    with pytest.raises(ConfigurationError) as refused:
        EdgeDeliveryClient("k3y", base_url)  # type: ignore[arg-type]
    assert str(refused.value).startswith(said)
    assert "no base URL" not in str(refused.value)


async def test_empty_key_counts_as_no_key() -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder, access_key="") as client:
        with pytest.raises(ConfigurationError):
            await client.registries.get(1)
    assert recorder.requests == []


async def test_environment_variables_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", "env-key-123")
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", "https://env.edge.test/")
    recorder = Recorder(OK)
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as http,
        EdgeDeliveryClient(http_client=http) as client,
    ):
        assert client.base_url == "https://env.edge.test"
        await client.registries.get(31)

    (request,) = recorder.requests
    assert str(request.url) == "https://env.edge.test/mc/registries/31"
    assert request.headers["AccessKey"] == "env-key-123"
    assert "env-key-123" not in repr(client)


async def test_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", "env-key-123")
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", "https://env.edge.test")
    recorder = Recorder(OK)
    async with mock_client(recorder) as client:
        await client.registries.get(31)
    assert str(recorder.requests[0].url).startswith(BASE)
    assert recorder.requests[0].headers["AccessKey"] == KEY


def test_plain_http_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", "http://api.edge.test")
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY)


@pytest.mark.parametrize("key", ['ab"cd-1234', "k{ey}:[1]", "plain-key-1"])
def test_scrubbing_keeps_a_json_body_json(key: str) -> None:
    """Replaced in its bytes, a key holding JSON syntax broke the body: the error then
    read 'the reply is not JSON' instead of the server's message."""
    from edgedelivery_async._http import AccessKey, RawResponse

    body = json.dumps({"error": {"message": f"key {key} is bad", key: [key, 1, None]}})
    raw = RawResponse("GET", "https://x.invalid/a", "/a", 401, {}, body.encode())
    assert AccessKey(key).scrub(raw)
    assert raw.json() == {"error": {"message": "key *** is bad", "***": ["***", 1, None]}}
    assert not AccessKey(key).scrub(raw)  # nothing left to find


def test_a_body_without_the_key_is_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each string of an error reply's JSON was searched on its own, some 15 microseconds
    each in the event loop: 0.8 MB of short strings held it 3 s, a body at the 64 MiB cap
    minutes. A body without the key is searched once; one with it is masked as before."""
    from edgedelivery_async import _http
    from edgedelivery_async._http import AccessKey, RawResponse

    searched: list[int] = []
    real = _http._masked

    def counting(text: str, key: str) -> str:
        searched.append(len(text))
        return real(text, key)

    monkeypatch.setattr(_http, "_masked", counting)
    items = [f"item {n}" for n in range(10_000)]
    body = json.dumps({"errors": items, "nested": {"deeper": ["z"] * 1_000}}).encode()
    raw = RawResponse("GET", "https://x.invalid/a", "/a", 400, {}, body)
    assert not AccessKey(KEY).scrub(raw)
    assert len(searched) <= 4  # the URL, the path, the headers, the body once
    assert raw.content == body
    with_key = json.dumps({"errors": [*items, f"bad key {KEY}"], KEY: 1}).encode()
    raw = RawResponse("GET", "https://x.invalid/a", "/a", 400, {}, with_key)
    assert AccessKey(KEY).scrub(raw)
    assert raw.json() == {"errors": [*items, "bad key ***"], "***": 1}


ODD_KEY = "k3y.*+?[x]$(Secret) /~"


def _quoted_forms(key: str) -> dict[str, str]:
    from urllib.parse import quote, quote_plus

    return {
        "percent": quote(key, safe=""),
        "percent-lower-hex": quote(key, safe="").replace("%2A", "%2a").replace("%2B", "%2b"),
        "quote-plus": quote_plus(key),
        "lower-case": key.lower(),
        "upper-case": key.upper(),
        "percent-lower-case": quote(key, safe="").lower(),
    }


@pytest.mark.parametrize("form", list(_quoted_forms(ODD_KEY)))
async def test_key_not_in_errors_that_quote_it_encoded_or_in_another_case(form: str) -> None:
    """A key quoted back percent-encoded (a query string's echo) or in another case got
    through the masking: the error printed it."""
    quoted = _quoted_forms(ODD_KEY)[form]
    assert quoted != ODD_KEY
    reply = httpx.Response(
        401, text=f"key {quoted} rejected", headers={"X-Echo": f"k={quoted}; ok"}
    )
    async with mock_client(Recorder(reply), max_retries=0, access_key=ODD_KEY) as client:
        with pytest.raises(APIError) as info:
            await client.shield.get_upload_scanning(7)
    error = info.value
    shown = f"{error} {error.response.text} {error.headers} {error.body!r}"
    assert quoted not in shown
    assert "key *** rejected" in error.response.text
    assert error.headers["x-echo"] == "k=***; ok"
