"""Every operation of the document, called through `EdgeDeliveryClient.operation(id)`:
the generated method's arguments, the request on the wire, the result, and the errors.

The operations, their parameters, examples, statuses and security all come from the
document, so an operation a maintainer adds is exercised here with no new line.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import inspect
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

import attrs
import httpx
import pytest
from edgedelivery_openapi.types import Unset
from pytest_httpx import HTTPXMock

from edgedelivery_async import (
    APIResponseValidationError,
    APIResultError,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    EdgeDeliveryClient,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)

from ._calls import (
    BASE_URL,
    IDENTIFIER,
    IDENTIFIER_ENCODED,
    KEY,
    NO_BODY,
    arguments,
    body_argument,
    body_name,
    call,
    decoded_query,
    expected_result,
    field_nodes,
    flat,
    keyword_only,
    location,
    names_match,
    open_client,
    parameter_nodes,
    percent_encode,
    positional,
    raw_query,
    response_example,
    result_member,
    result_model,
    result_schema,
    status_for,
    success_reply,
)
from ._document import JSON, Operation, operations, resolve
from ._walk import normalize_dates

OPERATIONS = operations()
IDS = [o.operation_id for o in OPERATIONS]
ANONYMOUS = [o for o in OPERATIONS if not o.requires_key]
WITH_BODY_FIELDS = [
    o
    for o in OPERATIONS
    if o.request_body() is not None
    and body_argument(o) is not None
    and o.request_schema().get("properties")
]
# The error class of each status the SDK names; any other status of 500 or more is an
# InternalServerError, any other one an APIStatusError.
STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}
ERROR_CASES = [
    (o, key) for o in OPERATIONS for key in o.op["responses"] if not str(key).startswith("2")
]
WITH_STRING_PATH = [
    o
    for o in OPERATIONS
    if any(flat(p["schema"]).get("type") == "string" for p in o.parameters_in("path"))
]
# The longest URL every transport sends (hyper's limit; httpx's is 65,536), written out.
LONGEST_URL = 65_534
PROBLEM_520 = {"type": "about:blank", "title": "Origin error", "status": 520}


def string_path_place(operation: Operation) -> int:
    """The place among the positional arguments of the operation's first string path parameter."""
    strings = [flat(p["schema"]).get("type") == "string" for p in operation.parameters_in("path")]
    return strings.index(True)


@contextlib.asynccontextmanager
async def answering_client(
    operation: Operation, seen: list[httpx.Request]
) -> AsyncIterator[EdgeDeliveryClient]:
    """A client whose every request is recorded in `seen` and answered with the
    operation's documented success."""
    status, body = success_reply(operation)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status) if body is NO_BODY else httpx.Response(status, json=body)

    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http,
        EdgeDeliveryClient(KEY, BASE_URL, http_client=http, max_retries=0) as client,
    ):
        yield client


async def call_answered_with(operation: Operation, status: int, content: bytes) -> Any:
    """The operation called with its example arguments, the server answering `status`
    with `content` as JSON (whatever the call raises comes out)."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content, headers={"Content-Type": JSON})

    given = arguments(operation)
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http,
        EdgeDeliveryClient(KEY, BASE_URL, http_client=http, max_retries=0) as client,
    ):
        return await client.operation(operation.operation_id)(*given.args, **given.kwargs)


def expected_error(status: int) -> type[APIStatusError]:
    return InternalServerError if status >= 500 else STATUS_ERRORS.get(status, APIStatusError)


def answer(httpx_mock: HTTPXMock, status: int, body: Any) -> None:
    if body is NO_BODY:
        httpx_mock.add_response(status_code=status)
    else:
        httpx_mock.add_response(status_code=status, json=body)


def sent(httpx_mock: HTTPXMock) -> httpx.Request:
    (request,) = httpx_mock.get_requests()
    return request


def as_json(value: Any) -> Any:
    return value.to_dict() if attrs.has(type(value)) else value


def assert_documented_result(operation: Operation, result: Any, body: Any) -> None:
    """The result is the success body (the `x-sdk-result` value member of a wrapper), read
    as the component's generated model when the document names one."""
    if body is NO_BODY:
        assert result is None
        return
    node = result_schema(operation)
    expected = expected_result(operation, body)
    model = result_model(node)
    if model is not None:
        assert isinstance(result, model), (type(result), model)
    else:
        assert not attrs.has(type(result))
        assert result == expected
    assert normalize_dates(as_json(result), node) == normalize_dates(expected, node)


