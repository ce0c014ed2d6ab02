"""Emit the typed per-operation layer users call, from the checked-in document.

openapi-python-client writes the attrs models; this step writes, into the same
generated package, one resource class per tag with one method per operation
(`resources/`), and the public-surface snapshot (`PUBLIC_API.txt`). Every method
body is a single `Call(...)` that the hand-written runtime
(`edgedelivery_async._call`) sends: auth, validation, retries, timeouts, the error
tree and the transport are the runtime's, the shape of each call is the document's.

Names come from the document, with optional hints (documented in codegen/README.md):
`x-sdk-resource` on a tag, `x-sdk-method` on an operation, `x-sdk-name` on a parameter,
`x-sdk-body` on a request body (a positional parameter taking the whole body),
`x-sdk-mapping` on an array property (it may also be given as a mapping), and
`x-sdk-result` on a response schema (see `edgedelivery_async._results`).

Names follow one rule (`Naming` below and codegen/README.md): hints win, a name the
surface snapshot already gives is kept, then the short name, then the qualified one; no
collision, keyword or invalid identifier is ever emitted. The names chosen where the
document gives no hint and the plain rule would not reproduce them are written into the
shipped `openapi.json` as hints (`x-sdk-method`, `x-sdk-resource`, `x-sdk-name`,
`x-sdk-field-names`), so every reader of the document (the CLI) uses the same names.

Usage: python codegen/emit_sdk.py DOCUMENT PACKAGE_DIR TEMPLATES_DIR SURFACE.txt [PREVIOUS.txt]
  PREVIOUS.txt: the surface snapshot as committed; its names are kept (never renamed).
"""

from __future__ import annotations

import ast
import copy
import json
import keyword
import re
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from docstrings import describe  # codegen/docstrings.py, beside this script
from openapi_python_client.config import ConfigFile
from openapi_python_client.strings import ClassName, snake_case
from prepare_spec import (  # codegen/prepare_spec.py, beside this script
    breaks_its_schema,
    generator_enum,
    load,
    model_attribute,
)
from runtime_rules import media as runtime_media  # codegen/runtime_rules.py: src's rule

#: Builtins the types of a method signature use; lowercase, so no model is named alike.
BUILTIN_TYPES = frozenset({"list", "dict", "str", "int", "float", "bool", "bytes", "object"})
#: The names a resource module (sdk_templates/resource.py.jinja) and the resources' package
#: (resources_init.py.jinja) bind themselves: no resource class takes one, and a model of
#: one of these names is written `_models.X` there.
MODULE_NAMES = frozenset(
    {"Any", "Call", "IO", "Mapping", "Sequence", "TYPE_CHECKING", "UNSET", "Unset"}
    | {"OPERATIONS", "Resources", "Runtime"}
)


def schema_kinds(schema: dict[str, Any]) -> tuple[list[str], bool]:
    """(the schema's types, whether it allows null): `type` is one name or (OpenAPI 3.1) a
    list of names, where `null` counts as nullable (`nullable: true` in 3.0)."""
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [] if kind is None else [kind]
    named = [k for k in kinds if isinstance(k, str) and k != "null"]
    return named, bool(schema.get("nullable")) or "null" in kinds


def one_kind(schema: dict[str, Any]) -> str | None:
    """The schema's one type besides `null` (`[integer, 'null']` is `integer`), else None."""
    kinds, _ = schema_kinds(schema)
    return kinds[0] if len(kinds) == 1 else None


def plain_type(type_: str) -> str:
    """A type as `PUBLIC_API.txt` and the docstrings show it: models by their names."""
    return re.sub(r"\b_models\.", "", type_)


SUCCESS = ("200", "201", "2XX", "203", "204", "202")  # the result, before "accepted"
INPUT_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


@dataclass
class Param:
    """One argument of a generated method."""

    python_name: str
    wire_name: str
    type: str
    required: bool
    default: str | None = None  # Python source of the default
    description: str = ""
    mapping: tuple[str, str] | None = None  # x-sdk-mapping: (key member, value member)
    hinted: bool = False  # the name is the document's own (x-sdk-name, x-sdk-body)
    plain: str = ""  # the name the plain rule gives (hint or snake_case)

    @property
    def declaration(self) -> str:
        return self.declaration_as(plain_type)

    def declaration_as(self, write: Callable[[str], str]) -> str:
        """The declaration with its type written by `write` (`annotation`)."""
        if self.default is not None:
            return f"{self.python_name}: {write(self.type)} = {self.default}"
        return f"{self.python_name}: {write(self.type)}"


