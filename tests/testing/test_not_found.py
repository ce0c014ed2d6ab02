"""Unknown resources, clashes with stored state, and requests outside the document."""

from __future__ import annotations

import re

import httpx

from edgedelivery_async import _schema
from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._routes import Match, Router

from .conftest import AUTH, conforms


async def test_force_ssl_unknown_pull_zone_is_404_without_body(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/pullzone/999/setForceSSL", json={"Hostname": "a.test", "ForceSSL": True}, headers=AUTH
    )
    assert response.status_code == 404
    assert response.content == b""
    conforms("PullZonePublic_SetForceSSL", response)


async def test_force_ssl_unknown_hostname_is_400(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/pullzone/1/setForceSSL", json={"Hostname": "other.test", "ForceSSL": True}, headers=AUTH
    )
    assert response.status_code == 400
    conforms("PullZonePublic_SetForceSSL", response)
    assert response.json() == {
        "ErrorKey": "pullzone.hostname_not_found",
        "Field": "Hostname",
        "Message": "The hostname is not part of this pull zone.",
    }


async def test_unknown_script_is_404_api_error(http: httpx.AsyncClient) -> None:
    for script in ("8", "not-a-number"):
        response = await http.post(
            f"/compute/script/{script}/variables/add", json={"Name": "A"}, headers=AUTH
        )
        assert response.status_code == 404
        conforms("ComputeScript_AddVariable", response)
        assert set(response.json()) == {"ErrorKey", "Field", "Message"}


async def test_duplicate_domain_is_refused(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    first = await http.post("/dnszone", json={"Domain": "example.com"}, headers=AUTH)
    assert first.is_success
    again = await http.post("/dnszone", json={"Domain": "EXAMPLE.com."}, headers=AUTH)
    assert again.status_code == 400
    conforms("DnsZone_Add", again)
    assert again.json()["ErrorKey"] == "dnszone.domain_taken"
    assert len(fake.dns_zones()) == 1


async def test_unknown_app_or_container_is_404_problem(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    template = {"name": "a", "image": "nginx"}
    no_app = await http.post("/mc/apps/nope/containers", json=template, headers=AUTH)
    no_template = await http.put("/mc/apps/app-1/containers/nope/env", json={}, headers=AUTH)
    wrong_app = fake.add_template("app-1")
    fake.add_app("app-2")
    elsewhere = await http.put(f"/mc/apps/app-2/containers/{wrong_app}/env", json={}, headers=AUTH)
    for response, operation_id in (
        (no_app, "ContainerTemplate_Add"),
        (no_template, "ContainerTemplate_SetEnvironmentVariables"),
        (elsewhere, "ContainerTemplate_SetEnvironmentVariables"),
    ):
        assert response.status_code == 404
        conforms(operation_id, response)
        assert response.json()["status"] == 404
        assert response.json()["title"] == "Not Found"


async def test_unknown_registry_is_404_problem(http: httpx.AsyncClient) -> None:
    response = await http.get("/mc/registries/41", headers=AUTH)
    assert response.status_code == 404
    conforms("ContainerRegistry_Get", response)
    assert response.json()["instance"] == "/mc/registries/41"


async def test_unknown_pull_zone_shield_is_404_object_result(http: httpx.AsyncClient) -> None:
    response = await http.get("/shield/shield-zone/get-by-pullzone/404")
    assert response.status_code == 404
    conforms("ShieldZone_GetByPullZone", response)
    assert response.json() == {
        "location": None,
        "value": None,
        "formatters": [],
        "contentTypes": [],
        "declaredType": "ShieldZoneResponse",
        "statusCode": 404,
    }


async def test_pull_zone_without_shield_zone_is_404(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    zone = fake.add_pull_zone()
    response = await http.get(f"/shield/shield-zone/get-by-pullzone/{zone}")
    assert response.status_code == 404
    assert response.json()["statusCode"] == 404


async def test_unknown_shield_zone_upload_scanning_is_a_failed_wrapper(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get("/shield/shield-zone/5/upload-scanning")
    assert response.status_code == 404
    conforms("ShieldZone_GetUploadScanning", response)
    wrapper = response.json()
    assert wrapper["error"]["success"] is False
    assert wrapper["error"]["errorKey"] == "resource.not_found"
    assert "data" not in wrapper  # not nullable in the document, so absent


def test_a_path_parameter_never_matches_an_empty_segment() -> None:
    router = Router()
    assert isinstance(router.resolve("GET", "/mc/registries/1"), Match)
    assert router.resolve("GET", "/mc/registries/") is None


async def test_unknown_path_is_404(http: httpx.AsyncClient) -> None:
    for path in ("/nope", "/dnszone/", "/mc/registries/1/extra", "/mc/registries/"):
        response = await http.get(path, headers=AUTH)
        assert response.status_code == 404, path


def _filled(path: str) -> str:
    """A path of the document with `1` for each parameter."""
    return re.sub(r"\{[^}]+\}", "1", path)


def _fits(template: str, path: str) -> bool:
    """Whether a path of the document (`/a/{id}`) takes a concrete path (`/a/1`)."""
    wanted, given = template.split("/"), path.split("/")
    return len(wanted) == len(given) and all(
        w == g or (w.startswith("{") and g != "") for w, g in zip(wanted, given, strict=True)
    )


async def test_undeclared_method_is_405_with_allow(http: httpx.AsyncClient) -> None:
    """Every path of the document, asked with a method no operation it reaches declares:
    405, with the methods they declare (HEAD beside GET, and OPTIONS) in `Allow`."""
    operations = list(_schema.operations().values())
    tried = 0
    for path in sorted({_filled(operation.path) for operation in operations}):
        methods = {o.method for o in operations if _fits(o.path, path)}
        unlisted = [m for m in ("DELETE", "PATCH", "PUT", "POST", "GET") if m not in methods]
        if not unlisted:
            continue
        response = await http.request(unlisted[0], path, headers=AUTH)
        assert response.status_code == 405, (unlisted[0], path)
        expected = methods | {"OPTIONS"} | ({"HEAD"} if "GET" in methods else set())
        assert response.headers["allow"] == ", ".join(sorted(expected)), path
        tried += 1
    assert tried


async def test_options_lists_the_declared_methods(http: httpx.AsyncClient) -> None:
    response = await http.options("/mc/apps/a/containers/b/env")
    assert response.status_code == 204
    assert response.headers["allow"] == "OPTIONS, PUT"


async def test_head_answers_like_get_without_a_body(http: httpx.AsyncClient) -> None:
    response = await http.head("/shield/shield-zone/get-by-pullzone/1")
    assert response.status_code == 200
    assert response.content == b""
