"""Prepare the generator's input from the checked-in OpenAPI document.

Two stages, each a list of functions with their reason (codegen/README.md):

- REPAIRS make a document taken as published (the service's own documents) valid
  where it is not, by rules that keep its meaning: a path parameter is a required
  non-null value, declared path parameters match the path, every operation has an
  operationId, a parameter's default is a value of its own schema. Each repair is
  reported, naming the operation. The repaired document is what the emitter reads
  and what the package ships (`openapi.json`). What cannot be repaired fails, naming
  the operation, the reason and the fix.
- REWRITES: openapi-python-client 0.29.1 mis-generates a few constructs without an
  error (see shared/notes/openapi-python-client.md), so the generator's input is
  rewritten into forms it handles, and nothing else. The facade enforces the rules
  that are dropped there.

Usage: python codegen/prepare_spec.py SOURCE.yaml OUTPUT.json [REPAIRED.json]
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import yaml
from openapi_python_client.strings import pascal_case, snake_case
from referencing.exceptions import Unresolvable

JSON = "application/json"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class Unrepairable(Exception):
    """The document has a fault no rule can mend; the message names the fix."""


# ------------------------------------------------------------------------- repairs
def _items(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) of every operation."""
    return [
        (method.upper(), path, op)
        for path, item in spec.get("paths", {}).items()
        for method, op in item.items()
        if method in METHODS and isinstance(op, dict)
    ]


def _where(method: str, path: str, op: dict[str, Any]) -> str:
    operation_id = op.get("operationId")
    return f"{method} {path}" + (f" ({operation_id})" if operation_id else "")


