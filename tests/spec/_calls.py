"""Calling one operation of the document through `EdgeDeliveryClient` on an httpx mock.

Everything is derived from the document and from the generated method's signature
(`inspect.signature(type(resource).method)`): path values (integers: INT64; strings:
IDENTIFIER, which needs percent-encoding), query and header values built from their
schemas, and the document's request example as the body (else a sample of its schema),
passed as the whole-body argument when the method has one, else as keyword fields (wire
name -> Python name by matching the signature: the parameter's `x-sdk-name`, else the one
argument spelled like the wire name).
"""

from __future__ import annotations

import inspect
import re
import string
import typing
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import unquote

import httpx
from edgedelivery_openapi import models
from edgedelivery_openapi.resources import OPERATIONS, Resources

from edgedelivery_async import APIResponse, EdgeDeliveryClient, _schema
from edgedelivery_async.testing import _samples as samples
from edgedelivery_async.testing._document import Document

from ._document import JSON, Operation, media_examples, resolve

BASE_URL = "https://api.example.invalid"
KEY = "k3y-for-tests"
# An identifier that needs percent-encoding in a path segment, and its encoded form,
# written out here rather than computed with the function the SDK uses.
IDENTIFIER = "app 1/ä?#%"
IDENTIFIER_ENCODED = "app%201%2F%C3%A4%3F%23%25"
INT64 = 2**53 + 1  # 9007199254740993: not exactly representable as a float
HEADER_TEXT = "header value 1"  # header parameters carry printable ASCII only
DATE_TIME = "2026-11-01T08:30:00Z"
UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
NO_BODY = object()  # a reply without a body
NO_EXAMPLE = object()  # a parameter without an example