def test_the_hand_written_encoding() -> None:
    assert percent_encode(IDENTIFIER) == IDENTIFIER_ENCODED
    assert percent_encode("a-b_c.d~1") == "a-b_c.d~1"


# ---------------------------------------------------------------- the generated arguments
@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
def test_arguments_follow_the_document(operation: Operation) -> None:
    """Path parameters positional (in the document's order), then the whole-body argument
    if any; query and header parameters and body fields keyword-only, required exactly
    when the document says so."""
    path_parameters = operation.parameters_in("path")
    arguments_ = positional(operation)
    assert len(arguments_) in (len(path_parameters), len(path_parameters) + 1)
    for parameter, argument in zip(path_parameters, arguments_, strict=False):
        nodes = parameter_nodes(operation, parameter)
        assert names_match(argument.name, parameter["name"], *nodes), argument.name
        assert argument.default is inspect.Parameter.empty
    keywords = keyword_only(operation)
    for parameter in operation.parameters_in("query") + operation.parameters_in("header"):
        nodes = parameter_nodes(operation, parameter)
        (name,) = [k for k in keywords if names_match(k, parameter["name"], *nodes)]
        argument = keywords[name]
        if parameter.get("required"):
            assert argument.default is inspect.Parameter.empty, name
        else:
            default = flat(parameter.get("schema", {})).get("default")
            if default is None:
                assert isinstance(argument.default, Unset), name
            else:
                assert argument.default == default, name

    whole = body_argument(operation)
    body = operation.request_body()
    if body is None:
        assert whole is None
        return
    schema = operation.request_schema()
    properties = schema.get("properties") or {}
    if body.get("x-sdk-body") or not properties:
        assert whole is not None
        assert whole.name == body_name(operation)
    else:
        assert whole is None
    required = set(schema.get("required", []))
    for wire, prop in properties.items():
        nodes = field_nodes(operation, wire, prop)
        if resolve(prop).get("readOnly"):
            assert not [k for k in keywords if names_match(k, wire, *nodes)]
            continue
        (name,) = [k for k in keywords if names_match(k, wire, *nodes)]
        if wire in required and whole is None:
            assert keywords[name].default is inspect.Parameter.empty, name
        else:
            assert isinstance(keywords[name].default, Unset), name


