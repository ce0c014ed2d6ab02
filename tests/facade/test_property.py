"""Property: any status and any body, fed to each of the nine methods, yields a valid result
or an EdgeDeliveryError subclass; nothing else escapes."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from typing import Any

import httpx
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from edgedelivery_async import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIResultError,
    APIStatusError,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    FieldError,
    InvalidRequestError,
    RetryPolicy,
    models,
)
from edgedelivery_async._exceptions import error_details
from edgedelivery_async._http import parse_retry_after

from .conftest import BASE, KEY, REGISTRY, SCRIPT_VARIABLE, SHIELD_CONFIG, TEMPLATE, UPLOAD_SCANNING

Check = Callable[[Any], bool]

CALLS: dict[str, tuple[Callable[[EdgeDeliveryClient], Any], Check]] = {
    "set_force_ssl": (
        lambda c: c.pull_zones.set_force_ssl(42, hostname="cdn.example.com", force_ssl=True),
        lambda r: r is None,
    ),
    "add_script_variable": (
        lambda c: c.compute.add_script_variable(5, name="A", required=True, default_value="x"),
        lambda r: (
            isinstance(r, models.ScriptVariable)
            and (type(r.id) is int or r.id is None or r.id is models.UNSET)
        ),
    ),
    "dns_zones.add": (
        lambda c: c.dns_zones.add(domain="example.com", records=[{"Name": "www", "Ttl": 60}]),
        lambda r: True,  # the undocumented body, as parsed
    ),
    "set_environment": (
        lambda c: c.containers.set_environment("app", "ct", {"A": "1"}),
        lambda r: isinstance(r, models.ContainerTemplate),
    ),
    "add_template": (
        lambda c: c.containers.add_template("app", name="api", image="nginx"),
        lambda r: isinstance(r, models.ContainerTemplate),
    ),
    "registries.add": (
        lambda c: c.registries.add(display_name="main"),
        lambda r: type(r) is int,
    ),
    "registries.get": (
        lambda c: c.registries.get(31),
        lambda r: isinstance(r, models.ContainerRegistry),
    ),
    "get_zone_by_pull_zone": (
        lambda c: c.shield.get_zone_by_pull_zone(42),
        lambda r: isinstance(r, models.ShieldZoneConfig),
    ),
    "get_upload_scanning": (
        lambda c: c.shield.get_upload_scanning(9001),
        lambda r: isinstance(r, models.UploadScanningConfig),
    ),
}

KNOWN_KEYS = [
    "data", "error", "success", "message", "errorKey", "Id", "id", "Name", "Required",
    "ErrorKey", "Field", "Message", "errors", "title", "detail", "type", "status", "instance",
    "statusCode", "declaredType", "location", "value", "formatters", "field", "shieldZoneId",
    "isEnabled", "learningModeUntil", "createdAt", "lastUpdatedAt", "endpoints",
    "environmentVariables", "wafEngineConfig", "wafCustomRuleOrder", "probes", "entryPoint",
    "portMappings", "stickySessions", "publicIpAddresses", "volumeMounts",
]  # fmt: skip
VALID_BODIES = [
    SCRIPT_VARIABLE,
    TEMPLATE,
    REGISTRY,
    {"id": 31, "error": ""},
    {"data": SHIELD_CONFIG},
    UPLOAD_SCANNING,
]

keys = st.sampled_from(KNOWN_KEYS) | st.text(max_size=8)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["2026-11-01T08:30:00Z", "", "not a date", "success", "<html>"])
)
json_values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=5),
    max_leaves=25,
)
objects = st.dictionaries(keys, json_values, max_size=6)
mutated_valid = st.builds(
    lambda body, key, value, wrap: {"data": {**body, key: value}} if wrap else {**body, key: value},
    st.sampled_from(VALID_BODIES),
    keys,
    json_values,
    st.booleans(),
)
wrappers = st.fixed_dictionaries(
    {},
    optional={
        "error": st.fixed_dictionaries(
            {}, optional={"success": json_values, "message": json_values, "errorKey": json_values}
        )
        | json_values,
        "data": objects | json_values,
    },
)


def dump(value: Any) -> bytes:
    return json.dumps(value).encode()


json_bytes = (json_values | objects | mutated_valid | wrappers).map(dump)
bodies = st.one_of(
    st.binary(max_size=200),
    json_bytes,
    st.builds(lambda b, cut: b[:cut], json_bytes, st.integers(0, 200)),  # truncated JSON
    st.sampled_from(
        [
            b"",
            b"   \n",
            b"<html><body><h1>502 Bad Gateway</h1></body></html>",
            b"<!DOCTYPE html><html>",
            b"null",
            b"[" * 5000,
            b'{"a":' * 3000,
            b"\xff\xfe\x00",
        ]
    ),
    st.sampled_from(VALID_BODIES).map(dump),
)
statuses = (
    st.integers(min_value=100, max_value=599)
    | st.sampled_from([301, 302, 307, 400, 404, 429, 500, 503, 520])
    | st.sampled_from([200, 201, 204])
)
ascii_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
headers = st.fixed_dictionaries(
    {},
    optional={
        "Retry-After": ascii_text
        | st.sampled_from(["0", "1", "1e400", "Wed, 21 Oct 2015 07:28:00 GMT"]),
        "Location": ascii_text
        | st.sampled_from(["/mc/registries/1", "https://evil.test/x", "http://[bad/", "//x"]),
        "Content-Type": st.sampled_from(["application/json", "text/html", "text/plain"]),
        "Content-Encoding": st.sampled_from(["gzip", "identity", "br"]),
    },
)


async def outcome(name: str, status: int, body: bytes, reply_headers: dict[str, str]) -> Any:
    """Run one call against the reply; return the result or the exception raised."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers=reply_headers)

    call, _ = CALLS[name]
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = EdgeDeliveryClient(KEY, BASE, http_client=http, retry=RetryPolicy(max_retries=0))
        try:
            return await call(client)
        except Exception as exc:  # the property is about what escapes
            return exc