def _resolve(spec: dict[str, Any], node: Any) -> Any:
    seen: set[str] = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if ref in seen:
            raise Unrepairable(f"$ref {ref!r} is a cycle of $refs that never reaches a schema")
        if not ref.startswith("#/"):
            raise Unrepairable(f"$ref {ref!r} cannot be followed")
        seen.add(ref)
        target: Any = spec
        for part in ref.removeprefix("#/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                raise Unrepairable(f"$ref {ref!r} points at nothing")
            target = target[part]
        node = target
    return node


def path_level_parameters(spec: dict[str, Any]) -> list[str]:
    """Parameters declared on a path item belong to each of its operations (unless the
    operation declares one of the same name and place; the runtime's rule,
    `_schema.operation_parameters`, by which the fake reads any document): every reader
    then finds an operation's parameters on the operation."""
    done = []
    for path, item in spec.get("paths", {}).items():
        shared = item.pop("parameters", None)
        if not shared:
            continue
        for method, op in item.items():
            if method not in METHODS or not isinstance(op, dict):
                continue
            merged = _runtime_schema().operation_parameters(
                {"parameters": shared}, op, lambda p: _resolve(spec, p)
            )
            own = op.get("parameters") or []
            added = copy.deepcopy(merged[: len(merged) - len(own)])  # (the path's come first)
            if added:
                op["parameters"] = [*added, *own]
                where = _where(method.upper(), path, op)
                done.append(f"{where}: the path's parameters are the operation's")
    return done


def missing_operation_ids(spec: dict[str, Any]) -> list[str]:
    """An operation without an operationId gets `METHOD /path` (unique, readable); the
    emitter names its method from the method and the path (codegen/README.md)."""
    done = []
    for method, path, op in _items(spec):
        if not op.get("operationId"):
            op["operationId"] = f"{method} {path}"
            done.append(f"{method} {path}: no operationId; it is {op['operationId']!r}")
    return done


def path_parameters_match_the_path(spec: dict[str, Any]) -> list[str]:
    """A path parameter is required and never null (a URL segment cannot be absent), and
    the declared path parameters are the path's: one the path lacks is dropped (it could
    never be sent), a `{name}` with no declaration becomes a required string."""
    done = []
    for method, path, op in _items(spec):
        where = _where(method, path, op)
        names = re.findall(r"\{([^}]+)\}", path)
        kept = []
        declared = set()
        for raw in op.get("parameters", []):
            try:
                parameter = _resolve(spec, raw)
            except Unrepairable as error:
                raise Unrepairable(
                    f"{where}: a parameter's {error}."
                    " Fix: point the $ref at a parameter of components/parameters"
                ) from None
            if parameter.get("in") != "path":
                kept.append(raw)
                continue
            name = parameter.get("name")
            if name not in names:
                done.append(f"{where}: path parameter {name!r} is not in the path; dropped")
                continue
            declared.add(name)
            schema = _resolve(spec, parameter.get("schema", {}))
            nullable = bool(schema.get("nullable")) or (
                isinstance(schema.get("type"), list) and "null" in schema["type"]
            )
            if nullable or parameter.get("required") is not True:
                raw = parameter = copy.deepcopy(parameter)
                fixed = {k: v for k, v in schema.items() if k != "nullable"}
                kind = fixed.get("type")
                if isinstance(kind, list):
                    kinds = [k for k in kind if k != "null"]
                    fixed["type"] = kinds[0] if len(kinds) == 1 else "string"
                fixed.setdefault("type", "string")
                parameter["schema"] = fixed
                parameter["required"] = True
                why = "nullable" if nullable else "not required"
                done.append(
                    f"{where}: path parameter {name!r} was {why}; it is a required {fixed['type']}"
                )
            kept.append(raw)
        for name in names:
            if name not in declared:
                kept.append(
                    {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                )
                done.append(
                    f"{where}: path parameter {name!r} was not declared; it is a required string"
                )
        if "parameters" in op or kept:
            op["parameters"] = kept
    return done


def unique_operation_ids(spec: dict[str, Any]) -> list[str]:
    """Not repairable: which of two operations keeps an id is the maintainer's choice."""
    seen: dict[str, str] = {}
    for method, path, op in _items(spec):
        operation_id = op["operationId"]
        if operation_id in seen:
            raise Unrepairable(
                f"{method} {path}: operationId {operation_id!r} is also the id of"
                f" {seen[operation_id]}."
                " Fix: give one of them another operationId (scripts/merge-corpus.py tells"
                " repeated ids apart by method)"
            )
        seen[operation_id] = f"{method} {path}"
    return []


def refs_resolve(spec: dict[str, Any]) -> list[str]:
    """Not repairable: a `$ref` to nothing would drop a piece of the operation."""

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                _resolve(spec, {"$ref": node["$ref"]})
            for value in node.values():
                walk(value, where)
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    for method, path, op in _items(spec):
        try:
            walk(op, "")
        except Unrepairable as error:
            raise Unrepairable(
                f"{_where(method, path, op)}: {error}. Fix: add the component or correct the $ref"
            ) from None
    for name, schema in _schemas(spec).items():
        try:
            walk(schema, "")
        except Unrepairable as error:
            raise Unrepairable(
                f"components/schemas/{name}: {error}. Fix: add the component or correct the $ref"
            ) from None
    return []


#: Header parameters OpenAPI 3.0 says to ignore ("If `in` is "header" and the `name` field
#: is "Accept", "Content-Type" or "Authorization", the parameter definition SHALL be
#: ignored"): the SDK sends these headers itself, from the operation and the client.
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})


def ignored_header_parameters(spec: dict[str, Any]) -> list[str]:
    """A header parameter named `Accept`, `Content-Type` or `Authorization` (in any case) is
    dropped: OpenAPI says its definition SHALL be ignored, and as an argument its value was
    silently replaced on the wire by the SDK's own header. So is one named as the header of
    an apiKey security scheme of the document (`AccessKey`): the runtime sends the client's
    key in it (`_http.headers_with_key`), which replaced the argument's value as silently."""
    keys = _api_key_headers(spec)
    done = []
    for method, path, op in _items(spec):
        parameters = op.get("parameters")
        if not isinstance(parameters, list):
            continue
        kept = []
        for raw in parameters:
            parameter = _resolve(spec, raw)
            name = parameter.get("name")
            if parameter.get("in") != "header" or not isinstance(name, str):
                kept.append(raw)
            elif name.lower() in IGNORED_HEADERS:
                done.append(
                    f"{_where(method, path, op)}: header parameter {name!r} is ignored, as"
                    " OpenAPI says (the SDK sends that header itself); dropped"
                )
            elif name.lower() in keys:
                done.append(
                    f"{_where(method, path, op)}: header parameter {name!r} is the API key of"
                    f" security scheme {keys[name.lower()]!r} (the SDK sends it from the"
                    " client's access key); dropped"
                )
            else:
                kept.append(raw)
        op["parameters"] = kept
    return done


