"""Path parameters are percent-encoded: no value can change the request path."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedelivery_async import InvalidRequestError
from edgedelivery_async._requests import prepare

from .conftest import REGISTRY, SHIELD_CONFIG, TEMPLATE, Recorder, mock_client

OK = httpx.Response(200, json=REGISTRY)

# (value, how it appears in the path)
HOSTILE = [
    ("/", b"%2F"),
    ("a/b", b"a%2Fb"),
    ("../admin", b"..%2Fadmin"),
    ("./x", b".%2Fx"),
    ("...", b"..."),
    ("?", b"%3F"),
    ("x?admin=1", b"x%3Fadmin%3D1"),
    ("#", b"%23"),
    ("a#frag", b"a%23frag"),
    ("%2F", b"%252F"),
    ("%2e%2e", b"%252e%252e"),
    ("a b", b"a%20b"),
    (" ", b"%20"),
    ("é", b"%C3%A9"),
    ("中文", b"%E4%B8%AD%E6%96%87"),
    ("a\\b", b"a%5Cb"),
    ("a;b", b"a%3Bb"),
    ("a\r\nHost: evil", b"a%0D%0AHost%3A%20evil"),
    ("@evil.test", b"%40evil.test"),
]


@pytest.mark.parametrize(("value", "encoded"), HOSTILE)
async def test_registry_id_cannot_change_the_path(value: str, encoded: bytes) -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder) as client:
        await client.registries.get(value)

    (request,) = recorder.requests
    assert request.url.raw_path == b"/mc/registries/" + encoded
    assert request.url.host == "api.edge.test"
    assert request.url.query == b""
    assert request.url.fragment == ""


@pytest.mark.parametrize(("value", "encoded"), HOSTILE)
async def test_two_parameters_stay_in_their_segments(value: str, encoded: bytes) -> None:
    recorder = Recorder(httpx.Response(200, json=TEMPLATE))
    async with mock_client(recorder) as client:
        await client.containers.set_environment(value, value, {"A": "1"})

    (request,) = recorder.requests
    assert request.url.raw_path == b"/mc/apps/" + encoded + b"/containers/" + encoded + b"/env"


async def test_every_string_parameter_is_encoded() -> None:
    recorder = Recorder(
        lambda r: httpx.Response(
            200,
            json={"Id": 1}
            if b"compute" in r.url.raw_path
            else {"data": SHIELD_CONFIG}
            if b"get-by-pullzone" in r.url.raw_path
            else {"data": {}}
            if b"upload-scanning" in r.url.raw_path
            else TEMPLATE,
        )
    )
    async with mock_client(recorder) as client:
        await client.compute.add_script_variable("a/b", name="X")
        await client.containers.add_template("a/b", name="n", image="i")
        await client.shield.get_zone_by_pull_zone("a/b")
        await client.shield.get_upload_scanning("a/b")

    assert [r.url.raw_path for r in recorder.requests] == [
        b"/compute/script/a%2Fb/variables/add",
        b"/mc/apps/a%2Fb/containers",
        b"/shield/shield-zone/get-by-pullzone/a%2Fb",
        b"/shield/shield-zone/a%2Fb/upload-scanning",
    ]


async def test_base_url_path_prefix_is_kept() -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder, base_url="https://api.edge.test/v1/") as client:
        assert client.base_url == "https://api.edge.test/v1"
        await client.registries.get(31)
    assert recorder.requests[0].url.raw_path == b"/v1/mc/registries/31"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "registryId: must not be empty"),
        (".", "registryId: '.' is not an identifier"),
        ("..", "registryId: '..' is not an identifier"),
        (True, "registryId: must be an identifier, not a boolean"),
        (False, "registryId: must be an identifier, not a boolean"),
        (None, "registryId: must be a string or an integer, not NoneType"),
        (1.5, "registryId: must be a string or an integer, not float"),
        (b"31", "registryId: must be a string or an integer, not bytes"),
        (2**63, "registryId: 9223372036854775808 is out of the 64-bit integer range"),
        ("\ud800", "registryId: must be valid Unicode text (no lone surrogates)"),
    ],
)
async def test_bad_ids_are_rejected_before_sending(value: Any, message: str) -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.registries.get(value)
    assert recorder.requests == []
    assert str(info.value).endswith(message)


@pytest.mark.parametrize("value", ["42", 42.0, None, True, "", -(2**63) - 1, 2**63], ids=repr)
async def test_pull_zone_id_must_be_an_integer(value: Any) -> None:
    recorder = Recorder(httpx.Response(204))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.pull_zones.set_force_ssl(value, hostname="h", force_ssl=True)
    assert recorder.requests == []
    assert info.value.errors[0].field == "id"


async def test_both_empty_ids_are_reported() -> None:
    recorder = Recorder(OK)
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.containers.set_environment("", "", {})
    assert [e.field for e in info.value.errors] == ["appId", "containerId"]
    assert recorder.requests == []


@pytest.mark.parametrize("value", [0, -1, 2**63 - 1, -(2**63)])
def test_integer_ids(value: int) -> None:
    _, path, _ = prepare(
        "PullZonePublic_SetForceSSL", {"id": value}, {"Hostname": "h", "ForceSSL": True}
    )
    assert path == f"/pullzone/{value}/setForceSSL"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.characters(exclude_categories=["Cs"]), min_size=1))
def test_any_text_stays_one_segment(value: str) -> None:
    if value in (".", ".."):
        return
    _, path, _ = prepare("ContainerRegistry_Get", {"registryId": value})
    prefix, segment = path.rsplit("/", 1)
    assert prefix == "/mc/registries"
    assert segment == quote(value, safe="")
    assert unquote(segment) == value
    assert not set(segment) & set("/?#")
    assert httpx.URL("https://api.edge.test" + path).raw_path == path.encode()
