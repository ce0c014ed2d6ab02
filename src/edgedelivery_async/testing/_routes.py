"""Routing from the OpenAPI document: raw request path -> operation and path parameters.

Paths, methods, parameters, accepted media types and declared responses all come from a
`Document` (the shipped one unless a test passes another), so the fake cannot drift from it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote

from edgedelivery_async import _schema

from ._document import SUCCESS, Document

Area = Literal["core", "container", "shield"]

_JSON_RE = re.compile(r"^application/(?:[!#$&^_.+\-0-9a-z]+\+)?json$")


@dataclass(frozen=True, slots=True)
class Route:
    """One operation as the fake serves it."""

    operation: _schema.Operation
    # a literal; None where a path parameter is the whole segment; a pattern where
    # parameters sit inside one (`{day}.csv`), its groups in the order of `names`
    segments: tuple[str | re.Pattern[str] | None, ...]
    names: tuple[str, ...]  # the path parameters in order
    area: Area
    media_types: tuple[str, ...]  # request body media types the document lists
    responses: dict[str, bool]  # status key ("204", "2XX", "default") -> declares a body
    styles: dict[str, str]  # query parameter name -> its style ("form", "pipeDelimited", ...)

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
        """Whether the document lists `content_type` for the body, the parameters of both
        ignored (`application/json; charset=utf-8` declared takes `application/json`)."""
        if not content_type:
            return False
        received = content_type.split(";", 1)[0].strip().lower()
        for declared in (kind.split(";", 1)[0].strip() for kind in self.media_types):
            if declared == received:
                return True
            if declared == "application/*+json" and _JSON_RE.match(received):
                return True
        return False

    @property
    def success_key(self) -> str | None:
        """The declared success response: the first of 200, 201, ..., 2XX, else `default`."""
        declared = sorted(k for k in self.responses if len(k) == 3 and k.startswith("2"))
        for key in (*SUCCESS, *declared, "default"):
            if key in self.responses:
                return key
        return None

    @property
    def success_status(self) -> int:
        """The status of a success reply: the declared one; `2XX` or `default` -> 200."""
        key = self.success_key
        return int(key) if key is not None and key.isdigit() else 200

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


def query_string(raw_path: str) -> str:
    """`/a?x=1&y=2#f` -> `x=1&y=2` (still percent-encoded)."""
    return raw_path.split("#", 1)[0].partition("?")[2]


class Router:
    """The routes of one document, most specific first (a literal segment beats a parameter)."""

    def __init__(self, document: Document | None = None) -> None:
        self.document = document or Document()
        built = [self._route(op) for op in self.document.operations.values()]
        built.sort(key=lambda r: tuple(_rank(s) for s in r.segments))
        self.routes: tuple[Route, ...] = tuple(built)
        self._by_id = {route.operation_id: route for route in self.routes}

    def __repr__(self) -> str:
        return f"<Router routes={len(self.routes)}>"

    def resolve(self, method: str, raw_path: str) -> Match | NotAllowed | None:
        """The operation a request reaches, the methods its path allows, or None (unknown).

        HEAD reaches a declared HEAD operation, else the path's GET (answered without a body).
        """
        segments = split_path(raw_path)
        candidates = [
            (route, values)
            for route in self.routes
            if len(route.segments) == len(segments)
            and (values := _values(route, segments)) is not None
        ]
        if not candidates:
            return None
        for lookup in (method, "GET") if method == "HEAD" else (method,):
            for route, values in candidates:
                if route.operation.method == lookup:
                    return Match(route, dict(zip(route.names, values, strict=True)))
        methods = {route.operation.method for route, _ in candidates}
        if "GET" in methods:
            methods.add("HEAD")
        return NotAllowed(tuple(sorted(methods | {"OPTIONS"})))

    def route_for(self, operation_id: str) -> Route:
        """The route of an operationId; KeyError names unknown ids."""
        route = self._by_id.get(operation_id)
        if route is None:
            known = ", ".join(sorted(self._by_id))
            raise KeyError(f"unknown operation id {operation_id!r}; known: {known}")
        return route

    def operation_ids(self) -> tuple[str, ...]:
        """Every operationId of the document."""
        return tuple(self._by_id)

    def _route(self, operation: _schema.Operation) -> Route:
        raw = self.document.raw(operation)
        template = operation.path.split("/")
        names = [name for segment in template for name in _PARAM_RE.findall(segment)]
        content = self.document.deref(raw.get("requestBody", {})).get("content", {})
        return Route(
            operation=operation,
            segments=tuple(_segment(s) for s in template),
            names=tuple(names),
            area=_area(operation.path),
            media_types=tuple(str(m).lower() for m in content),
            responses={
                str(key): bool(self.document.deref(value).get("content"))
                for key, value in raw.get("responses", {}).items()
            },
            styles={p.name: p.style for p in operation.query_params},
        )


@functools.cache
def default_router() -> Router:
    """The router of the shipped document."""
    return Router()


def resolve(method: str, raw_path: str) -> Match | NotAllowed | None:
    """`default_router().resolve`: routing over the shipped document."""
    return default_router().resolve(method, raw_path)


def route_for(operation_id: str) -> Route:
    """The route of an operationId of the shipped document; KeyError names unknown ids."""
    return default_router().route_for(operation_id)


def operation_ids() -> tuple[str, ...]:
    """Every operationId of the shipped document."""
    return default_router().operation_ids()


def deref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow `$ref`s of the shipped document until a real node."""
    return default_router().document.deref(node)


def _values(route: Route, segments: list[str]) -> list[str] | None:
    """The path parameters' values, in order, if the request's segments fit the route's,
    else None. A literal segment matches itself; a path parameter any text but an empty
    one (`/dnszone/` is not `/dnszone/{id}` with an empty id), also inside a segment
    (`/reports/{day}.csv`)."""
    values: list[str] = []
    for segment, template in zip(segments, route.segments, strict=True):
        if template is None:
            if segment == "":
                return None
            values.append(segment)
        elif isinstance(template, str):
            if template != segment:
                return None
        else:
            found = template.fullmatch(segment)
            if found is None:
                return None
            values.extend(found.groups())
    return values


_PARAM_RE = re.compile(r"\{([^{}/]+)\}")


def _segment(template: str) -> str | re.Pattern[str] | None:
    """A template segment as `_values` matches it: the literal, None for a whole
    `{name}`, or a pattern for parameters inside a segment (`{day}.csv`)."""
    parts = _PARAM_RE.split(template)  # literal, name, literal, name, ..., literal
    if len(parts) == 1:
        return template
    if parts == ["", parts[1], ""]:
        return None
    return re.compile("".join(re.escape(p) if i % 2 == 0 else "(.+?)" for i, p in enumerate(parts)))


def _rank(segment: str | re.Pattern[str] | None) -> int:
    """Most specific first: a literal, then parameters inside a segment, then a whole one."""
    return 0 if isinstance(segment, str) else 1 if segment is not None else 2


def _area(path: str) -> Area:
    """The reference's areas: `/mc` container, `/shield` shield, everything else core."""
    if path.startswith("/mc/"):
        return "container"
    if path.startswith("/shield/"):
        return "shield"
    return "core"
