"""The OpenAPI document as data: operations and request-body validation.

The generated package ships the checked-in document (`openapi.json`), so the
facade's routes and validation rules come from the same source as the models.
OpenAPI 3.0 schemas are translated once into JSON Schema (2020-12) for
`jsonschema`: `nullable` becomes a `null` type, `int64`/`int32` become ranges, and
a pattern's final `$` becomes `\\Z` (Python's `$` also matches before a final newline),
a `discriminator` selects the one variant of its `oneOf`/`anyOf` that is checked, and a
`readOnly` property is not required (every schema validated is a request's).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ._media import is_json, json_media, request_media

if TYPE_CHECKING:  # imported by the first validation: reading never needs them
    from collections.abc import Callable, Mapping

    import jsonschema
    import referencing

_SPEC_URI = "urn:edgedelivery:openapi"
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


@dataclass(frozen=True, slots=True)
class Parameter:
    """A query or header parameter: its schema and how it is serialized."""

    name: str
    schema: dict[str, Any]
    required: bool
    explode: bool  # arrays: `k=a&k=b` (True) or `k=a,b` (False)
    delimiter: str = (
        ","  # ... between an unexploded array's items: "|" pipeDelimited, " " spaceDelimited
    )
    style: str = "form"  # objects: `k[a]=1` (deepObject), `a=1` (form, exploded), `k=a,1`


class PathParameter(NamedTuple):
    """A path parameter, and whether an integer goes out as its digits (the fast path)."""

    name: str
    schema: dict[str, Any]
    digits: bool  # False for a boolean parameter, where 1 is not True


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the document: how to reach it, what it takes, what it returns."""

    operation_id: str
    method: str
    path: str
    path_params: tuple[PathParameter, ...]
    requires_key: bool
    body_schema: dict[str, Any] | None
    query_params: tuple[Parameter, ...] = ()
    header_params: tuple[Parameter, ...] = ()
    cookie_params: tuple[Parameter, ...] = ()  # sent in one `Cookie` header
    result_schema: dict[str, Any] | None = None  # the success body's schema, dereferenced
    result_rule: dict[str, Any] | None = None  # its `x-sdk-result`, if any
    reply: str = "json"  # the success reply: "json" (or none), "text" (a str) or "binary" (bytes)
    accept: str = "application/json"  # the Accept header: what the operation declares
    pagination: dict[str, Any] | None = None  # its resolved `x-sdk-pagination`, if paginated
    body_media: str | None = None  # the request body's media type when not application/json
    body_kind: str = "json"  # the request body: "json", "text" (a str) or "binary" (bytes)
    body_required: bool = True  # its `requestBody.required`: when not, None sends no body


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a request is invalid: where (a field path) and why.

    `label` names the place when there is no field: the whole body by default, nothing
    ("") for a problem with the call itself (its arguments, the operation)."""

    field: str
    message: str
    label: str = "(body)"

    def __str__(self) -> str:
        where = self.field or self.label
        return f"{where}: {self.message}" if where else self.message


@functools.cache
def spec() -> dict[str, Any]:
    """The OpenAPI document shipped with the generated package."""
    text = importlib.resources.files("edgedelivery_openapi").joinpath("openapi.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def operations() -> dict[str, Operation]:
    """Every operation of the document, by operationId."""
    found: dict[str, Operation] = {}
    for path, item in spec()["paths"].items():
        for method, op in item.items():
            if method not in _METHODS:
                continue
            params = [deref(p) for p in operation_parameters(item, op, deref)]
            security = op.get("security", spec().get("security", []))
            request_body = deref(op.get("requestBody", {}))
            content = request_body.get("content", {})
            body = json_media(content)
            body_kind, body_media = request_media(content)
            result = _success_schema(op)
            reply, accept = reply_media(op, deref)
            found[op["operationId"]] = Operation(
                operation_id=op["operationId"],
                method=method.upper(),
                path=path,
                path_params=tuple(path_parameter(p) for p in params if p["in"] == "path"),
                requires_key=bool(security) and {} not in security,
                body_schema=body["schema"] if body else None,
                query_params=tuple(_parameter(p) for p in params if p["in"] == "query"),
                header_params=tuple(_parameter(p) for p in params if p["in"] == "header"),
                cookie_params=tuple(_parameter(p) for p in params if p["in"] == "cookie"),
                result_schema=result,
                result_rule=(result or {}).get("x-sdk-result"),
                reply=reply,
                accept=accept,
                pagination=pagination_of(op),
                body_media=body_media,
                body_kind=body_kind,
                body_required=request_body.get("required") is True,
            )
    return found


_METHODS = frozenset({"get", "put", "post", "delete", "patch", "head", "options"})
_SUCCESS = ("200", "201", "2XX", "203", "204", "202")  # the result, before "accepted"


def _parameter(node: dict[str, Any]) -> Parameter:
    style = node.get("style", "form" if node["in"] == "query" else "simple")
    return Parameter(
        name=node["name"],
        schema=node.get("schema", {}),
        required=bool(node.get("required")),
        explode=bool(node.get("explode", style == "form")),
        delimiter=_DELIMITERS.get(style, ","),
        style=str(style),
    )


# An unexploded array's separator by the parameter's style (OpenAPI 3.0, Style Values).
_DELIMITERS = {"pipeDelimited": "|", "spaceDelimited": " "}


def _success_schema(op: dict[str, Any]) -> dict[str, Any] | None:
    responses = op.get("responses", {})
    for status in _SUCCESS:
        if status in responses:
            media = json_media(deref(responses[status]).get("content", {}))
            return deref(media.get("schema", {})) if media else None
    return None


def pagination_of(op: dict[str, Any]) -> dict[str, Any] | None:
    """The operation's pagination as the emitter resolved it into the shipped document."""
    rule = op.get("x-sdk-pagination")
    return dict(rule) if isinstance(rule, dict) and "page-argument" in rule else None