# ------------------------------------------------------------------------ on the wire
@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
async def test_request_on_the_wire(operation: Operation, httpx_mock: HTTPXMock) -> None:
    status, body = success_reply(operation)
    media = reply_media(operation)
    if media is None:
        answer(httpx_mock, status, body)
    else:  # a text or binary reply: its content is the result, a str or bytes
        content = "a reply of the operation's own media type ä".encode()
        httpx_mock.add_response(status_code=status, content=content)
    expected = arguments(operation)
    reply = await call(operation)

    request = sent(httpx_mock)
    assert request.method == operation.method.upper()
    assert request.url.scheme == "https"
    assert request.url.host == "api.example.invalid"
    raw_path = request.url.raw_path.decode("ascii").split("?")[0]
    assert raw_path == expected.path
    strings = [
        p for p in operation.parameters_in("path") if flat(p["schema"]).get("type") != "integer"
    ]
    assert raw_path.count(IDENTIFIER_ENCODED) == len(strings)
    assert sorted(decoded_query(request)) == sorted(expected.query)
    for name, value in raw_query(request):
        # Percent-encoded but for the unreserved characters (a comma either way).
        assert name == percent_encode(unquote(name))
        assert value.replace("%2C", ",") == percent_encode(unquote(value)).replace("%2C", ",")
        if unquote(value) == IDENTIFIER:
            assert value == IDENTIFIER_ENCODED
    for name, value in expected.headers.items():
        assert request.headers[name] == value
    assert request.headers["AccessKey"] == KEY
    assert "Authorization" not in request.headers
    assert request.headers["Accept"] == (media or "application/json")
    if expected.body is None:
        assert request.content == b""
        assert "Content-Type" not in request.headers
    else:
        assert request.headers["Content-Type"] == "application/json"
        assert json.loads(request.content) == expected.body

    assert reply.status_code == status
    if media is None:
        assert_documented_result(operation, reply.parsed, body)
    elif all(kind.startswith("text/") for kind in media.split(", ")):
        assert reply.parsed == content.decode()
    else:
        assert reply.parsed == content


def reply_media(operation: Operation) -> str | None:
    """The media types of a success reply that declares no JSON (the Accept header names
    them, README "Media types"), or None: JSON, or no body."""
    key = operation.success_status()
    content = resolve(operation.op["responses"][key]).get("content") or {} if key else {}
    kinds = [str(kind) for kind in content]
    json_like = [k for k in kinds if k in (JSON, "text/json") or k.endswith("+json")]
    return ", ".join(kinds) if kinds and not json_like else None


@pytest.mark.parametrize(
    "operation", WITH_BODY_FIELDS, ids=[o.operation_id for o in WITH_BODY_FIELDS]
)
async def test_keyword_fields_send_the_same_body(
    operation: Operation, httpx_mock: HTTPXMock
) -> None:
    """A method that takes the whole body also takes its fields as keywords: same JSON."""
    status, body = success_reply(operation)
    answer(httpx_mock, status, body)
    given = arguments(operation, keyword_body=True)
    assert given.kwargs, "the example gives no field"
    await call(operation, keyword_body=True)
    assert json.loads(sent(httpx_mock).content) == given.body


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
async def test_operation_is_the_resource_method(operation: Operation) -> None:
    """`client.operation(id)` is the method users call on the resource, with its docs."""
    attribute, name = location(operation)
    async with open_client() as client:
        bound = client.operation(operation.operation_id)
        same = getattr(getattr(client, attribute), name)
        assert bound.__name__ == same.__name__ == name
        assert bound.__doc__ == same.__doc__
        assert operation.operation_id in (bound.__doc__ or "")


# ------------------------------------------------------------------------------- security
@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
async def test_without_a_key(operation: Operation, httpx_mock: HTTPXMock) -> None:
    """An operation that accepts no credentials is sent without an AccessKey header; one
    that requires a key is refused before anything is sent."""
    if operation.requires_key:
        with pytest.raises(ConfigurationError, match="access key"):
            await call(operation, key="")
        assert httpx_mock.get_requests() == []
        return
    status, body = success_reply(operation)
    answer(httpx_mock, status, body)
    reply = await call(operation, key="")
    request = sent(httpx_mock)
    assert "AccessKey" not in request.headers
    assert request.url.raw_path.decode("ascii").split("?")[0] == arguments(operation).path
    assert_documented_result(operation, reply.parsed, body)


def test_some_operation_accepts_no_key() -> None:
    """The reference's shield operations accept a key but do not require one: the empty
    requirement is the alternative to the AccessKey. (An operation with no requirement at
    all, as published documents have, takes no key.)"""
    optional = [operation for operation in ANONYMOUS if operation.security]
    assert optional
    for operation in optional:
        assert {"AccessKey": []} in operation.security, operation.operation_id


