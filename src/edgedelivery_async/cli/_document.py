"""The operations of the OpenAPI document as the command line sees them.

The generated package ships the checked-in document (`openapi.json`). This module
reads it with `json` alone (no SDK import, so `edgedelivery --help` stays fast) and
derives, per operation, what its command needs: the group (the tag's resource), the
command name, the help, and one input per path, query, header and cookie parameter and body
field, with the Python names of the generated method (`codegen/emit_sdk.py`):

- resource: the tag's `x-sdk-resource`, else the snake_case tag name;
- method: the operation's `x-sdk-method`, else the snake_case last part of its id;
- command: the operation's `x-cli-command`, else the kebab-case method name;
- parameters and fields: `x-sdk-name`, else the snake_case wire name;
- the whole body: a positional parameter named by the body's `x-sdk-body`, or `body`
  when the body is not an object with properties, or is text (`text/...`) or binary
  (any other type that is not JSON), as `_media.request_media` tells.

tests/cli checks these names against the generated methods' signatures.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import importlib.util
import json
import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .._media import json_media, request_media
from .._notes import for_users

PACKAGE = "edgedelivery_openapi"
_METHODS = ("get", "put", "post", "delete", "patch", "head")
_DELIMITERS = r"\. _-"


@dataclass(frozen=True, slots=True)
class Input:
    """One value a command takes: a path, query, header or cookie parameter, or a body field."""

    kind: Literal["path", "query", "header", "cookie", "field"]
    wire: str  # the name in the path, the query string, the headers, a cookie or the JSON body
    python: str  # the generated method's parameter name
    schema: dict[str, Any]  # dereferenced
    required: bool  # the generated method requires it
    description: str = ""

    @property
    def option(self) -> str:
        """The option (or, for a path parameter, the metavar) it gets by default."""
        if self.kind == "path":
            return self.python.upper()
        return "--" + self.python.strip("_").replace("_", "-")


@dataclass(frozen=True, slots=True)
class OperationSpec:
    """One operation of the document, as a command."""

    operation_id: str
    http_method: str
    path: str
    resource: str  # the client attribute of its tag
    method: str  # the generated method's name
    command: str
    summary: str
    description: str
    requires_key: bool
    path_params: tuple[Input, ...] = ()
    query_params: tuple[Input, ...] = ()
    header_params: tuple[Input, ...] = ()  # options, as query parameters are
    cookie_params: tuple[Input, ...] = ()  # options too
    fields: tuple[Input, ...] = ()  # body fields, keyword arguments of the method
    has_body: bool = False
    body_param: str | None = None  # the positional whole-body parameter, if the method has one
    body_required: bool = False
    body_kind: Literal["json", "text", "binary"] = "json"  # how the whole body is read
    body_schema: dict[str, Any] = field(default_factory=dict)  # dereferenced
    extra_fields: bool = False  # the method takes `extra_fields` (the body allows more members)

    @property
    def inputs(self) -> tuple[Input, ...]:
        return (
            *self.path_params,
            *self.query_params,
            *self.header_params,
            *self.cookie_params,
            *self.fields,
        )


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """One tag of the document: a command group."""

    name: str  # kebab-case resource attribute
    resource: str
    help: str
    operations: tuple[OperationSpec, ...]


# --------------------------------------------------------------------- naming
def snake_case(value: str) -> str:
    """The generator's snake_case (openapi-python-client's `snake_case`)."""
    value = "".join(c for c in value if c.isidentifier() or c.isdecimal() or c in _DELIMITERS)
    if any(c.isupper() for c in value):
        value = " ".join(re.split("([A-Z]?[a-z]+)", value))
    return "_".join(re.findall(rf"[^{re.escape(_DELIMITERS)}]+", value)).lower()


def identifier(name: str) -> str:
    """A valid Python name, as the emitter makes it (`codegen/emit_sdk.py` `_identifier`).

    Names the emitter chose otherwise (collisions) are written into the shipped document
    as hints (`x-sdk-method`, `x-sdk-name`, `x-sdk-field-names`, `x-sdk-body-name`)."""
    name = re.sub(r"\W", "_", name)
    if not name:
        name = "value"
    if name[0].isdigit():
        name = f"n_{name}"
    if keyword.iskeyword(name):
        name = f"{name}_"
    return name


def kebab_case(name: str) -> str:
    return name.strip("_").replace("_", "-")


# ------------------------------------------------------------------- reading
def _document_text() -> str:
    """The shipped `openapi.json`, found without importing the generated package."""
    spec = importlib.util.find_spec(PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "openapi.json"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return importlib.resources.files(PACKAGE).joinpath("openapi.json").read_text(encoding="utf-8")


@functools.cache
def document() -> dict[str, Any]:
    """The OpenAPI document shipped with the generated package."""
    loaded: dict[str, Any] = json.loads(_document_text())
    return loaded


def deref(node: Any) -> dict[str, Any]:
    """A node with its `$ref`s followed (a non-dict is read as an empty schema)."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document()
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node if isinstance(node, dict) else {}


def resolve(node: Any) -> dict[str, Any]:
    """A schema with its `$ref`s followed and an `allOf` merged into one schema."""
    schema = deref(node)
    if "allOf" not in schema:
        return schema
    merged: dict[str, Any] = {}
    for part in schema["allOf"]:
        merged.update(resolve(part))
    merged.update({key: value for key, value in schema.items() if key != "allOf"})
    return merged


