"""Request validation from the document: bodies, media types, JSON syntax, path parameters."""

from __future__ import annotations

import json

import httpx
import pytest

from edgedelivery_async.testing import FakeEdgeDelivery, _inputs

from .conftest import AUTH, KEY, conforms

JSON = {**AUTH, "Content-Type": "application/json"}


async def test_force_ssl_body_errors_are_api_error_data(http: httpx.AsyncClient) -> None:
    response = await http.post("/pullzone/1/setForceSSL", json={"Hostname": ""}, headers=AUTH)
    assert response.status_code == 400
    conforms("PullZonePublic_SetForceSSL", response)
    error = response.json()
    assert set(error) == {"ErrorKey", "Field", "Message"}
    assert error["ErrorKey"] == "request.invalid"
    assert "ForceSSL" in error["Message"]
    assert "Hostname" in error["Message"]


async def test_unknown_fields_are_refused_where_the_document_forbids_them(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    response = await http.post(
        "/pullzone/1/setForceSSL",
        json={"Hostname": "pz1.example.test", "ForceSSL": True, "forceSsl": True},
        headers=AUTH,
    )
    assert response.status_code == 400
    assert "unknown fields" in response.json()["Message"]
    assert fake.force_ssl(1, "pz1.example.test") is False


async def test_unknown_fields_are_ignored_where_the_document_allows_them(
    http: httpx.AsyncClient,
) -> None:
    response = await http.post(
        "/compute/script/7/variables/add", json={"Name": "A", "Extra": 1}, headers=AUTH
    )
    assert response.status_code == 200
    assert "Extra" not in response.json()


async def test_core_type_errors_name_the_field(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/dnszone", json={"Domain": "x.example", "Records": [{"Ttl": "300"}]}, headers=AUTH
    )
    assert response.status_code == 400
    conforms("DnsZone_Add", response)
    assert response.json()["Field"] == "Records[0].Ttl"


async def test_container_errors_are_validation_style(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/mc/apps/app-1/containers",
        json={"name": "x" * 51, "image": "nginx", "imageDigest": "sha256:nope"},
        headers=AUTH,
    )
    assert response.status_code == 400
    conforms("ContainerTemplate_Add", response)
    problem = response.json()
    assert problem["status"] == 400
    assert problem["instance"] == "/mc/apps/app-1/containers"
    assert problem["id"]
    assert {e["field"] for e in problem["errors"]} == {"name", "imageDigest"}


@pytest.mark.parametrize(
    "template",
    [
        {"name": "a"},
        {"name": "a", "image": ""},
        {"name": "a", "imageRegistryId": ""},
        {"name": "a", "image": "", "imageRegistryId": ""},
    ],
)
async def test_image_or_registry_id_must_be_non_empty(
    http: httpx.AsyncClient, template: dict[str, str]
) -> None:
    response = await http.post("/mc/apps/app-1/containers", json=template, headers=AUTH)
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert "image or imageRegistryId" in error["message"]


@pytest.mark.parametrize(
    "template", [{"name": "a", "image": "x"}, {"name": "a", "imageRegistryId": "r"}]
)
async def test_either_image_field_is_enough(
    http: httpx.AsyncClient, template: dict[str, str]
) -> None:
    response = await http.post("/mc/apps/app-1/containers", json=template, headers=AUTH)
    assert response.is_success


async def test_environment_values_must_be_strings(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    template_id = fake.add_template("app-1")
    response = await http.put(
        f"/mc/apps/app-1/containers/{template_id}/env", json={"N": 1}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "N"
    assert fake.environment("app-1", template_id) == {}


@pytest.mark.parametrize(
    ("path", "family"),
    [("/dnszone", "core"), ("/mc/registries", "container")],
)
@pytest.mark.parametrize("payload", [b"{", b"{'a': 1}", b"NaN", b'{"Domain": 1e999}'])
async def test_malformed_json(
    http: httpx.AsyncClient, path: str, family: str, payload: bytes
) -> None:
    response = await http.post(path, content=payload, headers=JSON)
    assert response.status_code == 400
    if family == "core":
        assert response.json()["ErrorKey"] == "request.malformed_json"
    else:
        assert response.json()["errors"][0]["message"].startswith("malformed JSON")


async def test_empty_body_is_refused(http: httpx.AsyncClient) -> None:
    response = await http.post("/mc/registries", content=b"", headers=JSON)
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == "a request body is required"


@pytest.mark.parametrize("media_type", ["text/plain", "application/xml", "text/json-seq", None])
async def test_core_operations_take_only_application_json(
    http: httpx.AsyncClient, media_type: str | None
) -> None:
    headers = dict(AUTH) | ({"Content-Type": media_type} if media_type else {})
    response = await http.post(
        "/compute/script/7/variables/add", content=b'{"Name": "A"}', headers=headers
    )
    assert response.status_code == 415
    assert response.json()["ErrorKey"] == "request.unsupported_media_type"
    wrong = await http.post(
        "/compute/script/7/variables/add",
        content=b'{"Name": "A"}',
        headers=AUTH | {"Content-Type": "text/json"},
    )
    assert wrong.status_code == 415


async def test_force_ssl_wrong_media_type_is_a_400_as_415_is_not_declared(
    http: httpx.AsyncClient,
) -> None:
    response = await http.post(
        "/pullzone/1/setForceSSL",
        content=b'{"Hostname": "pz1.example.test", "ForceSSL": true}',
        headers=AUTH | {"Content-Type": "text/plain"},
    )
    assert response.status_code == 400
    conforms("PullZonePublic_SetForceSSL", response)


@pytest.mark.parametrize(
    "media_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "text/json",
        "application/merge-patch+json",
        "application/vnd.edge+json",
    ],
)
async def test_container_operations_take_json_media_types(
    http: httpx.AsyncClient, media_type: str
) -> None:
    response = await http.post(
        "/mc/registries",
        content=b'{"displayName": "x"}',
        headers=AUTH | {"Content-Type": media_type},
    )
    assert response.is_success, response.text


@pytest.mark.parametrize(
    "media_type", ["text/plain", "application/jsonx", "application/+json", "text/xml+json"]
)
async def test_container_operations_refuse_other_media_types(
    http: httpx.AsyncClient, media_type: str
) -> None:
    response = await http.post(
        "/mc/registries",
        content=b'{"displayName": "x"}',
        headers=AUTH | {"Content-Type": media_type},
    )
    assert response.status_code == 415
    conforms("ContainerRegistry_Add", response)
    assert response.json()["status"] == 415


async def test_force_ssl_path_id_must_be_an_int64(http: httpx.AsyncClient) -> None:
    for raw in ("abc", "1.5", str(2**63)):
        response = await http.post(
            f"/pullzone/{raw}/setForceSSL", json={"Hostname": "a", "ForceSSL": True}, headers=AUTH
        )
        assert response.status_code == 400
        assert response.json()["Field"] == "id"


UNPARSEABLE = {
    "deeply-nested": b"[" * 100_000,
    "nested-and-closed": b"[" * 900 + b"]" * 900,
    "deep-inside-an-object": b'{"Name": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
    "invalid-utf8": b'{"Domain": "\xff\xfe"}',
    "lone-continuation-byte": b"\x80",
    "utf16-bom-garbage": b"\xff\xfe{\x00",
    "unterminated-string": b'{"Domain": "' + b'\\"' * 10_000,
}
NOT_AN_OBJECT = [b"[1]", b'"text"', b"1", b"null", b"true"]


@pytest.mark.parametrize(
    ("operation_id", "path"),
    [
        ("DnsZone_Add", "/dnszone"),
        ("ComputeScript_AddVariable", "/compute/script/7/variables/add"),
        ("ContainerRegistry_Add", "/mc/registries"),
        ("ContainerTemplate_Add", "/mc/apps/app-1/containers"),
    ],
)
@pytest.mark.parametrize(
    "payload",
    [*UNPARSEABLE.values(), *NOT_AN_OBJECT],
    ids=[*UNPARSEABLE, *(p.decode() for p in NOT_AN_OBJECT)],
)
async def test_a_body_that_cannot_be_read_is_a_400_never_a_500(
    http: httpx.AsyncClient,
    fake: FakeEdgeDelivery,
    operation_id: str,
    path: str,
    payload: bytes,
) -> None:
    """Issue 13 item 6: in-process and over HTTP alike, with the request still recorded."""
    response = await http.post(path, content=payload, headers=JSON)
    assert response.status_code == 400, response.text
    conforms(operation_id, response)
    [recorded] = fake.requests
    assert recorded.status == 400
    assert recorded.operation_id == operation_id
    assert recorded.json is None or recorded.json == json.loads(payload)
    assert fake.dns_zones() == []


async def test_deep_nesting_is_named_in_the_error(http: httpx.AsyncClient) -> None:
    response = await http.post("/dnszone", content=b"[" * 100_000, headers=JSON)
    assert response.status_code == 400
    assert response.json()["ErrorKey"] == "request.malformed_json"
    assert "nested" in response.json()["Message"]


async def test_reasonably_nested_bodies_are_still_read(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    """Free-form objects may nest, well below the limit."""
    nested: dict[str, object] = {}
    for _ in range(_inputs.MAX_JSON_DEPTH - 8):
        nested = {"n": nested}
    template = {"name": "a", "image": "x", "probes": {"startup": {"httpGet": {"response": nested}}}}
    response = await http.post("/mc/apps/app-1/containers", json=template, headers=AUTH)
    assert response.status_code == 201, response.text


def test_json_depth_skips_brackets_inside_strings() -> None:
    assert _inputs.json_depth(b'{"a": "[[[{{{", "b": [{}]}') == 3
    assert _inputs.json_depth(b'["\\"[", ["]"]]') == 2
    assert _inputs.json_depth(b"") == 0


async def test_an_unknown_query_is_tolerated_by_operations_without_query_parameters(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get("/shield/shield-zone/get-by-pullzone/1?x=1&&y&%ff")
    assert response.status_code == 200
    conforms("ShieldZone_GetByPullZone", response)


async def test_nulls_the_document_accepts_are_stored_never_a_500(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    """Issue 11's nulls (DNS records, template image, cdn.pullZoneId, exposedPort)."""
    zone = await http.post("/dnszone", json={"Domain": "n.example", "Records": None}, headers=AUTH)
    assert zone.status_code == 201, zone.text
    assert fake.dns_zones()[0]["Records"] == []
    template = {
        "name": "a",
        "image": None,
        "imageRegistryId": "reg-1",
        "endpoints": [
            {
                "cdn": {
                    "pullZoneId": None,
                    "portMappings": [{"containerPort": 1, "exposedPort": None}],
                }
            }
        ],
    }
    response = await http.post("/mc/apps/app-1/containers", json=template, headers=AUTH)
    assert response.status_code == 201, response.text
    conforms("ContainerTemplate_Add", response)
    created = response.json()
    assert "image" not in created  # the reply declares a string: a null is not echoed
    [endpoint] = created["endpoints"]
    assert "pullZoneId" not in endpoint
    assert endpoint["portMappings"] == [{"containerPort": 1, "exposedPort": None}]


async def test_an_id_of_thousands_of_digits_is_not_found_never_a_500(
    http: httpx.AsyncClient,
) -> None:
    """int() refuses past 4,300 digits: a raw ValueError in-process, a 500 on loopback."""
    for path in (
        f"/mc/registries/{'9' * 4301}",
        f"/shield/shield-zone/get-by-pullzone/{'9' * 7000}",
    ):
        reply = await http.get(path, headers={"AccessKey": KEY})
        assert reply.status_code in (400, 404), reply.text
        assert reply.headers["content-type"].startswith("application/")


async def test_a_body_that_does_not_decode_is_the_operations_400(fake: FakeEdgeDelivery) -> None:
    """A gzip body that is not gzip was aiohttp's text/plain 500 on loopback."""
    async with fake.serve() as url, httpx.AsyncClient(base_url=url) as client:
        reply = await client.post(
            "/compute/script/7/variables/add",
            content=b"not gzip at all",
            headers={"AccessKey": KEY, "Content-Type": "application/json",
                     "Content-Encoding": "gzip"},
        )  # fmt: skip
    assert reply.status_code == 400, reply.text
    conforms("ComputeScript_AddVariable", reply)
    # where the rest of the body ends cannot be told: the connection closes, and says so
    # (a keep-alive client's next request was lost without a word)
    assert reply.headers["connection"] == "close"


async def test_two_access_keys_are_refused_whatever_their_order(http: httpx.AsyncClient) -> None:
    """The last one decided: (right, wrong) was 401 and (wrong, right) 200."""
    for keys in ((KEY, "wrong"), ("wrong", KEY)):
        headers = [("AccessKey", key) for key in keys]
        reply = await http.get("/mc/registries/1", headers=headers)
        assert reply.status_code == 401, reply.text