# ---------------------------------------------------------------------------- failures
@pytest.mark.parametrize(
    ("operation", "key"), ERROR_CASES, ids=[f"{o.operation_id}-{k}" for o, k in ERROR_CASES]
)
async def test_documented_error_statuses_raise(
    operation: Operation, key: str, httpx_mock: HTTPXMock
) -> None:
    status = status_for(key)
    body = response_example(operation, key)
    answer(httpx_mock, status, body)
    with pytest.raises(APIStatusError) as raised:
        await call(operation)
    error = raised.value
    assert type(error) is expected_error(status)
    assert error.status_code == status
    assert error.method == operation.method.upper()
    assert error.path.split("?")[0] == arguments(operation).path
    if body is NO_BODY:
        assert error.body is None
    else:
        assert error.body == body
        assert error.message, "the error body's message is read"


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
@pytest.mark.parametrize(
    "reply",
    [{"json": PROBLEM_520}, {"text": "<html>origin down</html>"}],
    ids=["problem", "html"],
)
async def test_a_non_iana_status_is_an_internal_server_error(
    operation: Operation, reply: dict[str, Any], httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=520, **reply)
    with pytest.raises(InternalServerError) as raised:
        await call(operation)
    assert raised.value.status_code == 520
    if "json" in reply:
        assert raised.value.body == PROBLEM_520
        assert raised.value.message == "Origin error"
    else:
        assert raised.value.body == "<html>origin down</html>"
        assert "non-JSON" in (raised.value.message or "")
    assert "520" in str(raised.value)


def failing(condition: dict[str, Any], body: Any) -> Any:
    """A copy of a success body that meets one `x-sdk-result` failure condition."""
    out = copy.deepcopy(body) if isinstance(body, dict) else {}
    node = out
    *parents, last = condition["member"]
    for name in parents:
        node = node.setdefault(name, {})
    if "equals" in condition:
        node[last] = condition["equals"]
    elif "not-in" in condition:
        node[last] = "zzNotAnAllowedValue"
    else:
        node[last] = "it failed"
    return out


FAILURES = [
    (o, i, c)
    for o in OPERATIONS
    if o.success_status() and response_example(o, o.success_status() or "") is not NO_BODY
    for i, c in enumerate(
        (o.response_schema(o.success_status() or "").get("x-sdk-result") or {}).get("failure", [])
    )
]


@pytest.mark.parametrize(
    ("operation", "index", "condition"),
    FAILURES,
    ids=[f"{o.operation_id}-{i}" for o, i, _ in FAILURES],
)
async def test_a_failure_inside_a_success_reply_raises(
    operation: Operation, index: int, condition: dict[str, Any], httpx_mock: HTTPXMock
) -> None:
    """Each `failure` condition of the success schema's `x-sdk-result` raises APIResultError."""
    status, body = success_reply(operation)
    bad = failing(condition, body)
    httpx_mock.add_response(status_code=status, json=bad)
    with pytest.raises(APIResultError) as raised:
        await call(operation)
    assert raised.value.status_code == status
    assert raised.value.body == bad


OTHER_SUCCESSES = [
    (o, key)
    for o in OPERATIONS
    for key in o.op["responses"]
    if str(key).startswith("2") and str(key) != o.success_status()
]


@pytest.mark.parametrize(
    ("operation", "key"),
    OTHER_SUCCESSES,
    ids=[f"{o.operation_id}-{k}" for o, k in OTHER_SUCCESSES],
)
async def test_another_documented_success_carries_no_result(
    operation: Operation, key: str, httpx_mock: HTTPXMock
) -> None:
    """A second success reply (a 202 "accepted" beside the result's 2XX, a 204 beside a
    200) is no result when its body is not one: empty, an accepted-result object, or
    without the `x-sdk-result` value member; its example raises an APIResultError rather
    than being returned as the result. One whose body is a result (documents as published
    declare the 202 with a result wrapper) is returned."""
    body = response_example(operation, key)
    answer(httpx_mock, status_for(key), body)
    if not carries_a_result(operation, body):
        with pytest.raises(APIResultError) as raised:
            await call(operation)
        assert raised.value.status_code == status_for(key)
        assert raised.value.body == (None if body is NO_BODY else body)
        return
    reply = await call(operation)
    assert reply.status_code == status_for(key)
    assert reply.parsed is not None