def _api_key_headers(spec: dict[str, Any]) -> dict[str, str]:
    """The header names (lower case) of the document's apiKey security schemes, each with
    its scheme's name."""
    schemes = spec.get("components", {}).get("securitySchemes") or {}
    found: dict[str, str] = {}
    for scheme_name, raw in schemes.items():
        scheme = _resolve(spec, raw)
        if not isinstance(scheme, dict):
            continue
        name = scheme.get("name")
        in_header = scheme.get("type") == "apiKey" and scheme.get("in") == "header"
        if in_header and isinstance(name, str):
            found.setdefault(name.lower(), str(scheme_name))
    return found


def _runtime_schema() -> Any:
    """`edgedelivery_async._schema` of this tree (codegen/runtime_rules.py, beside this
    script, which tests also load from its path)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.append(here)
    import runtime_rules

    return runtime_rules.schema


def breaks_its_schema(
    value: Any, schema: dict[str, Any], spec: dict[str, Any] | None = None
) -> str | None:
    """How a default breaks its own (resolved) schema, or None. Judged by the runtime's
    own validator (`edgedelivery_async._schema.validate_in`, the translation the SDK checks
    its requests with, `$ref`s read from `spec`), so that every keyword counts: a
    hand-written subset missed `exclusiveMinimum`, `pattern` and `multipleOf`, and the SDK
    then refused its own default."""
    checked = {key: item for key, item in schema.items() if key != "default"}
    try:
        problems = _runtime_schema().validate_in(spec or {}, checked, value)
    except Unresolvable:  # a `$ref` that `spec` does not hold
        return "not checkable (a $ref of its schema cannot be followed)"
    if not problems:
        return None
    return "; ".join(problem.message for problem in problems)


def parameter_defaults_fit(spec: dict[str, Any]) -> list[str]:
    """A parameter's `default` that breaks its own schema (`page` default 0 with
    `minimum: 1`) is dropped: sent, it would be refused, and a method whose default is
    refused cannot be called without arguments. Without it the argument is not sent and
    the server applies its own default. The document is otherwise valid OpenAPI again
    (openapi-spec-validator refuses such a default)."""
    done = []
    for method, path, op in _items(spec):
        parameters = op.get("parameters", [])
        for index, raw in enumerate(parameters):
            parameter = _resolve(spec, raw)
            schema = _resolve(spec, parameter.get("schema", {}))
            if "default" not in schema:
                continue
            why = breaks_its_schema(schema["default"], schema, spec)
            if why is None:
                continue
            # The operation gets its own copy; a shared component stays as it is.
            fixed = copy.deepcopy(parameter)
            fixed["schema"] = {k: v for k, v in schema.items() if k != "default"}
            parameters[index] = fixed
            done.append(
                f"{_where(method, path, op)}: parameter {parameter.get('name')!r} default"
                f" {json.dumps(schema['default'])} breaks its schema ({why}); dropped (not"
                " sent, the server applies its own)"
            )
    return done


REPAIRS = (
    path_level_parameters,
    missing_operation_ids,
    unique_operation_ids,
    refs_resolve,
    ignored_header_parameters,
    path_parameters_match_the_path,
    parameter_defaults_fit,
)


def repair(spec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The document with every repair made, and one line per repair."""
    repaired = copy.deepcopy(spec)
    done: list[str] = []
    for rule in REPAIRS:
        done.extend(rule(repaired))
    return repaired, done


# ------------------------------------------------------------------------ rewrites


def keep_only_json_request_bodies(spec: dict[str, Any]) -> None:
    """Several request media types on one body break the generated module.

    `text/json` is dropped with a warning and `application/*+json` yields a second
    body whose literal Content-Type is sent; `application/json` alone is correct.
    """
    for operation in _operations(spec):
        content = operation.get("requestBody", {}).get("content", {})
        for media_type in list(content):
            if media_type != JSON:
                del content[media_type]


def keep_only_json_responses(spec: dict[str, Any]) -> None:
    """A `text/...` response media type makes the generated parser call
    `from_dict(response.text)`, which raises at run time."""
    for operation in _operations(spec):
        for response in operation.get("responses", {}).values():
            content = response.get("content", {})
            for media_type in list(content):
                if media_type != JSON:
                    del content[media_type]


def drop_property_combinators(spec: dict[str, Any]) -> None:
    """A top-level anyOf/oneOf next to `properties` silently drops the other
    properties. It only carries the "image or imageRegistryId non-empty" rule,
    which the facade enforces."""
    for schema in _schemas(spec).values():
        if "properties" in schema:
            schema.pop("anyOf", None)
            schema.pop("oneOf", None)


