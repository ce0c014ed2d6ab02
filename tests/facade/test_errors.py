"""Every error family maps to the right class, with its fields and a readable message."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    AcceptedWithoutResultError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIResultError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    EdgeDeliveryError,
    FieldError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from edgedelivery_async.models import UNSET

from .conftest import SHIELD_CONFIG, Recorder, mock_client

CORE_ERROR = {
    "ErrorKey": "pullzone.hostname_not_found",
    "Field": "Hostname",
    "Message": "The hostname is not part of this pull zone.",
}
VALIDATION_ERROR = {
    "title": "One or more validation errors occurred.",
    "status": 400,
    "detail": "See errors.",
    "instance": "/mc/apps/app-1/containers",
    "errors": [
        {"field": "name", "message": "The name must be 1 to 50 characters long."},
        {"field": "imageTag", "message": "Invalid tag."},
    ],
    "id": "0HN7TRACE",
}
ASPNET_ERROR = {
    "type": "https://tools.ietf.org/html/rfc9110#section-15.5.1",
    "title": "One or more validation errors occurred.",
    "status": 400,
    "errors": {"name": ["The name is too long.", "The name is taken."], "image": ["Required."]},
}
PROBLEM = {
    "type": "https://errors.example/not-found",
    "title": "Not Found",
    "status": 404,
    "detail": "No registry with id 31.",
    "instance": "/mc/registries/31",
}
RESULT_OBJECT = {
    "location": None,
    "value": None,
    "formatters": [],
    "contentTypes": ["application/json"],
    "declaredType": "ShieldZoneResponse",
    "statusCode": 404,
}
SCANNING_FAILURE = {
    "error": {
        "success": False,
        "message": "Shield zone not found.",
        "errorKey": "shieldzone.not_found",
    },
    "data": None,
}


def reply(status: int, body: Any = None, *, content: bytes | None = None, **headers: str) -> Any:
    if content is None:
        content = b"" if body is None else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers=headers)


async def raised(replies: Any, call: Any, **options: Any) -> Any:
    """The exception a call raises when the server answers with `replies`."""
    options.setdefault("max_retries", 0)
    recorder = Recorder(*replies) if isinstance(replies, list) else Recorder(replies)
    async with mock_client(recorder, **options) as client:
        with pytest.raises(EdgeDeliveryError) as info:
            await call(client)
    return info.value


def get_registry(client: Any) -> Any:
    return client.registries.get("31")


def force_ssl(client: Any) -> Any:
    return client.pull_zones.set_force_ssl(42, hostname="cdn.example.com", force_ssl=True)


def test_the_tree() -> None:
    for status_class in (
        BadRequestError,
        AuthenticationError,
        PermissionDeniedError,
        NotFoundError,
        ConflictError,
        UnprocessableEntityError,
        RateLimitError,
        InternalServerError,
    ):
        assert issubclass(status_class, APIStatusError)
    for api_class in (APIStatusError, APIResultError, APIResponseValidationError):
        assert issubclass(api_class, APIError)
    for root_class in (APIError, APIConnectionError, InvalidRequestError, ConfigurationError):
        assert issubclass(root_class, EdgeDeliveryError)
    assert issubclass(APITimeoutError, APIConnectionError)
    assert issubclass(InvalidRequestError, ValueError)
    assert issubclass(ConfigurationError, ValueError)
    assert not issubclass(APIError, ValueError)


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (418, APIStatusError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, InternalServerError),
        (502, InternalServerError),
        (503, InternalServerError),
        (520, InternalServerError),
        (599, InternalServerError),
        (304, APIStatusError),
    ],
)
async def test_status_maps_to_class(status: int, error_class: type[APIStatusError]) -> None:
    error = await raised(reply(status, CORE_ERROR), force_ssl)

    assert type(error) is error_class
    assert error.status_code == status
    assert error.method == "POST"
    assert error.path == "/pullzone/42/setForceSSL"
    assert error.error_key == "pullzone.hostname_not_found"
    assert error.field == "Hostname"
    assert error.message == "The hostname is not part of this pull zone."
    assert error.body == CORE_ERROR
    assert isinstance(error.response, httpx.Response)
    assert error.response.status_code == status
    assert error.response.json() == CORE_ERROR
    assert error.retry_after is None


async def test_core_error_reads_well() -> None:
    error = await raised(reply(400, CORE_ERROR), force_ssl)

    assert str(error) == (
        "POST /pullzone/42/setForceSSL -> 400 Bad Request: "
        "The hostname is not part of this pull zone. "
        "(error_key=pullzone.hostname_not_found; field=Hostname)"
    )
    assert error.errors == []
    assert error.response.request.method == "POST"
    assert str(error.response.request.url) == "https://api.edge.test/pullzone/42/setForceSSL"


async def test_core_error_with_nulls() -> None:
    body = {"ErrorKey": None, "Field": None, "Message": "Bad."}
    error = await raised(reply(400, body), lambda c: c.dns_zones.add(domain="example.com"))

    assert (error.error_key, error.field, error.message) == (None, None, "Bad.")
    assert str(error) == "POST /dnszone -> 400 Bad Request: Bad."


async def test_validation_style_body() -> None:
    error = await raised(
        reply(400, VALIDATION_ERROR),
        lambda c: c.containers.add_template("app-1", name="api", image="nginx"),
    )

    assert isinstance(error, BadRequestError)
    assert error.message == "See errors."
    assert error.errors == [
        FieldError("name", "The name must be 1 to 50 characters long."),
        FieldError("imageTag", "Invalid tag."),
    ]
    assert error.body == VALIDATION_ERROR
    text = str(error)
    assert text.startswith("POST /mc/apps/app-1/containers -> 400 Bad Request: See errors.")
    assert "name: The name must be 1 to 50 characters long." in text
    assert "imageTag: Invalid tag." in text


async def test_aspnet_errors_dict() -> None:
    error = await raised(
        reply(422, ASPNET_ERROR),
        lambda c: c.containers.set_environment("app-1", "ct-1", {"A": "1"}),
    )

    assert isinstance(error, UnprocessableEntityError)
    assert error.message == "One or more validation errors occurred."
    assert error.error_key is None  # the type only links the status's RFC section
    assert error.errors == [
        FieldError("name", "The name is too long."),
        FieldError("name", "The name is taken."),
        FieldError("image", "Required."),
    ]


async def test_field_errors_of_another_shape_say_what_they_hold() -> None:
    """An `errors` item without `field` or `message` (FluentValidation writes
    {propertyName, errorMessage}) was an empty FieldError: the text read "(; )"."""
    body = {
        "title": "Invalid.",
        "errors": [
            {"propertyName": "Name", "errorMessage": "must not be empty"},
            {"field": "image", "message": "Required."},
        ],
    }
    error = await raised(
        reply(400, body), lambda c: c.containers.add_template("app-1", name="api", image="x")
    )
    assert error.errors == [
        FieldError(None, '{"propertyName": "Name", "errorMessage": "must not be empty"}'),
        FieldError("image", "Required."),
    ]
    assert "must not be empty" in str(error)
    assert "(; " not in str(error)


async def test_problem_style_body() -> None:
    error = await raised(reply(404, PROBLEM), get_registry)

    assert isinstance(error, NotFoundError)
    assert (error.message, error.error_key, error.field) == (
        "No registry with id 31.",
        "https://errors.example/not-found",
        None,
    )
    assert error.errors == []
    assert str(error).startswith("GET /mc/registries/31 -> 404 Not Found: No registry with id 31.")


async def test_problem_style_title_only() -> None:
    error = await raised(reply(409, {"title": "Conflict"}), get_registry)

    assert isinstance(error, ConflictError)
    assert error.message == "Conflict"


async def test_shield_result_object_body() -> None:
    error = await raised(reply(404, RESULT_OBJECT), lambda c: c.shield.get_zone_by_pull_zone(42))

    assert isinstance(error, NotFoundError)
    assert error.body == RESULT_OBJECT
    assert error.message == "result object with status 404"
    assert "GET /shield/shield-zone/get-by-pullzone/42 -> 404" in str(error)


@pytest.mark.parametrize(
    ("body", "message", "error_key"),
    [
        # The wrapper's fields at the top (the shield documents' GenericRequestResponse).
        (
            {"statusCode": 404, "success": False, "message": "No zone.", "errorKey": "zone.x"},
            "No zone.",
            "zone.x",
        ),
        ({"success": False, "errorKey": "zone.x"}, None, "zone.x"),
        # A result object that carries only its status (UnauthorizedResult).
        ({"statusCode": 404}, "result object with status 404", None),
    ],
)
async def test_unwrapped_error_bodies(
    body: Any, message: str | None, error_key: str | None
) -> None:
    error = await raised(reply(404, body), get_registry)

    assert isinstance(error, NotFoundError)
    assert error.body == body
    assert error.message == message
    assert error.error_key == error_key


DEEP = "[" * 980 + "]" * 980  # within orjson's 1,024 levels, past what json.dumps writes


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, '{"Message": ' + DEEP + "}"),
        (400, '{"errors": {"name": ' + DEEP + "}}"),
        (404, '{"error": {"message": ' + DEEP + "}}"),
        (404, '{"success": false, "message": {"a": ' + DEEP + "}}"),
        (400, '{"statusCode": ' + DEEP + "}"),
    ],
    ids=["Message", "errors", "error.message", "message", "statusCode"],
)
async def test_a_message_nested_too_deep_to_show(status: int, body: str) -> None:
    error = await raised(reply(status, content=body.encode()), get_registry)

    assert isinstance(error, APIStatusError)
    assert error.status_code == status
    # Python 3.11's json.dumps cannot write 980 levels (shown as "nested too deep");
    # 3.12's can (shown as it is). Either way, a message and no RecursionError.
    assert "nested too deep" in str(error) or "[[[[" in str(error)


@pytest.mark.parametrize(
    "body",
    [
        {"Message": "x" * 300_000},
        {"errors": [{"field": f"f{n}", "message": "m" * 50} for n in range(5_000)]},
    ],
    ids=["Message", "errors"],
)
async def test_a_huge_message_is_clipped_in_the_error_text_only(body: Any) -> None:
    """A 300 KB Message was the whole str(error): every log line and traceback of it."""
    error = await raised(reply(400, body), force_ssl)

    assert len(str(error)) < 1_200
    assert "more characters in the error's attributes" in str(error)
    assert error.message == body.get("Message")  # the attributes keep all of it
    assert len(error.errors) == len(body.get("errors", []))


async def test_a_body_nested_past_any_parser_is_still_a_status_error() -> None:
    """The key's scrub reads an error body as JSON: 100,000 levels raised RecursionError."""
    deep = b"[" * 100_000 + b"]" * 100_000
    error = await raised(reply(401, content=deep), get_registry)
    assert isinstance(error, APIStatusError)
    assert error.status_code == 401


