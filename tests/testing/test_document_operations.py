"""The fake serves every operation of the document, including ones it keeps no state for.

The operation list is read from the document (`_schema.operations()`), never written here,
so an operation added to the document is exercised at once. A second document, built in
this module by adding operations to a copy of the shipped one, shows that an operation
without a hand-written handler answers from the document: auth, path, query and body
validation, faults and recording like the stateful nine.
The added operations, paths and schemas are named `Added...` and live under `/added/`, so
they never meet (and replace) an operation or schema of the document, however it grows.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest

from edgedelivery_async import _schema
from edgedelivery_async.testing import FakeEdgeDelivery, _app, _inputs
from edgedelivery_async.testing._document import Document, read_operations
from edgedelivery_async.testing._samples import example, sample

from .conftest import AUTH, KEY, conforms

OPERATIONS = sorted(_schema.operations())

# ----------------------------------------------------------------- requests


def valid_request(
    document: Document, operation_id: str
) -> tuple[str, str, dict[str, str], bytes | None]:
    """(method, path with query, headers, body) of a request the document accepts."""
    operation = document.operations[operation_id]
    raw = document.raw(operation)
    parameters = {p["name"]: p for p in map(document.deref, raw.get("parameters", []))}
    path = operation.path
    for name, schema, _ in operation.path_params:
        value = parameters[name].get("example", sample(schema, document))
        path = path.replace("{" + name + "}", quote(_text(value), safe=""))
    query: list[tuple[str, str]] = []
    for parameter in operation.query_params:
        node = parameters[parameter.name]
        if not parameter.required and "example" not in node:
            continue
        value = node.get("example", sample(parameter.schema, document))
        if isinstance(value, list) and parameter.explode:
            query += [(parameter.name, _text(item)) for item in value]
        elif isinstance(value, list):
            delimiter = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(node.get("style"), ",")
            query.append((parameter.name, delimiter.join(map(_text, value))))
        else:
            query.append((parameter.name, _text(value)))
    if query:
        path += "?" + urlencode(query)
    headers = dict(AUTH)
    for parameter in operation.header_params:
        node = parameters[parameter.name]
        if parameter.required or "example" in node:
            value = node.get("example", sample(parameter.schema, document))
            items = value if isinstance(value, list) else [value]
            headers[parameter.name] = ",".join(map(_text, items))
    body = None
    request_body = document.deref(raw.get("requestBody", {}))
    media = request_body.get("content", {}).get("application/json")
    if media is not None:
        schema = document.deref(media.get("schema", {}))
        body = json.dumps(example(document.deref(media), schema, document)).encode()
        headers["Content-Type"] = "application/json"
    return operation.method, path, headers, body


def refused_as_invalid(response: httpx.Response) -> bool:
    """Whether the fake refused the request itself (not the state behind it)."""
    if response.status_code != 400:
        return False
    if not response.content:
        return True
    body = response.json()
    return "errors" in body or str(body.get("ErrorKey", "")).startswith("request.")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ------------------------------------------------- the shipped document's operations


def test_the_operation_list_comes_from_the_document() -> None:
    fake = FakeEdgeDelivery(KEY)
    assert sorted(fake.router.operation_ids()) == OPERATIONS
    assert OPERATIONS, "the document has operations"


@pytest.mark.parametrize("operation_id", OPERATIONS)
async def test_every_operation_answers_a_valid_request_as_declared(
    http: httpx.AsyncClient, operation_id: str
) -> None:
    """Stateful operations may answer 404 (a sampled id names nothing stored); anything
    they answer is declared for the operation, with a body that fits the declared schema."""
    method, path, headers, body = valid_request(Document(), operation_id)
    response = await http.request(method, path, headers=headers, content=body)
    assert response.status_code < 500, response.text
    assert response.status_code not in (401, 405, 415), response.text
    assert not refused_as_invalid(response), response.text  # a 400 may be a state conflict
    conforms(operation_id, response)


@pytest.mark.parametrize("operation_id", OPERATIONS)
async def test_without_handlers_every_operation_answers_from_the_document(
    http: httpx.AsyncClient,
    fake: FakeEdgeDelivery,
    monkeypatch: pytest.MonkeyPatch,
    operation_id: str,
) -> None:
    """With no stateful handler at all, each operation answers its documented success."""
    monkeypatch.setattr(_app, "HANDLERS", {})
    method, path, headers, body = valid_request(Document(), operation_id)
    response = await http.request(method, path, headers=headers, content=body)
    route = fake.router.route_for(operation_id)
    assert response.status_code == route.success_status, response.text
    if response.status_code == 202:  # "accepted" only where no result status is declared
        assert not {"200", "201", "2XX"} & set(route.responses)
    conforms(operation_id, response)
    assert [(r.operation_id, r.status) for r in fake.requests] == [
        (operation_id, route.success_status)
    ]


def test_operations_of_another_document_are_read_as_the_sdk_reads_them() -> None:
    assert read_operations(_schema.spec()) == _schema.operations()


# ------------------------------------------------------- a document with new operations

PULL_ZONE_EXAMPLE = {
    "Id": 42,
    "Name": "assets",
    "Hostnames": ["assets.example.test"],
    "Certificate": None,
}


def extended_document() -> dict[str, Any]:
    """The shipped document plus operations the fake has no handler for."""
    document = copy.deepcopy(_schema.spec())
    document["components"]["schemas"]["AddedPullZone"] = {
        "type": "object",
        "required": ["Id", "Name"],
        "properties": {
            "Id": {"type": "integer", "format": "int64"},
            "Name": {"type": "string", "minLength": 1},
            "Hostnames": {"type": "array", "items": {"type": "string"}},
            "Certificate": {"type": "string", "nullable": True},
        },
    }
    document["components"]["schemas"]["AddedPullZoneStatistics"] = {
        "type": "object",
        "required": ["From", "Kind"],
        "properties": {
            "From": {"type": "string", "format": "date-time"},
            "Kind": {"type": "string", "enum": ["hourly", "daily"]},
            "Label": {"type": "string", "minLength": 12, "maxLength": 20},
            "Requests": {"type": "integer", "minimum": 10, "maximum": 20},
            "Ratio": {"type": "number", "exclusiveMinimum": True, "minimum": 2},
            "Series": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "At": {"type": "string", "format": "date-time"},
                        "Hits": {"type": "integer", "minimum": 0},
                    },
                },
            },
            "Note": {"type": "string", "nullable": True},
            "Zone": {"$ref": "#/components/schemas/AddedPullZone"},
            "Extra": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
    }
    document["components"]["schemas"]["AddedPurgeResult"] = {
        "type": "object",
        "x-sdk-result": {
            "value": "data",
            "failure": [
                {"member": ["error", "success"], "equals": False},
                {"member": ["error", "message"], "non-empty": True},
            ],
        },
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "success": {"type": "boolean", "default": False},
                    "message": {"type": "string"},
                },
            },
            "data": {"type": "object", "properties": {"Purged": {"type": "integer"}}},
        },
    }
    id_param = {
        "name": "id",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "format": "int64"},
    }
    errors = {
        "description": "The request failed.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiErrorData"}}},
    }
    document["paths"]["/added/pullzone/{id}"] = {
        "get": {
            "operationId": "AddedPullZone_Get",
            "tags": ["Pull Zone"],
            "summary": "Get a pull zone",
            "security": [{"AccessKey": []}],
            "parameters": [
                id_param,
                {
                    "name": "includeCertificate",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "boolean", "default": False},
                },
            ],
            "responses": {
                "200": {
                    "description": "The pull zone.",
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/AddedPullZone"},
                            "example": PULL_ZONE_EXAMPLE,
                        }
                    },
                }
            },
        },
        "delete": {
            "operationId": "AddedPullZone_Delete",
            "tags": ["Pull Zone"],
            "security": [{"AccessKey": []}],
            "parameters": [id_param],
            "responses": {"204": {"description": "Deleted."}, "default": errors},
        },
    }
    document["paths"]["/added/pullzone/{id}/statistics"] = {
        "get": {
            "operationId": "AddedPullZone_GetStatistics",
            "tags": ["Pull Zone"],
            "security": [{"AccessKey": []}],
            "parameters": [
                id_param,
                {
                    "name": "dateFrom",
                    "in": "query",
                    "required": True,
                    "schema": {"type": "string", "format": "date-time"},
                },
                {"name": "hourly", "in": "query", "schema": {"type": "boolean"}},
                {
                    "name": "serverZoneId",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": 100},
                },
                {
                    "name": "tags",
                    "in": "query",
                    "schema": {"type": "array", "items": {"type": "string"}},
                },
                {
                    "name": "zones",
                    "in": "query",
                    "style": "pipeDelimited",
                    "explode": False,
                    "schema": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["eu", "us", "asia"]},
                    },
                },
                {
                    "name": "ids",
                    "in": "query",
                    "explode": False,
                    "schema": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
                },
            ],
            "responses": {
                "2XX": {
                    "description": "The statistics.",
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/AddedPullZoneStatistics"}
                        }
                    },
                },
                "default": errors,
            },
        }
    }
    document["paths"]["/added/pullzone/{id}/purge"] = {
        "post": {
            "operationId": "AddedPullZone_Purge",
            "tags": ["Pull Zone"],
            "security": [{"AccessKey": []}],
            "parameters": [id_param],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["Url"],
                            "additionalProperties": False,
                            "properties": {"Url": {"type": "string", "minLength": 1}},
                        }
                    }
                },
            },
            "responses": {
                "201": {
                    "description": "Purged.",
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/AddedPurgeResult"}
                        }
                    },
                },
                "default": errors,
            },
        }
    }
    return document


EXTENDED = extended_document()
NEW_OPERATIONS = [
    "AddedPullZone_Delete",
    "AddedPullZone_Get",
    "AddedPullZone_GetStatistics",
    "AddedPullZone_Purge",
]
STATISTICS = "/added/pullzone/42/statistics?dateFrom=2026-01-01T00:00:00Z"


@pytest.fixture
def extended() -> FakeEdgeDelivery:
    """A fake over the extended document, seeded like the shipped-document fixture."""
    fake = FakeEdgeDelivery(KEY, document=EXTENDED)
    fake.seed_pull_zones(2)
    fake.add_script(7)
    fake.add_app("app-1")
    return fake


@pytest.fixture(params=["in-process", "loopback"])
async def client(
    request: pytest.FixtureRequest, extended: FakeEdgeDelivery
) -> AsyncIterator[httpx.AsyncClient]:
    """A raw httpx client on the extended fake, in-process or through the aiohttp server."""
    if request.param == "in-process":
        async with httpx.AsyncClient(transport=extended, base_url="https://fake.test") as http:
            yield http
    else:
        async with extended.serve() as url, httpx.AsyncClient(base_url=url) as http:
            yield http


def conforms_extended(operation_id: str, response: httpx.Response) -> None:
    conforms(operation_id, response, Document(EXTENDED))


def test_the_document_builds_a_fake_with_its_new_operations() -> None:
    fake = FakeEdgeDelivery(KEY, document=EXTENDED)
    assert set(NEW_OPERATIONS) <= set(fake.router.operation_ids())
    assert set(OPERATIONS) <= set(fake.router.operation_ids())
    assert "AddedPullZone_Get" not in _app.HANDLERS  # served with no hand-written line


async def test_a_new_operation_answers_its_example(client: httpx.AsyncClient) -> None:
    for query in ("", "?includeCertificate=true", "?includeCertificate=false"):
        response = await client.get(f"/added/pullzone/42{query}", headers=AUTH)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        assert response.json() == PULL_ZONE_EXAMPLE
        conforms_extended("AddedPullZone_Get", response)


@pytest.mark.parametrize("operation_id", NEW_OPERATIONS)
async def test_every_new_operation_answers_a_valid_request(
    client: httpx.AsyncClient, extended: FakeEdgeDelivery, operation_id: str
) -> None:
    method, path, headers, body = valid_request(Document(EXTENDED), operation_id)
    response = await client.request(method, path, headers=headers, content=body)
    assert response.status_code == extended.router.route_for(operation_id).success_status
    conforms_extended(operation_id, response)


async def test_a_success_without_content_is_its_status_without_a_body(
    client: httpx.AsyncClient,
) -> None:
    response = await client.delete("/added/pullzone/42", headers=AUTH)
    assert response.status_code == 204
    assert response.content == b""


async def test_a_schema_without_example_gets_a_sample_that_fits(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get(STATISTICS, headers=AUTH)
    assert response.status_code == 200  # 2XX
    conforms_extended("AddedPullZone_GetStatistics", response)
    body = response.json()
    assert body["From"] == "2026-01-01T00:00:00Z"
    assert body["Kind"] == "hourly"
    assert 12 <= len(body["Label"]) <= 20
    assert 10 <= body["Requests"] <= 20
    assert body["Ratio"] > 2
    assert len(body["Series"]) == 1
    assert body["Zone"]["Id"] == 1


async def test_a_sample_reads_as_a_success_under_x_sdk_result(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/added/pullzone/42/purge", json={"Url": "/a"}, headers=AUTH)
    assert response.status_code == 201
    conforms_extended("AddedPullZone_Purge", response)
    assert response.json()["error"] == {"success": True, "message": ""}


async def test_a_new_operation_requires_the_key(client: httpx.AsyncClient) -> None:
    for headers in ({}, {"AccessKey": "wrong"}):
        response = await client.get("/added/pullzone/42", headers=headers)
        assert response.status_code == 401
        assert response.content == b""  # 401 is not declared: no body
        statistics = await client.get(STATISTICS, headers=headers)
        assert statistics.status_code == 401
        conforms_extended("AddedPullZone_GetStatistics", statistics)
        assert statistics.json()["ErrorKey"] == "authorization.failed"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("includeCertificate=yes", "includeCertificate"),
        ("includeCertificate=True", "includeCertificate"),
        ("includeCertificate=", "includeCertificate"),
        ("includeCertificate=true&includeCertificate=false", "includeCertificate"),
        ("unknown=1", "unknown"),
        ("includeCertificate", ""),
        ("includeCertificate=true&&x=1", ""),
        ("includeCertificate=%ff", ""),
    ],
)
async def test_a_query_the_document_refuses_is_a_400(
    client: httpx.AsyncClient, extended: FakeEdgeDelivery, query: str, field: str
) -> None:
    response = await client.get(f"/added/pullzone/42?{query}", headers=AUTH)
    assert response.status_code == 400
    assert response.content == b""  # AddedPullZone_Get declares no 400 body
    assert extended.requests[-1].status == 400


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "dateFrom"),
        ("dateFrom=2026-01-01T00:00:00Z&hourly=1", "hourly"),
        ("dateFrom=2026-01-01T00:00:00Z&serverZoneId=0", "serverZoneId"),
        ("dateFrom=2026-01-01T00:00:00Z&serverZoneId=101", "serverZoneId"),
        ("dateFrom=2026-01-01T00:00:00Z&serverZoneId=1.0", "serverZoneId"),
        ("dateFrom=2026-01-01T00:00:00Z&serverZoneId=%201", "serverZoneId"),
        ("dateFrom=2026-01-01T00:00:00Z&zones=eu|mars", "zones[1]"),
        ("dateFrom=2026-01-01T00:00:00Z&zones=eu&zones=us", "zones"),
        ("dateFrom=2026-01-01T00:00:00Z&ids=1,x", "ids[1]"),
        ("dateFrom=2026-01-01T00:00:00Z&ids=1,2,3,4", "ids"),
        ("dateFrom=a&dateFrom=b", "dateFrom"),
        ("dateFrom=2026-01-01T00:00:00Z&Hourly=true", "Hourly"),
    ],
)
async def test_query_errors_are_the_family_400_naming_the_parameter(
    client: httpx.AsyncClient, query: str, field: str
) -> None:
    response = await client.get(f"/added/pullzone/42/statistics?{query}", headers=AUTH)
    assert response.status_code == 400, response.text
    conforms_extended("AddedPullZone_GetStatistics", response)
    error = response.json()
    assert error["ErrorKey"] == "request.invalid_query"
    assert error["Field"] == field, error


@pytest.mark.parametrize(
    "query",
    [
        "hourly=true&serverZoneId=100",
        "hourly=false&serverZoneId=1",
        "tags=a&tags=b%20c&tags=",
        "zones=eu|us|asia",
        "zones=",
        "ids=1,2,3",
        "ids=-5",
    ],
)
async def test_valid_queries_are_accepted(client: httpx.AsyncClient, query: str) -> None:
    response = await client.get(f"{STATISTICS}&{query}", headers=AUTH)
    assert response.status_code == 200, response.text


async def test_path_and_body_of_a_new_operation_are_validated(
    client: httpx.AsyncClient, extended: FakeEdgeDelivery
) -> None:
    bad_id = await client.get("/added/pullzone/abc/statistics?dateFrom=x", headers=AUTH)
    assert bad_id.status_code == 400
    assert bad_id.json()["Field"] == "id"
    for payload in (b"{}", b'{"Url": ""}', b'{"Url": "/a", "x": 1}', b"[1]", b"[" * 100_000):
        response = await client.post(
            "/added/pullzone/42/purge",
            content=payload,
            headers=AUTH | {"Content-Type": "application/json"},
        )
        assert response.status_code == 400, payload[:20]
        conforms_extended("AddedPullZone_Purge", response)
    wrong_type = await client.post(
        "/added/pullzone/42/purge",
        content=b'{"Url": "/a"}',
        headers=AUTH | {"Content-Type": "text/plain"},
    )
    assert wrong_type.status_code == 415  # the `default` response declares every status
    conforms_extended("AddedPullZone_Purge", wrong_type)
    assert [r.status for r in extended.requests] == [400] * 6 + [415]


async def test_new_operations_take_faults_and_are_recorded(
    client: httpx.AsyncClient, extended: FakeEdgeDelivery
) -> None:
    extended.fail_next("AddedPullZone_Get", status=503, retry_after=2)
    extended.fail_next("AddedPullZone_GetStatistics", status=429)
    failed = await client.get("/added/pullzone/42", headers=AUTH)
    assert failed.status_code == 503
    assert failed.headers["retry-after"] == "2"
    limited = await client.get(STATISTICS, headers=AUTH)
    assert limited.status_code == 429
    assert limited.json()["ErrorKey"] == "fake.injected_fault"
    assert (await client.get("/added/pullzone/42", headers=AUTH)).status_code == 200
    recorded = extended.requests_for("AddedPullZone_Get")
    assert [(r.status, r.fault) for r in recorded] == [(503, "status"), (200, None)]
    assert recorded[0].headers["accesskey"] == "<redacted>"
    extended.set_faults(rate_500=1.0, operation_id="AddedPullZone_Delete")
    assert (await client.delete("/added/pullzone/42", headers=AUTH)).status_code == 500
    assert (await client.get("/added/pullzone/42", headers=AUTH)).status_code == 200


async def test_a_dropped_connection_on_a_new_operation(extended: FakeEdgeDelivery) -> None:
    extended.drop_next("AddedPullZone_Get")
    async with httpx.AsyncClient(transport=extended, base_url="https://fake.test") as http:
        with pytest.raises(httpx.ConnectError):
            await http.get("/added/pullzone/42", headers=AUTH)
    assert [r.fault for r in extended.requests_for("AddedPullZone_Get")] == ["dropped"]


async def test_head_and_options_on_a_new_path(client: httpx.AsyncClient) -> None:
    head = await client.head("/added/pullzone/42", headers=AUTH)
    assert head.status_code == 200
    assert head.content == b""
    options = await client.options("/added/pullzone/42")
    assert options.status_code == 204
    assert options.headers["allow"] == "DELETE, GET, HEAD, OPTIONS"


async def test_the_nine_keep_their_state_next_to_new_operations(
    client: httpx.AsyncClient, extended: FakeEdgeDelivery
) -> None:
    shield = await client.get("/shield/shield-zone/get-by-pullzone/1")
    assert shield.status_code == 200
    assert shield.json()["data"]["pullZoneId"] == 1
    added = await client.post("/dnszone", json={"Domain": "a.example"}, headers=AUTH)
    assert added.status_code == 201
    assert [zone["Domain"] for zone in extended.dns_zones()] == ["a.example"]
    force = await client.post(
        "/pullzone/1/setForceSSL",
        json={"Hostname": "pz1.example.test", "ForceSSL": True},
        headers=AUTH,
    )
    assert force.status_code == 204
    assert extended.force_ssl(1, "pz1.example.test") is True


def test_unknown_operation_ids_are_still_refused() -> None:
    fake = FakeEdgeDelivery(KEY, document=EXTENDED)
    fake.fail_next("AddedPullZone_Get")
    with pytest.raises(KeyError, match="AddedPullZone_Nope"):
        fake.fail_next("AddedPullZone_Nope")
    with pytest.raises(KeyError, match="AddedPullZone_Get"):
        FakeEdgeDelivery(KEY).fail_next("AddedPullZone_Get")  # not in the shipped document


async def test_a_document_without_one_of_the_nine_still_starts() -> None:
    document = copy.deepcopy(_schema.spec())
    del document["paths"]["/dnszone"]
    fake = FakeEdgeDelivery(KEY, document=document, pull_zones=1)
    assert "DnsZone_Add" not in fake.router.operation_ids()
    with pytest.raises(KeyError):
        fake.fail_next("DnsZone_Add")
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        assert (await http.post("/dnszone", json={}, headers=AUTH)).status_code == 404
        shield = await http.get("/shield/shield-zone/get-by-pullzone/1")
        assert shield.status_code == 200


def test_the_shipped_document_is_not_changed_by_a_custom_one() -> None:
    before = json.dumps(_schema.spec(), sort_keys=True)
    FakeEdgeDelivery(KEY, document=EXTENDED)
    assert json.dumps(_schema.spec(), sort_keys=True) == before
    assert "/added/pullzone/{id}" not in _schema.spec()["paths"]


@pytest.mark.parametrize("name", sorted(_schema.spec()["components"]["schemas"]))
def test_a_sample_of_every_schema_of_the_document_fits_it(name: str) -> None:
    document = Document()
    schema = {"$ref": f"#/components/schemas/{name}"}
    assert document.validate(schema, sample(schema, document)) == []


@pytest.mark.parametrize("name", sorted(EXTENDED["components"]["schemas"]))
def test_a_sample_of_every_schema_of_another_document_fits_it(name: str) -> None:
    document = Document(EXTENDED)
    schema = {"$ref": f"#/components/schemas/{name}"}
    assert document.validate(schema, sample(schema, document)) == []


def test_a_sample_never_changes_the_document() -> None:
    schema = {
        "type": "object",
        "x-sdk-result": {"failure": [{"member": ["error", "success"], "equals": False}]},
        "example": {"error": {"success": False}},
    }
    document = Document(EXTENDED)
    assert sample(schema, document) == {"error": {"success": True}}
    assert schema["example"] == {"error": {"success": False}}


async def test_cookie_parameters_are_read_from_the_cookie_header_and_validated() -> None:
    """A cookie parameter stopped regeneration; the fake now reads the `Cookie` header as a
    server does: a required cookie missing, or one of the wrong type, is a 400 naming it;
    cookies the operation does not declare are ignored."""
    fake = FakeEdgeDelivery(KEY, document=cookie_document())
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        for cookie, field in (
            (None, "session"),
            ("other=1", "session"),
            ("session=abc; n=x", "n"),
            ("session=abc; n=0", "n"),
        ):
            headers = {**AUTH, **({"Cookie": cookie} if cookie else {})}
            response = await http.get("/added/session", headers=headers)
            assert response.status_code == 400, (cookie, response.text)
            assert (response.json()["ErrorKey"], response.json()["Field"]) == (
                "request.invalid_cookie",
                field,
            ), cookie
        for cookie in ("session=abc", "other=1; session=abc;n=3"):
            response = await http.get("/added/session", headers={**AUTH, "Cookie": cookie})
            assert response.status_code == 204, (cookie, response.text)


def cookie_document() -> dict[str, Any]:
    """EXTENDED with `GET /added/session`: a required string cookie, an optional integer one
    with a default, an array one."""
    document = copy.deepcopy(EXTENDED)
    document["paths"]["/added/session"] = {
        "get": {
            "operationId": "AddedSession_Get",
            "tags": ["Added"],
            "parameters": [
                {"name": "session", "in": "cookie", "required": True, "schema": {"type": "string"}},
                {"name": "n", "in": "cookie", "schema": {**INTEGER_FROM_1, "default": 5}},
                {"name": "ids", "in": "cookie", "schema": {"type": "array", "items": INTEGER}},
            ],
            "responses": {
                "204": {"description": "done"},
                "default": document["paths"]["/added/pullzone/{id}/statistics"]["get"]["responses"][
                    "default"
                ],
            },
        }
    }
    return document


def params_seen_by(monkeypatch: pytest.MonkeyPatch, operation_id: str) -> list[dict[str, Any]]:
    """The parameters a stateful handler for `operation_id` is given, one entry a call
    (the handler answers 204)."""
    seen: list[dict[str, Any]] = []

    def handler(app: _app.FakeApp, match: _app.Match, body: Any) -> Any:
        seen.append(match.params)
        return _app.r.empty_reply(204)

    monkeypatch.setattr(_app, "HANDLERS", {operation_id: handler})
    return seen


async def test_cookie_parameters_are_typed_defaulted_and_reach_the_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cookie parameters were validated only: a default was not filled in and a stateful
    handler never saw their values, where header and query parameters get both. Now they
    are read by the header parameters' one code path: typed, defaulted, passed on."""
    seen = params_seen_by(monkeypatch, "AddedSession_Get")
    fake = FakeEdgeDelivery(KEY, document=cookie_document())
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        for cookie, params in (
            ("session=abc", {"session": "abc", "n": 5}),
            ("other=1; session=abc;n=3", {"session": "abc", "n": 3}),
            ("session=abc; ids=4,5", {"session": "abc", "n": 5, "ids": [4, 5]}),
        ):
            response = await http.get("/added/session", headers={**AUTH, "Cookie": cookie})
            assert response.status_code == 204, (cookie, response.text)
            assert seen.pop() == params


