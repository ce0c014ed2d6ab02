"""AccessKey: required on core and container operations, in each area's error family."""

from __future__ import annotations

import httpx
import pytest

from .conftest import AUTH, conforms

FORCE_SSL = {"Hostname": "pz1.example.test", "ForceSSL": True}
CORE = [
    ("PullZonePublic_SetForceSSL", "POST", "/pullzone/1/setForceSSL", FORCE_SSL),
    ("ComputeScript_AddVariable", "POST", "/compute/script/7/variables/add", {"Name": "A"}),
    ("DnsZone_Add", "POST", "/dnszone", {"Domain": "example.com"}),
]  # fmt: skip
CONTAINER = [
    ("ContainerTemplate_Add", "POST", "/mc/apps/app-1/containers", {"name": "a", "image": "nginx"}),
    ("ContainerTemplate_SetEnvironmentVariables", "PUT", "/mc/apps/app-1/containers/x/env", {}),
    ("ContainerRegistry_Add", "POST", "/mc/registries", {"displayName": "main"}),
    ("ContainerRegistry_Get", "GET", "/mc/registries/1", None),
]  # fmt: skip
NO_KEY: dict[str, str] = {}
WRONG_KEY = {"AccessKey": "not-the-key"}


@pytest.mark.parametrize("headers", [NO_KEY, WRONG_KEY], ids=["missing", "wrong"])
@pytest.mark.parametrize(("operation_id", "method", "path", "payload"), CORE)
async def test_core_operations_answer_401(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    operation_id: str,
    method: str,
    path: str,
    payload: object,
) -> None:
    response = await http.request(method, path, json=payload, headers=headers)
    assert response.status_code == 401
    conforms(operation_id, response)
    if operation_id == "PullZonePublic_SetForceSSL":
        assert response.content == b""  # the document declares 401 without a body
    else:
        assert response.json()["ErrorKey"] == "authorization.failed"
        assert set(response.json()) == {"ErrorKey", "Field", "Message"}


@pytest.mark.parametrize("headers", [NO_KEY, WRONG_KEY], ids=["missing", "wrong"])
@pytest.mark.parametrize(("operation_id", "method", "path", "payload"), CONTAINER)
async def test_container_operations_answer_401_problem(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    operation_id: str,
    method: str,
    path: str,
    payload: object,
) -> None:
    response = await http.request(method, path, json=payload, headers=headers)
    assert response.status_code == 401
    conforms(operation_id, response)
    problem = response.json()
    assert problem["status"] == 401
    assert problem["title"] == "Unauthorized"
    assert problem["instance"] == path


async def test_authentication_comes_before_validation(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/mc/registries", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 401


async def test_header_name_is_case_insensitive(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/dnszone", json={"Domain": "case.example"}, headers={"accesskey": AUTH["AccessKey"]}
    )
    assert response.is_success


async def test_shield_operations_need_no_key(http: httpx.AsyncClient) -> None:
    assert (await http.get("/shield/shield-zone/get-by-pullzone/1")).status_code == 200
    assert (await http.get("/shield/shield-zone/100001/upload-scanning")).status_code == 200
