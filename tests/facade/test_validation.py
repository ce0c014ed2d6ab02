"""Requests are checked against the document before sending; every problem is listed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from edgedelivery_openapi.types import UNSET

from edgedelivery_async import EdgeDeliveryClient, FieldError, InvalidRequestError, models
from edgedelivery_async._requests import prepare

from .conftest import Recorder, mock_client

DIGEST = "sha256:" + "0d4f6b3c2a1e9f8d" * 4


@pytest.fixture
async def recorder_client() -> AsyncIterator[tuple[Recorder, EdgeDeliveryClient]]:
    recorder = Recorder()
    async with mock_client(recorder) as client:
        yield recorder, client


async def invalid(
    pair: tuple[Recorder, EdgeDeliveryClient], call: Callable[[EdgeDeliveryClient], Any]
) -> InvalidRequestError:
    """The InvalidRequestError of a call; asserts that nothing was sent."""
    recorder, client = pair
    with pytest.raises(InvalidRequestError) as info:
        await call(client)
    assert recorder.requests == []
    assert isinstance(info.value, ValueError)
    return info.value


def fields(error: InvalidRequestError) -> set[str | None]:
    return {e.field for e in error.errors}


def template(**fields: Any) -> Callable[[EdgeDeliveryClient], Any]:
    fields.setdefault("name", "api")
    if "image_registry_id" not in fields:
        fields.setdefault("image", "nginx")
    return lambda c: c.containers.add_template("app-1", **fields)


# --------------------------------------------------------------------- force SSL


async def test_force_ssl_hostname_and_flag(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client, lambda c: c.pull_zones.set_force_ssl(1, hostname="", force_ssl="yes")
    )

    assert fields(error) == {"Hostname", "ForceSSL"}
    text = str(error)
    assert text.startswith("PullZonePublic_SetForceSSL: invalid request, nothing was sent: ")
    assert "Hostname: '' should be non-empty" in text
    assert "ForceSSL: 'yes' is not of type 'boolean'" in text


def test_force_ssl_body_allows_no_other_fields() -> None:
    with pytest.raises(InvalidRequestError) as info:
        prepare(
            "PullZonePublic_SetForceSSL",
            {"id": 1},
            {"Hostname": "cdn.example.com", "ForceSSL": True, "Extra": 1},
        )
    assert info.value.errors == [
        FieldError(None, "unknown fields are not allowed ('Extra' was unexpected)")
    ]


def test_force_ssl_body_requires_both_fields() -> None:
    with pytest.raises(InvalidRequestError) as info:
        prepare("PullZonePublic_SetForceSSL", {"id": 1}, {})
    assert "'Hostname' is a required property" in str(info.value)
    assert "'ForceSSL' is a required property" in str(info.value)


# ------------------------------------------------------------------- templates


@pytest.mark.parametrize("name", ["", "x" * 51])
async def test_template_name_length(recorder_client: Any, name: str) -> None:
    error = await invalid(recorder_client, template(name=name))
    assert fields(error) == {"name"}


def test_template_name_of_50_is_fine() -> None:
    _, _, content = prepare(
        "ContainerTemplate_Add", {"appId": "a"}, {"name": "x" * 50, "image": "i"}
    )
    assert content == b'{"name":"' + b"x" * 50 + b'","image":"i"}'


@pytest.mark.parametrize(
    ("field", "keyword", "value"),
    [
        ("imageTag", "image_tag", "latest!"),
        ("imageTag", "image_tag", "1.0/x"),
        ("imageTag", "image_tag", ""),
        ("imageTag", "image_tag", "-1"),
        ("imageTag", "image_tag", "v1\n"),
        ("imageName", "image_name", "api..."),
        ("imageName", "image_name", "Api Server"),
        ("imageName", "image_name", ""),
        ("imageNamespace", "image_namespace", "team/"),
        ("imageDigest", "image_digest", "sha256:abc"),
        ("imageDigest", "image_digest", DIGEST.upper()),
        ("imageDigest", "image_digest", DIGEST + "0"),
        ("imageDigest", "image_digest", "sha512:" + "0" * 64),
        ("imageDigest", "image_digest", " " + DIGEST),
    ],
)
async def test_anchored_image_patterns(
    recorder_client: Any, field: str, keyword: str, value: str
) -> None:
    error = await invalid(recorder_client, template(**{keyword: value}))
    assert fields(error) == {field}


@pytest.mark.parametrize(
    "fields_",
    [
        {"image_tag": "1.4.2-rc_1"},
        {"image_tag": "latest"},
        {"image_name": "team/api"},
        {"image_name": "a__b"},
        {"image_namespace": "my-team"},
        {"image_digest": DIGEST},
    ],
)
def test_valid_image_fields(fields_: dict[str, str]) -> None:
    wire = {
        "imageTag"
        if k == "image_tag"
        else "imageName"
        if k == "image_name"
        else "imageNamespace"
        if k == "image_namespace"
        else "imageDigest": v
        for k, v in fields_.items()
    }
    prepare("ContainerTemplate_Add", {"appId": "a"}, {"name": "api", "image": "x", **wire})


@pytest.mark.parametrize(
    "fields_",
    [{}, {"image": ""}, {"image_registry_id": ""}, {"image": "", "image_registry_id": ""}],
)
async def test_image_or_registry_rule(recorder_client: Any, fields_: dict[str, str]) -> None:
    recorder, client = recorder_client
    with pytest.raises(InvalidRequestError) as info:
        await client.containers.add_template("app-1", name="api", **fields_)
    assert recorder.requests == []
    assert info.value.errors == [
        FieldError(None, "one of image or imageRegistryId must be a non-empty string")
    ]


@pytest.mark.parametrize(
    "fields_",
    [{"image": "nginx"}, {"image_registry_id": "reg-1"}, {"image": "", "image_registry_id": "r"}],
)
def test_image_or_registry_rule_satisfied(fields_: dict[str, str]) -> None:
    wire = {"imageRegistryId" if k == "image_registry_id" else k: v for k, v in fields_.items()}
    prepare("ContainerTemplate_Add", {"appId": "a"}, {"name": "api", **wire})


@pytest.mark.parametrize(
    ("pull_zone_id", "message"),
    [
        ("42", "'42' is not of type 'integer', 'null'"),
        (True, "True is not of type 'integer', 'null'"),
        (4.2, "4.2 is not of type 'integer', 'null'"),
        (2**63, "9223372036854775808 is out of range"),
        (-(2**63) - 1, "-9223372036854775809 is out of range"),
    ],
)
async def test_endpoint_pull_zone_id(recorder_client: Any, pull_zone_id: Any, message: str) -> None:
    error = await invalid(
        recorder_client, template(endpoints=[{"cdn": {"pullZoneId": pull_zone_id}}])
    )
    assert error.errors == [FieldError("endpoints[0].cdn.pullZoneId", message)]


@pytest.mark.parametrize("value", [1.0, 1e3, 9.2e18, -0.0])
async def test_an_integral_float_is_no_integer(recorder_client: Any, value: float) -> None:
    """It went out as a float ("Ttl":1.0): JSON Schema alone takes 1.0 for an integer."""
    error = await invalid(
        recorder_client,
        lambda c: c.dns_zones.add(domain="example.com", records=[{"Ttl": value}]),
    )
    assert error.errors == [
        FieldError("Records[0].Ttl", f"{value!r} is not of type 'integer', 'null'")
    ]
    error = await invalid(recorder_client, template(endpoints=[{"cdn": {"pullZoneId": value}}]))
    assert fields(error) == {"endpoints[0].cdn.pullZoneId"}


def test_an_integral_float_is_no_integer_in_a_query() -> None:
    from edgedelivery_async._requests import encode_query
    from edgedelivery_async._schema import Parameter

    param = Parameter("page", {"type": "integer"}, required=False, explode=True)
    problems: list[Any] = []
    assert encode_query((param,), {"page": 2.0}, problems) == ""
    assert [str(p) for p in problems] == ["page: 2.0 is not of type 'integer'"]
    assert encode_query((param,), {"page": 2}, problems) == "?page=2"


async def test_endpoint_pull_zone_id_in_a_model(recorder_client: Any) -> None:
    endpoint = models.EndpointCreate(cdn=models.EndpointCdn(pull_zone_id=True))  # type: ignore[arg-type]
    error = await invalid(recorder_client, template(endpoints=[{"displayName": "a"}, endpoint]))
    assert fields(error) == {"endpoints[1].cdn.pullZoneId"}


async def test_int64_bounds_are_fine() -> None:
    for value in (2**63 - 1, -(2**63)):
        prepare(
            "ContainerTemplate_Add",
            {"appId": "a"},
            {"name": "a", "image": "b", "endpoints": [{"cdn": {"pullZoneId": value}}]},
        )


async def test_every_problem_is_listed(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client,
        template(
            name="",
            image="",
            image_tag="latest!",
            image_digest="sha256:abc",
            environment_variables={"A": 1},
            endpoints=[{"cdn": {"pullZoneId": "42", "isSslEnabled": "yes"}}],
            probes={"readiness": {"periodSeconds": True}},
            volume_mounts=[{"name": 5}],
        ),
    )

    assert fields(error) == {
        None,
        "name",
        "imageTag",
        "imageDigest",
        "environmentVariables[0].value",
        "endpoints[0].cdn.pullZoneId",
        "endpoints[0].cdn.isSslEnabled",
        "probes.readiness.periodSeconds",
        "volumeMounts[0].name",
    }
    for problem in error.errors:
        assert (problem.field or "(body)") in str(error)


async def test_template_as_a_whole_is_validated(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client,
        lambda c: c.containers.add_template("app-1", {"image": "nginx", "imageTag": "latest!"}),
    )
    assert "'name' is a required property" in str(error)
    assert "imageTag" in fields(error)


# ------------------------------------------------------------------ environment


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"A": 1}, "A"),
        ({"A": None}, "A"),
        ({"A": True}, "A"),
        ({"A": ["x"]}, "A"),
        ({"OK": "1", "B": {"x": 1}}, "B"),
    ],
)
async def test_environment_values_must_be_strings(
    recorder_client: Any, variables: dict[str, Any], field: str
) -> None:
    error = await invalid(
        recorder_client, lambda c: c.containers.set_environment("app", "ct", variables)
    )
    assert fields(error) == {field}


@pytest.mark.parametrize("variables", [[("A", "1")], "A=1", None, 5])
async def test_environment_must_be_a_mapping(recorder_client: Any, variables: Any) -> None:
    error = await invalid(
        recorder_client, lambda c: c.containers.set_environment("app", "ct", variables)
    )
    assert "is not of type 'object'" in str(error)


async def test_environment_keys_must_be_strings(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client, lambda c: c.containers.set_environment("app", "ct", {1: "x", "A": 2})
    )
    assert "keys must be strings" in str(error)
    assert "A" in fields(error)


async def test_template_environment_mapping_values(recorder_client: Any) -> None:
    error = await invalid(recorder_client, template(environment_variables={"A": "1", "B": 2}))
    assert fields(error) == {"environmentVariables[1].value"}


# ------------------------------------------------------------------- DNS zones


async def test_dns_record_problems_carry_their_paths(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client,
        lambda c: c.dns_zones.add(
            domain="example.com",
            records=[
                {"Ttl": "300"},
                {"Ttl": True, "Disabled": 1},
                {"PullZoneId": 2**63, "EnviromentalVariables": [{"Name": 1}]},
            ],
        ),
    )
    assert error.errors == [
        FieldError("Records[0].Ttl", "'300' is not of type 'integer', 'null'"),
        FieldError("Records[1].Disabled", "1 is not of type 'boolean', 'null'"),
        FieldError("Records[1].Ttl", "True is not of type 'integer', 'null'"),
        FieldError("Records[2].EnviromentalVariables[0].Name", "1 is not of type 'string'"),
        FieldError("Records[2].PullZoneId", "9223372036854775808 is out of range"),
    ]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("x" * 100_000, "(100,000 characters) is not of type 'boolean'"),
        (["y" * 1_000] * 1_000, "(1,000 members) is not of type 'boolean'"),
        ({f"k{n}": "v" * 1_000 for n in range(300)}, "(300 members) is not of type 'boolean'"),
    ],
    ids=["string", "list", "dict"],
)
async def test_a_long_value_is_quoted_shortened(
    recorder_client: Any, value: Any, said: str
) -> None:
    error = await invalid(
        recorder_client, lambda c: c.pull_zones.set_force_ssl(1, hostname="h", force_ssl=value)
    )
    assert len(str(error)) < 1_000
    assert said in str(error)
    assert [e.field for e in error.errors] == ["ForceSSL"]


async def test_a_message_lists_twenty_problems_and_errors_every_one(recorder_client: Any) -> None:
    records = [{"Name": 1, "Ttl": "x"}] * 50
    error = await invalid(
        recorder_client, lambda c: c.dns_zones.add(domain="example.com", records=records)
    )
    assert len(error.errors) == 100
    assert str(error).count("is not of type") == 20
    assert str(error).endswith("; and 80 more (all in .errors)")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
async def test_non_finite_numbers(recorder_client: Any, value: float) -> None:
    error = await invalid(
        recorder_client,
        lambda c: c.dns_zones.add(
            domain="example.com", records=[{"Ttl": "x"}, {"GeolocationLatitude": value}]
        ),
    )
    assert fields(error) == {"Records[0].Ttl", "Records[1].GeolocationLatitude"}
    assert "is not a JSON number" in str(error)


async def test_non_finite_numbers_inside_models(recorder_client: Any) -> None:
    record = models.DnsRecord(geolocation_longitude=float("nan"))
    error = await invalid(
        recorder_client, lambda c: c.dns_zones.add(domain="example.com", records=[record])
    )
    assert fields(error) == {"Records[0].GeolocationLongitude"}


@pytest.mark.parametrize("value", [object(), {1, 2}, b"bytes", 1j])
async def test_non_json_values(recorder_client: Any, value: Any) -> None:
    error = await invalid(
        recorder_client,
        template(endpoints=[{"cdn": {"portMappings": [{"protocols": ["tcp", value]}]}}]),
    )
    assert fields(error) == {"endpoints[0].cdn.portMappings[0].protocols[1]"}
    assert "cannot be sent as JSON" in str(error)


async def test_non_json_values_in_extra_fields(recorder_client: Any) -> None:
    error = await invalid(recorder_client, template(extra_fields={"when": object()}))
    assert fields(error) == {"when"}


async def test_dns_records_must_be_a_list(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client, lambda c: c.dns_zones.add(domain="example.com", records={"Ttl": 1})
    )
    assert fields(error) == {"Records"}


# --------------------------------------------------------------- compute, registry


async def test_script_variable_types(recorder_client: Any) -> None:
    error = await invalid(
        recorder_client,
        lambda c: c.compute.add_script_variable(1, name=5, required="yes", default_value=1),
    )
    assert fields(error) == {"Name", "Required", "DefaultValue"}


async def test_registry_display_name_type(recorder_client: Any) -> None:
    error = await invalid(recorder_client, lambda c: c.registries.add(display_name=None))
    assert fields(error) == {"displayName"}


async def test_self_referential_input_is_an_invalid_request() -> None:
    loop: dict[str, object] = {"name": "api", "image": "nginx"}
    loop["probes"] = loop
    recorder = Recorder(httpx.Response(200, json={}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError, match="contains itself"):
            await client.containers.add_template("app", loop)
    assert recorder.requests == []


@pytest.mark.parametrize(
    "value", ["\ud800", ["ok", "x\udfff"]], ids=["lone-surrogate", "in-an-array"]
)
def test_a_query_or_header_value_that_is_not_unicode_text_is_a_problem(value: Any) -> None:
    """A string parameter with no other constraint takes any str, but a lone surrogate has
    no UTF-8 form: a problem named by the parameter, not a raw UnicodeEncodeError."""
    from edgedelivery_async._requests import encode_headers, encode_query
    from edgedelivery_async._schema import Parameter

    text = {"type": "string"}
    schema = {"type": "array", "items": text} if isinstance(value, list) else text
    param = Parameter("search", schema, required=False, explode=True)
    problems: list[Any] = []
    assert encode_query((param,), {"search": value}, problems) == ""
    assert [str(p) for p in problems] == ["search: must be valid Unicode text (no lone surrogates)"]
    problems = []
    assert encode_headers((param,), {"search": value}, problems) == {}
    assert [str(p) for p in problems] == ["search: must be valid Unicode text (no lone surrogates)"]


def test_cookie_parameters_go_in_one_cookie_header_as_rfc_6265_allows() -> None:
    """Cookie parameters (they stopped regeneration) are sent as `Cookie: a=1; b=x`; a value
    RFC 6265 does not allow in a cookie is refused before sending, as is a required one
    missing."""
    from edgedelivery_async._requests import encode_cookies
    from edgedelivery_async._schema import _parameter

    def cookie(name: str, schema: dict[str, Any], required: bool = False) -> Any:
        return _parameter({"name": name, "in": "cookie", "schema": schema, "required": required})

    text = {"type": "string"}
    params = (
        cookie("session", text, required=True),
        cookie("n", {"type": "integer"}),
        cookie("on", {"type": "boolean"}),
        cookie("tags", {"type": "array", "items": text}),
    )
    problems: list[Any] = []
    values = {"session": "a.b-c_d=~!", "n": 3, "on": False, "tags": ["x"]}
    assert encode_cookies(params, values, problems) == "session=a.b-c_d=~!; n=3; on=false; tags=x"
    assert problems == []
    assert encode_cookies(params, {"n": UNSET}, problems) == ""
    assert [str(p) for p in problems] == ["session: is required"]
    for refused in ("a b", 'a"b', "a,b", "a;b", "a\\b", "caf\u00e9", "a\tb", ["x", "y"]):
        problems = []
        key = "tags" if isinstance(refused, list) else "session"
        encode_cookies(params, {"session": "ok", key: refused}, problems)
        assert [p.field for p in problems] == [key], refused
        assert "cannot be sent in a cookie (RFC 6265" in problems[0].message


@pytest.mark.parametrize(
    ("style", "wire"),
    [
        ({}, "?ids=1,2,a%2Cb"),
        ({"style": "form", "explode": False}, "?ids=1,2,a%2Cb"),
        ({"style": "pipeDelimited", "explode": False}, "?ids=1%7C2%7Ca%2Cb"),
        ({"style": "spaceDelimited", "explode": False}, "?ids=1%202%20a%2Cb"),
        ({"style": "form", "explode": True}, "?ids=1&ids=2&ids=a%2Cb"),
    ],
)
def test_an_array_query_parameter_is_joined_by_its_style(style: dict[str, Any], wire: str) -> None:
    """pipeDelimited and spaceDelimited arrays went out comma-joined (the fake said 400)."""
    from edgedelivery_async._requests import encode_query
    from edgedelivery_async._schema import _parameter

    node = {"name": "ids", "in": "query", "explode": False, **style}
    node["schema"] = {"type": "array", "items": {"type": "string"}}
    problems: list[Any] = []
    assert encode_query((_parameter(node),), {"ids": ["1", "2", "a,b"]}, problems) == wire
    assert problems == []


@pytest.mark.parametrize(
    ("value", "segment"), [(True, "true"), (False, "false"), ("true", "true"), ("false", "false")]
)
def test_a_boolean_path_parameter_takes_a_bool(value: Any, segment: str) -> None:
    """It refused True ("must be an identifier, not a boolean") and took only the text."""
    from edgedelivery_async._requests import encode_path_value

    problems: list[Any] = []
    assert encode_path_value("flag", value, {"type": "boolean"}, problems) == segment
    assert problems == []


@pytest.mark.parametrize("value", [1, "yes", None, "True"])
def test_a_boolean_path_parameter_refuses_anything_else(value: Any) -> None:
    from edgedelivery_async._requests import encode_path_value

    problems: list[Any] = []
    encode_path_value("flag", value, {"type": "boolean"}, problems)
    assert [p.field for p in problems] == ["flag"]


@pytest.mark.parametrize("schema", [{"type": "boolean"}, {"$ref": "#/components/schemas/Flag"}])
def test_an_integer_for_a_boolean_path_parameter_is_refused_by_a_call(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The integers' fast path is the operation table's to allow: 1 never goes out as True."""
    from edgedelivery_async import InvalidRequestError, _requests, _schema
    from edgedelivery_async._call import Call

    document = {"components": {"schemas": {"Flag": {"type": "boolean"}}}}
    monkeypatch.setattr(_schema, "spec", lambda: document)
    node = {"name": "flag", "in": "path", "required": True, "schema": schema}
    parameter = _schema.path_parameter(node)
    assert parameter.digits is False
    operation = _schema.Operation("op", "GET", "/x/{flag}", (parameter,), False, None)
    monkeypatch.setattr(_requests, "operations", lambda: {"op": operation})
    with pytest.raises(InvalidRequestError, match="flag: must be True or False, not 1"):
        _requests.prepare_call(Call("op", object, path={"flag": 1}))
    assert _requests.prepare_call(Call("op", object, path={"flag": True})).target == "/x/true"


