"""The nine operations: exact method, URL, headers and body; the unwrapped result."""

from __future__ import annotations

import datetime
from typing import Any

import httpx
import pytest

from edgedelivery_async import EdgeDeliveryClient, InvalidRequestError, __version__, models

from .conftest import (
    BASE,
    KEY,
    REGISTRY,
    SCRIPT_VARIABLE,
    SHIELD_CONFIG,
    TEMPLATE,
    UPLOAD_SCANNING,
    body_json,
)


def only_request(httpx_mock: Any) -> httpx.Request:
    requests = httpx_mock.get_requests()
    assert len(requests) == 1
    request: httpx.Request = requests[0]
    return request


def assert_sdk_headers(request: httpx.Request, *, body: bool) -> None:
    assert request.headers["AccessKey"] == KEY
    assert request.headers["User-Agent"].startswith(f"edgedelivery-async/{__version__}")
    assert request.headers["Accept"] == "application/json"
    if body:
        assert request.headers["Content-Type"] == "application/json"
    else:
        assert "Content-Type" not in request.headers
        assert request.content == b""


# ------------------------------------------------------------------ pull zones


async def test_set_force_ssl(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(method="POST", url=f"{BASE}/pullzone/42/setForceSSL", status_code=204)

    result = await client.pull_zones.set_force_ssl(42, hostname="cdn.example.com", force_ssl=True)

    assert result is None
    request = only_request(httpx_mock)
    assert request.method == "POST"
    assert str(request.url) == f"{BASE}/pullzone/42/setForceSSL"
    assert request.content == b'{"Hostname":"cdn.example.com","ForceSSL":true}'
    assert_sdk_headers(request, body=True)


async def test_set_force_ssl_false_and_200_with_a_body(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(json={"whatever": 1})

    assert await client.pull_zones.set_force_ssl(7, hostname="a.test", force_ssl=False) is None
    assert body_json(only_request(httpx_mock)) == {"Hostname": "a.test", "ForceSSL": False}


# --------------------------------------------------------------------- compute


async def test_add_script_variable(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(
        method="POST", url=f"{BASE}/compute/script/5/variables/add", json=SCRIPT_VARIABLE
    )

    variable = await client.compute.add_script_variable(
        5, name="API_URL", required=True, default_value="https://x"
    )

    assert isinstance(variable, models.ScriptVariable)
    assert (variable.id, variable.name, variable.required, variable.default_value) == (
        17,
        "API_URL",
        True,
        "https://x",
    )
    request = only_request(httpx_mock)
    assert request.method == "POST"
    assert request.content == b'{"Name":"API_URL","Required":true,"DefaultValue":"https://x"}'
    assert_sdk_headers(request, body=True)


async def test_add_script_variable_sends_only_given_fields(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(json={"Id": 1, "Name": "X"})

    variable = await client.compute.add_script_variable("script-a", name="X")

    assert variable.id == 1
    request = only_request(httpx_mock)
    assert request.url.raw_path == b"/compute/script/script-a/variables/add"
    assert body_json(request) == {"Name": "X"}


# ------------------------------------------------------------------- DNS zones

RECORD = {
    "Name": "www",
    "Ttl": 300,
    "Value": "192.0.2.10",
    "Disabled": False,
    "EnviromentalVariables": [{"Name": "REGION", "Value": "eu"}],
}


async def test_dns_zone_add_with_plain_records(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    sent_back = {"Id": 77, "Domain": "example.com", "Records": [], "Extra": None}
    httpx_mock.add_response(method="POST", url=f"{BASE}/dnszone", json=sent_back)

    zone = await client.dns_zones.add(domain="example.com", records=[RECORD])

    assert zone == sent_back
    request = only_request(httpx_mock)
    assert request.method == "POST"
    assert body_json(request) == {"Domain": "example.com", "Records": [RECORD]}
    assert_sdk_headers(request, body=True)


async def test_dns_zone_add_with_models(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(json=["not", "an", "object"])
    record = models.DnsRecord(
        name="www",
        ttl=300,
        value="192.0.2.10",
        disabled=False,
        enviromental_variables=[models.DnsRecordEnvironmentalVariable(name="REGION", value="eu")],
    )

    zone = await client.dns_zones.add(domain="example.com", records=[record])

    assert zone == ["not", "an", "object"]  # the undocumented body, as sent
    assert body_json(only_request(httpx_mock)) == {"Domain": "example.com", "Records": [RECORD]}


@pytest.mark.parametrize(
    ("content", "expected"),
    [(b"", None), (b"  \n", None), (b'"added"', "added"), (b"true", True), (b"12", 12)],
)
async def test_dns_zone_add_returns_any_json_body(
    client: EdgeDeliveryClient, httpx_mock: Any, content: bytes, expected: Any
) -> None:
    httpx_mock.add_response(status_code=201, content=content)

    assert await client.dns_zones.add(domain="example.com") == expected
    assert body_json(only_request(httpx_mock)) == {"Domain": "example.com"}


# ------------------------------------------------------------------ containers


async def test_set_environment(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(
        method="PUT", url=f"{BASE}/mc/apps/app-1/containers/ct-1/env", json=TEMPLATE
    )

    template = await client.containers.set_environment(
        "app-1", "ct-1", {"LOG_LEVEL": "debug", "API_URL": "https://api.example.com"}
    )

    assert isinstance(template, models.ContainerTemplate)
    assert template.id == "tpl-6c1"
    assert isinstance(template.environment_variables, list)
    assert [(v.name, v.value) for v in template.environment_variables] == [("LOG_LEVEL", "debug")]
    request = only_request(httpx_mock)
    assert request.method == "PUT"
    assert request.content == b'{"LOG_LEVEL":"debug","API_URL":"https://api.example.com"}'
    assert_sdk_headers(request, body=True)


async def test_set_environment_with_a_model_and_an_empty_set(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(json=TEMPLATE, is_reusable=True)
    variables = models.EnvironmentVariableMap()
    variables["A"] = "1"

    await client.containers.set_environment("app-1", 9, variables)
    await client.containers.set_environment("app-1", "ct-1", {})

    first, second = httpx_mock.get_requests()
    assert first.url.raw_path == b"/mc/apps/app-1/containers/9/env"
    assert first.content == b'{"A":"1"}'
    assert second.content == b"{}"  # an empty set clears every variable


async def test_add_template_with_keywords(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(method="POST", url=f"{BASE}/mc/apps/app-1/containers", json=TEMPLATE)

    template = await client.containers.add_template(
        "app-1",
        name="api",
        image_name="api",
        image_namespace="team",
        image_tag="1.4.2",
        image_registry_id="reg-31",
        environment_variables={"LOG_LEVEL": "info"},
        endpoints=[
            models.EndpointCreate(
                display_name="public",
                cdn=models.EndpointCdn(
                    is_ssl_enabled=True,
                    pull_zone_id=42,
                    port_mappings=[
                        models.PortMapping(container_port=8080, exposed_port=443, protocols=["tcp"])
                    ],
                ),
            )
        ],
        volume_mounts=[{"name": "data", "mountPath": "/var/lib/app"}],
        entry_point={"command": "/app/server", "argumentsArray": ["--port", "8080"]},
    )

    assert template.id == "tpl-6c1"
    assert template.package_id == "pkg-2f9"
    assert isinstance(template.endpoints, list)
    assert template.endpoints[0].public_host == "api-6c1.edge.example.net"
    request = only_request(httpx_mock)
    assert request.method == "POST"
    assert body_json(request) == {
        "name": "api",
        "imageName": "api",
        "imageNamespace": "team",
        "imageTag": "1.4.2",
        "imageRegistryId": "reg-31",
        "entryPoint": {"command": "/app/server", "argumentsArray": ["--port", "8080"]},
        "environmentVariables": [{"name": "LOG_LEVEL", "value": "info"}],
        "endpoints": [
            {
                "displayName": "public",
                "cdn": {
                    "isSslEnabled": True,
                    "pullZoneId": 42,
                    "portMappings": [
                        {"containerPort": 8080, "exposedPort": 443, "protocols": ["tcp"]}
                    ],
                },
            }
        ],
        "volumeMounts": [{"name": "data", "mountPath": "/var/lib/app"}],
    }
    assert_sdk_headers(request, body=True)


async def test_add_template_environment_as_a_list(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(json=TEMPLATE)

    await client.containers.add_template(
        "app-1",
        name="api",
        image="nginx",
        environment_variables=[
            models.EnvironmentVariable(name="A", value="1"),
            {"name": "B", "value": "2"},
        ],
        extra_fields={"imagePullPolicy": "always"},
    )

    assert body_json(only_request(httpx_mock)) == {
        "name": "api",
        "image": "nginx",
        "environmentVariables": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "imagePullPolicy": "always",
    }


@pytest.mark.parametrize(
    "template",
    [
        models.ContainerTemplateCreate(name="api", image="nginx:1"),
        {"name": "api", "image": "nginx:1"},
    ],
    ids=["model", "dict"],
)
async def test_add_template_with_a_whole_template(
    client: EdgeDeliveryClient, httpx_mock: Any, template: Any
) -> None:
    httpx_mock.add_response(json=TEMPLATE)

    await client.containers.add_template("app-1", template)

    assert only_request(httpx_mock).content == b'{"name":"api","image":"nginx:1"}'


async def test_add_template_refuses_template_and_keywords(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    with pytest.raises(InvalidRequestError, match="either template or keyword fields"):
        await client.containers.add_template("app-1", {"name": "a", "image": "b"}, name="c")
    with pytest.raises(InvalidRequestError, match="either template or keyword fields"):
        await client.containers.add_template(
            "app-1", {"name": "a", "image": "b"}, extra_fields={"imagePullPolicy": "always"}
        )
    assert httpx_mock.get_requests() == []


# ------------------------------------------------------------------ registries


async def test_registry_add(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(
        method="POST", url=f"{BASE}/mc/registries", json={"id": 31, "error": ""}
    )

    registry_id = await client.registries.add(display_name="main")

    assert registry_id == 31
    assert type(registry_id) is int
    request = only_request(httpx_mock)
    assert request.content == b'{"displayName":"main"}'
    assert_sdk_headers(request, body=True)


async def test_registry_add_without_error_member(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(json={"id": 32})

    assert await client.registries.add(display_name="main") == 32


async def test_registry_get(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(method="GET", url=f"{BASE}/mc/registries/31", json=REGISTRY)

    registry = await client.registries.get(31)

    assert isinstance(registry, models.ContainerRegistry)
    assert registry.id == 31
    assert registry.display_name == "main"
    assert registry.first_password_symbols == "ab"
    assert registry.created_at == datetime.datetime(2026, 11, 1, 8, 30, tzinfo=datetime.UTC)
    request = only_request(httpx_mock)
    assert request.method == "GET"
    assert_sdk_headers(request, body=False)


# ---------------------------------------------------------------------- shield


async def test_shield_zone_by_pull_zone_is_unwrapped(
    client: EdgeDeliveryClient, httpx_mock: Any
) -> None:
    httpx_mock.add_response(
        method="GET",
        url=f"{BASE}/shield/shield-zone/get-by-pullzone/42",
        json={"data": SHIELD_CONFIG},
    )

    config = await client.shield.get_zone_by_pull_zone(42)

    assert isinstance(config, models.ShieldZoneConfig)
    assert config.shield_zone_id == 9001
    assert config.pull_zone_id == 42
    assert config.waf_custom_rule_order == [3, 1, 2]
    assert config.ddos_challenge_window == 1800
    assert not hasattr(config, "data")
    assert_sdk_headers(only_request(httpx_mock), body=False)


async def test_upload_scanning_is_unwrapped(client: EdgeDeliveryClient, httpx_mock: Any) -> None:
    httpx_mock.add_response(
        method="GET",
        url=f"{BASE}/shield/shield-zone/9001/upload-scanning",
        json=UPLOAD_SCANNING,
    )

    state = await client.shield.get_upload_scanning(9001)

    assert isinstance(state, models.UploadScanningConfig)
    assert (state.shield_zone_id, state.is_enabled) == (9001, True)
    assert only_request(httpx_mock).method == "GET"


# --------------------------------------------------------------------- headers


async def test_default_headers_and_with_options_headers(
    httpx_mock: Any, http: httpx.AsyncClient
) -> None:
    httpx_mock.add_response(json=REGISTRY, is_reusable=True)
    sdk = EdgeDeliveryClient(
        KEY, BASE, http_client=http, default_headers={"X-Team": "edge", "X-Trace": "1"}
    )
    tuned = sdk.with_options(headers={"X-Trace": "2", "X-Request-Id": "abc"})

    await sdk.registries.get(31)
    await tuned.registries.get(31)
    await sdk.registries.get(31)

    first, second, third = httpx_mock.get_requests()
    assert (first.headers["X-Team"], first.headers["X-Trace"]) == ("edge", "1")
    assert "X-Request-Id" not in first.headers
    assert second.headers["X-Team"] == "edge"
    assert (second.headers["X-Trace"], second.headers["X-Request-Id"]) == ("2", "abc")
    assert second.headers["AccessKey"] == KEY
    assert third.headers["X-Trace"] == "1"


async def test_sdk_headers_win_over_default_headers_in_any_case(
    httpx_mock: Any, http: httpx.AsyncClient
) -> None:
    httpx_mock.add_response(json={"id": 1, "error": ""})
    sdk = EdgeDeliveryClient(
        KEY,
        BASE,
        http_client=http,
        default_headers={"accesskey": "other", "user-agent": "me", "content-type": "text/plain"},
    )

    await sdk.registries.add(display_name="main")

    request = only_request(httpx_mock)
    assert request.headers.get_list("AccessKey") == [KEY]
    assert len(request.headers.get_list("User-Agent")) == 1
    assert request.headers.get_list("Content-Type") == ["application/json"]