async def test_a_web_page_where_no_result_is_declared_is_a_validation_error() -> None:
    """set-force-ssl (204, no result) reported success on a 200 HTML page: a base URL
    pointing at a website; every other operation already said so."""
    page = b"\n  <!doctype html><html><body>Welcome</body></html>"
    error = await raised(reply(200, content=page, **{"Content-Type": "text/html"}), force_ssl)
    assert isinstance(error, APIResponseValidationError)
    assert "reads like a web page" in str(error)
    async with mock_client(Recorder(reply(200, {"ok": True}))) as client:  # JSON: tolerated
        await force_ssl(client)


async def test_a_lone_surrogate_in_a_message_is_shown_escaped() -> None:
    """JSON may spell one ("\\ud800"); printed or logged as it was, it raised."""
    error = await raised(reply(500, content=b'{"Message": "bad \\ud800 text"}'), get_registry)

    assert isinstance(error, InternalServerError)
    assert "bad \\ud800 text" in str(error)
    str(error).encode()


async def test_upload_scanning_wrapper_on_error_status() -> None:
    error = await raised(reply(404, SCANNING_FAILURE), lambda c: c.shield.get_upload_scanning(7))

    assert isinstance(error, NotFoundError)
    assert error.error_key == "shieldzone.not_found"
    assert error.message == "Shield zone not found."


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
        (b"<!DOCTYPE html>\n<html>oops</html>", "application/json"),
    ],
)
async def test_html_error_page(content: bytes, content_type: str) -> None:
    error = await raised(
        reply(502, content=content, **{"content-type": content_type}), get_registry
    )

    assert isinstance(error, InternalServerError)
    assert error.body == content.decode()
    assert error.message is not None
    assert "markup" in error.message
    assert str(error).startswith("GET /mc/registries/31 -> 502 Bad Gateway")