def merge_error_body_unions(spec: dict[str, Any]) -> None:
    """Two all-optional error shapes under one status: the generated union always
    picks the first. Merging them into one object with every field of both keeps
    every field readable. Only unions of object schemas by reference are merged: an
    `anyOf` of inline or scalar variants (`integer` or `string`) stays as it is."""
    schemas = _schemas(spec)
    for response in _responses(spec):
        media = response.get("content", {}).get(JSON)
        if not media or "anyOf" not in media.get("schema", {}):
            continue
        targets = [_object_by_reference(schemas, v) for v in media["schema"]["anyOf"]]
        if not all(targets):
            continue
        merged: dict[str, Any] = {"type": "object", "properties": {}}
        for target in targets:
            merged["properties"].update(copy.deepcopy(target.get("properties", {})))
        media["schema"] = merged


def _object_by_reference(schemas: dict[str, Any], variant: Any) -> dict[str, Any]:
    """The object schema a `$ref` variant names, else {} (inline, or not an object)."""
    reference = variant.get("$ref") if isinstance(variant, dict) else None
    if not isinstance(reference, str):
        return {}
    target = schemas.get(reference.rsplit("/", 1)[1])
    is_object = isinstance(target, dict) and (
        target.get("type") == "object" or "properties" in target
    )
    return target if is_object else {}