def test_cookie_parameters_the_sdk_sends_are_read_back_as_given() -> None:
    """`_requests.encode_cookies` and the fake's `cookie_params` agree: the same values."""
    from edgedelivery_async._requests import encode_cookies

    fake = FakeEdgeDelivery(KEY, document=cookie_document())
    route = fake.router.route_for("AddedSession_Get")
    values = {"session": "abc", "n": 7, "ids": [9]}
    problems: list[_schema.Problem] = []
    cookie = encode_cookies(route.operation.cookie_params, values, problems)
    assert (problems, cookie) == ([], "session=abc; n=7; ids=9")
    assert _inputs.cookie_params(route, cookie, fake.router.document) == values


def path_item_document() -> dict[str, Any]:
    """A fragment: `/things/{id}` declares on its path item a required integer path
    parameter and a required enum query parameter; its GET takes both as they are, its PUT
    declares `mode` again (an optional integer), which overrides the path item's."""
    shared = [
        {"name": "id", "in": "path", "required": True, "schema": INTEGER_FROM_1},
        {"name": "mode", "in": "query", "required": True, "schema": {"enum": ["a", "b"]}},
    ]
    done = {"204": {"description": "done"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "fragment", "version": "1"},
        "paths": {
            "/things/{id}": {
                "parameters": shared,
                "get": {"operationId": "Thing_Get", "responses": done},
                "put": {
                    "operationId": "Thing_Put",
                    "parameters": [{"name": "mode", "in": "query", "schema": INTEGER}],
                    "responses": done,
                },
            }
        },
    }