async def test_empty_error_body() -> None:
    error = await raised(reply(500), get_registry)

    assert isinstance(error, InternalServerError)
    assert (error.body, error.message, error.error_key, error.errors) == (None, None, None, [])
    assert str(error) == "GET /mc/registries/31 -> 500 Internal Server Error"


async def test_truncated_json_error_body() -> None:
    error = await raised(reply(400, content=b'{"ErrorKey": "x", "Mess'), force_ssl)

    assert isinstance(error, BadRequestError)
    assert error.body == '{"ErrorKey": "x", "Mess'
    assert error.message == '{"ErrorKey": "x", "Mess'
    assert error.error_key is None


async def test_non_utf8_error_body() -> None:
    error = await raised(reply(400, content=b"\xff\xfe\x00bad"), force_ssl)

    assert isinstance(error, BadRequestError)
    assert isinstance(error.body, str)


@pytest.mark.parametrize("body", [[1, 2], "text", 42, None, {"errors": "not a list"}])
async def test_odd_json_error_bodies(body: Any) -> None:
    error = await raised(reply(403, content=json.dumps(body).encode()), get_registry)

    assert isinstance(error, PermissionDeniedError)
    assert error.body == body


async def test_unknown_status_and_cross_host_redirect() -> None:
    error = await raised(
        reply(302, location="https://elsewhere.test/mc/registries/31"), get_registry
    )

    assert type(error) is APIStatusError
    assert error.status_code == 302
    assert str(error).startswith("GET /mc/registries/31 -> 302 Found")


