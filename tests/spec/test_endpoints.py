"""Each generated endpoint sends the right method, path, headers and JSON body."""

from __future__ import annotations

import json
import pkgutil
import typing
from typing import Any

import httpx
import pytest
from edgedelivery_openapi import AuthenticatedClient, Client, api
from pytest_httpx import HTTPXMock

from ._calls import (
    KEY,
    anonymous_client,
    authenticated_client,
    call,
    expected_path,
    path_arguments,
    request_example,
)
from ._document import ENDPOINT_MODULES, JSON, Operation, operations, resolve
from ._walk import normalize_dates

OPERATIONS = operations()
IDS = [o.operation_id for o in OPERATIONS]


def shield(operation: Operation) -> bool:
    return {} in operation.op["security"]


SHIELD = [o for o in OPERATIONS if shield(o)]


def success_body(operation: Operation) -> tuple[int, Any]:
    """A success status and (example) body for the mock to answer with."""
    for key, response in operation.op["responses"].items():
        if key.startswith("2"):
            response = resolve(response)
            if "content" not in response:
                return int(key), None
            media = response["content"][JSON]
            if "example" in media:
                return (200 if key == "2XX" else int(key)), media["example"]
            (entry,) = media["examples"].values()
            return (200 if key == "2XX" else int(key)), resolve(entry)["value"]
    raise AssertionError(f"{operation.operation_id} has no success response")


def sent(httpx_mock: HTTPXMock) -> httpx.Request:
    (request,) = httpx_mock.get_requests()
    return request


def test_every_generated_endpoint_module_is_an_operation() -> None:
    found = {
        name.removeprefix("edgedelivery_openapi.api.")
        for _, name, is_package in pkgutil.walk_packages(api.__path__, "edgedelivery_openapi.api.")
        if not is_package
    }
    assert found == set(ENDPOINT_MODULES.values())


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
async def test_request_on_the_wire(operation: Operation, httpx_mock: HTTPXMock) -> None:
    status, body = success_body(operation)
    if body is None:
        httpx_mock.add_response(status_code=status)
    else:
        httpx_mock.add_response(status_code=status, json=body)
    response = await call(operation, authenticated_client())

    request = sent(httpx_mock)
    assert request.method == operation.method.upper()
    assert request.url.host == "api.example.invalid"
    assert request.url.raw_path.decode("ascii") == expected_path(operation)
    assert request.url.query == b""
    assert request.headers["AccessKey"] == KEY
    assert "Authorization" not in request.headers
    example = request_example(operation)
    if example is None:
        assert request.content == b""
        assert "Content-Type" not in request.headers
    else:
        assert request.headers["Content-Type"] == "application/json"
        assert json.loads(request.content) == example
    assert int(response.status_code) == status
    if body is None:
        assert response.parsed is None
    else:
        parsed = response.parsed
        schema = operation.response_schema("2XX")
        as_dict = parsed.to_dict() if hasattr(parsed, "to_dict") else parsed
        assert normalize_dates(as_dict, schema) == normalize_dates(body, schema)


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
def test_path_arguments_are_the_document_parameters(operation: Operation) -> None:
    hints = typing.get_type_hints(operation.module().asyncio_detailed)
    for name, value in path_arguments(operation).items():
        assert hints[name] is type(value), name


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
def test_client_type_follows_security(operation: Operation) -> None:
    client = typing.get_type_hints(operation.module().asyncio_detailed)["client"]
    if shield(operation):
        assert client == AuthenticatedClient | Client
    else:
        assert client is AuthenticatedClient


@pytest.mark.parametrize("operation", SHIELD, ids=[o.operation_id for o in SHIELD])
async def test_shield_operations_work_without_a_key(
    operation: Operation, httpx_mock: HTTPXMock
) -> None:
    status, body = success_body(operation)
    httpx_mock.add_response(status_code=status, json=body)
    response = await call(operation, anonymous_client())
    request = sent(httpx_mock)
    assert "AccessKey" not in request.headers
    assert request.url.raw_path.decode("ascii") == expected_path(operation)
    schema = operation.response_schema("2XX")
    assert normalize_dates(response.parsed.to_dict(), schema) == normalize_dates(body, schema)


async def test_force_ssl_body_and_no_content_reply(httpx_mock: HTTPXMock) -> None:
    """The one operation whose statuses the reference gives, spelled out."""
    from edgedelivery_openapi.api.pull_zone import pull_zone_public_set_force_ssl as force_ssl
    from edgedelivery_openapi.models import SetForceSslRequest

    httpx_mock.add_response(status_code=204)
    async with authenticated_client() as client:
        response = await force_ssl.asyncio_detailed(
            7, client=client, body=SetForceSslRequest(hostname="cdn.example.com", force_ssl=False)
        )
    request = sent(httpx_mock)
    assert request.method == "POST"
    assert request.url == "https://api.example.invalid/pullzone/7/setForceSSL"
    assert request.headers["AccessKey"] == KEY
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == {"Hostname": "cdn.example.com", "ForceSSL": False}
    assert response.status_code == 204
    assert response.parsed is None


@pytest.mark.parametrize("status", [400, 401, 404, 500])
async def test_force_ssl_error_statuses(status: int, httpx_mock: HTTPXMock) -> None:
    from edgedelivery_openapi.api.pull_zone import pull_zone_public_set_force_ssl as force_ssl
    from edgedelivery_openapi.models import ApiErrorData, SetForceSslRequest

    error = {"ErrorKey": "pullzone.x", "Field": None, "Message": "no"}
    httpx_mock.add_response(status_code=status, json=error)
    async with authenticated_client(raise_on_unexpected_status=True) as client:
        response = await force_ssl.asyncio_detailed(
            7, client=client, body=SetForceSslRequest(hostname="h", force_ssl=True)
        )
    assert response.status_code == status
    if status == 400:
        assert isinstance(response.parsed, ApiErrorData)
        assert response.parsed.to_dict() == error
    else:
        assert response.parsed is None
