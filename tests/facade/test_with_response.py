"""`.with_response(...)`: the result with the HTTP status, headers and retries of the reply."""

from __future__ import annotations

import asyncio
import gzip
import inspect

import httpx
import pytest

from edgedelivery_async import (
    APIResponse,
    BoundEndpoint,
    EdgeDeliveryClient,
    NotFoundError,
    models,
)

from .conftest import BASE, KEY, REGISTRY, Recorder, mock_client

RESOURCES = ["pull_zones", "compute", "dns_zones", "containers", "registries", "shield"]
METHODS = [
    ("pull_zones", "set_force_ssl"),
    ("compute", "add_script_variable"),
    ("dns_zones", "add"),
    ("containers", "set_environment"),
    ("containers", "add_template"),
    ("registries", "add"),
    ("registries", "get"),
    ("shield", "get_zone_by_pull_zone"),
    ("shield", "get_upload_scanning"),
]


async def test_status_headers_and_result() -> None:
    reply = httpx.Response(
        200, json=REGISTRY, headers={"X-RateLimit-Remaining": "41", "X-Request-Id": "req-9"}
    )
    async with mock_client(Recorder(reply)) as client:
        response = await client.registries.get.with_response(31)

    assert isinstance(response, APIResponse)
    assert isinstance(response.parsed, models.ContainerRegistry)
    assert response.parsed.id == 31
    assert response.status_code == 200
    assert response.headers["x-ratelimit-remaining"] == "41"
    assert response.headers["X-REQUEST-ID"] == "req-9"
    assert response.retries_taken == 0
    assert response.elapsed >= 0
    http = response.http_response
    assert isinstance(http, httpx.Response)
    assert (http.status_code, http.json()) == (200, REGISTRY)
    assert http.request.method == "GET"
    assert str(http.request.url) == f"{BASE}/mc/registries/31"
    assert "AccessKey" not in http.request.headers
    assert KEY not in repr(response)


async def test_no_content_reply() -> None:
    async with mock_client(Recorder(httpx.Response(204))) as client:
        response = await client.pull_zones.set_force_ssl.with_response(
            1, hostname="h", force_ssl=True
        )
    assert (response.parsed, response.status_code) == (None, 204)
    assert response.http_response.content == b""


async def test_created_reply_of_a_dns_zone() -> None:
    reply = httpx.Response(201, json={"Id": 3}, headers={"Location": "/dnszone/3"})
    async with mock_client(Recorder(reply)) as client:
        response = await client.dns_zones.add.with_response(domain="example.com")
    assert response.parsed == {"Id": 3}
    assert response.status_code == 201
    assert response.headers["location"] == "/dnszone/3"


async def test_compressed_reply() -> None:
    reply = httpx.Response(
        200,
        content=gzip.compress(b'{"id": 4, "error": ""}'),
        headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
    )
    async with mock_client(Recorder(reply)) as client:
        response = await client.registries.add.with_response(display_name="main")
    assert response.parsed == 4
    assert response.http_response.json() == {"id": 4, "error": ""}


async def test_compressed_error_reply() -> None:
    reply = httpx.Response(
        404, content=gzip.compress(b'{"title": "gone"}'), headers={"Content-Encoding": "gzip"}
    )
    async with mock_client(Recorder(reply)) as client:
        with pytest.raises(NotFoundError) as info:
            await client.registries.get.with_response(31)
    assert info.value.message == "gone"
    assert info.value.response.json() == {"title": "gone"}


async def test_concurrent_calls_see_their_own_replies() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        registry_id = request.url.path.rsplit("/", 1)[1]
        return httpx.Response(
            200, json={**REGISTRY, "id": int(registry_id)}, headers={"X-Id": registry_id}
        )

    async with mock_client(handler) as client:
        responses = await asyncio.gather(
            *(client.registries.get.with_response(n) for n in range(1, 21))
        )
    for n, response in enumerate(responses, start=1):
        assert response.parsed.id == n
        assert response.headers["x-id"] == str(n)


async def test_with_response_after_a_plain_call() -> None:
    async with mock_client(Recorder(httpx.Response(200, json=REGISTRY))) as client:
        assert isinstance(await client.registries.get(31), models.ContainerRegistry)
        assert (await client.registries.get.with_response(31)).status_code == 200


@pytest.mark.parametrize(("resource", "method"), METHODS)
def test_every_method_is_documented_and_offers_with_response(resource: str, method: str) -> None:
    client = EdgeDeliveryClient(KEY, BASE)
    bound = getattr(getattr(client, resource), method)
    assert isinstance(bound, BoundEndpoint)
    assert bound.__doc__
    assert bound.with_response.__doc__
    assert inspect.iscoroutinefunction(bound.with_response)
    assert method in repr(bound)


def test_every_resource_is_documented() -> None:
    client = EdgeDeliveryClient(KEY, BASE)
    for name in RESOURCES:
        assert type(getattr(client, name)).__doc__
    for name in ("with_options", "aclose"):
        assert getattr(client, name).__doc__