async def test_unassigned_status_reads_well() -> None:
    error = await raised(reply(520, {"detail": "origin is unreachable"}), get_registry)

    assert isinstance(error, InternalServerError)
    assert str(error) == "GET /mc/registries/31 -> 520: origin is unreachable"


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_on_the_error(status: int) -> None:
    error = await raised(reply(status, None, **{"retry-after": "7"}), get_registry)

    assert error.retry_after == 7.0


# ------------------------------------------------------- failures in 2xx bodies


async def test_upload_scanning_wrapper_failure_on_200() -> None:
    error = await raised(reply(200, SCANNING_FAILURE), lambda c: c.shield.get_upload_scanning(7))

    assert type(error) is APIResultError
    assert error.status_code == 200
    assert error.error_key == "shieldzone.not_found"
    assert error.message == "Shield zone not found."
    assert error.body == SCANNING_FAILURE
    assert error.response.status_code == 200
    assert str(error) == (
        "GET /shield/shield-zone/7/upload-scanning -> 200 OK: Shield zone not found. "
        "(error_key=shieldzone.not_found)"
    )


async def test_shield_wrapper_failure_on_200() -> None:
    body = {"error": {"success": False, "message": "No."}, "data": SHIELD_CONFIG}
    error = await raised(reply(200, body), lambda c: c.shield.get_zone_by_pull_zone(42))

    assert type(error) is APIResultError
    assert error.message == "No."