# ------------------------------------------------------------------------------ names
def squash(name: str) -> str:
    """Letters and digits only, lower case: `ForceSSL`, `force_ssl` -> `forcessl`."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def names_match(python: str, wire: str, *nodes: Any) -> bool:
    """Whether a generated argument is the one for a wire name: its `x-sdk-name` when a node
    (the parameter or property, as written or resolved) gives one, else the same spelling."""
    for node in nodes:
        if isinstance(node, dict) and node.get("x-sdk-name"):
            return python == node["x-sdk-name"]
    return squash(python) == squash(wire)


def python_name(wire: str, candidates: Sequence[str], *nodes: Any) -> str:
    """The one candidate argument that stands for `wire`."""
    found = [name for name in candidates if names_match(name, wire, *nodes)]
    assert len(found) == 1, f"{wire!r}: no single argument among {list(candidates)}"
    return found[0]


def shipped(operation: Operation) -> dict[str, Any]:
    """The operation as the package ships it (`openapi.json`): where the naming rule chose
    another name than the plain reading, the emitter wrote it there (`x-sdk-name` on a
    parameter, `x-sdk-field-names`, `x-sdk-body-name`; codegen/README.md, Naming)."""
    found: dict[str, Any] = _schema.spec()["paths"][operation.path][operation.method]
    return found


def parameter_nodes(operation: Operation, parameter: dict[str, Any]) -> tuple[Any, ...]:
    """The nodes that name a parameter's argument: the shipped one first, then the document's."""
    document = Document()
    for raw in shipped(operation).get("parameters", []):
        node = document.deref(raw)
        if (node.get("in"), node.get("name")) == (parameter["in"], parameter["name"]):
            return node, parameter
    return (parameter,)


def field_nodes(operation: Operation, wire: str, prop: Any) -> tuple[Any, ...]:
    """The nodes that name a body field's argument: the shipped operation's
    `x-sdk-field-names` entry when it has one, else the property (as written, resolved)."""
    hint = (shipped(operation).get("x-sdk-field-names") or {}).get(wire)
    return ({"x-sdk-name": hint},) if hint else (prop, resolve(prop))


def body_name(operation: Operation) -> str:
    """The name of the whole-body argument (`x-sdk-body-name` of the shipped operation, else
    the body's `x-sdk-body`, else `body`)."""
    body = operation.request_body() or {}
    return str(shipped(operation).get("x-sdk-body-name") or body.get("x-sdk-body", "body"))


def percent_encode(text: str) -> str:
    """RFC 3986 percent-encoding of everything but the unreserved characters, written out."""
    return "".join(
        char if char in UNRESERVED else "".join(f"%{byte:02X}" for byte in char.encode())
        for char in text
    )


# ------------------------------------------------------------------- generated methods
def location(operation: Operation) -> tuple[str, str]:
    """(resource attribute, method name) of an operation in the generated package."""
    return OPERATIONS[operation.operation_id]


def resource_class(operation: Operation) -> type[Any]:
    attribute, _ = location(operation)
    cls: type[Any] = typing.get_type_hints(Resources)[attribute]
    return cls


def generated_method(operation: Operation) -> Any:
    """The `@endpoint` method on its resource class (what `type(resource).method` gives)."""
    return getattr(resource_class(operation), location(operation)[1])


def signature(operation: Operation) -> list[inspect.Parameter]:
    """The method's parameters after `self` (of the function `@endpoint` wraps)."""
    function = inspect.unwrap(generated_method(operation))
    parameters = list(inspect.signature(function).parameters.values())
    assert parameters[0].name == "self"
    return parameters[1:]


def positional(operation: Operation) -> list[inspect.Parameter]:
    return [p for p in signature(operation) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]


def keyword_only(operation: Operation) -> dict[str, inspect.Parameter]:
    return {p.name: p for p in signature(operation) if p.kind is inspect.Parameter.KEYWORD_ONLY}


def body_argument(operation: Operation) -> inspect.Parameter | None:
    """The positional argument taking the whole body, if the method has one."""
    extra = positional(operation)[len(operation.parameters_in("path")) :]
    assert len(extra) <= 1, [p.name for p in extra]
    return extra[0] if extra else None


# ---------------------------------------------------------------- values from schemas
def flat(schema: Any) -> dict[str, Any]:
    """The resolved schema; a one-member `allOf` (used to add `nullable` to a `$ref`) is
    merged into the schema around it."""
    node = dict(resolve(schema)) if isinstance(schema, dict) else {}
    all_of = node.pop("allOf", None)
    if isinstance(all_of, list) and len(all_of) == 1:
        node = {**flat(all_of[0]), **node}
    return node


def example_of(parameter: dict[str, Any]) -> Any:
    """The parameter's own example (or its schema's), or NO_EXAMPLE."""
    if "example" in parameter:
        return parameter["example"]
    for entry in parameter.get("examples", {}).values():
        return resolve(entry)["value"]
    schema = flat(parameter.get("schema", {}))
    return schema.get("example", NO_EXAMPLE)


def sample(schema: Any, *, header: bool = False, example: Any = NO_EXAMPLE) -> Any:
    """A value of a parameter schema: integers INT64 when the range allows, strings
    IDENTIFIER (HEADER_TEXT in a header), booleans True, an enum's first value, arrays of
    two items (one when `uniqueItems`). A constrained string takes the document's example."""
    node = flat(schema)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "boolean":
        return True
    if kind == "integer":
        low, high = node.get("minimum"), node.get("maximum")
        fits = (low is None or low <= INT64) and (high is None or high >= INT64)
        if fits and node.get("format") != "int32":
            return INT64
        return low if low is not None else (high if high is not None else 7)
    if kind == "number":
        low = node.get("minimum")
        return low if low is not None else 1.5
    if kind == "array":
        item = sample(node.get("items", {}), header=header)
        return [item] if node.get("uniqueItems") else [item, item]
    if node.get("format") == "date-time":
        return DATE_TIME
    if example is not NO_EXAMPLE and ("pattern" in node or "format" in node):
        return example
    text = HEADER_TEXT if header else IDENTIFIER
    text = text[: node.get("maxLength", len(text))]
    return text + "x" * (node.get("minLength", 0) - len(text))


def wire_text(value: Any) -> str:
    """How one scalar travels in a query or header (written out for the tests)."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def request_example(operation: Operation) -> Any:
    """The first `application/json` request example, or None for operations without a body.

    A body without an example (documents as published seldom give one) is the fake's
    sample of its schema, which fits the schema as the client validates it."""
    body = operation.request_body()
    if body is None:
        return None
    found = media_examples(body["content"][JSON])
    if found:
        return found[0][1]
    return sample_of(body["content"][JSON]["schema"])


def sample_of(schema: Any) -> Any:
    """A value of a schema of the document (`edgedelivery_async.testing`'s sampler)."""
    return samples.sample(schema, Document())


@dataclass
class Arguments:
    """What to pass to the generated method, and what must then be on the wire."""

    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    path: str = ""  # the raw (encoded) path
    query: list[tuple[str, str]] = field(default_factory=list)  # decoded (name, value) pairs
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # the JSON body, None without one


def arguments(operation: Operation, *, keyword_body: bool = False) -> Arguments:
    """Arguments for the operation; `keyword_body` passes the example as keyword fields even
    when the method takes the whole body too."""
    out = Arguments(path=operation.path)
    keywords = keyword_only(operation)
    path_parameters = operation.parameters_in("path")
    for parameter, argument in zip(path_parameters, positional(operation), strict=False):
        nodes = parameter_nodes(operation, parameter)
        assert names_match(argument.name, parameter["name"], *nodes), argument.name
        integer = flat(parameter["schema"]).get("type") == "integer"
        out.args.append(INT64 if integer else IDENTIFIER)
        encoded = str(INT64) if integer else IDENTIFIER_ENCODED
        out.path = out.path.replace("{" + parameter["name"] + "}", encoded)
    for parameter in operation.parameters_in("query"):
        nodes = parameter_nodes(operation, parameter)
        name = python_name(parameter["name"], list(keywords), *nodes)
        value = sample(parameter.get("schema", {}), example=example_of(parameter))
        out.kwargs[name] = value
        style = parameter.get("style", "form")
        explode = parameter.get("explode", style == "form")
        texts = [wire_text(v) for v in value] if isinstance(value, list) else [wire_text(value)]
        pairs = [(parameter["name"], t) for t in texts] if explode else []
        out.query.extend(pairs or [(parameter["name"], ",".join(texts))])
    for parameter in operation.parameters_in("header"):
        nodes = parameter_nodes(operation, parameter)
        name = python_name(parameter["name"], list(keywords), *nodes)
        value = sample(parameter.get("schema", {}), header=True, example=example_of(parameter))
        out.kwargs[name] = value
        texts = [wire_text(v) for v in value] if isinstance(value, list) else [wire_text(value)]
        out.headers[parameter["name"]] = ",".join(texts)
    example = request_example(operation)
    out.body = example
    whole = body_argument(operation)
    if example is None:
        assert whole is None
    elif whole is not None and not keyword_body:
        out.args.append(example)
    else:
        properties = operation.request_schema().get("properties", {})
        extra = {}
        for wire, value in example.items():
            if wire not in properties:
                extra[wire] = value
                continue
            prop = properties[wire]
            nodes = field_nodes(operation, wire, prop)
            out.kwargs[python_name(wire, list(keywords), *nodes)] = value
        if extra:
            out.kwargs["extra_fields"] = extra
    return out


# ------------------------------------------------------------------------------ replies
def status_for(key: str) -> int:
    """A concrete status for a response key of the document."""
    return {"2XX": 200, "default": 400}.get(key) or int(key)


def response_example(operation: Operation, key: str) -> Any:
    """The first `application/json` example of a response (else a sample of its schema),
    or NO_BODY when the response promises no JSON body."""
    content = resolve(operation.op["responses"][key]).get("content", {})
    if JSON not in content:
        return NO_BODY
    found = media_examples(content[JSON])
    if found:
        return found[0][1]
    return sample_of(content[JSON]["schema"]) if "schema" in content[JSON] else NO_BODY


def success_reply(operation: Operation) -> tuple[int, Any]:
    """A success status and the document's example body (NO_BODY when none is promised)."""
    key = operation.success_status()
    assert key is not None, f"{operation.operation_id} has no success response"
    return status_for(key), response_example(operation, key)


def result_member(operation: Operation) -> str | None:
    """The `x-sdk-result` value member of the success schema, if it names one."""
    key = operation.success_status()
    if key is None or response_example(operation, key) is NO_BODY:
        return None
    rule = operation.response_schema(key).get("x-sdk-result") or {}
    value = rule.get("value")
    return str(value) if value else None


def result_schema(operation: Operation) -> Any:
    """The schema node of what the method returns (the wrapper's member, or the body)."""
    key = operation.success_status()
    assert key is not None
    response = resolve(operation.op["responses"][key])
    node = response["content"][JSON]["schema"]
    member = result_member(operation)
    return resolve(node)["properties"][member] if member else node


def expected_result(operation: Operation, body: Any) -> Any:
    """The value the method returns for a success body, as JSON."""
    member = result_member(operation)
    return body[member] if member else body


def model_class(component: str) -> Any:
    """The generated model of a component schema (the generator's spelling of its name)."""
    found = [
        getattr(models, name)
        for name in models.__all__
        if squash(name) == squash(component) and inspect.isclass(getattr(models, name))
    ]
    assert len(found) == 1, f"no single generated model for {component}: {found}"
    return found[0]


def result_model(node: Any) -> Any:
    """The model a result is parsed into: the component's, for an object component."""
    if not isinstance(node, dict) or "$ref" not in node:
        return None
    target = resolve(node)
    if target.get("type") == "object" or "properties" in target:
        return model_class(str(node["$ref"]).rsplit("/", 1)[1])
    return None


# ------------------------------------------------------------------------------- calling
@asynccontextmanager
async def open_client(key: str = KEY, **options: Any) -> AsyncIterator[EdgeDeliveryClient]:
    """A client on an `httpx.AsyncClient` (pytest-httpx answers it); `key=""` has none."""
    options.setdefault("max_retries", 0)
    async with (
        httpx.AsyncClient() as http,
        EdgeDeliveryClient(key, BASE_URL, http_client=http, **options) as client,
    ):
        yield client


async def call(
    operation: Operation, *, key: str = KEY, keyword_body: bool = False
) -> APIResponse[Any]:
    """Call the operation by its id with the document's values; the result with its reply."""
    given = arguments(operation, keyword_body=keyword_body)
    async with open_client(key) as client:
        method = client.operation(operation.operation_id)
        return await method.with_response(*given.args, **given.kwargs)


def raw_query(request: httpx.Request) -> list[tuple[str, str]]:
    """The (name, value) pairs of a request's query string, as sent (still encoded)."""
    text = request.url.query.decode("ascii")
    return [tuple(part.split("=", 1)) for part in text.split("&") if part]  # type: ignore[misc]


def decoded_query(request: httpx.Request) -> list[tuple[str, str]]:
    return [(unquote(name), unquote(value)) for name, value in raw_query(request)]
