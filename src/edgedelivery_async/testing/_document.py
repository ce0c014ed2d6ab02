"""The OpenAPI document a fake serves: the shipped one, or one a test passes in.

Everything the fake knows about the API (operations, `$ref` targets, schemas to validate
against) is read through a `Document`, so a fake built over a changed document serves the
changed document. The shipped document is read through `edgedelivery_async._schema`, the
same reading the client uses; another document is read the same way here.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from edgedelivery_async import _schema
from edgedelivery_async._media import json_media, request_media

# How `_schema` reads the shipped document: the methods, the order in which success
# responses are taken (the result before "accepted"); `_schema._parameter` reads a parameter.
METHODS = _schema._METHODS
SUCCESS: tuple[str, ...] = _schema._SUCCESS
Deref = Callable[[Mapping[str, Any]], dict[str, Any]]


#: Keys whose values are data, not schemas: a `$ref` member there is no reference.
_VALUES = frozenset({"example", "default", "enum", "const"})


class Document:
    """An OpenAPI 3.0 document: its operations, `$ref` resolution and schema validation."""

    def __init__(self, spec: Mapping[str, Any] | None = None) -> None:
        shipped = _schema.spec()
        self.shipped = spec is None or spec is shipped or spec == shipped
        self.spec: dict[str, Any] = shipped if self.shipped else copy.deepcopy(dict(spec or {}))

    def __repr__(self) -> str:
        which = "shipped" if self.shipped else "custom"
        return f"<Document {which} operations={len(self.operations)}>"

    @functools.cached_property
    def operations(self) -> dict[str, _schema.Operation]:
        """Every operation, by operationId (for the shipped document: `_schema.operations()`)."""
        if self.shipped:
            return _schema.operations()
        return read_operations(self.spec, self.deref)

    def raw(self, operation: _schema.Operation) -> dict[str, Any]:
        """The operation object of the document, as written."""
        node: dict[str, Any] = self.spec["paths"][operation.path][operation.method.lower()]
        return node

    def deref(self, node: Mapping[str, Any]) -> dict[str, Any]:
        """Follow `$ref`s of the document until a real node."""
        seen: set[str] = set()
        while "$ref" in node:
            ref = str(node["$ref"])
            if ref in seen:
                raise ValueError(f"$ref cycle at {ref}")
            seen.add(ref)
            target: Any = self.spec
            for part in ref.removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node if isinstance(node, dict) else dict(node)

    def check_refs(self) -> None:
        """Every `$ref` of the document followed: a ValueError for a cycle of `$ref`s, a
        LookupError for one that points at nothing (the fake's `document=` refuses both
        at once; a request that met one raised the bare error from the transport). A
        `pattern` that is not a regular expression is a ValueError too (a reply sampled
        for it, or a request checked against it, raised re.error)."""
        todo: list[Any] = [self.spec]
        while todo:
            node = todo.pop()
            if isinstance(node, Mapping):
                if isinstance(node.get("$ref"), str):
                    self.deref(node)
                if isinstance(node.get("pattern"), str):
                    try:
                        re.compile(node["pattern"])
                    except re.error as exc:
                        raise ValueError(f"pattern {node['pattern']!r} is invalid: {exc}") from None
                todo.extend(
                    value
                    for key, value in node.items()
                    if key not in _VALUES and not str(key).startswith("x-")
                )
            elif isinstance(node, list):
                todo.extend(node)

    def validate(self, schema: Mapping[str, Any], instance: Any) -> list[_schema.Problem]:
        """Every way `instance` breaks `schema` (a schema of this document)."""
        if self.shipped:
            return _schema.validate(dict(schema), instance)
        return _schema.validate(self.inline(schema), instance)

    def inline(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """`schema` with every `$ref` replaced by its target (a recursive schema is refused)."""
        inlined: dict[str, Any] = self._inline(dict(schema), ())
        return inlined

    def _inline(self, node: Any, trail: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [self._inline(item, trail) for item in node]
        if not isinstance(node, dict):
            return node
        node = _schema.discriminated(node)  # it reads the variants' `$ref`s
        if isinstance(node.get("$ref"), str):  # a property named `$ref` is a name
            ref = node["$ref"]
            if ref in trail:
                raise ValueError(f"a recursive schema ({ref}) is not supported here")
            target = self._inline(self.deref({"$ref": ref}), (*trail, ref))
            siblings = {k: self._inline(v, trail) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings} if siblings else target
        return {key: self._inline(value, trail) for key, value in node.items()}


def read_operations(
    spec: Mapping[str, Any], deref: Deref | None = None
) -> dict[str, _schema.Operation]:
    """The operations of any document, read as `_schema.operations()` reads the shipped one.

    `_schema` reads only the shipped document, so its loop is repeated here over `spec`;
    a test holds the two readings of the shipped document equal.
    """
    resolve = deref or Document(spec).deref
    found: dict[str, _schema.Operation] = {}
    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            params = [resolve(p) for p in _schema.operation_parameters(item, op, resolve)]
            security = op.get("security", spec.get("security", []))
            request_body = resolve(op.get("requestBody", {}))
            content = request_body.get("content", {})
            media = json_media(content)
            body_kind, body_media = request_media(content)
            result = _success_schema(op, resolve)
            reply, accept = _schema.reply_media(op, resolve)
            found[op["operationId"]] = _schema.Operation(
                operation_id=op["operationId"],
                method=method.upper(),
                path=path,
                path_params=tuple(
                    _schema.path_parameter(p, resolve) for p in params if p["in"] == "path"
                ),
                requires_key=bool(security) and {} not in security,
                body_schema=media["schema"] if media else None,
                query_params=tuple(_schema._parameter(p) for p in params if p["in"] == "query"),
                header_params=tuple(_schema._parameter(p) for p in params if p["in"] == "header"),
                cookie_params=tuple(_schema._parameter(p) for p in params if p["in"] == "cookie"),
                result_schema=result,
                result_rule=(result or {}).get("x-sdk-result"),
                reply=reply,
                accept=accept,
                pagination=_schema.pagination_of(op),
                body_media=body_media,
                body_kind=body_kind,
                body_required=request_body.get("required") is True,
            )
    return found


def _success_schema(op: dict[str, Any], resolve: Deref) -> dict[str, Any] | None:
    responses = op.get("responses", {})
    for status in SUCCESS:
        if status in responses:
            media = json_media(resolve(responses[status]).get("content", {}))
            return resolve(media.get("schema", {})) if media else None
    return None