@dataclass
class Method:
    """One operation as a method of its resource."""

    name: str
    operation_id: str
    http_method: str
    path: str
    summary: str
    description: str
    path_params: list[Param] = field(default_factory=list)
    query_params: list[Param] = field(default_factory=list)
    header_params: list[Param] = field(default_factory=list)
    cookie_params: list[Param] = field(default_factory=list)
    body_param: Param | None = None  # the whole body (x-sdk-body, or a body that is no object)
    body_fields: list[Param] = field(default_factory=list)
    extra_fields: bool = False
    result_type: str = "None"
    result_parser: str = "None"
    download: bool = False  # a binary or text reply: `.to_file(path, ...)` writes it to a file
    operation: dict[str, Any] = field(default_factory=dict, repr=False)  # as in the document

    @property
    def arguments(self) -> list[Param]:
        """Every argument, whole body included."""
        whole = [self.body_param] if self.body_param is not None else []
        return [
            *self.path_params,
            *whole,
            *self.query_params,
            *self.header_params,
            *self.cookie_params,
            *self.body_fields,
        ]

    @property
    def signature(self) -> list[str]:
        """The parameter list after `self`, as `PUBLIC_API.txt` shows it."""
        return self.signature_as(plain_type)

    def signature_as(self, write: Callable[[str], str]) -> list[str]:
        """The parameter list after `self`, each type written by `write` (`annotation`)."""
        out = [p.declaration_as(write) for p in self.path_params]
        if self.body_param is not None:
            out.append(self.body_param.declaration_as(write))
        keywords = [
            *(p.declaration_as(write) for p in self.query_params),
            *(p.declaration_as(write) for p in self.header_params),
            *(p.declaration_as(write) for p in self.cookie_params),
            *(p.declaration_as(write) for p in self.body_fields if p.required),
            *(p.declaration_as(write) for p in self.body_fields if not p.required),
        ]
        if self.extra_fields:
            keywords.append(f"extra_fields: {write('Mapping[str, Any]')} | None = None")
        if keywords:
            out.append("*")
            out.extend(keywords)
        return out


@dataclass
class Resource:
    """One tag of the document: a resource class on the client."""

    attribute: str
    class_name: str
    description: str
    methods: list[Method] = field(default_factory=list)
    models: set[str] = field(default_factory=set)

    @property
    def imported_models(self) -> list[str]:
        """The models the module imports by name (for type checkers): those no name of the
        module has (its class, its imports; a schema `Resource`, a kept class `Widget`
        beside a new schema `Widget`); the others it writes as `_models.X`."""
        return sorted(self.models - MODULE_NAMES - {self.class_name})

    def annotation(self, type_: str) -> str:
        """A type as the resource's module writes it. The emitter's types name models
        `_models.X`: a model the module imports by name is `X`. A builtin that a method of
        the class shadows there (`list` of `Audit_List`: mypy read `-> Call[list[Note]]`
        of a later method as the method) is written through `builtins` (`_b.list[Note]`)."""
        by_name = set(self.imported_models)
        type_ = re.sub(
            r"\b_models\.(\w+)",
            lambda found: found.group(1) if found.group(1) in by_name else found.group(0),
            type_,
        )
        shadowed = BUILTIN_TYPES & {method.name for method in self.methods}
        if not shadowed:
            return type_
        names = "|".join(sorted(shadowed))
        return re.sub(rf"(?<![\w.])({names})\b", r"_b.\1", type_)


