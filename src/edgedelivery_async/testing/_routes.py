"""Routing from the OpenAPI document: raw request path -> operation and path parameters.

Paths, methods, parameter schemas and accepted media types all come from the shipped
document (`edgedelivery_async._schema`), so the fake cannot drift from it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote

from edgedelivery_async import _schema

Area = Literal["core", "container", "shield"]

_JSON_RE = re.compile(r"^application/(?:[!#$&^_.+\-0-9a-z]+\+)?json$")


@dataclass(frozen=True, slots=True)
class Route:
    """One operation as the fake serves it."""

    operation: _schema.Operation
    segments: tuple[str | None, ...]  # a literal, or None where a path parameter sits
    names: tuple[str, ...]  # the path parameters in order
    area: Area
    media_types: tuple[str, ...]  # request body media types the document lists
    responses: dict[str, bool]  # status key ("204", "2XX", "default") -> declares a body

    @property
    def operation_id(self) -> str:
        """The operationId of the document."""
        return self.operation.operation_id

    def declares(self, status: int) -> bool:
        """Whether the document allows this status for the operation."""
        return self._response_key(status) is not None

    def allows_body(self, status: int) -> bool:
        """Whether an error reply with this status carries the family's body.

        A status declared without content gets none, and so does an undeclared one; a
        `default` response without content leaves the body open, so the family's is sent.
        """
        key = self._response_key(status)
        return key is not None and (key == "default" or self.responses[key])

    def accepts(self, content_type: str | None) -> bool:
        """Whether the document lists `content_type` (parameters ignored) for the body."""
        if not content_type:
            return False
        received = content_type.split(";", 1)[0].strip().lower()
        for declared in self.media_types:
            if declared == received:
                return True
            if declared == "application/*+json" and _JSON_RE.match(received):
                return True
        return False

    def _response_key(self, status: int) -> str | None:
        for key in (str(status), f"{status // 100}XX", "default"):
            if key in self.responses:
                return key
        return None


@dataclass(frozen=True, slots=True)
class Match:
    """A request path resolved to an operation, with its decoded path parameters."""

    route: Route
    params: dict[str, Any]  # decoded strings from `resolve`; typed values once validated


@dataclass(frozen=True, slots=True)
class NotAllowed:
    """A known path asked with a method the document does not list for it."""

    allowed: tuple[str, ...]


def split_path(raw_path: str) -> list[str]:
    """`/mc/apps/a%2Fb/containers?x=1` -> `["", "mc", "apps", "a/b", "containers"]`."""
    path = raw_path.split("?", 1)[0].split("#", 1)[0]
    return [unquote(segment) for segment in path.split("/")]


def resolve(method: str, raw_path: str) -> Match | NotAllowed | None:
    """The operation a request reaches, the methods its path allows, or None (unknown path)."""
    segments = split_path(raw_path)
    candidates = [
        route
        for route in _routes()
        if len(route.segments) == len(segments) and _fits(route, segments)
    ]
    if not candidates:
        return None
    lookup = "GET" if method == "HEAD" else method
    for route in candidates:
        if route.operation.method == lookup:
            params = {
                name: segment
                for name, segment in zip(
                    route.names,
                    (s for s, t in zip(segments, route.segments, strict=True) if t is None),
                    strict=True,
                )
            }
            return Match(route, params)
    methods = {route.operation.method for route in candidates}
    if "GET" in methods:
        methods.add("HEAD")
    return NotAllowed(tuple(sorted(methods | {"OPTIONS"})))


def route_for(operation_id: str) -> Route:
    """The route of an operationId; KeyError names unknown ids."""
    for route in _routes():
        if route.operation_id == operation_id:
            return route
    known = ", ".join(sorted(r.operation_id for r in _routes()))
    raise KeyError(f"unknown operation id {operation_id!r}; known: {known}")


def operation_ids() -> tuple[str, ...]:
    """Every operationId of the document."""
    return tuple(route.operation_id for route in _routes())


def _fits(route: Route, segments: list[str]) -> bool:
    return all(t is None or t == s for s, t in zip(segments, route.segments, strict=True))


@functools.cache
def _routes() -> tuple[Route, ...]:
    """All routes, most specific first (a literal segment beats a parameter)."""
    spec = _schema.spec()
    built = []
    for operation in _schema.operations().values():
        raw: dict[str, Any] = spec["paths"][operation.path][operation.method.lower()]
        template = operation.path.split("/")
        segments = tuple(None if _is_param(s) else s for s in template)
        names = tuple(s[1:-1] for s in template if _is_param(s))
        content = raw.get("requestBody", {}).get("content", {})
        responses = {
            str(key): bool(deref(value).get("content"))
            for key, value in raw.get("responses", {}).items()
        }
        built.append(
            Route(
                operation=operation,
                segments=segments,
                names=names,
                area=_area(operation.path),
                media_types=tuple(str(m).lower() for m in content),
                responses=responses,
            )
        )
    built.sort(key=lambda r: tuple(s is None for s in r.segments))
    return tuple(built)


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _area(path: str) -> Area:
    """The reference's areas: `/mc` container, `/shield` shield, everything else core."""
    if path.startswith("/mc/"):
        return "container"
    if path.startswith("/shield/"):
        return "shield"
    return "core"


def deref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow `$ref`s of the document until a real node."""
    while "$ref" in node:
        target: Any = _schema.spec()
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node