def check_error(error: EdgeDeliveryError, status: int) -> None:
    assert not isinstance(error, InvalidRequestError | ConfigurationError)
    text = str(error)
    assert text
    assert KEY not in text
    if isinstance(error, APIError):
        assert isinstance(error.response, httpx.Response)
        assert error.response.status_code == error.status_code
        assert "AccessKey" not in error.response.request.headers
        assert all(isinstance(e, FieldError) for e in error.errors)
        for value in (error.message, error.error_key, error.field):
            assert value is None or isinstance(value, str)
        assert text.startswith(f"{error.method} {error.path} -> {error.status_code}")
    if isinstance(error, APIStatusError):
        assert not 200 <= error.status_code < 300
        assert error.retry_after is None or error.retry_after >= 0
    if isinstance(error, APIResultError | APIResponseValidationError):
        assert 200 <= error.status_code < 300
        assert 200 <= status < 300
    if isinstance(error, APIConnectionError):
        assert error.request_sent in (True, False)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(status=statuses, body=bodies, reply_headers=headers)
def test_any_reply_maps_into_the_tree(
    status: int, body: bytes, reply_headers: dict[str, str]
) -> None:
    async def run_all() -> dict[str, Any]:
        return {name: await outcome(name, status, body, reply_headers) for name in CALLS}

    for name, result in asyncio.run(run_all()).items():
        event(type(result).__name__)
        if isinstance(result, BaseException):
            assert isinstance(result, EdgeDeliveryError), (
                f"{name}: {type(result).__name__}: {result}"
            )
            check_error(result, status)
        else:
            assert 200 <= status < 300, name
            assert CALLS[name][1](result), f"{name} returned {result!r}"


@settings(max_examples=300, deadline=None)
@given(json_values | objects | wrappers | st.text())
def test_error_details_read_any_body(body: Any) -> None:
    details = error_details(body)
    assert all(isinstance(e, FieldError) for e in details.errors)
    for value in (details.message, details.error_key, details.field):
        assert value is None or isinstance(value, str)


@settings(max_examples=300, deadline=None)
@given(st.none() | st.text(max_size=60))
def test_retry_after_is_none_or_a_finite_wait(value: str | None) -> None:
    seconds = parse_retry_after(value)
    assert seconds is None or (math.isfinite(seconds) and seconds >= 0)