ACCEPTED_RESULT_OBJECT = {
    "value",
    "formatters",
    "contentTypes",
    "declaredType",
    "statusCode",
    "location",
}


def carries_a_result(operation: Operation, body: Any) -> bool:
    """Whether a reply body is a result (README: a 202 with the result returns it; an
    accepted-result or ASP.NET result object is none)."""
    if body is NO_BODY or body is None:
        return False
    if isinstance(body, dict) and set(body) <= ACCEPTED_RESULT_OBJECT:
        return False
    if isinstance(body, dict) and {"statusCode", "declaredType"} <= set(body) - {"data"}:
        return "data" in body  # an ASP.NET result object carries no result
    member = result_member(operation)
    return member is None or (isinstance(body, dict) and body.get(member) is not None)


# ------------------------------------------------------- the operation the reference spells out
async def test_force_ssl_body_and_no_content_reply(httpx_mock: HTTPXMock) -> None:
    """The one operation whose statuses the reference gives, by its public name."""
    httpx_mock.add_response(status_code=204)
    async with open_client() as client:
        reply = await client.pull_zones.set_force_ssl.with_response(
            7, hostname="cdn.example.com", force_ssl=False
        )
    request = sent(httpx_mock)
    assert request.method == "POST"
    assert request.url == "https://api.example.invalid/pullzone/7/setForceSSL"
    assert request.headers["AccessKey"] == KEY
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == {"Hostname": "cdn.example.com", "ForceSSL": False}
    assert reply.status_code == 204
    assert reply.parsed is None


@pytest.mark.parametrize("status", [400, 401, 404, 500])
async def test_force_ssl_error_statuses(status: int, httpx_mock: HTTPXMock) -> None:
    error = {"ErrorKey": "pullzone.x", "Field": None, "Message": "no"}
    httpx_mock.add_response(status_code=status, json=error)
    async with open_client() as client:
        with pytest.raises(APIStatusError) as raised:
            await client.pull_zones.set_force_ssl(7, hostname="h", force_ssl=True)
    assert type(raised.value) is expected_error(status)
    assert raised.value.status_code == status
    assert raised.value.body == error
    assert raised.value.error_key == "pullzone.x"
    assert raised.value.field is None
    assert raised.value.message == "no"


@pytest.mark.parametrize(
    "operation", WITH_STRING_PATH, ids=[o.operation_id for o in WITH_STRING_PATH]
)
async def test_a_url_longer_than_every_transport_sends_is_refused_before_sending(
    operation: Operation,
) -> None:
    """A URL of 65,534 characters is sent; one more, which hyper (wreq, reqwest) and httpx
    refuse as a connection failure, is an InvalidRequestError before anything is sent."""
    given = arguments(operation)
    place = string_path_place(operation)
    seen: list[httpx.Request] = []
    async with answering_client(operation, seen) as client:
        method = client.operation(operation.operation_id)
        await method(*given.args, **given.kwargs)
        fill = LONGEST_URL - (len(str(seen[0].url)) - len(IDENTIFIER_ENCODED))
        given.args[place] = "a" * fill
        await method(*given.args, **given.kwargs)
        assert len(str(seen[1].url)) == LONGEST_URL
        given.args[place] = "a" * (fill + 1)
        with pytest.raises(InvalidRequestError, match="would be 65,535 characters long") as info:
            await method(*given.args, **given.kwargs)
    assert len(seen) == 2
    assert len(str(info.value)) < 300


class _Zone(str, enum.Enum):  # noqa: UP042 (not StrEnum: its str() is its value)
    MAIN = "zone-main"