def objects_in(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in `node`, `node` too, each before its members (so that one a
    caller changes is walked as changed)."""
    if isinstance(node, list):
        for item in node:
            yield from objects_in(item)
    elif isinstance(node, dict):
        yield node
        for value in list(node.values()):
            yield from objects_in(value)


def distinct_enum_names(spec: dict[str, Any]) -> None:
    """The generator names a string enum's members after their values in upper case, so
    `Low` and `low` are both LOW: it stopped with a traceback ("Duplicate key LOW"), and
    names equal only after its snake_case (`a-b`, `A_B`) kept the last value alone. Where
    names would clash, each member gets its own (`x-enum-varnames`): the name, then its
    place in the list (`LOW_2`)."""

    for node in objects_in(spec):
        values = [v for v in node.get("enum") or () if v is not None]
        if values and all(isinstance(v, str) for v in values) and "x-enum-varnames" not in node:
            names = [_enum_member(value, index) for index, value in enumerate(values)]
            if len(set(names)) < len(names):
                node["x-enum-varnames"] = [
                    name if names.count(name) == 1 else f"{name}_{index}"
                    for index, name in enumerate(names)
                ]


def enums_of_strings_and_integers(spec: dict[str, Any]) -> None:
    """The generator makes an enum class of strings or of integers only: a boolean enum
    (`{type: boolean, enum: [true]}`, with the `null` nullable_everywhere adds) or a number
    enum (`enum: [0.5, 1.5]`) stopped it ("Unable to process schema"). In its input such a
    schema keeps its type without its `enum`; requests are still validated against the
    whole document by the runtime."""

    for node in objects_in(spec):
        if isinstance(node.get("enum"), list) and not generator_enum(node):
            del node["enum"]
            node.pop("x-enum-varnames", None)


def generator_enum(schema: dict[str, Any]) -> bool:
    """Whether the generator makes an enum class of the schema: an `enum` of strings or of
    integers (by its `type`, or, with none, by its values)."""
    values = schema.get("enum")
    if not isinstance(values, list):
        return False
    kind = schema.get("type")
    if kind is not None:
        kinds = [k for k in kind if k != "null"] if isinstance(kind, list) else [kind]
        return bool(kinds) and all(k in ("string", "integer") for k in kinds)
    present = [v for v in values if v is not None]
    return all(isinstance(v, str) for v in present) or all(
        isinstance(v, int) and not isinstance(v, bool) for v in present
    )


def _enum_member(value: str, index: int) -> str:
    """The member name the generator gives a string enum's value (`enum_property.py`)."""
    key = value.upper() if value and value[0].isalpha() else f"VALUE_{index}"
    return str(snake_case(key).upper())


def generator_path_names(spec: dict[str, Any]) -> None:
    """The generator takes a path parameter's name only as `[A-Za-z_-][A-Za-z0-9_-]*`:
    `{v.major}` stopped it ("Incorrect path templating"), though the document is valid.
    Its endpoint code is thrown away (the emitter reads the document itself), so in its
    input such a name is spelled with `_` for each other character, in the path and in
    the parameter (`_v_major`; the `_` first, so a name may start with a digit)."""
    paths = spec.get("paths", {})
    for path in list(paths):
        names = re.findall(r"{([^}]*)}", path)
        odd = {name: "_" + _PATH_NAME_ODD.sub("_", name) for name in names if _odd_path_name(name)}
        if not odd:
            continue
        item = paths.pop(path)
        renamed = path
        for name, plain in odd.items():
            renamed = renamed.replace(f"{{{name}}}", f"{{{plain}}}")
        for method, op in item.items():
            if method not in METHODS or not isinstance(op, dict):
                continue
            parameters = [copy.deepcopy(_resolve(spec, p)) for p in op.get("parameters", [])]
            for parameter in parameters:
                if parameter.get("in") == "path" and parameter.get("name") in odd:
                    parameter["name"] = odd[parameter["name"]]
            op["parameters"] = parameters
        paths[renamed] = item


_PATH_NAME_ODD = re.compile(r"[^A-Za-z0-9_-]")


def generator_operation_ids(spec: dict[str, Any]) -> None:
    """The generator names a module, and the models of an operation's inline schemas,
    after its operationId. That code is not the SDK's (the emitter reads the document
    itself, names methods apart, and types results by `$ref` only), so in the
    generator's input:

    - an operationId past `_LONGEST_ID` characters is cut, with a digest of the whole to
      keep it unique: one of 250 characters stopped it ("File name too long"), as a file
      name may have 255 bytes;
    - an operationId equal to an earlier one after the generator's `snake_case` or
      `pascal_case` (`listItems` and `ListItems`, `GET /a-b` and `GET /a_b`) gets a
      digest of itself: it stopped ("Attempted to generate duplicate models with name
      ListItemsResponse200").
    """
    taken: set[str] = set()
    for op in _operations(spec):
        operation_id = op.get("operationId")
        if not isinstance(operation_id, str):
            continue
        given, salt = operation_id, 0
        while len(given) > _LONGEST_ID or _generator_names(given) & taken:
            digest = hashlib.blake2b(f"{operation_id}{salt or ''}".encode(), digest_size=4)
            given = f"{operation_id[: _LONGEST_ID - 9]}_{digest.hexdigest()}"
            salt += 1
        op["operationId"] = given
        taken |= _generator_names(given)


def _generator_names(operation_id: str) -> set[str]:
    """The names the generator makes of an operationId (a module, classes), case folded."""
    return {snake_case(operation_id).lower(), pascal_case(operation_id).lower()}


_LONGEST_ID = 80  # with the generator's suffixes (`_response_200_item_...`), far below 255


def _odd_path_name(name: str) -> bool:
    return not re.fullmatch(r"[A-Za-z_-][A-Za-z0-9_-]*", name)


def recursive_array_items(spec: dict[str, Any]) -> list[str]:
    """The generator reads an array's items when it reads the array, so an array whose
    items refer back to it (`Nested: {type: array, items: {$ref: Nested}}`, or through
    other arrays) stopped it ("Recursive and circular references are not supported
    directly in an array schema's 'items' section"). In its input such items are `{}`
    (any value); the shipped document keeps the reference, so the SDK's types and the
    runtime's validation still follow it."""
    schemas = _schemas(spec)
    done = []

    def visit(node: Any, stack: tuple[str, ...]) -> None:
        if not isinstance(node, dict) or node.get("type") != "array":
            return
        items = node.get("items")
        if not isinstance(items, dict):
            return
        name = _component_name(items)
        if name is None:
            visit(items, stack)
        elif name in stack:
            node["items"] = {}
            done.append(
                f"components/schemas/{stack[0]}: array items refer back to {name}; the"
                " generator reads them as any value (it refuses recursive array items)"
            )
        elif isinstance(schemas.get(name), dict):
            visit(schemas[name], (*stack, name))

    for name, schema in schemas.items():
        visit(schema, (name,))
    return done


def _component_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    prefix = "#/components/schemas/"
    return ref.removeprefix(prefix) if isinstance(ref, str) and ref.startswith(prefix) else None


def generator_header_schemas(spec: dict[str, Any]) -> None:
    """The generator takes a header or cookie parameter of a plain value only: an array
    header (`{name: X-Tags, in: header, schema: {type: array, items: {type: string}}}`)
    stopped it ("list[str] | Unset is not allowed in header"). Its endpoint code is thrown
    away (the emitter types the argument from the document, and the runtime encodes it:
    `_requests.encode_headers`, `encode_cookies`), so in its input every header and cookie
    parameter is a string."""
    places = ("header", "cookie")
    for operation in _operations(spec):
        parameters = operation.get("parameters")
        if not isinstance(parameters, list):
            continue
        for index, raw in enumerate(parameters):
            parameter = _resolve(spec, raw)
            if parameter.get("in") in places:
                parameters[index] = {**parameter, "schema": {"type": "string"}}
    for name, parameter in spec.get("components", {}).get("parameters", {}).items():
        if isinstance(parameter, dict) and parameter.get("in") in places:
            spec["components"]["parameters"][name] = {**parameter, "schema": {"type": "string"}}


def drop_optional_security(spec: dict[str, Any]) -> None:
    """The generator types `client` as `AuthenticatedClient` whenever `security` is
    non-empty, even when `{}` (no credential) is one of its alternatives. The shield
    operations accept an AccessKey but do not require one: without `security` in the
    generator input their `client` is `AuthenticatedClient | Client`, and an
    AuthenticatedClient still sends its AccessKey header."""
    for operation in _operations(spec):
        if {} in operation.get("security", []):
            del operation["security"]


def nullable_everywhere(spec: dict[str, Any]) -> None:
    """The live service sends `null` for members the reference calls plain values, and the
    reference says "not shown" for nullability almost everywhere. Generated models treat a
    null in a non-nullable member as an error (and the old fallback dropped every null), so
    the generator sees every property as nullable: a member sent as null reads `None`,
    an absent one `UNSET`. Requests are still validated against the checked-in document.
    A nullable date-time that does not parse is kept as the raw string by the generated
    union parser, so one odd timestamp never makes the whole object unreadable."""

    def nullable(node: dict[str, Any]) -> dict[str, Any]:
        visit(node)
        if "$ref" in node:
            return {"allOf": [node], "nullable": True}
        if node:  # `{}` (any value) already allows null
            node["nullable"] = True
        if isinstance(node.get("enum"), list) and None not in node["enum"]:
            # OpenAPI 3.0: a nullable enum allows null only when it lists it; the generator
            # reads the list (otherwise a null member makes the whole object unreadable).
            node["enum"] = [*node["enum"], None]
        return node

    def visit(schema: dict[str, Any]) -> None:
        properties = schema.get("properties", {})
        for name, prop in list(properties.items()):
            properties[name] = nullable(prop)
        items = schema.get("items")
        if isinstance(items, dict) and not _plain(items):
            # A plain item (a string, a number) needs no parsing: a null item passes
            # through the generated list as None; nullable plain items would make the
            # generated code rebuild every list item by item.
            schema["items"] = nullable(items)

    for schema in _schemas(spec).values():
        visit(schema)


#: Names a generated model has itself (templates/model.py.jinja: its attrs attribute and
#: methods, `self`) or gives locals in `to_dict`/`from_dict` beside the properties' own
#: locals there (`d = dict(src_dict)` then `d = d.pop("d")`; `cls(...)` after `cls = ...`).
MODEL_OWN_NAMES = frozenset(
    {"additional_properties", "additional_keys", "to_dict", "to_multipart", "from_dict"}
    | {"self", "cls", "d", "field_dict", "prop", "prop_name", "prop_dict"}
)


def model_attribute(wire: str, prop: Any) -> str | None:
    """The model attribute a property needs other than the generator's own name, or None:
    its `x-sdk-name`, with `_` after a name the model has itself (`to_dict_`, also for a
    wire name whose snake_case is one: `additional_properties` made 15 mypy errors)."""
    hint = prop.get("x-sdk-name") if isinstance(prop, dict) else None
    name = hint if isinstance(hint, str) else snake_case(wire)
    if name in MODEL_OWN_NAMES:
        return f"{name}_"
    return hint if isinstance(hint, str) else None


def model_names_of_their_own(spec: dict[str, Any]) -> None:
    """A property named like something the generated model has itself (`to_dict`,
    `additional_properties`) broke the model; in the generator's input it gets an
    `x-sdk-name` (codegen/generate.py) of its own (`to_dict_`). The wire name stays."""

    for node in objects_in(spec):
        properties = node.get("properties")
        if isinstance(properties, dict):
            for wire, prop in properties.items():
                attribute = model_attribute(str(wire), prop)
                if attribute is not None and isinstance(prop, dict):
                    prop["x-sdk-name"] = attribute


def mark_secrets(spec: dict[str, Any]) -> None:
    """The generator keeps no `format: password`; its description carries a `[secret]`
    mark instead, which the model template (templates/model.py.jinja) turns into a
    field left out of the model's repr, so a password never shows in a repr or a log."""
    for schema in _schemas(spec).values():
        for prop in schema.get("properties", {}).values():
            if prop.get("format") == "password" or prop.get("writeOnly"):
                prop["description"] = (prop.get("description", "") + " [secret]").strip()


def _plain(schema: dict[str, Any]) -> bool:
    """A schema of one plain JSON value: no $ref, no nesting, no format to parse."""
    return (
        "$ref" not in schema
        and schema.get("type") in ("string", "integer", "number", "boolean")
        and "format" not in schema
        and "enum" not in schema
    )


def _operations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    items = spec.get("paths", {}).values()
    return [op for item in items for op in item.values() if isinstance(op, dict)]


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    """`components.schemas`, or {}: both are optional (a document may have neither)."""
    schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    return schemas


def _responses(spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(spec.get("components", {}).get("responses", {}).values())
    for operation in _operations(spec):
        found.extend(r for r in operation.get("responses", {}).values() if "$ref" not in r)
    return found


REWRITES = (
    keep_only_json_request_bodies,
    keep_only_json_responses,
    drop_property_combinators,
    merge_error_body_unions,
    enums_of_strings_and_integers,
    distinct_enum_names,
    generator_path_names,
    generator_operation_ids,
    recursive_array_items,
    generator_header_schemas,
    drop_optional_security,
    mark_secrets,
    nullable_everywhere,
    model_names_of_their_own,  # last: on the property itself (nullable_everywhere wraps $refs)
)


def prepare(spec: dict[str, Any], notes: list[str] | None = None) -> dict[str, Any]:
    """The generator's input; a rewrite that reports (returns lines) adds them to `notes`."""
    prepared = copy.deepcopy(spec)
    for rewrite in REWRITES:
        lines = rewrite(prepared)
        if lines and notes is not None:
            notes.extend(lines)
    return prepared


class DocumentLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML's safe loader (the C one: a merged document is a megabyte) reading plain
    scalars as YAML 1.2 (its core schema, as OpenAPI recommends) and JSON do, not as YAML
    1.1: an unquoted `example: 2024-01-31` stays a string (a `datetime.date` stopped
    prepare_spec: "Object of type date is not JSON serializable"), as do `on`, `off`,
    `yes`, `no` (a property `On` was the key `True`) and `12:30` (the integer 750)."""

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, Any]]]] = {}


# YAML 1.2's core schema (JSON's numbers, and `0o`/`0x` integers); no leading zeros, so
# PyYAML's YAML 1.1 constructors read each as 1.2 does.
for _tag, _rule, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)\.[0-9]*)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?(?:0|[1-9][0-9]*)[eE][-+]?[0-9]+"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
):
    DocumentLoader.add_implicit_resolver(
        f"tag:yaml.org,2002:{_tag}", re.compile(_rule), list(_first)
    )
for _first, _resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items():
    for _tag, _rule in _resolvers:
        if _tag.rsplit(":", 1)[1] not in ("bool", "int", "float", "timestamp"):
            DocumentLoader.yaml_implicit_resolvers.setdefault(_first, []).append((_tag, _rule))


def load(source: str) -> dict[str, Any]:
    """A YAML or JSON document, as JSON values (`DocumentLoader`)."""
    text = Path(source).read_text(encoding="utf-8")
    loaded: dict[str, Any] = (
        json.loads(text) if source.endswith(".json") else yaml.load(text, Loader=DocumentLoader)
    )
    return loaded


def main(source: str, output: str, repaired_output: str | None = None) -> int:
    try:
        spec, done = repair(load(source))
    except Unrepairable as error:
        print(f"prepare_spec: cannot repair {source}: {error}", file=sys.stderr)
        return 1
    notes: list[str] = []
    prepared = prepare(spec, notes)
    for line in [*done, *notes]:
        print(f"repaired {line}")
    if repaired_output:
        with open(repaired_output, "w", encoding="utf-8") as handle:
            json.dump(spec, handle, indent=1)
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(prepared, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
