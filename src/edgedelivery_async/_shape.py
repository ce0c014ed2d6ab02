"""Cheap checks of a reply against the document's types, before it becomes a model.

A declared member of the wrong JSON type (a string where an integer is declared, an
array where a boolean is), or a number that is not finite, makes the reply invalid.
Everything else stays tolerant: `null` anywhere (the live service sends it where the
reference says nothing), enum values the document does not list, unknown members.
Checkers are compiled once per schema, so the bulk path pays one dict walk per reply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._schema import deref

# A checker appends (member path, what was expected) for each mismatch.
Checker = Callable[[Any, str, list[tuple[str, str]]], None]

# Exact types: `type(True) is bool`, so a boolean is never taken for an integer.
_JSON_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "array": frozenset({list}),
    "object": frozenset({dict}),
}
_cache: dict[int, Checker] = {}
_tests: dict[int, Callable[[Any], bool]] = {}
_MAX_DEPTH = 32
_INFINITY = float("inf")


def problems(schema: dict[str, Any] | None, value: Any) -> list[tuple[str, str]]:
    """Every (member path, expectation) where `value` breaks the types of `schema`."""
    found: list[tuple[str, str]] = []
    if schema is not None:
        checker(schema)(value, "", found)
    return found


def fits(schema: dict[str, Any], value: Any) -> bool:
    """Whether `value` fits the types of `schema`: the fast yes; `problems` says why not."""
    test = _tests.get(id(schema))
    if test is None:
        test = _tests[id(schema)] = _FastTests().test_of(schema)
    try:
        return test(value)
    except RecursionError:  # data nested deeper than Python's stack: the slow path decides
        return False


def checker(schema: dict[str, Any]) -> Checker:
    """The compiled checker of one schema (cached by identity; the document is static)."""
    key = id(schema)
    cached = _cache.get(key)
    if cached is None:
        cached = _compile(schema, 0)
        _cache[key] = cached
    return cached


def _ignore(value: Any, where: str, out: list[tuple[str, str]]) -> None:
    return None


def _kind(node: dict[str, Any]) -> str | None:
    kind = node.get("type")
    if kind is None and "properties" in node:
        return "object"
    return kind if isinstance(kind, str) and kind in _JSON_TYPES else None


def _compile(schema: dict[str, Any], depth: int) -> Checker:
    """A checker for a value of `schema`: its own type, then what is inside it."""
    node = deref(schema)
    kind = _kind(node) if depth <= _MAX_DEPTH else None
    if kind is None:
        return _ignore
    allowed = _JSON_TYPES[kind]
    inner = _inner(node, kind, depth)

    def check(value: Any, where: str, out: list[tuple[str, str]]) -> None:
        if value is None:
            return
        kind_of = type(value)
        if kind_of not in allowed:
            out.append((where, f"a JSON {kind}, not {_json_name(value)}"))
        elif kind_of is float and (value != value or value in (_INFINITY, -_INFINITY)):
            out.append((where, f"a finite number, not {value}"))
        elif inner is not None:
            inner(value, where, out)

    return check


def _inner(node: dict[str, Any], kind: str, depth: int) -> Checker | None:
    """The check of an array's items or an object's declared members, if any.

    Plain members (a string, a number, ...) are tested inline by exact type; only what
    nests, or a value of the wrong type, goes through a further call.
    """
    if kind == "array":
        items = node.get("items")
        if not isinstance(items, dict) or not items:
            return None
        item = _compile(items, depth + 1)
        if item is _ignore:
            return None
        item_types = _plain_types(items)

        def check_items(value: Any, where: str, out: list[tuple[str, str]]) -> None:
            if item_types is not None and all(
                entry is None or type(entry) in item_types for entry in value
            ):
                return
            for index, entry in enumerate(value):
                item(entry, f"{where}[{index}]", out)

        return check_items
    if kind == "object":
        properties: dict[str, Any] = node.get("properties") or {}
        if not properties:
            return None
        plain: dict[str, frozenset[type]] = {}
        plain_lists: dict[str, frozenset[type]] = {}  # arrays of plain items: their types
        full: dict[str, Checker] = {}  # every member's own checker, for the slow path
        nested: dict[str, Checker] = {}
        compiled = False

        def check_members(value: Any, where: str, out: list[tuple[str, str]]) -> None:
            nonlocal compiled
            if not compiled:  # compiled on first use, so recursive schemas terminate
                for name, schema in properties.items():
                    types = _plain_types(schema)
                    full[name] = _compile(schema, depth + 1)
                    items = deref(schema).get("items")
                    item_types = _plain_types(items) if isinstance(items, dict) else None
                    if types is not None:
                        plain[name] = types
                    elif _kind(deref(schema)) == "array" and item_types is not None:
                        plain_lists[name] = item_types
                    elif full[name] is not _ignore:
                        nested[name] = full[name]
                compiled = True
            for name, entry in value.items():
                if entry is None:
                    continue
                types = plain.get(name)
                if types is not None and type(entry) in types and type(entry) is not float:
                    continue
                item_types = plain_lists.get(name)
                if item_types is not None and type(entry) is list:
                    for item in entry:
                        if item is not None and type(item) not in item_types:
                            break
                    else:
                        continue
                member = nested.get(name) if types is None and item_types is None else full[name]
                if member is not None:  # nested, or the slow path that says what is wrong
                    member(entry, f"{where}.{name}" if where else name, out)

        return check_members
    return None


def _plain_types(schema: dict[str, Any]) -> frozenset[type] | None:
    """The exact types of a plain (non-nesting) schema, or None if it nests or is open."""
    node = deref(schema)
    kind = _kind(node)
    if kind is None or kind in ("array", "object"):
        return None
    return _JSON_TYPES[kind]


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


class _FastTests:
    """Compiles a schema into one plain Python function per object schema.

    The bulk path reads thousands of replies of the same few schemas, so each gets
    straight-line code (one `dict.get` and one exact type test per declared member)
    instead of a walk over closures. It only answers yes or no; the closures above
    say what is wrong. Functions are named per schema, so recursive schemas work.
    """

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.names: dict[int, str] = {}
        self.namespace: dict[str, Any] = {}

    def test_of(self, schema: dict[str, Any]) -> Callable[[Any], bool]:
        root = ["def _root(v):", *self._value("v", schema, "    ", 0), "    return True"]
        source = "\n".join([*self.functions, *root])
        exec(source, self.namespace)  # noqa: S102 - our own code, from the document
        test: Callable[[Any], bool] = self.namespace["_root"]
        return test

    def _value(self, var: str, schema: dict[str, Any], pad: str, depth: int) -> list[str]:
        """Lines that `return False` unless `var` (not yet known to be non-null) fits."""
        node = deref(schema)
        kind = _kind(node) if depth <= _MAX_DEPTH else None
        if kind is None:
            return []
        test = self._test(kind, var)
        if kind not in ("object", "array"):  # one line: the type test first, null is rare
            return [f"{pad}if {test} and {var} is not None: return False"]
        lines = [f"{pad}if {var} is not None:", f"{pad}    if {test}: return False"]
        if kind == "object" and node.get("properties"):
            lines.append(f"{pad}    if not {self._object(node, depth)}({var}): return False")
        elif kind == "array" and isinstance(node.get("items"), dict) and node["items"]:
            item = f"i{depth}"
            inner = self._value(item, node["items"], pad + "        ", depth + 1)
            if inner:
                lines.append(f"{pad}    for {item} in {var}:")
                lines.extend(inner)
        return lines

    @staticmethod
    def _test(kind: str, var: str) -> str:
        """An expression true when `var` (not null) is not of the JSON `kind`."""
        if kind == "number":  # int, or a finite float (`x - x` is nan for inf and nan)
            return f"type({var}) is not int and (type({var}) is not float or {var} - {var} != 0)"
        python = {"string": "str", "integer": "int", "boolean": "bool", "array": "list"}
        return f"type({var}) is not {python.get(kind, 'dict')}"

    def _object(self, node: dict[str, Any], depth: int) -> str:
        """The name of the function testing a dict's declared members (compiled once)."""
        name = self.names.get(id(node))
        if name is not None:
            return name
        name = self.names[id(node)] = f"_object{len(self.names)}"
        lines = [f"def {name}(o):", "    g = o.get"]
        for index, (member, schema) in enumerate(node["properties"].items()):
            var = f"m{index}"
            checks = self._value(var, schema, "    ", depth + 1)
            if checks:
                lines.append(f"    {var} = g({member!r})")
                lines.extend(checks)
        lines.append("    return True")
        self.functions.extend(lines)
        return name