async def test_shield_result_object_on_200() -> None:
    error = await raised(reply(200, RESULT_OBJECT), lambda c: c.shield.get_zone_by_pull_zone(42))

    assert type(error) is APIResultError


async def test_dns_zone_wrapper_failure_on_201() -> None:
    body = {"error": {"success": False, "errorKey": "dnszone.domain_taken"}}
    error = await raised(reply(201, body), lambda c: c.dns_zones.add(domain="example.com"))

    assert type(error) is APIResultError
    assert error.error_key == "dnszone.domain_taken"


async def test_registry_add_with_an_error() -> None:
    body = {"id": 0, "error": "A registry with this name already exists."}
    error = await raised(reply(200, body), lambda c: c.registries.add(display_name="main"))

    assert type(error) is APIResultError
    assert error.message == "A registry with this name already exists."
    assert "POST /mc/registries -> 200 OK: A registry with this name" in str(error)


SCRIPT = ("script variable", lambda c: c.compute.add_script_variable(1, name="A"))
TEMPLATE_ADD = ("template", lambda c: c.containers.add_template("a", name="n", image="i"))
SET_ENV = ("environment", lambda c: c.containers.set_environment("a", "c", {}))
REGISTRY_ADD = ("registry add", lambda c: c.registries.add(display_name="main"))
REGISTRY_GET = ("registry get", get_registry)
SHIELD = ("shield", lambda c: c.shield.get_zone_by_pull_zone(42))
SCANNING = ("scanning", lambda c: c.shield.get_upload_scanning(7))
PARSED_CALLS = [SCRIPT, TEMPLATE_ADD, SET_ENV, REGISTRY_ADD, REGISTRY_GET, SHIELD, SCANNING]


NOT_JSON_OBJECTS = {
    "html": b"<html>ok</html>",
    "empty": b"",
    "list": b"[]",
    "list2": b'["x"]',
    "null": b"null",
    "number": b"3",
    "string": b'"s"',
    "truncated": b'{"data": ',
}
# Every field of a template, a registry or a script variable is optional (the live
# service requires no member of a script variable), so `{}` is a valid reply for those.
EMPTY_OBJECT_FAILS = [REGISTRY_ADD, SHIELD, SCANNING]


@pytest.mark.parametrize(
    ("name", "call", "content"),
    [
        *((name, call, body) for name, call in PARSED_CALLS for body in NOT_JSON_OBJECTS.values()),
        *((name, call, b"{}") for name, call in EMPTY_OBJECT_FAILS),
    ],
    ids=[
        *(f"{name}-{kind}" for name, _ in PARSED_CALLS for kind in NOT_JSON_OBJECTS),
        *(f"{name}-empty-object" for name, _ in EMPTY_OBJECT_FAILS),
    ],
)
async def test_undocumented_2xx_bodies(name: str, call: Any, content: bytes) -> None:
    error = await raised(reply(200, content=content), call)

    assert type(error) is APIResponseValidationError, name
    assert error.status_code == 200
    assert str(error).startswith(f"{error.method} {error.path} -> 200 OK")


@pytest.mark.parametrize("body", [{"Id": "17"}, {"Id": True}, {"Id": 1.5}])
async def test_script_variable_id_of_another_type_is_invalid(body: Any) -> None:
    error = await raised(reply(200, body), SCRIPT[1])

    assert type(error) is APIResponseValidationError
    assert error.body == body
    assert "Id" in str(error)


@pytest.mark.parametrize(("body", "expected"), [({"Name": "A"}, UNSET), ({"Id": None}, None)])
async def test_script_variable_without_id_is_returned(body: Any, expected: Any) -> None:
    recorder = Recorder(reply(200, body))
    async with mock_client(recorder) as client:
        variable = await SCRIPT[1](client)
    assert variable.id is expected