class Emitter:
    """Reads the document and builds the resources."""

    def __init__(
        self, spec: dict[str, Any], model_names: set[str], previous: Surface | None = None
    ) -> None:
        self.spec = spec
        self.schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
        self.model_names = model_names
        self.previous = previous or Surface()
        self.problems: list[str] = []

    # ------------------------------------------------------------------ lookups
    def deref(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.spec
            for part in str(node["$ref"]).removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def model_of(self, node: Any) -> str | None:
        """The generated model class of a `$ref` to an object or enum schema."""
        if not isinstance(node, dict) or "$ref" not in node:
            return None
        name = str(node["$ref"]).rsplit("/", 1)[1]
        target = self.schemas.get(name, {})
        if target.get("type") == "object" or "properties" in target or generator_enum(target):
            class_name = model_class(name)
            if class_name not in self.model_names:
                self.problems.append(f"no generated model {class_name} for {name}")
                return None
            return class_name
        return None

    def input_type(self, node: Any, resource: Resource) -> str:
        """The Python type a caller may pass for a schema."""
        nullable = schema_kinds(self.deref(node))[1] if isinstance(node, dict) else False
        text = self._input_type(node, resource)
        return f"{text} | None" if nullable and text != "Any" else text

    def _input_type(self, node: Any, resource: Resource, seen: frozenset[str] = frozenset()) -> str:
        """`seen`: the `$ref`s being typed; a schema that refers to itself (a map of
        itself, an array of itself) is `Any` where it recurs (it recursed without end)."""
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str):
            if ref in seen:
                return "Any"
            seen = seen | {ref}
        model = self.model_of(node)
        target = self.deref(node) if isinstance(node, dict) else {}
        if model is not None:
            resource.models.add(model)
            if "enum" in target:
                return f"_models.{model} | {INPUT_SCALARS.get(one_kind(target) or '', 'Any')}"
            values = target.get("additionalProperties")
            inner = self._input_type(values, resource, seen) if isinstance(values, dict) else "Any"
            return f"_models.{model} | Mapping[str, {inner}]"
        kinds, _ = schema_kinds(target)
        if len(kinds) > 1 and all(k in INPUT_SCALARS for k in kinds):  # `[integer, string]`
            return " | ".join(INPUT_SCALARS[k] for k in kinds)
        kind = one_kind(target)
        if kind in INPUT_SCALARS:
            return INPUT_SCALARS[kind]
        if kind == "array":
            return f"Sequence[{self._input_type(target.get('items', {}), resource, seen)}]"
        if kind == "object":
            values = target.get("additionalProperties")
            inner = self._input_type(values, resource, seen) if isinstance(values, dict) else "Any"
            return f"Mapping[str, {inner}]"
        return "Any"

    def output(self, node: Any, resource: Resource) -> tuple[str, str]:
        """(return type, parser expression) of a result schema."""
        model = self.model_of(node)
        target = self.deref(node) if isinstance(node, dict) else {}
        if model is not None and "enum" not in target:
            resource.models.add(model)
            return f"_models.{model}", f"_models.{model}"
        kind = one_kind(target)
        if kind in INPUT_SCALARS:
            scalar = INPUT_SCALARS[kind]
            return scalar, scalar
        if kind == "array":
            items = target.get("items")
            model = self.model_of(items)
            if model is not None and "enum" not in self.deref(items):
                resource.models.add(model)  # each item read as the model
                return f"list[_models.{model}]", f"_ListOf(_models.{model})"
            return "list[Any]", "list"
        if kind == "object":
            return "dict[str, Any]", "dict"
        return "Any", "object"

    # ---------------------------------------------------------------- building
    def resources(self) -> list[Resource]:
        tags = {tag["name"]: tag for tag in self.spec.get("tags", [])}
        found: dict[str, Resource] = {}
        for path, item in self.spec.get("paths", {}).items():
            for http_method, operation in item.items():
                if http_method not in EMITTED_METHODS:
                    continue  # (`left_out` names the operations, regeneration prints them)
                tag_name = (operation.get("tags") or ["default"])[0]
                tag = tags.get(tag_name, {"name": tag_name})
                attribute = resource_attribute(tag)
                resource = found.get(attribute)
                if resource is None:
                    resource = found[attribute] = Resource(
                        attribute=attribute,
                        class_name="",
                        description=_first_line(tag.get("description", "")) or tag_name,
                    )
                resource.methods.append(self.method(path, http_method, operation, resource))
        taken = set(self.model_names) | MODULE_NAMES
        for resource in sorted(found.values(), key=lambda r: r.attribute):
            plain = str(ClassName(resource.attribute, ""))
            resource.class_name = self.previous.classes.get(resource.attribute) or _free(
                f"{plain}Resource" if plain in taken else plain, taken, ""
            )
            taken.add(resource.class_name)
            self.name_methods(resource)
        return sorted(found.values(), key=lambda r: r.attribute)

    def name_methods(self, resource: Resource) -> None:
        """Naming, for the methods of one resource (codegen/README.md):

        1. `x-sdk-method` wins (two operations given one name is the document's fault);
        2. a name the surface snapshot gives the operation is kept, so a method is never
           renamed by an addition;
        3. the short name: the operationId's part after its last `_` (`DnsZone_Add` ->
           `add`), or for an id made from the method and path (`GET /log/{appId}`)
           `get_log_by_app_id`, unless another operation of the resource has the same one;
        4. else the qualified name, the whole operationId (`AddLiveWatermarkEndpoint_\
           AddWatermark` -> `add_live_watermark_endpoint_add_watermark`), numbered
           `_2`, `_3` in document order if even that is taken.
        Names that are keywords get a trailing `_`; other invalid characters become `_`.
        """
        taken: dict[str, str] = {}
        pending: list[Method] = []
        for method in resource.methods:
            hint = method.operation.get("x-sdk-method")
            if hint:
                name = _identifier(str(hint))
                if name in taken:
                    self.problems.append(
                        f"{method.operation_id}: x-sdk-method {name!r} is also the method of"
                        f" {taken[name]} in {resource.attribute}; give one another x-sdk-method"
                    )
                method.name = name
                taken[name] = method.operation_id
            else:
                pending.append(method)
        later = []
        for method in pending:
            kept = self.previous.methods.get(method.operation_id)
            if kept and kept[0] == resource.attribute and kept[1] not in taken:
                method.name = kept[1]
                taken[kept[1]] = method.operation_id
            else:
                later.append(method)
        shorts = [_short_name(m.operation_id) for m in later]
        for method, short in zip(later, shorts, strict=True):
            if short not in taken and shorts.count(short) == 1:
                method.name = short
            else:
                method.name = _free(_long_name(method.operation_id), set(taken), "_")
            taken[method.name] = method.operation_id

    def name_arguments(self, method: Method) -> None:
        """Arguments: path, the whole body, query, header, cookie, then body fields, in
        document order. A name already taken by an earlier argument (or one the method needs:
        `self`, `extra_fields`, the result parser) gets its place in front (`body_id`,
        `query_id`, `header_id`, `cookie_id`), numbered `_2`, ... if even that is taken. A hint
        (`x-sdk-name`, `x-sdk-body`) that meets another name is the document's fault."""
        taken = set(RESERVED_ARGUMENTS)
        places = [
            *(("path", p) for p in method.path_params),
            *(("body", p) for p in [method.body_param] if p is not None),
            *(("query", p) for p in method.query_params),
            *(("header", p) for p in method.header_params),
            *(("cookie", p) for p in method.cookie_params),
            *(("body", p) for p in method.body_fields),
        ]
        for place, param in places:
            if param.python_name in taken:
                if param.hinted:
                    self.problems.append(
                        f"{method.operation_id}: the argument name {param.python_name!r}"
                        f" ({place} {param.wire_name!r}) is taken; change its x-sdk-name"
                    )
                param.python_name = _free(f"{place}_{param.python_name}", taken, "_")
            taken.add(param.python_name)

    def method(
        self, path: str, http_method: str, operation: dict[str, Any], resource: Resource
    ) -> Method:
        operation_id = operation["operationId"]
        method = Method(
            name="",
            operation=operation,
            operation_id=operation_id,
            http_method=http_method.upper(),
            path=path,
            summary=operation.get("summary", "").strip(),
            description=operation.get("description", "").strip(),
        )
        for raw in operation.get("parameters", []):
            parameter = self.deref(raw)
            schema = parameter.get("schema", {})
            python_name = _identifier(parameter.get("x-sdk-name") or snake_case(parameter["name"]))
            hinted = bool(parameter.get("x-sdk-name"))
            location = parameter["in"]
            if location == "path":
                kind = one_kind(self.deref(schema))
                type_ = {"integer": "int", "boolean": "bool"}.get(kind, "str | int")
                method.path_params.append(
                    Param(python_name, parameter["name"], type_, True, hinted=hinted)
                )
                continue
            if location not in ("query", "header", "cookie"):
                self.problems.append(f"{operation_id}: {location} parameters are not supported")
                continue
            required = bool(parameter.get("required"))
            type_ = self.input_type(schema, resource)
            default = None
            if not required:
                resolved = self.deref(schema)
                if "default" in resolved and _fits(resolved["default"], resolved):
                    default = repr(resolved["default"])
                else:
                    type_, default = f"{_or_none(type_)} | Unset", "UNSET"
            param = Param(python_name, parameter["name"], type_, required, default, hinted=hinted)
            places = {"query": method.query_params, "header": method.header_params}
            places.get(location, method.cookie_params).append(param)
        self._body(operation, method, resource)
        self._result(operation, method, resource)
        for param in method.arguments:
            param.plain = param.python_name
        self.name_arguments(method)
        # What the SDK does: returns, raises, retries, tolerates (codegen/docstrings.py).
        method.description = describe(
            operation,
            method.http_method,
            plain_type(method.result_type),
            self.deref,
            self.spec.get("security"),
        )
        return method

    def _body(self, operation: dict[str, Any], method: Method, resource: Resource) -> None:
        body = self.deref(operation.get("requestBody", {}))
        content = body.get("content") or {}
        media = _json_media(content)
        if media is None:
            if content:  # sent as declared: text from a str, anything else from bytes or a file
                text = runtime_media.request_media(content)[0] == "text"  # the runtime's rule
                param_type = "str" if text else "bytes | IO[bytes]"
                required_body = bool(body.get("required"))
                method.body_param = Param(
                    _identifier(body.get("x-sdk-body") or "body"),
                    "",
                    param_type if required_body else f"{param_type} | None",
                    required_body,
                    None if required_body else "None",
                    hinted=bool(body.get("x-sdk-body")),
                )
            return
        schema = media.get("schema", {})
        target = self.deref(schema)
        whole = body.get("x-sdk-body")
        properties = target.get("properties")
        required_body = bool(body.get("required"))
        if not properties:
            param_type = self.input_type(schema, resource)
            method.body_param = Param(
                _identifier(whole or "body"),
                "",
                param_type if required_body else _or_none(param_type),
                required_body,
                None if required_body else "None",
                hinted=bool(whole),
            )
            return
        required = set(target.get("required", []))
        if whole:
            param_type = self.input_type(schema, resource)
            method.body_param = Param(
                _identifier(whole), "", f"{param_type} | None", False, "None", hinted=True
            )
        for wire, prop in properties.items():
            if self.deref(prop).get("readOnly"):
                continue
            python_name = _identifier(prop.get("x-sdk-name") or snake_case(wire))
            type_ = self.input_type(prop, resource)
            mapping = prop.get("x-sdk-mapping")
            pair = None
            if isinstance(mapping, dict):
                pair = (str(mapping["key"]), str(mapping["value"]))
                type_ = f"Mapping[str, Any] | {type_}"
            is_required = wire in required and not whole
            param = Param(
                python_name,
                wire,
                type_ if is_required else f"{_or_none(type_)} | Unset",
                is_required,
                None if is_required else "UNSET",
                mapping=pair,
                hinted=bool(prop.get("x-sdk-name")),
            )
            method.body_fields.append(param)
        method.extra_fields = target.get("additionalProperties") is not False

    def _result(self, operation: dict[str, Any], method: Method, resource: Resource) -> None:
        responses = operation.get("responses", {})
        for status in SUCCESS:
            if status in responses:
                response = self.deref(responses[status])
                break
        else:
            method.result_type, method.result_parser = "Any", "object"
            return
        content = response.get("content") or {}
        media = _json_media(content)
        if media is None:
            if content:  # read as the declared type: text as a str, anything else as bytes
                text = all(str(kind).lower().startswith("text/") for kind in content)
                method.result_type = method.result_parser = "str" if text else "bytes"
                method.download = True
            return
        schema = media.get("schema", {})
        target = self.deref(schema)
        rule = target.get("x-sdk-result")
        if isinstance(rule, dict) and rule.get("value"):
            member = target.get("properties", {}).get(rule["value"], {})
            method.result_type, method.result_parser = self.output(member, resource)
        else:
            method.result_type, method.result_parser = self.output(schema, resource)
            # A result the document lets be null is None then (the runtime's _Reader).
            if schema_kinds(target)[1] and method.result_type != "Any":
                method.result_type = f"{method.result_type} | None"