def reply_media(op: dict[str, Any], resolve: Any) -> tuple[str, str]:
    """How the success reply is read, and the Accept header that asks for it.

    JSON when the operation declares it in any spelling (a `text/plain` beside it is the
    same JSON as text) or declares no body: Accept `application/json` (or the JSON types
    it declares). Otherwise the declared types are asked for, and a `text/...` reply is
    read as a str, anything else as bytes.
    """
    responses = op.get("responses", {})
    content: dict[str, Any] = {}
    for status in _SUCCESS:
        if status in responses:
            content = resolve(responses[status]).get("content") or {}
            break
    if not content:
        return "json", "application/json"
    kinds = [str(kind) for kind in content]
    json_kinds = [kind for kind in kinds if is_json(kind)]
    if json_kinds:
        accept = "application/json" if "application/json" in json_kinds else ", ".join(json_kinds)
        return "json", accept
    text = all(kind.lower().startswith("text/") for kind in kinds)
    return ("text" if text else "binary"), ", ".join(kinds)


def validate(
    schema: dict[str, Any], instance: Any, *, exact_integers: bool = False
) -> list[Problem]:
    """Every way `instance` breaks `schema` (an OpenAPI schema of the document).

    With `exact_integers` (the SDK's own requests) an integral float such as 1.0 or 1e3
    is not an integer: it would be sent as a float. JSON Schema alone takes it (the fake).
    """
    validator = _validator(json.dumps(schema, sort_keys=True), exact_integers)
    return _problems(validator, instance)


def validate_in(
    document: dict[str, Any], schema: dict[str, Any], instance: Any, *, exact_integers: bool = True
) -> list[Problem]:
    """`validate` against `document` instead of the shipped one (the generator's repairs
    judge a default of the document being prepared with it: one rule, not a copy)."""
    import jsonschema
    import referencing
    import referencing.jsonschema

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        return deref(node, document)

    translated = _to_json_schema(schema, resolve)
    registry: referencing.Registry[Any] = referencing.Registry()
    if "$ref" in json.dumps(translated):  # (a parameter's schema seldom has one)
        resource = referencing.Resource.from_contents(
            _document_as_json_schema(document, resolve),
            default_specification=referencing.jsonschema.DRAFT202012,
        )
        registry = registry.with_resource(_SPEC_URI, resource)
    kind: Any = _exact_validator() if exact_integers else jsonschema.Draft202012Validator
    return _problems(kind(translated, registry=registry), instance)


