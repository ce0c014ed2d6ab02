"""Reading a request as the document declares it: path, query, header and cookie
parameters, the JSON body.

Anything the document refuses (or that cannot be parsed at all) raises `BadRequest`, which
the app turns into the operation family's 400 (or 415); nothing here ever lets a hostile
input turn into a 500.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from edgedelivery_async import _schema
from edgedelivery_async._http import ACCESS_KEY_HEADER

from ._document import Document
from ._routes import Match, Route, query_string

#: Deeper JSON than this is refused before parsing: no real request nests so deep, and the
#: recursive parsers, validators and copies behind the fake must never hit the recursion limit.
MAX_JSON_DEPTH = 64
MAX_ERRORS = 20

_INTEGER_RE = re.compile(r"-?[0-9]{1,4000}")  # (int() refuses past 4,300 digits)
_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
# A string (to the end of the text if unterminated, so the scan stays linear) or a bracket.
_TOKEN_RE = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
_MAX_QUERY_FIELDS = 1000
_DELIMITERS = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"}
#: Header parameters that are not read as parameters: OpenAPI 3.0 says one named "Accept",
#: "Content-Type" or "Authorization" SHALL be ignored, and `AccessKey` is the fake's own
#: credential, checked (and kept out of every message) by its auth, never as a parameter.
_NOT_HEADER_PARAMETERS = frozenset(
    {"accept", "content-type", "authorization", ACCESS_KEY_HEADER.lower()}
)


class BadRequest(Exception):
    """A request the document rejects: carries field problems and the status to use."""

    def __init__(self, problems: list[_schema.Problem], status: int = 400, key: str = "") -> None:
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems
        self.status = status
        self.key = key or "request.invalid"


def is_integer(text: str) -> bool:
    """Whether `text` is exactly a decimal integer (no sign but `-`, no spaces, no newline)."""
    return _INTEGER_RE.fullmatch(text) is not None


def path_params(match: Match, document: Document) -> dict[str, Any]:
    """The path parameters, typed and validated against their schemas."""
    values: dict[str, Any] = {}
    problems: list[_schema.Problem] = []
    for name, schema, _ in match.route.operation.path_params:
        found, value = _typed(name, match.params[name], document.deref(schema), document)
        problems += found
        if not found:
            values[name] = value
    if problems:
        raise BadRequest(problems, key="request.invalid_path")
    return values


def query_params(route: Route, raw_path: str, document: Document) -> dict[str, Any]:
    """The query parameters, typed and validated, defaults filled in.

    An operation that declares no query parameter ignores the query string (leniently); one
    that declares some refuses unknown names, repeats of a single value, missing required
    parameters, and values of the wrong type.
    """
    declared = route.operation.query_params
    if not declared:
        return {}
    try:
        pairs = parse_qsl(
            query_string(raw_path),
            keep_blank_values=True,
            strict_parsing=True,
            errors="strict",
            max_num_fields=_MAX_QUERY_FIELDS,
        )
    except (ValueError, UnicodeDecodeError) as exc:
        problem = _schema.Problem("", f"malformed query string: {exc}", "(query)")
        raise BadRequest([problem], key="request.invalid_query") from exc
    received: dict[str, list[str]] = {}
    for name, value in pairs:
        received.setdefault(name, []).append(value)
    problems: list[_schema.Problem] = []
    values: dict[str, Any] = {}
    for parameter in declared:  # objects first: their members are names of their own
        schema = document.deref(parameter.schema)
        if schema.get("type") == "object" and parameter.style in ("form", "deepObject"):
            members = _object_members(parameter, schema, received, declared, problems)
            if members is not None:
                found, typed_object = _typed_object(parameter.name, members, schema, document)
                problems += found
                if not found:
                    values[parameter.name] = typed_object
    problems += [
        _schema.Problem(name, "unknown query parameter")
        for name in received
        if name not in {p.name for p in declared}
    ]
    for parameter in declared:
        schema = document.deref(parameter.schema)
        if schema.get("type") == "object" and parameter.style in ("form", "deepObject"):
            if parameter.name not in values and parameter.required:
                if not any(p.field.startswith(parameter.name) for p in problems):
                    problems.append(_schema.Problem(parameter.name, "a required query parameter"))
            elif parameter.name not in values and "default" in schema:
                values[parameter.name] = schema["default"]
            continue
        raw = received.get(parameter.name)
        if raw is None:
            if parameter.required:
                problems.append(_schema.Problem(parameter.name, "a required query parameter"))
            elif "default" in schema:
                values[parameter.name] = schema["default"]
            continue
        if schema.get("type") == "array":
            if not parameter.explode:
                if len(raw) > 1:
                    problems.append(_schema.Problem(parameter.name, "given more than once"))
                    continue
                delimiter = _DELIMITERS.get(route.styles.get(parameter.name, "form"), ",")
                raw = raw[0].split(delimiter) if raw[0] else []
            found, typed = _typed_list(parameter.name, raw, schema, document)
            problems += found
            if not found:
                values[parameter.name] = typed
            continue
        if len(raw) > 1:
            problems.append(_schema.Problem(parameter.name, "given more than once"))
            continue
        found, value = _typed(parameter.name, raw[0], schema, document)
        problems += found
        if not found:
            values[parameter.name] = value
    if problems:
        raise BadRequest(problems[:MAX_ERRORS], key="request.invalid_query")
    return values


def _typed_list(
    name: str, texts: list[str], schema: dict[str, Any], document: Document
) -> tuple[list[_schema.Problem], list[Any]]:
    """An array parameter's items typed by the items' schema, then the whole checked."""
    items = document.deref(schema.get("items", {}))
    problems: list[_schema.Problem] = []
    typed: list[Any] = []
    for index, text in enumerate(texts):
        found, value = _convert(f"{name}[{index}]", text, items)
        problems += found
        typed.append(value)
    if not problems:
        problems = [_under(name, p) for p in document.validate(schema, typed)]
    return problems, typed


def cookie_params(route: Route, header: str | None, document: Document) -> dict[str, Any]:
    """The cookie parameters of the `Cookie` header (`a=1; b=x`), read, typed, validated and
    defaulted as header parameters are (`_simple_params`): the value of each is written as
    `_requests.encode_cookies` sends it. Cookies the operation does not declare are
    ignored, as a server does."""
    received: dict[str, str] = {}
    for pair in (header or "").split(";"):
        name, equals, value = pair.strip().partition("=")
        if equals and name not in received:
            received[name] = value
    declared = route.operation.cookie_params
    return _simple_params(declared, received.get, "cookie", document)


def header_params(route: Route, headers: Mapping[str, str], document: Document) -> dict[str, Any]:
    """The header parameters, read as `_requests.encode_headers` sends them; `headers` has
    lower-case names, as a header's name is matched in any case. Headers the operation does
    not declare are ignored, as a server does."""
    declared = tuple(
        p for p in route.operation.header_params if p.name.lower() not in _NOT_HEADER_PARAMETERS
    )
    return _simple_params(declared, lambda name: headers.get(name.lower()), "header", document)


def _simple_params(
    declared: tuple[_schema.Parameter, ...],
    given: Callable[[str], str | None],
    where: str,
    document: Document,
) -> dict[str, Any]:
    """Header or cookie parameters (`where`), each value in the simple style the SDK sends
    both in (`_requests._given`: an array's items, an object's `k,v` or exploded `k=v`
    pairs, joined by commas), typed and validated against its schema, defaults filled in as
    for query parameters. A required one missing, or a value of the wrong type, is a 400
    naming it (`request.invalid_header`, `request.invalid_cookie`)."""
    problems: list[_schema.Problem] = []
    values: dict[str, Any] = {}
    for parameter in declared:
        schema = document.deref(parameter.schema)
        raw = given(parameter.name)
        if raw is None:
            if parameter.required:
                problems.append(_schema.Problem(parameter.name, f"a required {where} parameter"))
            elif "default" in schema:
                values[parameter.name] = schema["default"]
            continue
        raw = raw.strip(" \t")
        items = [item.strip(" \t") for item in raw.split(",")] if raw else []
        typed: Any
        if schema.get("type") == "array":
            found, typed = _typed_list(parameter.name, items, schema, document)
        elif schema.get("type") == "object":
            members = _simple_members(parameter, items)
            if members is None:
                problems.append(_schema.Problem(parameter.name, "not name,value pairs"))
                continue
            found, typed = _typed_object(parameter.name, members, schema, document)
        else:
            found, typed = _typed(parameter.name, raw, schema, document)
        problems += found
        if not found:
            values[parameter.name] = typed
    if problems:
        raise BadRequest(problems[:MAX_ERRORS], key=f"request.invalid_{where}")
    return values


def _simple_members(parameter: _schema.Parameter, items: list[str]) -> dict[str, str] | None:
    """An object header or cookie parameter's members (simple style: `k,v,k2,v2`, or
    `k=v,k2=v2` exploded), or None when they are not pairs given once each."""
    if parameter.explode:
        pairs = [item.partition("=") for item in items]
        if not all(equals for _, equals, _ in pairs):
            return None
        found = [(key, value) for key, _, value in pairs]
    else:
        if len(items) % 2:
            return None
        found = list(zip(items[::2], items[1::2], strict=True))
    members = dict(found)
    return members if len(members) == len(found) else None


def _object_members(
    parameter: _schema.Parameter,
    schema: dict[str, Any],
    received: dict[str, list[str]],
    declared: tuple[_schema.Parameter, ...],
    problems: list[_schema.Problem],
) -> dict[str, str] | None:
    """An object query parameter's members as sent (taken out of `received`), or None when
    it is not given: `name[k]=v` (deepObject), `k=v` (form, exploded: the names no other
    parameter has, of the object's properties unless it allows more), `name=k,v` (form)."""
    name = parameter.name
    taken: dict[str, list[str]] = {}
    if parameter.style == "deepObject":
        for key in list(received):
            if key.startswith(f"{name}[") and key.endswith("]"):
                taken[key[len(name) + 1 : -1]] = received.pop(key)
    elif parameter.explode:
        if name in received:  # (its members are sent, each by its own name)
            received.pop(name)
            problems.append(_schema.Problem(name, "an object: give its members as name=value"))
            return None
        others = {p.name for p in declared}
        properties = schema.get("properties") or {}
        more = schema.get("additionalProperties", True) is not False
        for key in list(received):
            if key not in others and (key in properties or more):
                taken[key] = received.pop(key)
    elif name in received:
        raw = received.pop(name)
        parts = raw[0].split(",") if raw[0] else []
        if len(raw) > 1 or len(parts) % 2:
            problems.append(_schema.Problem(name, "not name,value pairs given once"))
            return None
        for index in range(0, len(parts), 2):
            taken.setdefault(parts[index], []).append(parts[index + 1])
    if not taken:
        return None
    members: dict[str, str] = {}
    for key, texts in taken.items():
        if len(texts) > 1:
            problems.append(_schema.Problem(f"{name}[{key}]", "given more than once"))
            return None
        members[key] = texts[0]
    return members


def _typed_object(
    name: str, members: dict[str, str], schema: dict[str, Any], document: Document
) -> tuple[list[_schema.Problem], dict[str, Any]]:
    """An object query parameter's members typed by their schemas, then the whole checked."""
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    problems: list[_schema.Problem] = []
    typed: dict[str, Any] = {}
    for key, text in members.items():
        member = properties.get(key, extra if isinstance(extra, dict) else {})
        found, value = _convert(f"{name}[{key}]", text, document.deref(member))
        problems += found
        typed[key] = value
    if not problems:
        problems = [_under(name, p) for p in document.validate(schema, typed)]
    return problems, typed


def json_body(route: Route, content_type: str | None, body: bytes, document: Document) -> Any:
    """The request body, parsed and validated against the operation's schema (None if none,
    or if an empty one where the document does not require a body)."""
    schema = route.operation.body_schema
    if schema is None:
        return None
    if not body.strip():
        if not route.operation.body_required:
            return None  # a body the document does not require may be left out
        raise BadRequest([_schema.Problem("", "a request body is required")])
    if not route.accepts(content_type):
        status = 415 if route.declares(415) else 400
        accepted = ", ".join(route.media_types)
        message = f"media type {content_type or '(none)'!r} not accepted; use {accepted}"
        raise BadRequest([_schema.Problem("", message)], status, "request.unsupported_media_type")
    try:
        payload = parse_json(body)
    except ValueError as exc:
        message = f"malformed JSON: {exc}"
        raise BadRequest([_schema.Problem("", message)], key="request.malformed_json") from exc
    try:
        problems = document.validate(schema, payload)
    except RecursionError as exc:  # pragma: no cover - MAX_JSON_DEPTH keeps this away
        message = "the body is nested too deeply"
        raise BadRequest([_schema.Problem("", message)], key="request.malformed_json") from exc
    if problems:
        raise BadRequest(problems[:MAX_ERRORS])
    return payload


def parse_json(body: bytes) -> Any:
    """Strict JSON (no NaN/Infinity, finite numbers, nesting at most `MAX_JSON_DEPTH`).

    Every way a body can fail to parse (bad UTF-8, bad syntax, too deep) is a ValueError.
    """
    depth = json_depth(body)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"nested {depth} levels deep; at most {MAX_JSON_DEPTH} are accepted")
    try:
        return json.loads(body, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError as exc:  # pragma: no cover - json_depth keeps this away
        raise ValueError("nested too deeply") from exc


def json_or_none(body: bytes) -> Any:
    """The body as JSON for the request log, or None when it is not (never raises)."""
    if not body:
        return None
    try:
        return parse_json(body)
    except ValueError:
        return None


def json_depth(body: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (strings skipped; no full parse)."""
    depth = deepest = 0
    for token in _TOKEN_RE.findall(body):
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def _typed(
    name: str, raw: str, schema: dict[str, Any], document: Document
) -> tuple[list[_schema.Problem], Any]:
    """A parameter value converted to its schema's type and validated: (problems, value)."""
    problems, value = _convert(name, raw, schema)
    if problems:
        return problems, raw
    found = document.validate(schema, value)
    return [_under(name, p) for p in found], value


def _under(name: str, problem: _schema.Problem) -> _schema.Problem:
    """A problem of a parameter's value, its field named from the parameter."""
    where = problem.field
    field = name if not where else f"{name}{where}" if where[0] == "[" else f"{name}.{where}"
    return _schema.Problem(field, problem.message)


def _convert(name: str, raw: str, schema: dict[str, Any]) -> tuple[list[_schema.Problem], Any]:
    """A query or header value read as its schema's type; an OpenAPI 3.1 list of types
    (`[integer, 'null']`) as the first of them the text is (it was left a string, and
    refused as not an integer)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        tried = [_convert_one(name, raw, one) for one in kind if one != "null"]
        return next((done for done in tried if not done[0]), tried[0] if tried else ([], raw))
    return _convert_one(name, raw, kind)


def _convert_one(name: str, raw: str, kind: Any) -> tuple[list[_schema.Problem], Any]:
    if kind == "integer":
        if not is_integer(raw):
            return [_schema.Problem(name, f"{raw!r} is not an integer")], raw
        return [], int(raw)
    if kind == "number":
        if not _NUMBER_RE.fullmatch(raw) or not math.isfinite(float(raw)):
            return [_schema.Problem(name, f"{raw!r} is not a number")], raw
        return [], float(raw) if any(c in raw for c in ".eE") else int(raw)
    if kind == "boolean":
        if raw not in ("true", "false"):
            return [_schema.Problem(name, f"{raw!r} is not true or false")], raw
        return [], raw == "true"
    return [], raw


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value