GENERATOR_CONFIG = Path(__file__).resolve().parent.parent / "generator-config.yaml"


def field_prefix(config: Path = GENERATOR_CONFIG) -> str:
    """The generator's `field_prefix` (its config file's, else its default `field_`)."""
    if config.is_file():
        return str(ConfigFile.load_from_path(config).field_prefix)
    return str(ConfigFile().field_prefix)


FIELD_PREFIX = field_prefix()


def model_class(schema: str) -> str:
    """The class the generator makes of a component schema: its `ClassName` with its
    `field_prefix` before a name that is no identifier (`2FAStatus` -> `Field2FAStatus`)."""
    return str(ClassName(schema, FIELD_PREFIX))


CLIENT_SOURCE = Path(__file__).resolve().parent.parent / "src" / "edgedelivery_async" / "_client.py"


def client_methods(source: Path = CLIENT_SOURCE) -> frozenset[str]:
    """The public methods and properties of EdgeDeliveryClient, read from its source, not
    imported (the client imports the resources this script writes): a property added
    there later (`rate_controller`) is reserved with no list to keep in step. A tag of
    that name made a resource that every client then failed to set."""
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == "EdgeDeliveryClient":
            return frozenset(
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and not item.name.startswith("_")
            )
    raise SystemExit(f"emit_sdk: no EdgeDeliveryClient class in {source}")