def _problems(validator: jsonschema.protocols.Validator, instance: Any) -> list[Problem]:
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path)))
        return [Problem(_field(error), _message(error)) for error in errors]
    except ValueError:  # jsonschema's messages print the value: not an int of over 4,300
        # digits (Python refuses to), which no field of this API takes anyway
        where = _huge_int(instance, [])
        if where is None:
            raise
        return [Problem(field_path(where), "is an integer too large to be a value of this API")]


def _huge_int(value: Any, path: list[Any]) -> list[Any] | None:
    """Where in `value` an int too long to print in decimal is (past the process's
    `sys.get_int_max_str_digits()`), if anywhere."""
    if isinstance(value, int):
        try:
            str(value)
        except ValueError:
            return path
        return None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _huge_int(item, [*path, key])
        if found is not None:
            return found
    return None


def _field(error: jsonschema.ValidationError) -> str:
    """Where a problem is: a missing required member is named by its own path."""
    path = list(error.absolute_path)
    if error.validator == "required" and isinstance(error.message, str):
        missing = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
        if missing:
            path.append(missing)
    return field_path(path)


def field_path(parts: Any) -> str:
    """`["Records", 0, "Ttl"]` -> `Records[0].Ttl`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


# Validators whose messages name members, never quote the value they judge.
_NAMES_ONLY = frozenset({"required", "additionalProperties", "dependentRequired"})


# The longest problem message that quotes the caller's value as it is; a longer one
# quotes it shortened (a 100,000-character string made a 100 kB message).
_LONGEST_MESSAGE = 500


def _message(error: jsonschema.ValidationError) -> str:
    text = _said(error)
    if len(text) <= _LONGEST_MESSAGE:
        return text
    shown = repr(error.instance)
    if shown not in text:
        return text[:_LONGEST_MESSAGE] + "..."
    short = _short_repr().repr(error.instance)
    if isinstance(error.instance, str | list | dict):
        unit = "characters" if isinstance(error.instance, str) else "members"
        short += f" ({len(error.instance):,} {unit})"
    return text.replace(shown, short, 1)


@functools.cache
def _short_repr() -> Any:
    import reprlib

    shortened = reprlib.Repr()
    shortened.maxstring = shortened.maxother = shortened.maxlong = 60
    shortened.maxlist = shortened.maxdict = shortened.maxtuple = 5
    shortened.maxlevel = 3
    return shortened


def _said(error: jsonschema.ValidationError) -> str:
    """What is wrong, in jsonschema's words or the SDK's (the value may be quoted whole)."""
    if isinstance(error.schema, dict) and error.schema.get("format") == "password":
        return f"is not valid ({error.validator}); the value is not shown"
    if error.validator not in _NAMES_ONLY and _holds_password(error.schema):
        # jsonschema's message quotes the value, which may hold the password (the
        # credentials passed as a list, a tuple, or the password alone)
        if error.validator == "type":
            wanted = error.validator_value
            return f"should be of type {wanted!r}; the value is not shown (it may hold a password)"
        return f"is not valid ({error.validator}); the value is not shown (it may hold a password)"
    if error.validator == "anyOf" and isinstance(error.instance, dict):
        variants: list[dict[str, Any]] = list(error.schema.get("anyOf", []))  # type: ignore[union-attr]
        names = sorted({req for sub in variants for req in sub.get("required", [])})
        if names:
            return f"one of {' or '.join(names)} must be a non-empty string"
    if error.validator == "additionalProperties":
        return str(error.message).replace("Additional properties", "unknown fields")
    if error.validator == "pattern" and isinstance(error.validator_value, str):
        pattern = error.validator_value.removesuffix(r"\Z") + "$"  # as the document says
        return f"{error.instance!r} does not match {pattern!r}"
    if error.validator in ("minimum", "maximum") and isinstance(error.instance, int):
        return f"{error.instance} is out of range"
    return str(error.message)


def _holds_password(schema: Any) -> bool:
    """Whether a schema, or one below it, is a password (`format: password`)."""
    if isinstance(schema, dict):
        if schema.get("format") == "password":
            return True
        return any(_holds_password(node) for node in schema.values())
    if isinstance(schema, list):
        return any(_holds_password(node) for node in schema)
    return False


def deref(node: dict[str, Any], document: dict[str, Any] | None = None) -> dict[str, Any]:
    """Follow `$ref`s of the shipped document (or of `document`) until a real node; a
    ValueError for a cycle of `$ref`s (regeneration refuses one: only a document edited
    by hand has it, and this looped for ever)."""
    seen: list[str] = []
    while "$ref" in node:
        if node["$ref"] in seen:
            raise ValueError(f"$ref cycle at {node['$ref']}")
        seen.append(node["$ref"])
        target: Any = spec() if document is None else document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def operation_parameters(
    item: Mapping[str, Any], op: Mapping[str, Any], resolve: Callable[[Any], Any]
) -> list[Any]:
    """An operation's parameters as OpenAPI defines them, as written (`$ref`s kept): those
    of its path item, which apply to every operation under it, less any the operation
    declares again by the same name and place (its own overrides), then its own. `resolve`
    reads a `$ref`. The one rule of the client's reading, the fake's reading of any
    document and the generator's repair (codegen/prepare_spec.py) that moves them."""
    own = list(op.get("parameters") or [])
    shared = item.get("parameters") or []
    if not shared:
        return own
    declared = {_place(resolve(p)) for p in own}
    return [*(p for p in shared if _place(resolve(p)) not in declared), *own]


