"""`reply_next`: the fake answers an operation with a reply shape, read from the document.

These tests read the raw replies (in-process and over loopback); the SDK's reading of the
same shapes is tested in tests/e2e/test_reply_shapes.py. A second document, built here,
shows that the shapes come from the document and not from per-operation code.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from edgedelivery_async import _schema
from edgedelivery_async.testing import REPLY_SHAPES, FakeEdgeDelivery
from edgedelivery_async.testing._shapes import FAILURE_KEY, FAILURE_MESSAGE, UNLISTED

from .conftest import AUTH, KEY, conforms

SHIELD = "/shield/shield-zone/get-by-pullzone/1"
SCANNING = "/shield/shield-zone/100001/upload-scanning"
REGISTRY = {"displayName": "main", "passwordCredentials": {"userName": "u", "password": "pw-123"}}


async def _success(http: httpx.AsyncClient, method: str, path: str, body: Any = None) -> Any:
    response = await http.request(method, path, json=body, headers=AUTH)
    assert response.is_success, response.text
    return response.json()


# ------------------------------------------------------------------ refusals
def test_shapes_of_the_shipped_operations(fake: FakeEdgeDelivery) -> None:
    shapes = {op: set(fake.shapes_for(op)) for op in fake.router.operation_ids()}
    assert shapes["PullZonePublic_SetForceSSL"] == {"success"}
    assert shapes["ContainerRegistry_Add"] == {
        "success", "failure-in-body", "nulls", "unknown-enum",
    }  # fmt: skip
    assert shapes["ShieldZone_GetByPullZone"] == set(REPLY_SHAPES) - {"unknown-enum"}
    assert "lowercase-timestamps" in shapes["ContainerRegistry_Get"]
    assert all("success" in found for found in shapes.values())


def test_unknown_operations_and_shapes_are_refused(fake: FakeEdgeDelivery) -> None:
    with pytest.raises(ValueError, match="unknown operation id 'Nope_Get'"):
        fake.reply_next("Nope_Get", "nulls")
    with pytest.raises(ValueError, match="unknown operation id"):
        fake.shapes_for("Nope_Get")
    with pytest.raises(ValueError, match="unknown reply shape 'weird'; one of: success, "):
        fake.reply_next("ShieldZone_GetByPullZone", "weird")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="times"):
        fake.reply_next("ShieldZone_GetByPullZone", "nulls", times=0)
    assert fake.faults.pending == 0


@pytest.mark.parametrize(
    ("operation_id", "shape", "why"),
    [
        ("PullZonePublic_SetForceSSL", "nulls", "no JSON body"),
        ("ComputeScript_AddVariable", "failure-in-body", "no x-sdk-result failure"),
        ("ContainerRegistry_Add", "accepted", "declares no 202"),
        ("ShieldZone_GetUploadScanning", "unknown-enum", "no enum member"),
        ("ContainerTemplate_Add", "lowercase-timestamps", "no date-time member"),
    ],
)
def test_a_shape_the_document_does_not_allow_is_refused_naming_the_operation(
    fake: FakeEdgeDelivery, operation_id: str, shape: Any, why: str
) -> None:
    with pytest.raises(ValueError, match=operation_id) as refused:
        fake.reply_next(operation_id, shape)
    assert why in str(refused.value)
    assert fake.faults.pending == 0


# --------------------------------------------------------------------- shapes
async def test_success_is_the_reply_unchanged(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    plain = await _success(http, "GET", SHIELD)
    fake.reply_next("ShieldZone_GetByPullZone", "success")
    response = await http.get(SHIELD)
    assert response.json() == plain
    assert fake.requests[-1].shape == "success"
    assert fake.requests[-1].fault is None


async def test_failure_in_the_shield_wrappers(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    wrappers = [("ShieldZone_GetByPullZone", SHIELD), ("ShieldZone_GetUploadScanning", SCANNING)]
    for operation_id, path in wrappers:
        fake.reply_next(operation_id, "failure-in-body")
        response = await http.get(path)
        assert response.status_code == 200
        # `data` is left out: the document does not let it be null.
        assert response.json() == {
            "error": {"success": False, "message": FAILURE_MESSAGE, "errorKey": FAILURE_KEY}
        }


async def test_a_registry_failure_has_a_status_a_message_and_stores_nothing(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("ContainerRegistry_Add", "failure-in-body")
    response = await http.post("/mc/registries", json=REGISTRY, headers=AUTH)
    assert response.status_code == 200
    listed = _schema.deref({"$ref": "#/components/schemas/ContainerRegistrySaveStatus"})["enum"]
    assert response.json() == {"id": None, "error": FAILURE_MESSAGE, "status": listed[1]}
    assert response.json()["status"] != "saved"
    conforms("ContainerRegistry_Add", response)
    assert fake.state.registries == {}
    # The next add is saved as usual, with the id the failed one did not take.
    assert await _success(http, "POST", "/mc/registries", REGISTRY) == {
        "id": 1, "error": "", "status": "saved",
    }  # fmt: skip


async def test_a_dns_failure_in_the_body_keeps_the_state(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("DnsZone_Add", "failure-in-body")
    response = await http.post("/dnszone", json={"Domain": "a.test"}, headers=AUTH)
    assert response.status_code == 201
    assert response.json()["error"] == {
        "success": False, "message": FAILURE_MESSAGE, "errorKey": FAILURE_KEY,
    }  # fmt: skip
    assert fake.dns_zones() == []
    assert (await http.post("/dnszone", json={"Domain": "a.test"}, headers=AUTH)).status_code == 201


async def test_accepted_is_the_documented_202(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("ShieldZone_GetUploadScanning", "accepted", times=2)
    for _ in range(2):
        response = await http.get(SCANNING)
        assert response.status_code == 202
        conforms("ShieldZone_GetUploadScanning", response)
        assert "declaredType" not in response.json()
    assert (await http.get(SCANNING)).status_code == 200


async def test_nulls_null_every_member_and_keep_objects(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.add_template("app-1")
    body = {
        "name": "api",
        "image": "nginx",
        "endpoints": [{"displayName": "p", "cdn": {"portMappings": [{"containerPort": 80}]}}],
    }
    fake.reply_next("ContainerTemplate_Add", "nulls")
    shaped = await _success(http, "POST", "/mc/apps/app-1/containers", body)
    assert shaped["id"] is None
    assert shaped["environmentVariables"] is None
    (endpoint,) = shaped["endpoints"]
    assert endpoint["stickySessions"] == {
        "enabled": None,
        "sessionHeaders": None,
        "cookieName": None,
    }
    assert endpoint["internalIpAddresses"] == [{"address": None, "region": None}]
    assert endpoint["portMappings"] == [{"containerPort": None}]
    assert len(fake.templates("app-1")) == 2  # a success: the template was added

    fake.reply_next("ShieldZone_GetUploadScanning", "nulls")
    assert await _success(http, "GET", SCANNING) == {
        "error": {"success": None, "message": None, "errorKey": None},
        "data": {"shieldZoneId": None, "isEnabled": None},
    }


async def test_unknown_enum_values(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    fake.reply_next("ContainerRegistry_Add", "unknown-enum")
    shaped = await _success(http, "POST", "/mc/registries", REGISTRY)
    assert shaped == {"id": 1, "error": "", "status": UNLISTED}
    # An unknown status reports failure by the document's rule: nothing is stored.
    assert fake.state.registries == {}


async def test_lowercase_timestamps(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    registry = fake.add_registry("main")
    plain = await _success(http, "GET", f"/mc/registries/{registry}")
    fake.reply_next("ContainerRegistry_Get", "lowercase-timestamps")
    shaped = await _success(http, "GET", f"/mc/registries/{registry}")
    for name in ("createdAt", "lastUpdatedAt"):
        assert shaped[name] == plain[name].lower()
        assert "t" in shaped[name]
        assert shaped[name].endswith("z")
    assert {k: v for k, v in shaped.items() if k not in ("createdAt", "lastUpdatedAt")} == {
        k: v for k, v in plain.items() if k not in ("createdAt", "lastUpdatedAt")
    }


# ---------------------------------------------------------------- the queue
async def test_shapes_queue_with_faults_first_in_first_out(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.fail_next("ShieldZone_GetByPullZone", status=503)
    fake.reply_next("ShieldZone_GetByPullZone", "accepted")
    fake.reply_next("ShieldZone_GetUploadScanning", "nulls")
    assert (await http.get(SCANNING)).json()["data"] == {"shieldZoneId": None, "isEnabled": None}
    assert [(await http.get(SHIELD)).status_code for _ in range(3)] == [503, 202, 200]
    assert [(r.fault, r.shape) for r in fake.requests] == [
        (None, "nulls"), ("status", None), (None, "accepted"), (None, None),
    ]  # fmt: skip


async def test_a_refused_request_is_answered_as_usual_and_uses_the_shape(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("ContainerRegistry_Get", "nulls")
    missing = await http.get("/mc/registries/99", headers=AUTH)
    assert missing.status_code == 404
    unauthorized = await http.get("/mc/registries/99")
    assert unauthorized.status_code == 401
    assert [r.shape for r in fake.requests] == ["nulls", None]


async def test_clear_faults_forgets_queued_shapes(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("ShieldZone_GetByPullZone", "accepted", times=3)
    assert fake.faults.pending == 3
    fake.clear_faults()
    assert (await http.get(SHIELD)).status_code == 200


async def test_head_gets_the_shaped_status_without_a_body(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.reply_next("ShieldZone_GetByPullZone", "accepted")
    response = await http.head(SHIELD)
    assert response.status_code == 202
    assert response.content == b""


# ---------------------------------------------------------- registry secrets
async def test_registry_credentials_are_stored_and_never_recorded(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    created = await _success(http, "POST", "/mc/registries", {**REGISTRY, "type": "dockerHub"})
    assert created["status"] == "saved"
    registry_id = created["id"]
    assert fake.has_registry_password(registry_id, "pw-123")
    record = await _success(http, "GET", f"/mc/registries/{registry_id}")
    assert record["userName"] == "u"
    assert (record["firstPasswordSymbols"], record["lastPasswordSymbols"]) == ("pw", "23")
    (recorded,) = fake.requests_for("ContainerRegistry_Add")
    assert recorded.json["passwordCredentials"] == {"userName": "u", "password": "<redacted>"}
    assert recorded.json["type"] == "dockerHub"
    assert "pw-123" not in repr(fake.requests)


async def test_a_registry_without_credentials_has_no_user(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    created = await _success(http, "POST", "/mc/registries", {"displayName": "public"})
    record = fake.registry(created["id"])
    assert (record["userName"], record["firstPasswordSymbols"]) == ("", "")


async def test_undeclared_password_members_are_redacted_too(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    body = {"displayName": "x", "extra": [{"Password": "hunter2"}], "passwordCredentials": None}
    await http.post("/mc/registries", json=body, headers=AUTH)  # refused or not, it is recorded
    assert fake.requests[-1].json["extra"] == [{"Password": "<redacted>"}]
    assert "hunter2" not in repr(fake.requests)


# ------------------------------------------------------ another document
def custom_document() -> dict[str, Any]:
    """The shipped document plus two operations with no handler: the shapes follow them."""
    document = copy.deepcopy(_schema.spec())
    schemas = document["components"]["schemas"]
    schemas["Job"] = {
        "type": "object",
        "properties": {
            "state": {"type": "string", "enum": ["queued", "done"]},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
            "startedAt": {"type": "string", "format": "date-time"},
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"at": {"type": "string", "format": "date-time"}},
                },
            },
        },
    }
    schemas["JobResult"] = {
        "type": "object",
        "x-sdk-result": {"value": "job", "failure": [{"member": ["ok"], "equals": False}]},
        "properties": {"ok": {"type": "boolean"}, "job": {"$ref": "#/components/schemas/Job"}},
    }
    schemas["JobCreate"] = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "token": {"type": "string", "format": "password"},
        },
    }
    result = {"schema": {"$ref": "#/components/schemas/JobResult"}}
    json_of = {"content": {"application/json": result}}
    create = {"schema": {"$ref": "#/components/schemas/JobCreate"}}
    job_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    document["paths"]["/jobs/{id}"] = {
        "get": {
            "operationId": "Job_Get",
            "parameters": [job_id],
            "responses": {
                "200": {"description": "The job.", **json_of},
                "202": {"$ref": "#/components/responses/AcceptedWithoutResult"},
            },
        }
    }
    document["paths"]["/jobs"] = {
        "post": {
            "operationId": "Job_Add",
            "requestBody": {"content": {"application/json": create}},
            "responses": {"201": {"description": "The job.", **json_of}},
        }
    }
    return document


@pytest.fixture
async def custom() -> AsyncIterator[tuple[FakeEdgeDelivery, httpx.AsyncClient]]:
    fake = FakeEdgeDelivery(KEY, document=custom_document())
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        yield fake, http


async def test_shapes_of_an_operation_answered_from_another_document(
    custom: tuple[FakeEdgeDelivery, httpx.AsyncClient],
) -> None:
    fake, http = custom
    assert fake.shapes_for("Job_Get") == REPLY_SHAPES
    assert "accepted" not in fake.shapes_for("Job_Add")
    plain = await _success(http, "GET", "/jobs/1")
    replies = {}
    for shape in REPLY_SHAPES:
        fake.reply_next("Job_Get", shape)
        response = await http.get("/jobs/1", headers=AUTH)
        replies[shape] = response.json()
        assert response.status_code == (202 if shape == "accepted" else 200)
    assert replies["success"] == plain
    assert replies["failure-in-body"] == {"ok": False}  # `job` is not nullable: left out
    job = replies["unknown-enum"]["job"]
    assert (job["state"], job["priority"]) == (UNLISTED, 4)
    job = replies["lowercase-timestamps"]["job"]
    assert job["startedAt"] == plain["job"]["startedAt"].lower()
    assert job["steps"][0]["at"] == plain["job"]["steps"][0]["at"].lower()
    assert replies["nulls"]["ok"] is None
    assert replies["nulls"]["job"]["steps"] == [{"at": None}]


async def test_a_declared_password_member_of_another_document_is_redacted(
    custom: tuple[FakeEdgeDelivery, httpx.AsyncClient],
) -> None:
    fake, http = custom
    await _success(http, "POST", "/jobs", {"name": "n", "token": "t0ken-value"})
    assert fake.requests[-1].json == {"name": "n", "token": "<redacted>"}