#: Client attributes a resource may not take: EdgeDeliveryClient's methods and properties,
#: `request` (the escape hatch it sets) and `close`.
RESERVED_RESOURCES = client_methods() | {"close", "request"}
#: Names a generated method's arguments may not take: `self`, the keyword it adds, and the
#: names its body uses (the result parsers, `body_of`, `pairs`).
RESERVED_ARGUMENTS = frozenset(
    {"self", "extra_fields", "body_of", "pairs", "list", "dict", "object"}
    | {"str", "int", "float", "bool", "bytes"}
)
_SYNTHETIC_ID = re.compile(r"^([A-Z]+) (/\S*)$")  # codegen/prepare_spec.py missing_operation_ids


def resource_attribute(tag: dict[str, Any]) -> str:
    """`x-sdk-resource`, else the tag's name in snake_case; never a client attribute."""
    hint = tag.get("x-sdk-resource")
    if hint:
        return _identifier(str(hint))
    name = _identifier(snake_case(str(tag["name"])) or "default")
    return f"{name}_api" if name in RESERVED_RESOURCES else name


def _short_name(operation_id: str) -> str:
    synthetic = _SYNTHETIC_ID.match(operation_id)
    if synthetic:
        return _path_name(*synthetic.groups())
    return _identifier(snake_case(operation_id.rsplit("_", 1)[-1]))


