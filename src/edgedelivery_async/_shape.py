"""Cheap checks of a reply against the document's types, before it becomes a model.

A declared member of the wrong JSON type (a string where an integer is declared, an
array where a boolean is), or a number that is not finite, makes the reply invalid.
Everything else stays tolerant: `null` anywhere (the live service sends it where the
reference says nothing), enum values the document does not list, unknown members.
Checkers are compiled once per schema, so the bulk path pays one dict walk per reply.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._schema import deref

# A checker appends (member path, what was expected) for each mismatch.
Checker = Callable[[Any, str, list[tuple[str, str]]], None]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
_cache: dict[int, Checker] = {}
_MAX_DEPTH = 32


def problems(schema: dict[str, Any] | None, value: Any) -> list[tuple[str, str]]:
    """Every (member path, expectation) where `value` breaks the types of `schema`."""
    found: list[tuple[str, str]] = []
    if schema is not None:
        checker(schema)(value, "", found)
    return found


def checker(schema: dict[str, Any], depth: int = 0) -> Checker:
    """The compiled checker of one schema (cached by identity; the document is static)."""
    key = id(schema)
    cached = _cache.get(key)
    if cached is None:
        cached = _compile(schema, depth)
        _cache[key] = cached
    return cached


def _ignore(value: Any, where: str, out: list[tuple[str, str]]) -> None:
    return None


def _compile(schema: dict[str, Any], depth: int) -> Checker:
    node = deref(schema)
    if depth > _MAX_DEPTH:
        return _ignore
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        return _object(node, depth)
    if kind == "array":
        return _array(node, depth)
    if kind in _JSON_TYPES:
        return _scalar(kind)
    return _ignore


def _scalar(kind: str) -> Checker:
    allowed = _JSON_TYPES[kind]
    reject_bool = kind in ("integer", "number")

    def check(value: Any, where: str, out: list[tuple[str, str]]) -> None:
        if value is None:
            return
        if not isinstance(value, allowed) or (reject_bool and isinstance(value, bool)):
            out.append((where, f"a JSON {kind}, not {_json_name(value)}"))
        elif isinstance(value, float) and not math.isfinite(value):
            out.append((where, f"a finite number, not {value}"))

    return check


def _array(node: dict[str, Any], depth: int) -> Checker:
    items = node.get("items")
    inner = _compile(items, depth + 1) if isinstance(items, dict) and items else _ignore

    def check(value: Any, where: str, out: list[tuple[str, str]]) -> None:
        if value is None:
            return
        if not isinstance(value, list):
            out.append((where, f"a JSON array, not {_json_name(value)}"))
            return
        if inner is not _ignore:
            for index, item in enumerate(value):
                inner(item, f"{where}[{index}]", out)

    return check


def _object(node: dict[str, Any], depth: int) -> Checker:
    members: dict[str, Checker] = {}

    def check(value: Any, where: str, out: list[tuple[str, str]]) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            out.append((where, f"a JSON object, not {_json_name(value)}"))
            return
        if not members and properties:
            for name, schema in properties.items():  # compiled on first use (recursive schemas)
                members[name] = _compile(schema, depth + 1)
        for name, member in members.items():
            if name in value:
                member(value[name], f"{where}.{name}" if where else name, out)

    properties: dict[str, Any] = node.get("properties") or {}
    return check


def _json_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