async def test_path_item_parameters_apply_to_each_operation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parameters declared on a path item (shared by its operations) were ignored by the
    fake over a document given to it: no path or query parameter of it was validated or
    typed. Now an operation's parameters are OpenAPI's (`_schema.operation_parameters`, the
    rule the generator's repair uses too): the path item's, overridden by the operation's
    own of the same name and place."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def handler(app: _app.FakeApp, match: _app.Match, body: Any) -> Any:
        seen.append((match.route.operation_id, match.params))
        return _app.r.empty_reply(204)

    monkeypatch.setattr(_app, "HANDLERS", {"Thing_Get": handler, "Thing_Put": handler})
    fake = FakeEdgeDelivery(KEY, document=path_item_document())
    get = fake.router.route_for("Thing_Get").operation
    assert [p.name for p in get.path_params] == ["id"]
    assert [(p.name, p.required) for p in get.query_params] == [("mode", True)]
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        for method, url in (
            ("GET", "/things/x?mode=a"),
            ("GET", "/things/0?mode=a"),
            ("GET", "/things/1"),
            ("GET", "/things/1?mode=c"),
            ("PUT", "/things/x"),
            ("PUT", "/things/1?mode=a"),
        ):
            response = await http.request(method, url, headers=AUTH)
            assert response.status_code == 400, (method, url)
        assert seen == []
        for method, url, params in (
            ("GET", "/things/2?mode=b", {"id": 2, "mode": "b"}),
            ("PUT", "/things/3", {"id": 3}),
            ("PUT", "/things/3?mode=4", {"id": 3, "mode": 4}),
        ):
            response = await http.request(method, url, headers=AUTH)
            assert response.status_code == 204, (method, url, response.text)
            assert seen.pop() == (f"Thing_{method.capitalize()}", params)


def header_document() -> dict[str, Any]:
    """EXTENDED with `GET /added/count`: a required integer header, an optional enum one, an
    array one, and headers that are no parameters (Accept, Content-Type, Authorization: OpenAPI
    says to ignore them; AccessKey: the credential, checked by auth only)."""
    document = copy.deepcopy(EXTENDED)
    document["paths"]["/added/count"] = {
        "get": {
            "operationId": "AddedCount_Get",
            "tags": ["Added"],
            "parameters": [
                {"name": "X-Count", "in": "header", "required": True, "schema": INTEGER_FROM_1},
                {"name": "X-Mode", "in": "header", "schema": {"enum": ["fast", "slow"]}},
                {"name": "X-Ids", "in": "header", "schema": {"type": "array", "items": INTEGER}},
                *(
                    {"name": name, "in": "header", "required": True, "schema": INTEGER}
                    for name in ("Accept", "content-type", "Authorization", "AccessKey")
                ),
            ],
            "responses": {
                "204": {"description": "done"},
                "default": document["paths"]["/added/pullzone/{id}/statistics"]["get"]["responses"][
                    "default"
                ],
            },
        }
    }
    return document


INTEGER: dict[str, Any] = {"type": "integer"}
INTEGER_FROM_1: dict[str, Any] = {"type": "integer", "format": "int32", "minimum": 1}


async def test_header_parameters_are_read_and_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake ignored header parameters: a required one missing, or one of the wrong type,
    was served. Now each is read as the SDK sends it (any case of its name, an array's items
    joined by commas) and validated: a 400 naming it, `request.invalid_header`, and the
    handler sees the typed values. Accept, Content-Type, Authorization and AccessKey are never
    read as parameters (the key is no integer, and never shows in a message)."""
    seen = params_seen_by(monkeypatch, "AddedCount_Get")
    fake = FakeEdgeDelivery(KEY, document=header_document())
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        for given, field, message in (
            ({}, "X-Count", "a required header parameter"),
            ({"X-Mode": "fast"}, "X-Count", "a required header parameter"),
            ({"X-Count": "two"}, "X-Count", "'two' is not an integer"),
            ({"X-Count": "0"}, "X-Count", "0 is out of range"),
            ({"X-Count": "2147483648"}, "X-Count", "2147483648 is out of range"),
            ({"X-Count": "2", "X-Mode": "quick"}, "X-Mode", "quick"),
            ({"X-Count": "2", "X-Ids": "1,x"}, "X-Ids[1]", "'x' is not an integer"),
        ):
            response = await http.get("/added/count", headers={**AUTH, **given})
            assert response.status_code == 400, (given, response.text)
            body = response.json()
            assert (body["ErrorKey"], body["Field"]) == ("request.invalid_header", field), body
            assert message in body["Message"], body
            assert KEY not in response.text
        assert seen == []
        for given, params in (
            ({"X-Count": "2"}, {"X-Count": 2}),
            ({"x-count": " 3 ", "X-MODE": "slow"}, {"X-Count": 3, "X-Mode": "slow"}),
            ({"X-Count": "1", "X-Ids": "4, 5,6"}, {"X-Count": 1, "X-Ids": [4, 5, 6]}),
            ({"X-Count": "1", "X-Ids": ""}, {"X-Count": 1, "X-Ids": []}),
        ):
            headers = {**AUTH, "Accept": "*/*", "Authorization": "Bearer b", **given}
            response = await http.get("/added/count", headers=headers)
            assert response.status_code == 204, (given, response.text)
            assert seen.pop() == params
        # The operation declares no security: AccessKey, a required header "parameter"
        # here, is not asked for either.
        keyless = await http.get("/added/count", headers={"X-Count": "2"})
        assert keyless.status_code == 204, keyless.text


def test_header_parameters_the_sdk_sends_are_read_back_as_given() -> None:
    """`_requests.encode_headers` and the fake's `header_params` agree: the same values."""
    from edgedelivery_async._requests import encode_headers

    fake = FakeEdgeDelivery(KEY, document=header_document())
    route = fake.router.route_for("AddedCount_Get")
    sent = tuple(p for p in route.operation.header_params if p.name.startswith("X-"))
    values = {"X-Count": 7, "X-Mode": "slow", "X-Ids": [1, 2, 3]}
    problems: list[_schema.Problem] = []
    headers = encode_headers(sent, values, problems)
    assert (problems, headers) == ([], {"X-Count": "7", "X-Mode": "slow", "X-Ids": "1,2,3"})
    lowered = {name.lower(): text for name, text in headers.items()}
    assert _inputs.header_params(route, lowered, fake.router.document) == values


def test_an_object_header_parameter_is_read_in_the_simple_style() -> None:
    """`k,v,k2,v2`, or `k=v,k2=v2` exploded: each member typed by its schema."""
    schema = {"type": "object", "properties": {"a": INTEGER, "b": {"type": "string"}}}
    document = header_document()
    parameters = document["paths"]["/added/count"]["get"]["parameters"]
    parameters[:] = [
        {"name": "X-Pair", "in": "header", "schema": schema},
        {"name": "X-Kv", "in": "header", "explode": True, "schema": schema},
    ]
    fake = FakeEdgeDelivery(KEY, document=document)
    route = fake.router.route_for("AddedCount_Get")
    read = _inputs.header_params(
        route, {"x-pair": "a,1,b,x", "x-kv": "b=y,a=2"}, fake.router.document
    )
    assert read == {"X-Pair": {"a": 1, "b": "x"}, "X-Kv": {"a": 2, "b": "y"}}
    for headers, field in (
        ({"x-pair": "a,1,b"}, "X-Pair"),
        ({"x-pair": "a,1,a,2"}, "X-Pair"),
        ({"x-kv": "a=1,b"}, "X-Kv"),
        ({"x-pair": "a,one"}, "X-Pair[a]"),
    ):
        with pytest.raises(_inputs.BadRequest) as bad:
            _inputs.header_params(route, headers, fake.router.document)
        assert [p.field for p in bad.value.problems] == [field], headers


OBJECT_PARAMETERS = [
    {
        "name": "filter",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "schema": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    {
        "name": "opts",
        "in": "query",
        "schema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}},
            "additionalProperties": False,
        },
    },
    {
        "name": "pair",
        "in": "query",
        "explode": False,
        "schema": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    {"name": "q", "in": "query", "schema": {"type": "string"}},
]


def test_object_query_parameters_are_sent_and_read_by_their_style() -> None:
    """An object query parameter (typed `Mapping[str, str]`) was refused by the SDK ("a dict
    cannot be sent here"): deepObject is now sent as `filter[k]=v`, an exploded form object
    as `k=v`, an unexploded one as `pair=k,v`, and the fake reads them back the same way."""
    from edgedelivery_async._requests import encode_query
    from edgedelivery_async.testing._inputs import BadRequest, query_params

    spec = copy.deepcopy(Document().spec)
    spec["paths"]["/objects"] = {
        "get": {
            "operationId": "Objects_Get",
            "parameters": OBJECT_PARAMETERS,
            "responses": {"204": {"description": "done"}},
        }
    }
    operation = read_operations(spec)["Objects_Get"]
    values = {
        "filter": {"name": "a b", "x[y]": "1"},
        "opts": {"a": 2, "b": True},
        "pair": {"k": 1, "m": 2},
        "q": "z",
    }
    problems: list[_schema.Problem] = []
    query = encode_query(operation.query_params, values, problems)
    assert problems == []
    assert query == "?filter[name]=a%20b&filter[x%5By%5D]=1&a=2&b=true&pair=k,1,m,2&q=z"
    fake = FakeEdgeDelivery(KEY, document=spec)
    route = fake.router.route_for("Objects_Get")
    assert query_params(route, "/objects" + query, fake.router.document) == values
    for bad, field in (
        ("?opts=1", "opts"),
        ("?a=x", "opts[a]"),
        ("?c=1", "c"),
        ("?filter[n]=1&filter[n]=2", "filter[n]"),
        ("?pair=k", "pair"),
        ("?pair=k,x", "pair[k]"),
    ):
        with pytest.raises(BadRequest) as raised:
            query_params(route, "/objects" + bad, fake.router.document)
        assert [problem.field for problem in raised.value.problems] == [field], bad
    refused: list[_schema.Problem] = []
    encode_query(operation.query_params, {"pair": {"k": "x"}, "filter": {"a": [1]}}, refused)
    assert [problem.field for problem in refused] == ["filter", "pair"]