def _long_name(operation_id: str) -> str:
    synthetic = _SYNTHETIC_ID.match(operation_id)
    if synthetic:
        return _path_name(*synthetic.groups())
    return _identifier(snake_case(operation_id))


def _path_name(http_method: str, path: str) -> str:
    """`GET /log/forwarding/{appId}` -> `get_log_forwarding_by_app_id`."""
    words = [http_method.lower()]
    for segment in path.strip("/").split("/"):
        variable = re.fullmatch(r"\{(.+)\}", segment)
        words.append(f"by_{snake_case(variable.group(1))}" if variable else snake_case(segment))
    return _identifier("_".join(word for word in words if word))


def _free(name: str, taken: set[str], joiner: str) -> str:
    """`name`, or `name<joiner>2`, `name<joiner>3`, ...: the first one not taken."""
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}{joiner}{n}", n + 1
    return candidate


def _identifier(name: str) -> str:
    """A valid Python name: other characters become `_`, a leading digit gets `n_`, a
    keyword a trailing `_`. In the NFKC form Python reads identifiers in: `ﬁnd` and `find`
    were two names to the emitter and one to Python, so one method replaced the other (or
    two arguments made a module that does not compile)."""
    name = unicodedata.normalize("NFKC", name)
    name = "".join(c if f"_{c}".isidentifier() else "_" for c in name)
    if not name:
        name = "value"
    if name[0].isdigit():
        name = f"n_{name}"
    if keyword.iskeyword(name):
        name = f"{name}_"
    return name