@pytest.mark.parametrize("body", [{"error": ""}, {"id": "31"}, {"id": True}, {"id": None}])
async def test_registry_add_needs_an_integer_id(body: Any) -> None:
    error = await raised(reply(200, body), REGISTRY_ADD[1])

    assert type(error) is APIResponseValidationError


@pytest.mark.parametrize(
    ("body", "call"),
    [
        ({"data": []}, SHIELD[1]),
        ({"data": "x"}, SHIELD[1]),
        ({"error": {"success": True}}, SCANNING[1]),
        ({"data": [1]}, SCANNING[1]),
        ({"endpoints": "x"}, TEMPLATE_ADD[1]),
        ({"endpoints": 5}, SET_ENV[1]),
    ],
)
async def test_2xx_bodies_that_do_not_fit_the_model(body: Any, call: Any) -> None:
    error = await raised(reply(200, body), call)

    assert type(error) is APIResponseValidationError
    assert error.body is not None


async def test_an_unparseable_timestamp_keeps_the_rest_readable() -> None:
    body = {"id": 7, "createdAt": "yesterday", "lastUpdatedAt": "2026-11-02t10:00:00z"}
    async with mock_client(Recorder(reply(200, body))) as client:
        registry = await REGISTRY_GET[1](client)
    assert registry.id == 7
    assert registry.created_at == "yesterday"  # the raw string, as sent
    assert registry.last_updated_at.isoformat() == "2026-11-02T10:00:00+00:00"  # lowercase t/z


async def test_nulls_read_as_none_and_absent_members_as_unset() -> None:
    body = {"id": 7, "accountId": None, "userName": None, "isPublic": None}
    async with mock_client(Recorder(reply(200, body))) as client:
        registry = await REGISTRY_GET[1](client)
    assert (registry.account_id, registry.user_name, registry.is_public) == (None, None, None)
    assert registry.host_name is UNSET


ACCEPTED_BODIES = {
    "empty": b"",
    "empty-object": b"{}",
    "all-members": json.dumps(
        {
            "value": None,
            "formatters": [],
            "contentTypes": ["application/json"],
            "declaredType": "ShieldZoneResponse",
            "statusCode": 202,
        }
    ).encode(),
    "no-declared-type": b'{"value": null, "formatters": [], "statusCode": 202}',
    "only-status": b'{"statusCode": 202}',
    "with-location": json.dumps(
        {"location": None, "value": None, "declaredType": "X", "statusCode": 202}
    ).encode(),
    "wrapper-without-data": b'{"error": {"success": true}}',
}


@pytest.mark.parametrize("content", ACCEPTED_BODIES.values(), ids=ACCEPTED_BODIES.keys())
@pytest.mark.parametrize("call", [SHIELD, SCANNING], ids=["shield", "scanning"])
async def test_accepted_without_result_is_one_class(call: Any, content: bytes) -> None:
    error = await raised(reply(202, content=content), call[1])

    assert type(error) is AcceptedWithoutResultError
    assert isinstance(error, APIResultError)
    assert error.status_code == 202


@pytest.mark.parametrize(("name", "call"), PARSED_CALLS, ids=[name for name, _ in PARSED_CALLS])
async def test_no_content_where_a_result_is_declared(name: str, call: Any) -> None:
    """A 204 has no body by definition (documents declare one beside the result's 200): a
    success without the result, not a reply that cannot be read."""
    error = await raised(reply(204), call)

    assert type(error) is APIResultError, name
    assert error.status_code == 204
    assert error.body is None
    assert "204 No Content: the reply carries no result" in str(error)


async def test_accepted_with_the_result_returns_it() -> None:
    async with mock_client(Recorder(reply(202, {"data": SHIELD_CONFIG}))) as client:
        config = await SHIELD[1](client)
    assert config.shield_zone_id == SHIELD_CONFIG["shieldZoneId"]