def _place(parameter: Mapping[str, Any]) -> tuple[Any, Any]:
    """What tells parameters apart (OpenAPI: a unique parameter is its name and location)."""
    return parameter.get("in"), parameter.get("name")


def path_parameter(
    node: dict[str, Any], resolve: Callable[[dict[str, Any]], dict[str, Any]] = deref
) -> PathParameter:
    """A path parameter's entry in the operation table (`resolve` reads its `$ref`s)."""
    schema = node.get("schema", {})
    return PathParameter(node["name"], schema, resolve(schema).get("type") != "boolean")


@functools.cache
def _validator(schema_json: str, exact_integers: bool = False) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = _to_json_schema(json.loads(schema_json))
    kind: Any = _exact_validator() if exact_integers else jsonschema.Draft202012Validator
    validator: jsonschema.protocols.Validator = kind(schema, registry=_registry())
    return validator


@functools.cache
def _exact_validator() -> Any:
    """Draft 2020-12 where an integer is an int (not a bool, not an integral float)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]


@functools.cache
def _registry() -> referencing.Registry[Any]:
    import referencing
    import referencing.jsonschema

    resource = referencing.Resource.from_contents(
        _document_as_json_schema(spec()), default_specification=referencing.jsonschema.DRAFT202012
    )
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(_SPEC_URI, resource)
    return registry


def _document_as_json_schema(
    document: dict[str, Any], resolve: Callable[[dict[str, Any]], dict[str, Any]] = deref
) -> dict[str, Any]:
    """The document with its component schemas translated (what `$ref`s point at)."""
    components = dict(document.get("components", {}))
    schemas = components.get("schemas", {})
    components["schemas"] = {
        name: _to_json_schema(schema, resolve) for name, schema in schemas.items()
    }
    return {**document, "components": components}


# Keywords whose value is one schema, a list of schemas, or a map of names to schemas: the
# walk goes through these only, so a property named `format`, `type`, `nullable`,
# `example`, `pattern` or `$ref` is a name, never a keyword.
_ONE_SCHEMA = frozenset(
    {"items", "additionalProperties", "not", "additionalItems", "contains", "propertyNames"}
    | {"if", "then", "else", "unevaluatedItems", "unevaluatedProperties"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _to_json_schema(
    node: Any, resolve: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> Any:
    """Translate an OpenAPI 3.0 schema into JSON Schema 2020-12, walking it structurally
    (`resolve` reads a `$ref` of the document: the shipped one's by default)."""
    if not isinstance(node, dict):
        return node  # `true`/`false` schemas, or a value where a schema was expected
    node = discriminated(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "example" or key.startswith("x-"):
            continue
        if key in _ONE_SCHEMA:
            out[key] = _to_json_schema(value, resolve)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_to_json_schema(item, resolve) for item in value]
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _to_json_schema(item, resolve) for name, item in value.items()}
        else:
            out[key] = value
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        out["$ref"] = _SPEC_URI + ref
    _not_required_in_requests(node, out, resolve or deref)
    _bounds(out)
    pattern = out.get("pattern")
    if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        out["pattern"] = pattern[:-1] + r"\Z"
    if out.pop("nullable", False) is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list):
            out["type"] = [*kind, "null"] if "null" not in kind else kind
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "type" not in out and out:  # a $ref or an allOf/anyOf: null is one more alternative
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def discriminated(node: dict[str, Any]) -> dict[str, Any]:
    """A `oneOf`/`anyOf` of `$ref`s with a `discriminator`, checked as OpenAPI 3.0 says: the
    property's value selects the one variant the value must fit (a `mapping` entry, else
    the variant whose schema name is the value); a value that selects none is refused.

    JSON Schema has no discriminator: `oneOf` alone refused a valid Cat that also fitted
    an open Dog ("valid under each of"). The translation is an `if`/`then` per variant
    (rather than an `anyOf` of the variants: the problems reported are then the selected
    variant's own), with the property required and one of the values that select a
    variant. Any other node is returned as it is. `$ref`s stay: the fake inlines a
    custom document's after this translation (`testing._document.Document.inline`).
    """
    rule = node.get("discriminator")
    key = next((k for k in ("oneOf", "anyOf") if isinstance(node.get(k), list)), None)
    if key is None or not isinstance(rule, dict) or not isinstance(rule.get("propertyName"), str):
        return node
    name = rule["propertyName"]
    mapping: dict[str, Any] = rule["mapping"] if isinstance(rule.get("mapping"), dict) else {}
    selects: dict[str, list[str]] = {}  # a variant's $ref -> the values that select it
    for value, target in mapping.items():
        ref = str(target) if "/" in str(target) else f"#/components/schemas/{target}"
        selects.setdefault(ref, []).append(str(value))
    for variant in node[key]:
        found_ref = variant.get("$ref") if isinstance(variant, dict) else None
        if isinstance(found_ref, str) and found_ref not in selects:
            implicit = found_ref.rsplit("/", 1)[-1]
            if implicit not in mapping:
                selects[found_ref] = [implicit]
    if not selects:
        return node
    values = [value for found in selects.values() for value in found]
    before: list[Any] = node["allOf"] if isinstance(node.get("allOf"), list) else []
    out = {k: v for k, v in node.items() if k not in (key, "discriminator")}
    out["allOf"] = [
        *before,
        {"required": [name], "properties": {name: {"enum": values}}},
        *(
            {
                "if": {"required": [name], "properties": {name: {"enum": found}}},
                "then": {"$ref": ref},
            }
            for ref, found in selects.items()
        ),
    ]
    return out