def _json_media(content: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON media of a `content` map, in any spelling (`application/json` first): the
    runtime's own rule (`edgedelivery_async._media.json_media`), so that a type the runtime
    sends and reads as JSON (`application/json; charset=utf-8`) is JSON to the method too."""
    found: dict[str, Any] | None = runtime_media.json_media(content)
    return found


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a document default can be the argument's default: a value of its own schema
    (prepare_spec drops a parameter default that is not, so this holds for a repaired
    document) and no list or object (no mutable defaults in signatures)."""
    if schema.get("type") in ("array", "object") or isinstance(value, (list, dict)):
        return False
    return breaks_its_schema(value, schema) is None


def _or_none(type_: str) -> str:
    """Optional arguments also take None ("not given", or null where the document allows)."""
    return type_ if type_ == "Any" or type_.endswith("| None") else f"{type_} | None"


def docstring_text(text: str) -> str:
    """Text for a generated docstring: backslashes escaped, no closing triple quote
    inside, and no quote just before the closing one (a tag's description ending in
    '"gadgets"' left the emitted module unparseable)."""
    text = text.replace("\\", "\\\\").replace('"""', "'''")
    return text[:-1] + '\\"' if text.endswith('"') else text


def template_environment(templates_dir: str | Path) -> jinja2.Environment:
    """The emitter's templates, with the filters they use: `docstring` for docstring text
    and `literal` for every string the code holds (an operation id, a wire name)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["docstring"] = docstring_text
    env.filters["literal"] = python_literal
    return env


def python_literal(text: str) -> str:
    """A Python string literal of `text`, exactly: an operation id or a wire name written
    between quotes broke the module (`"`) or changed the name sent (a backslash escape)."""
    return repr(str(text))


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip()


def model_names(package: Path) -> set[str]:
    text = (package / "models" / "__init__.py").read_text(encoding="utf-8")
    return set(re.findall(r"^\s*from \.\S+ import (\w+)$", text, re.M)) | set(
        re.findall(r"^\s+(\w+),$", text, re.M)
    )


@dataclass
class Surface:
    """The names of a committed surface snapshot (`PUBLIC_API.txt`): kept, never renamed."""

    classes: dict[str, str] = field(default_factory=dict)  # resource attribute -> class
    methods: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (resource, name)

    @classmethod
    def read(cls, text: str) -> Surface:
        found = cls()
        for line in text.splitlines():
            resource = re.match(r"^resource (\w+): (\w+)$", line)
            if resource:
                found.classes[resource.group(1)] = resource.group(2)
            method = re.match(r"^method (\w+)\.(\w+)\(.*  # (.+)$", line)
            if method:
                found.methods[method.group(3)] = (method.group(1), method.group(2))
        return found


def with_hints(spec: dict[str, Any], resources: list[Resource]) -> dict[str, Any]:
    """The document with the names chosen written in as hints where the document gives
    none and the plain rule would give another name, so that other readers of the
    shipped document (the CLI) need not repeat the naming rule. Unchanged otherwise."""
    hinted = copy.deepcopy(spec)
    tags = {tag["name"]: tag for tag in hinted.get("tags", [])}
    methods = {m.operation_id: m for r in resources for m in r.methods}
    for item in hinted.get("paths", {}).values():
        for http_method, operation in item.items():
            if http_method not in ("get", "put", "post", "delete", "patch", "head"):
                continue
            tag_name = (operation.get("tags") or ["default"])[0]
            tag = tags.get(tag_name, {"name": tag_name})
            attribute = resource_attribute(tag)
            if attribute != (tag.get("x-sdk-resource") or snake_case(tag_name)):
                if tag_name not in tags:
                    tags[tag_name] = tag
                    hinted.setdefault("tags", []).append(tag)
                tag["x-sdk-resource"] = attribute
            method = methods[operation["operationId"]]
            plain = operation.get("x-sdk-method") or snake_case(
                str(operation["operationId"]).rsplit("_", 1)[-1]
            )
            if method.name != plain:
                operation["x-sdk-method"] = method.name
            renamed = [
                (p, place)
                for place, params in (
                    ("path", method.path_params),
                    ("query", method.query_params),
                    ("header", method.header_params),
                    ("cookie", method.cookie_params),
                )
                for p in params
                if p.python_name != p.plain
            ]
            if renamed:
                parameters = operation["parameters"]
                for param, place in renamed:
                    for i, raw in enumerate(parameters):
                        node = _deref_in(hinted, raw)
                        if node.get("in") == place and node.get("name") == param.wire_name:
                            parameters[i] = {**node, "x-sdk-name": param.python_name}
            paging = pagination(hinted, operation, method)
            if paging is not None:
                operation["x-sdk-pagination"] = paging
            elif "x-sdk-pagination" in operation:
                del operation["x-sdk-pagination"]
            fields = {
                p.wire_name: p.python_name for p in method.body_fields if p.python_name != p.plain
            }
            if fields:
                operation["x-sdk-field-names"] = fields
            if (
                method.body_param is not None
                and method.body_param.python_name != method.body_param.plain
            ):
                operation["x-sdk-body-name"] = method.body_param.python_name
    return hinted


def pagination(
    spec: dict[str, Any], operation: dict[str, Any], method: Method
) -> dict[str, Any] | None:
    """The operation's pagination, resolved (codegen/README.md, Pagination).

    `x-sdk-pagination` on the operation, else the document's own (declared once, it
    applies to every operation that has its page parameter and whose success body has
    its items member, an array); `false` on an operation opts out. Resolved with the
    page argument's Python name and the first page (the parameter's default if valid,
    else its minimum, else 1).
    """
    hint = operation.get("x-sdk-pagination", spec.get("x-sdk-pagination"))
    if not isinstance(hint, dict) or "page" not in hint or "items" not in hint:
        return None
    page = next((p for p in method.query_params if p.wire_name == hint["page"]), None)
    if page is None:
        return None
    result = _success_body(spec, operation)
    properties = result.get("properties", {})
    items = _deref_in(spec, properties.get(hint["items"], {}))
    if items.get("type") != "array":
        return None
    if hint.get("has-more") and hint["has-more"] not in properties:
        return None
    schema: dict[str, Any] = {}
    for raw in operation.get("parameters", []):
        node = _deref_in(spec, raw)
        if node.get("in") == "query" and node.get("name") == hint["page"]:
            schema = _deref_in(spec, node.get("schema", {}))
    first = schema.get("default")
    if not isinstance(first, int) or not _fits(first, schema):
        first = schema.get("minimum", 1)
    resolved = {"page": hint["page"], "page-argument": page.python_name, "items": hint["items"]}
    if hint.get("has-more"):
        resolved["has-more"] = hint["has-more"]
    resolved["first"] = int(first)
    return resolved


def _success_body(spec: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    for status in SUCCESS:
        response = operation.get("responses", {}).get(status)
        if response is not None:
            media = _json_media(_deref_in(spec, response).get("content") or {})
            return _deref_in(spec, (media or {}).get("schema", {}))
    return {}


def _deref_in(spec: dict[str, Any], node: Any) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = spec
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return dict(node)


EMITTED_METHODS = ("get", "put", "post", "delete", "patch", "head")


def left_out(spec: dict[str, Any]) -> list[str]:
    """One line for each operation that gets no method (OPTIONS, TRACE), naming it and
    why: they were left out in silence, though the shipped document keeps them."""
    return [
        f"left out {method.upper()} {path} ({operation.get('operationId')}): no method is"
        f" made for {method.upper()} operations; send it with"
        f" client.request({method.upper()!r}, {path!r})"
        for path, item in spec.get("paths", {}).items()
        for method, operation in item.items()
        if method in ("options", "trace") and isinstance(operation, dict)
    ]


def surface(resources: list[Resource], emitter: Emitter) -> str:
    """The public surface, one line a fact, for `PUBLIC_API.txt`."""
    lines = [
        "# The public API generated from the document. scripts/regenerate.sh writes it;",
        "# `--check` fails when it drifts and marks removals and changes as breaking.",
    ]
    for resource in resources:
        lines.append(f"resource {resource.attribute}: {resource.class_name}")
        for method in resource.methods:
            params = ", ".join(method.signature)
            lines.append(
                f"method {resource.attribute}.{method.name}({params})"
                f" -> {plain_type(method.result_type)}"
                f"  # {method.operation_id}"
            )
            if pagination(emitter.spec, method.operation, method) is not None:
                lines.append(f"iterate {resource.attribute}.{method.name}")
            if method.download:
                lines.append(f"to_file {resource.attribute}.{method.name}")
    for name, schema in sorted(emitter.schemas.items()):
        if "properties" not in schema:
            continue
        required = set(schema.get("required", []))
        for wire, prop in schema["properties"].items():
            mark = " (required)" if wire in required else ""
            hint = model_attribute(wire, prop)  # the model's attribute (codegen/generate.py)
            named = f" as {hint}" if hint else ""
            lines.append(f"field {model_class(name)}.{wire}{named}{mark}")
    return "\n".join(lines) + "\n"


def main(
    document: str,
    package_dir: str,
    templates_dir: str,
    surface_file: str,
    previous_surface: str | None = None,
) -> int:
    spec = load(document)
    package = Path(package_dir)
    previous = None
    if previous_surface and Path(previous_surface).is_file():
        previous = Surface.read(Path(previous_surface).read_text(encoding="utf-8"))
    emitter = Emitter(spec, model_names(package), previous)
    resources = emitter.resources()
    for line in left_out(spec):
        print(line)
    if emitter.problems:
        for problem in emitter.problems:
            print(f"emit_sdk: {problem}", file=sys.stderr)
        return 1
    env = template_environment(templates_dir)
    out = package / "resources"
    out.mkdir(exist_ok=True)
    module = env.get_template("resource.py.jinja")
    for resource in resources:
        (out / f"{resource.attribute}.py").write_text(
            module.render(resource=resource), encoding="utf-8"
        )
    (out / "__init__.py").write_text(
        env.get_template("resources_init.py.jinja").render(resources=resources), encoding="utf-8"
    )
    Path(surface_file).write_text(surface(resources, emitter), encoding="utf-8")
    # The facade validates requests against the document itself, so the package ships it.
    with (package / "openapi.json").open("w", encoding="utf-8") as handle:
        json.dump(with_hints(spec, resources), handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