@functools.cache
def groups() -> tuple[GroupSpec, ...]:
    """Every tag with its operations, in the document's order of tags."""
    spec = document()
    tags = {tag["name"]: tag for tag in spec.get("tags", [])}
    found: dict[str, list[OperationSpec]] = {}
    helps: dict[str, str] = {}
    order = {
        tag.get("x-sdk-resource") or snake_case(tag["name"]): i
        for i, tag in enumerate(spec.get("tags", []))
    }
    for path, item in spec.get("paths", {}).items():
        for http_method, operation in item.items():
            if http_method not in _METHODS:
                continue
            tag_name = (operation.get("tags") or ["default"])[0]
            tag = tags.get(tag_name, {"name": tag_name})
            resource = tag.get("x-sdk-resource") or snake_case(tag_name)
            helps.setdefault(resource, _first_line(tag.get("description", "")) or tag_name)
            found.setdefault(resource, []).append(
                _operation(spec, path, http_method, operation, resource)
            )
    made = []
    for resource, operations in sorted(
        found.items(), key=lambda item: order.get(item[0], len(order))
    ):
        name = kebab_case(resource)
        taken = HAND_WRITTEN_COMMANDS.get(name, frozenset())
        named = tuple(
            dataclasses.replace(op, command=f"{op.command}-api") if op.command in taken else op
            for op in operations
        )
        name = f"{name}-api" if name in HAND_WRITTEN_COMMANDS[""] else name
        made.append(GroupSpec(name, resource, helps[resource], named))
    return tuple(made)


#: The command line's own commands, by group ("": the top level), which no command or
#: group of an operation takes: those get "-api" after their name (a `Demo` tag would have
#: replaced `edgedelivery demo`, and `shield dump` an operation's `dump` command).
HAND_WRITTEN_COMMANDS: dict[str, frozenset[str]] = {
    "": frozenset({"demo"}),
    "shield": frozenset({"dump"}),
}


def operations() -> dict[str, OperationSpec]:
    """Every operation, by operationId."""
    return {op.operation_id: op for group in groups() for op in group.operations}


def _operation(
    spec: dict[str, Any], path: str, http_method: str, operation: dict[str, Any], resource: str
) -> OperationSpec:
    operation_id = operation["operationId"]
    method = identifier(
        operation.get("x-sdk-method") or snake_case(operation_id.rsplit("_", 1)[-1])
    )
    security = operation.get("security", spec.get("security", []))
    by_location: dict[str, list[Input]] = {"path": [], "query": [], "header": [], "cookie": []}
    for raw in operation.get("parameters", []):
        parameter = deref(raw)
        location = parameter.get("in")
        if location not in by_location:
            continue
        schema = resolve(parameter.get("schema", {}))
        required = location == "path" or bool(parameter.get("required"))
        by_location[location].append(
            Input(
                location,
                parameter["name"],
                identifier(parameter.get("x-sdk-name") or snake_case(parameter["name"])),
                schema,
                required,
                _first_paragraph(parameter.get("description") or schema.get("description", "")),
            )
        )
    body = deref(operation.get("requestBody", {}))
    content = body.get("content") or {}
    media = json_media(content)  # any JSON spelling (merge-patch+json too)
    body_kind: Literal["json", "text", "binary"] = "json"
    if media is None and content:
        body_kind = "text" if request_media(content)[0] == "text" else "binary"
    fields: list[Input] = []
    body_param: str | None = None
    body_schema: dict[str, Any] = {}
    extra_fields = False
    has_properties = False
    if body_kind != "json":  # text from a str, anything else from bytes: the whole body
        whole = body.get("x-sdk-body")
        body_param = operation.get("x-sdk-body-name") or identifier(whole or "body")
    elif media is not None:
        body_schema = deref(media.get("schema", {}))
        whole = body.get("x-sdk-body")
        properties = body_schema.get("properties")
        has_properties = bool(properties)
        renamed_body = operation.get("x-sdk-body-name")
        field_names: dict[str, str] = operation.get("x-sdk-field-names") or {}
        if not properties:
            body_param = renamed_body or identifier(whole or "body")
        else:
            if whole:
                body_param = renamed_body or identifier(whole)
            required = set(body_schema.get("required", []))
            for wire, prop in properties.items():
                if deref(prop).get("readOnly"):  # as the generator decides
                    continue
                target = resolve(prop)
                fields.append(
                    Input(
                        "field",
                        wire,
                        field_names.get(wire)
                        or identifier(prop.get("x-sdk-name") or snake_case(wire)),
                        target,
                        wire in required and not whole,
                        _first_paragraph(prop.get("description") or target.get("description", "")),
                    )
                )
            extra_fields = body_schema.get("additionalProperties") is not False
    return OperationSpec(
        operation_id=operation_id,
        http_method=http_method.upper(),
        path=path,
        resource=resource,
        method=method,
        command=operation.get("x-cli-command") or kebab_case(method),
        summary=operation.get("summary", "").strip(),
        description=for_users(operation.get("description", "")),
        requires_key=bool(security) and {} not in security,
        path_params=tuple(by_location["path"]),
        query_params=tuple(by_location["query"]),
        header_params=tuple(by_location["header"]),
        cookie_params=tuple(by_location["cookie"]),
        fields=tuple(fields),
        has_body=media is not None or body_kind != "json",
        body_param=body_param,
        body_required=bool(body.get("required")) and body_param is not None and not has_properties,
        body_kind=body_kind,
        body_schema=body_schema,
        extra_fields=extra_fields,
    )


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip()


def _first_paragraph(text: str) -> str:
    return for_users(text.strip().split("\n\n", 1)[0])