HUGE = 10**5000  # more digits than Python prints (4,300)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.registries.add(display_name=HUGE),  # a string wanted
        lambda c: c.containers.set_environment("a", "b", {"K": HUGE}),
        lambda c: c.containers.add_template(
            "a", name="x", image="r/x:1",
            endpoints=[{"displayName": "p", "cdn": {"isSslEnabled": True, "pullZoneId": HUGE}}],
        ),  # past an int64's maximum, nested
        lambda c: c.call(HUGE),  # not an operation id
    ],
    ids=["string", "map-value", "nested-maximum", "operation-id"],
)  # fmt: skip
async def test_an_int_of_thousands_of_digits_is_refused_as_invalid(
    recorder_client: Any, call: Callable[[EdgeDeliveryClient], Any]
) -> None:
    """jsonschema's messages print the value, and Python refuses to print an int of over
    4,300 digits: a raw ValueError escaped the call."""
    error = await invalid(recorder_client, call)
    assert len(str(error)) < 5000


async def test_a_lower_limit_on_printed_digits_holds_too(recorder_client: Any) -> None:
    """The process may print fewer digits than Python's default (`PYTHONINTMAXSTRDIGITS`,
    `sys.set_int_max_str_digits`): a 1,000-digit int past 640 escaped as ValueError."""
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        error = await invalid(recorder_client, lambda c: c.registries.add(display_name=10**1000))
    finally:
        sys.set_int_max_str_digits(limit)
    assert "displayName" in str(error)