class _Leaves(str):
    """A str subclass whose str() says otherwise than its text."""

    def __str__(self) -> str:
        return ".."


@pytest.mark.parametrize(
    "operation", WITH_STRING_PATH, ids=[o.operation_id for o in WITH_STRING_PATH]
)
async def test_a_str_subclass_in_the_path_is_sent_as_its_text(operation: Operation) -> None:
    """A path value was checked by its text but sent as str() said: a (str, Enum) member
    went out as "_Zone.MAIN", and a subclass whose str() says ".." left the path."""
    given = arguments(operation)
    place = string_path_place(operation)
    seen: list[httpx.Request] = []
    async with answering_client(operation, seen) as client:
        method = client.operation(operation.operation_id)
        for value, text in ((_Zone.MAIN, "zone-main"), (_Leaves("app-7"), "app-7")):
            given.args[place] = value
            await method(*given.args, **given.kwargs)
            segments = seen[-1].url.raw_path.decode("ascii").split("?")[0].split("/")
            assert text in segments
            assert ".." not in segments


def _equals_conditions(operation: Operation) -> list[dict[str, Any]]:
    key = operation.success_status()
    if key is None or response_example(operation, key) is NO_BODY:
        return []
    rule = operation.response_schema(key).get("x-sdk-result") or {}
    return [c for c in rule.get("failure", []) if "equals" in c]


WITH_EQUALS_FAILURE = [o for o in OPERATIONS if _equals_conditions(o)]


@pytest.mark.parametrize(
    "operation", WITH_EQUALS_FAILURE, ids=[o.operation_id for o in WITH_EQUALS_FAILURE]
)
async def test_a_failure_member_of_another_type_is_no_success(operation: Operation) -> None:
    """`success: "false"` (a string where false reports a failure) was read as a success:
    the result was returned. It is an APIResponseValidationError naming the member."""
    status, body = success_reply(operation)
    for condition in _equals_conditions(operation):
        *path, last = condition["member"]
        odd = copy.deepcopy(body)
        node = odd
        for name in path:
            node = node.setdefault(name, {})
        node[last] = json.dumps(condition["equals"])  # false -> "false"
        with pytest.raises(APIResponseValidationError, match=".".join(condition["member"])):
            await call_answered_with(operation, status, json.dumps(odd).encode())


WITH_JSON_RESULT = [o for o in OPERATIONS if success_reply(o)[1] is not NO_BODY]


@pytest.mark.parametrize(
    "operation", WITH_JSON_RESULT, ids=[o.operation_id for o in WITH_JSON_RESULT]
)
async def test_an_integer_of_thousands_of_digits_is_not_called_no_json(
    operation: Operation,
) -> None:
    """Valid JSON that Python will not read (an integer past 4,300 digits) was "the reply
    is not JSON"."""
    status, _ = success_reply(operation)
    content = b'{"id": ' + b"9" * 5_000 + b"}"
    with pytest.raises(APIResponseValidationError, match="more than 4,300 digits"):
        await call_answered_with(operation, status, content)


WITH_A_RESULT_TO_READ = [
    o
    for o in WITH_JSON_RESULT
    if result_member(o) is not None or result_model(result_schema(o)) is not None
]


@pytest.mark.parametrize(
    "operation", WITH_A_RESULT_TO_READ, ids=[o.operation_id for o in WITH_A_RESULT_TO_READ]
)
@pytest.mark.parametrize(("content", "said"), [(b"", "has no body"), (b"null", "is JSON null")])
async def test_a_success_with_nothing_in_it_says_so(
    operation: Operation, content: bytes, said: str
) -> None:
    """An empty 200 where a result is documented read "cannot be read as ScriptVariable"
    or "has no 'data' member"."""
    status, _ = success_reply(operation)
    with pytest.raises(APIResponseValidationError, match=f"the reply {said}"):
        await call_answered_with(operation, status, content)