def _not_required_in_requests(
    node: dict[str, Any], out: dict[str, Any], resolve: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """A `readOnly` property is not required in a request (OpenAPI 3.0): every schema
    validated here is a request's, so it leaves `required` (the emitter leaves it out of
    the method's arguments). A body without a required readOnly `Id` was refused. Nothing
    else changes: a readOnly member that is sent is still checked. (No reply is validated,
    where the same would hold for `writeOnly`.)"""
    required, properties = node.get("required"), node.get("properties")
    if not isinstance(required, list) or not isinstance(properties, dict):
        return
    kept = [name for name in required if not _read_only(properties.get(name), resolve)]
    if len(kept) != len(required):
        out["required"] = kept


def _read_only(prop: Any, resolve: Callable[[dict[str, Any]], dict[str, Any]]) -> bool:
    """Whether a property's schema (or the schema its `$ref` names) says `readOnly`."""
    seen = 0
    while isinstance(prop, dict) and prop.get("readOnly") is not True and seen < 32:
        ref = prop.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return False
        try:
            prop = resolve({"$ref": ref})
        except (KeyError, TypeError, IndexError):
            return False
        seen += 1
    return isinstance(prop, dict) and prop.get("readOnly") is True


def _bounds(out: dict[str, Any]) -> None:
    """`int32`/`int64` ranges, and OpenAPI 3.0's boolean `exclusiveMinimum/Maximum`."""
    if out.get("format") in _INT_RANGES and out.get("type") == "integer":
        low, high = _INT_RANGES[out["format"]]
        out.setdefault("minimum", low)
        out.setdefault("maximum", high)
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = out.get(exclusive)
        if not isinstance(flag, bool):
            continue
        del out[exclusive]
        if flag and isinstance(out.get(bound), (int, float)):
            out[exclusive] = out.pop(bound)
