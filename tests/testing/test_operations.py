"""Every operation succeeds as the document says, and its effect can be read back."""

from __future__ import annotations

import re

import httpx

from edgedelivery_async.testing import FakeEdgeDelivery

from .conftest import AUTH, conforms

TEMPLATE = {
    "name": "api",
    "imageName": "api",
    "imageNamespace": "team",
    "imageTag": "1.4.2",
    "imageRegistryId": "reg-31",
    "environmentVariables": [{"name": "LOG_LEVEL", "value": "info"}],
    "endpoints": [
        {
            "displayName": "public",
            "cdn": {
                "isSslEnabled": True,
                "pullZoneId": 42,
                "portMappings": [{"containerPort": 8080, "exposedPort": 443, "protocols": ["tcp"]}],
            },
        }
    ],
    "volumeMounts": [{"name": "data", "mountPath": "/var/lib/app"}],
}


async def test_set_force_ssl_records_the_flag_per_hostname(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    zone = fake.add_pull_zone(hostnames=["a.example.test", "b.example.test"])
    response = await http.post(
        f"/pullzone/{zone}/setForceSSL",
        json={"Hostname": "A.example.test", "ForceSSL": True},
        headers=AUTH,
    )
    assert response.status_code == 204
    conforms("PullZonePublic_SetForceSSL", response)
    assert fake.force_ssl(zone, "a.example.test") is True
    assert fake.force_ssl(zone, "b.example.test") is False


async def test_add_variable_assigns_increasing_ids(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    ids = []
    for name in ("A", "B", "C"):
        response = await http.post(
            "/compute/script/7/variables/add",
            json={"Name": name, "Required": True, "DefaultValue": "x"},
            headers=AUTH,
        )
        assert response.status_code == 200
        conforms("ComputeScript_AddVariable", response)
        assert response.json()["Name"] == name
        ids.append(response.json()["Id"])
    assert ids == sorted(ids)
    assert len(set(ids)) == 3
    assert [v["Id"] for v in fake.script_variables(7)] == ids


async def test_add_dns_zone_returns_the_zone(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    records = [{"Name": "www", "Ttl": 300, "Value": "192.0.2.10", "EnviromentalVariables": []}]
    response = await http.post(
        "/dnszone", json={"Domain": "example.com", "Records": records}, headers=AUTH
    )
    assert response.is_success
    conforms("DnsZone_Add", response)
    zone = response.json()
    assert zone["Domain"] == "example.com"
    assert isinstance(zone["Id"], int)
    assert zone["Records"][0]["Name"] == "www"
    assert fake.dns_zones() == [zone]


async def test_add_template_generates_ids_and_endpoint_details(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    response = await http.post("/mc/apps/app-1/containers", json=TEMPLATE, headers=AUTH)
    assert response.is_success
    conforms("ContainerTemplate_Add", response)
    template = response.json()
    assert template["id"]
    assert template["packageId"]
    assert template["name"] == "api"
    assert template["environmentVariables"] == [{"name": "LOG_LEVEL", "value": "info"}]
    endpoint = template["endpoints"][0]
    assert endpoint["id"]
    assert endpoint["pullZoneId"] == "42"  # a string in responses
    assert endpoint["isSslEnabled"] is True
    assert re.fullmatch(r"[a-z0-9.-]+", endpoint["publicHost"])
    assert endpoint["internalIpAddresses"]
    assert endpoint["publicIpAddresses"]
    assert "cdn" not in endpoint
    assert fake.template("app-1", template["id"]) == template


async def test_set_environment_replaces_the_whole_set(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    created = await http.post("/mc/apps/app-1/containers", json=TEMPLATE, headers=AUTH)
    template_id = created.json()["id"]
    response = await http.put(
        f"/mc/apps/app-1/containers/{template_id}/env",
        json={"API_URL": "https://api.example.com", "MODE": "fast"},
        headers=AUTH,
    )
    assert response.status_code == 200
    conforms("ContainerTemplate_SetEnvironmentVariables", response)
    assert response.json()["environmentVariables"] == [
        {"name": "API_URL", "value": "https://api.example.com"},
        {"name": "MODE", "value": "fast"},
    ]
    # LOG_LEVEL was not in the new set, so it is gone: replaced, not merged.
    assert fake.environment("app-1", template_id) == {
        "API_URL": "https://api.example.com",
        "MODE": "fast",
    }
    emptied = await http.put(f"/mc/apps/app-1/containers/{template_id}/env", json={}, headers=AUTH)
    assert emptied.json()["environmentVariables"] == []


async def test_registry_add_then_get_never_returns_the_password(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    created = await http.post("/mc/registries", json={"displayName": "main"}, headers=AUTH)
    assert created.is_success
    conforms("ContainerRegistry_Add", created)
    assert created.json()["error"] == ""
    first = created.json()["id"]
    assert isinstance(first, int)

    seeded = fake.add_registry("mirror", password="correct-horse-battery")
    assert seeded > first
    response = await http.get(f"/mc/registries/{seeded}", headers=AUTH)
    assert response.status_code == 200
    conforms("ContainerRegistry_Get", response)
    record = response.json()
    assert record["id"] == seeded
    assert record["displayName"] == "mirror"
    assert record["firstPasswordSymbols"] == "co"
    assert record["lastPasswordSymbols"] == "ry"
    assert "correct-horse-battery" not in response.text
    assert record["createdAt"].endswith("Z")
    assert record["lastUpdatedAt"].endswith("Z")

    named = await http.get(f"/mc/registries/{first}", headers=AUTH)
    assert named.json()["displayName"] == "main"


async def test_short_passwords_are_never_shown_whole(fake: FakeEdgeDelivery) -> None:
    for password in ("", "a", "ab", "abc", "abcd", "abcdef"):
        record = fake.registry(fake.add_registry(password=password))
        shown = record["firstPasswordSymbols"] + record["lastPasswordSymbols"]
        assert len(shown) < len(password) or password == ""


async def test_shield_zone_by_pull_zone(http: httpx.AsyncClient, fake: FakeEdgeDelivery) -> None:
    response = await http.get("/shield/shield-zone/get-by-pullzone/2")
    assert response.status_code == 200
    conforms("ShieldZone_GetByPullZone", response)
    config = response.json()["data"]
    assert config["pullZoneId"] == 2
    assert config["shieldZoneId"] == fake.shield_zone_id_for(2) == 100_002
    assert set(config) >= {
        "learningMode", "learningModeUntil", "wafEnabled", "wafDisabledRules", "wafLogOnlyRules",
        "wafCustomRuleOrder", "wafRequestHeaderLoggingEnabled", "requestBodyLoggingEnabled",
        "wafRequestIgnoredHeaders", "wafRealtimeThreatIntelligenceEnabled", "wafProfileId",
        "wafEngineConfig", "rateLimitRulesLimit", "customWafRulesLimit", "dDoSChallengeWindow",
        "whitelabelResponsePages",
    }  # fmt: skip


async def test_shield_zone_configuration_can_be_seeded(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    zone = fake.add_pull_zone()
    shield = fake.add_shield_zone(zone, 77, wafEnabled=False, rateLimitRulesLimit=3)
    config = (await http.get(f"/shield/shield-zone/get-by-pullzone/{zone}")).json()["data"]
    assert (config["shieldZoneId"], config["wafEnabled"], config["rateLimitRulesLimit"]) == (
        shield,
        False,
        3,
    )


async def test_upload_scanning_per_shield_zone(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.set_upload_scanning(100_001, True)
    on = await http.get("/shield/shield-zone/100001/upload-scanning")
    off = await http.get("/shield/shield-zone/100002/upload-scanning")
    for response in (on, off):
        assert response.status_code == 200
        conforms("ShieldZone_GetUploadScanning", response)
    assert on.json() == {
        "error": {"success": True, "message": "", "errorKey": ""},
        "data": {"shieldZoneId": 100_001, "isEnabled": True},
    }
    assert off.json()["data"]["isEnabled"] is False


async def test_shield_operations_accept_a_key_too(http: httpx.AsyncClient) -> None:
    response = await http.get("/shield/shield-zone/get-by-pullzone/1", headers=AUTH)
    assert response.status_code == 200
    wrong = await http.get("/shield/shield-zone/100001/upload-scanning", headers={"AccessKey": "x"})
    assert wrong.status_code == 200


async def test_percent_encoded_path_parameters_are_decoded(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    fake.add_app("team/app one")
    response = await http.post("/mc/apps/team%2Fapp%20one/containers", json=TEMPLATE, headers=AUTH)
    assert response.is_success
    assert fake.templates("team/app one")[0]["id"] == response.json()["id"]


async def test_requests_are_recorded_without_the_key(
    http: httpx.AsyncClient, fake: FakeEdgeDelivery
) -> None:
    await http.post("/compute/script/7/variables/add", json={"Name": "A"}, headers=AUTH)
    [recorded] = fake.requests_for("ComputeScript_AddVariable")
    assert (recorded.method, recorded.path, recorded.status) == (
        "POST",
        "/compute/script/7/variables/add",
        200,
    )
    assert recorded.json == {"Name": "A"}
    assert recorded.headers["accesskey"] == "<redacted>"
    assert AUTH["AccessKey"] not in repr(fake.requests) + repr(fake) + repr(fake.app)
