"""The SDK's error messages, in one table to review.

Each row is a realistic reply (or a refusal before sending) and the exact text a person
reads: what happened, to what (the method and path; the host where it matters), and
what to do when there is something to do. The replies go through a real client on
`httpx.MockTransport`, so each message is the one a caller gets. The command line
prints the same text after `error: `, with hints that name its own options (last tests).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    AcceptedWithoutResultError,
    APIConnectionError,
    APIResponseValidationError,
    APIResultError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    UnprocessableEntityError,
)

KEY = "edk-messages-7f3a"
BASE = "https://api.edge.test"
TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

Call = Callable[[EdgeDeliveryClient], Awaitable[Any]]


def registry_get(client: EdgeDeliveryClient) -> Awaitable[Any]:
    return client.registries.get(31)


def force_ssl(client: EdgeDeliveryClient) -> Awaitable[Any]:
    return client.pull_zones.set_force_ssl(42, hostname="cdn.example.com", force_ssl=True)


def shield_get(client: EdgeDeliveryClient) -> Awaitable[Any]:
    return client.shield.get_zone_by_pull_zone(42)


def template_add(client: EdgeDeliveryClient) -> Awaitable[Any]:
    return client.containers.add_template("app-1", name="api", image="nginx:1.27")


@dataclass(frozen=True)
class Row:
    """A reply, the call that meets it, and what the caller reads."""

    name: str
    call: Call
    status: int
    error: type[EdgeDeliveryError]
    message: str
    body: Any = None  # JSON, or bytes sent as they are
    headers: dict[str, str] = field(default_factory=dict)


ROWS = [
    Row(
        "400 core error record",
        force_ssl,
        400,
        BadRequestError,
        "POST /pullzone/42/setForceSSL -> 400 Bad Request: The hostname is not part of this "
        "pull zone. (error_key=pullzone.hostname_not_found; field=Hostname)",
        {
            "ErrorKey": "pullzone.hostname_not_found",
            "Field": "Hostname",
            "Message": "The hostname is not part of this pull zone.",
        },
    ),
    Row(
        "401 without a body",
        registry_get,
        401,
        AuthenticationError,
        "GET /mc/registries/31 -> 401 Unauthorized: the access key is missing or was refused; "
        "check the key given to the client or set in EDGEDELIVERY_ACCESS_KEY",
    ),
    Row(
        "404 problem+json, ASP.NET's default (an RFC link as type, the reason as title)",
        registry_get,
        404,
        NotFoundError,
        "GET /mc/registries/31 -> 404 Not Found: nothing at this path; check the ids in it",
        {
            "type": "https://tools.ietf.org/html/rfc9110#section-15.5.5",
            "title": "Not Found",
            "status": 404,
            "traceId": TRACE,
        },
        {"content-type": "application/problem+json"},
    ),
    Row(
        "404 problem+json with a detail",
        registry_get,
        404,
        NotFoundError,
        "GET /mc/registries/31 -> 404 Not Found: No registry with id 31.",
        {
            "type": "https://tools.ietf.org/html/rfc9110#section-15.5.5",
            "title": "Not Found",
            "status": 404,
            "detail": "No registry with id 31.",
            "instance": "/mc/registries/31",
        },
        {"content-type": "application/problem+json"},
    ),
    Row(
        "404 problem+json with a type of the API's own",
        registry_get,
        404,
        NotFoundError,
        "GET /mc/registries/31 -> 404 Not Found: No registry with id 31. "
        "(type=https://docs.example.net/errors/registry-not-found)",
        {
            "type": "https://docs.example.net/errors/registry-not-found",
            "title": "Registry not found",
            "status": 404,
            "detail": "No registry with id 31.",
        },
        {"content-type": "application/problem+json"},
    ),
    Row(
        "404 result object (the shield read)",
        shield_get,
        404,
        NotFoundError,
        "GET /shield/shield-zone/get-by-pullzone/42 -> 404 Not Found: no result "
        "(the server's result object reports status 404)",
        {
            "location": None,
            "value": None,
            "formatters": [],
            "contentTypes": [],
            "declaredType": "ShieldZoneResponse",
            "statusCode": 404,
        },
    ),
    Row(
        "422 validation-style, with field errors",
        template_add,
        422,
        UnprocessableEntityError,
        "POST /mc/apps/app-1/containers -> 422 Unprocessable Content: One or more validation "
        "errors occurred. (name: A template named api already exists.; "
        "imageTag: The tag 1.27 is not in the registry.)",
        {
            "type": "https://tools.ietf.org/html/rfc4918#section-11.2",
            "title": "One or more validation errors occurred.",
            "status": 422,
            "errors": {
                "name": ["A template named api already exists."],
                "imageTag": ["The tag 1.27 is not in the registry."],
            },
            "traceId": TRACE,
        },
        {"content-type": "application/problem+json"},
    ),
    Row(
        "429 with Retry-After",
        registry_get,
        429,
        RateLimitError,
        "GET /mc/registries/31 -> 429 Too Many Requests: the server asks to wait 120 s "
        "(Retry-After); retry later, or send fewer requests per second",
        headers={"retry-after": "120"},
    ),
    Row(
        "500 with an HTML page",
        registry_get,
        500,
        InternalServerError,
        "GET /mc/registries/31 -> 500 Internal Server Error: a non-JSON error page "
        "(88 characters of markup)",
        b"<html><head><title>500</title></head><body><h1>Internal Server Error</h1></body>"
        b"</html>\n",
        {"content-type": "text/html"},
    ),
    Row(
        "520 without a body",
        registry_get,
        520,
        InternalServerError,
        "GET /mc/registries/31 -> 520: a server error, without details",
    ),
    Row(
        "200 whose {error, data} wrapper reports failure",
        lambda client: client.shield.get_upload_scanning(9001),
        200,
        APIResultError,
        "GET /shield/shield-zone/9001/upload-scanning -> 200 OK: Shield zone not found. "
        "(error_key=shieldzone.not_found)",
        {
            "error": {
                "success": False,
                "message": "Shield zone not found.",
                "errorKey": "shieldzone.not_found",
            }
        },
    ),
    Row(
        "200 registry create with an error",
        lambda client: client.registries.add(display_name="main"),
        200,
        APIResultError,
        "POST /mc/registries -> 200 OK: A registry with this name already exists. (status=failed)",
        {"id": 0, "status": "failed", "error": "A registry with this name already exists."},
    ),
    Row(
        "200 registry create with a failed status and no message",
        lambda client: client.registries.add(display_name="main"),
        200,
        APIResultError,
        "POST /mc/registries -> 200 OK: the registry was not saved (status failed)",
        {"id": 0, "status": "failed"},
    ),
    Row(
        "201 whose wrapper reports failure without a message",
        lambda client: client.dns_zones.add(domain="example.com"),
        201,
        APIResultError,
        "POST /dnszone -> 201 Created: the reply reports a failure, without a message "
        "(error_key=dnszone.domain_taken)",
        {"error": {"success": False, "errorKey": "dnszone.domain_taken"}},
    ),
    Row(
        "202 accepted, without the result",
        shield_get,
        202,
        AcceptedWithoutResultError,
        "GET /shield/shield-zone/get-by-pullzone/42 -> 202 Accepted: no result yet "
        "(the server's result object reports status 202); ask again later for the result",
        {
            "value": None,
            "formatters": [],
            "contentTypes": [],
            "declaredType": None,
            "statusCode": 202,
        },
    ),
    Row(
        "200 with an HTML page (a login portal, a website)",
        registry_get,
        200,
        APIResponseValidationError,
        "GET /mc/registries/31 -> 200 OK: the reply is not JSON; it reads like a web page: "
        "check that the base URL points at the API (EDGEDELIVERY_BASE_URL)",
        b"<!DOCTYPE html><html><body>Sign in</body></html>",
        {"content-type": "text/html"},
    ),
    Row(
        "200 with a member of the wrong type",
        registry_get,
        200,
        APIResponseValidationError,
        "GET /mc/registries/31 -> 200 OK: ContainerRegistry_Get: the reply's id should be "
        "a JSON integer, not a string",
        {"id": "31", "displayName": "main"},
    ),
]


def reply_of(row: Row) -> httpx.Response:
    content = row.body if isinstance(row.body, bytes) else json.dumps(row.body).encode()
    headers = dict(row.headers)
    if row.body is None:
        content = b""
    elif not isinstance(row.body, bytes):
        headers.setdefault("content-type", "application/json")
    return httpx.Response(row.status, content=content, headers=headers)


@pytest.fixture(autouse=True)
def no_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDGEDELIVERY_ACCESS_KEY", "EDGEDELIVERY_BASE_URL", "EDGEDELIVERY_LOG"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
async def test_reply_message(row: Row) -> None:
    transport = httpx.MockTransport(lambda request: reply_of(row))
    async with (
        httpx.AsyncClient(transport=transport) as http,
        EdgeDeliveryClient(KEY, BASE, http_client=http, max_retries=0) as client,
    ):
        with pytest.raises(EdgeDeliveryError) as raised:
            await row.call(client)
    assert type(raised.value) is row.error
    assert str(raised.value) == row.message
    assert KEY not in str(raised.value)


# ------------------------------------------------------ refused before sending


async def test_invalid_request_lists_every_problem_and_sends_nothing() -> None:
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: sent.append(request) or httpx.Response(500))
    async with (
        httpx.AsyncClient(transport=transport) as http,
        EdgeDeliveryClient(KEY, BASE, http_client=http) as client,
    ):
        with pytest.raises(InvalidRequestError) as raised:
            await client.containers.add_template("app-1", name="", image_tag="latest!")
    assert str(raised.value) == (
        "ContainerTemplate_Add: invalid request, nothing was sent: "
        "(body): one of image or imageRegistryId must be a non-empty string; "
        "imageTag: 'latest!' does not match '^[a-zA-Z0-9]+(?:[._-]{1,2}[a-zA-Z0-9]+)*$'; "
        "name: '' should be non-empty"
    )
    assert sent == []


async def test_missing_access_key() -> None:
    async with EdgeDeliveryClient(base_url=BASE) as client:
        with pytest.raises(ConfigurationError) as raised:
            await registry_get(client)
    assert str(raised.value) == (
        "GET /mc/registries/31 needs an access key: pass access_key= or set EDGEDELIVERY_ACCESS_KEY"
        " (an empty key counts as none)"
    )


def test_plain_http_to_a_remote_host_is_refused() -> None:
    with pytest.raises(ConfigurationError) as raised:
        EdgeDeliveryClient(KEY, "http://api.example.net")
    assert str(raised.value) == (
        "refusing to send the access key over plain http:// to api.example.net (not loopback); "
        "use https:// or pass allow_insecure_http=True"
    )


# ------------------------------------------------------------ connection failures


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_connection_refused_says_what_and_to_what() -> None:
    port = closed_port()
    async with EdgeDeliveryClient(KEY, f"http://127.0.0.1:{port}", max_retries=0) as client:
        with pytest.raises(APIConnectionError) as raised:
            await registry_get(client)
    text = str(raised.value)
    assert text.startswith("GET /mc/registries/31: could not connect")
    assert raised.value.request_sent is False


async def test_connection_refused_names_the_host_port_and_reason() -> None:
    port = closed_port()
    async with EdgeDeliveryClient(KEY, f"http://127.0.0.1:{port}", max_retries=0) as client:
        with pytest.raises(APIConnectionError) as raised:
            await registry_get(client)
    assert f"127.0.0.1:{port}" in str(raised.value)
    assert "refused" in str(raised.value).lower()


# ---------------------------------------------------------------- the command line


def edgedelivery(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from edgedelivery_async.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )


def test_the_cli_hint_for_plain_http_names_its_option() -> None:
    done = edgedelivery(
        "registries", "get", "31",
        EDGEDELIVERY_BASE_URL="http://api.example.net", EDGEDELIVERY_ACCESS_KEY=KEY,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: refusing to send the access key over plain http:// to api.example.net "
        "(not loopback); "
        "use https:// or pass --allow-insecure-http",
        "hint: use an https:// base URL, or pass the global option --allow-insecure-http "
        "(before the command) to send the key over plain http anyway",
    ]


def test_the_cli_hint_for_a_missing_key_names_its_options() -> None:
    done = edgedelivery("registries", "get", "31", EDGEDELIVERY_BASE_URL=BASE)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [  # the base URL was given: not asked for again
        "error: GET /mc/registries/31 needs an access key: pass --access-key "
        "or set EDGEDELIVERY_ACCESS_KEY (an empty key counts as none)",
    ]


async def test_a_401_from_the_fake_reads_as_one_sentence() -> None:
    """The server's full stop is not kept before the advice (no `required.; check`)."""
    from edgedelivery_async.testing import FakeEdgeDelivery

    fake = FakeEdgeDelivery(access_key=KEY)
    registry = fake.add_registry()
    async with fake.serve() as url, EdgeDeliveryClient("edk-wrong-1", url) as client:
        with pytest.raises(AuthenticationError) as info:
            await client.registries.get(registry)
    assert str(info.value) == (
        f"GET /mc/registries/{registry} -> 401 Unauthorized: Authorization failed: a valid "
        "AccessKey is required; check the key given to the client or set in "
        "EDGEDELIVERY_ACCESS_KEY"
    )
    assert ".;" not in str(info.value)
    assert info.value.message == "Authorization failed: a valid AccessKey is required."
    # The fake's problem type only links the RFC section of 401: no error key.
    assert info.value.body["type"].startswith("https://")
    assert info.value.error_key is None


@pytest.mark.parametrize(
    ("problem_type", "error_key"),
    [
        ("https://docs.example.net/errors/registry-not-found", "https://docs.example.net/errors/registry-not-found"),
        ("https://tools.ietf.org/html/rfc9110#section-15.5.5", None),
        ("https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.5", None),
        ("https://www.rfc-editor.org/rfc/rfc9110.html#name-404-not-found", None),
        ("about:blank", None),
        (None, None),
    ],
)  # fmt: skip
async def test_error_key_of_a_problem_body(problem_type: str | None, error_key: str | None) -> None:
    """`error_key` is a problem's `type` only when it names a problem of the API's own."""
    body = {"title": "Not Found", "status": 404, "detail": "No registry with id 31."}
    if problem_type is not None:
        body["type"] = problem_type

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json=body, headers={"content-type": "application/problem+json"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with http, EdgeDeliveryClient(KEY, "https://api.example.net", http_client=http) as c:
        with pytest.raises(NotFoundError) as info:
            await c.registries.get(31)
    assert info.value.error_key == error_key
    assert info.value.body == body
