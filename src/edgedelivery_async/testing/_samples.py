"""Success replies read from the document, for operations the fake keeps no state for.

The body is the success response's example (the media type's `example`, else its first
`examples` entry, else the schema's `example`), or else a sample built from the schema:
objects with every property, the first enum value, strings honouring format and length,
numbers within their bounds, arrays with their minimum number of items (at least one),
the first `oneOf`/`anyOf` variant that fits (with a `discriminator`, the property set to
that variant's value).
An example that the schema refuses is replaced by a sample, and a sample never trips the
schema's `x-sdk-result` failure conditions, so the SDK reads the reply as a success.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from . import _replies as r
from ._document import Document
from ._replies import Reply
from ._routes import Route

_JSON_RE = re.compile(r"^application/(?:[!#$&^_.+\-0-9a-z]+\+)?json$")
_MAX_DEPTH = 12
_MOST_NESTED = 100  # value() calls within one another, whatever the depth
_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "email": "user@example.test",
    "hostname": "host.example.test",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.test/",
    "url": "https://example.test/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "byte": "AA==",
    "binary": "AA==",
    "password": "secret",
}
_CATEGORIES = {"CATEGORY_DIGIT": "0", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " "}
_STRINGS = ("string", "a", "A", "1", "a1", "example", "sample")


def success_reply(route: Route, document: Document) -> Reply:
    """The reply an operation answers with when nothing stateful is behind it."""
    status = route.success_status
    key = route.success_key
    raw = document.raw(route.operation)
    response = document.deref(raw.get("responses", {}).get(key, {})) if key else {}
    content: dict[str, Any] = response.get("content") or {}
    if not content:
        return r.empty_reply(status)
    media_type = next((m for m in content if _JSON_RE.match(str(m).lower())), next(iter(content)))
    media = document.deref(content[media_type])
    schema = document.deref(media.get("schema", {}))
    body = example(media, schema, document)
    if _JSON_RE.match(str(media_type).lower()):
        return r.json_reply(status, body)
    text = body if isinstance(body, str) else json.dumps(body)
    return Reply(status, (("Content-Type", str(media_type)),), text.encode())


def example(media: Mapping[str, Any], schema: Mapping[str, Any], document: Document) -> Any:
    """The first of: the media type's example(s), the schema's, a generated sample that fits."""
    candidates: list[Any] = []
    if "example" in media:
        candidates.append(media["example"])
    for entry in (media.get("examples") or {}).values():
        resolved = document.deref(entry)
        if "value" in resolved:
            candidates.append(resolved["value"])
    if "example" in schema:
        candidates.append(schema["example"])
    for candidate in candidates:
        if not document.validate(dict(schema), candidate):
            return candidate
    return sample(schema, document)


def sample(schema: Mapping[str, Any], document: Document) -> Any:
    """A value that fits `schema` (best effort) and reads as a success under `x-sdk-result`."""
    resolved = document.deref(schema)
    value = copy.deepcopy(_Sampler(document).value(resolved, 0))  # may hold document nodes
    rule = resolved.get("x-sdk-result")
    if isinstance(rule, Mapping):
        for condition in rule.get("failure", ()):
            value = _not_failing(value, condition)
    return value


def _discriminated(node: Mapping[str, Any], keyword: str) -> tuple[str, list[str]] | None:
    """A discriminated `oneOf`/`anyOf` of `$ref`s: the property, and each variant's value
    (its key in the discriminator's `mapping`, else its schema's name)."""
    discriminator = node.get("discriminator")
    if not isinstance(discriminator, Mapping):
        return None
    name = discriminator.get("propertyName")
    mapping = discriminator.get("mapping")
    mapping = mapping if isinstance(mapping, Mapping) else {}
    if not isinstance(name, str):
        return None
    values = []
    for variant in node[keyword]:
        ref = variant.get("$ref") if isinstance(variant, Mapping) else None
        if not isinstance(ref, str):
            return None  # (an inline variant has no name to give)
        schema_name = ref.rsplit("/", 1)[-1]
        keys = [key for key, target in mapping.items() if target in (ref, schema_name)]
        values.append(str(keys[0]) if keys else schema_name)
    return name, values


class _Sampler:
    def __init__(self, document: Document) -> None:
        self.document = document
        self._nesting = 0

    def value(self, schema: Mapping[str, Any], depth: int) -> Any:
        """A sample of `schema`; past _MOST_NESTED calls deep, None: a schema that only
        recurses (a required member of its own type, an allOf or oneOf of itself) has no
        finite value, and was a RecursionError out of the fake."""
        if self._nesting >= _MOST_NESTED:
            return None
        self._nesting += 1
        try:
            return self._value(schema, depth)
        finally:
            self._nesting -= 1

    def _value(self, schema: Mapping[str, Any], depth: int) -> Any:
        node = self.document.deref(schema)
        if "example" in node and not self.document.validate(dict(node), node["example"]):
            return node["example"]
        if node.get("enum"):
            return node["enum"][0]
        if "const" in node:
            return node["const"]
        if "default" in node and not self.document.validate(dict(node), node["default"]):
            return node["default"]
        variants = node.get("allOf") or []
        if variants:
            merged = dict(node)
            del merged["allOf"]
            for variant in variants:
                merged = _merge(merged, self.document.deref(variant))
            return self.value(merged, depth)
        for keyword in ("oneOf", "anyOf"):
            if node.get(keyword):
                return self._first_fitting(node, keyword, depth)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or (kind is None and "properties" in node):
            return self._object(node, depth)
        if kind == "array":
            return self._array(node, depth)
        if kind == "string":
            return self._string(node)
        if kind == "integer":
            return _number(node, 1, integer=True)
        if kind == "number":
            return _number(node, 1.5, integer=False)
        if kind == "boolean":
            return True
        if kind is None and node.get("nullable"):
            return None
        return {}

    def _first_fitting(self, node: Mapping[str, Any], keyword: str, depth: int) -> Any:
        """The first variant's sample that fits. With a `discriminator`, the sample of a
        variant has the property set to that variant's value (`_discriminated`) and need
        fit only its variant: JSON Schema knows no discriminator, so a sample fitting two
        variants fails a `oneOf` although the discriminator tells which one it is."""
        base = {k: v for k, v in node.items() if k not in ("oneOf", "anyOf", "discriminator")}
        tagged = _discriminated(node, keyword)
        tried = []
        for number, variant in enumerate(node[keyword]):
            schema = _merge(base, self.document.deref(variant))
            candidate = self.value(schema, depth)
            if tagged is not None and isinstance(candidate, dict):
                name, values = tagged
                candidate = {**candidate, name: values[number]}
                if not self.document.validate(dict(schema), candidate):
                    return candidate
            elif not self.document.validate(dict(node), candidate):
                return candidate
            tried.append(candidate)
        return tried[0]

    def _object(self, node: Mapping[str, Any], depth: int) -> dict[str, Any]:
        properties: Mapping[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or ())
        built: dict[str, Any] = {}
        for name, prop in properties.items():
            resolved = self.document.deref(prop)
            if resolved.get("writeOnly"):
                continue
            if depth >= _MAX_DEPTH and name not in required:
                continue
            built[name] = self.value(resolved, depth + 1)
        extra = node.get("additionalProperties")
        for name in sorted(required - set(built)):
            built[name] = self.value(extra, depth + 1) if isinstance(extra, Mapping) else "string"
        minimum = int(node.get("minProperties", 0))
        index = 0
        while len(built) < minimum:
            index += 1
            schema = extra if isinstance(extra, Mapping) else {}
            built.setdefault(f"key{index}", self.value(schema, depth + 1))
        return built

    def _array(self, node: Mapping[str, Any], depth: int) -> list[Any]:
        count = max(1, int(node.get("minItems", 0)))
        if "maxItems" in node:
            count = min(count, int(node["maxItems"]))
        if depth >= _MAX_DEPTH:
            count = int(node.get("minItems", 0))
        if count < 1:  # (no item to make: a required array of its own schema recursed on)
            return []
        item = self.value(node.get("items") or {}, depth + 1)
        if count > 1 and node.get("uniqueItems") and isinstance(item, str | int):
            return [item if not i else _varied(item, i) for i in range(count)]
        return [item] * count

    def _string(self, node: Mapping[str, Any]) -> str:
        low = int(node.get("minLength", 0))
        high = int(node["maxLength"]) if "maxLength" in node else None
        fmt = node.get("format")
        candidates = [_FORMATS[fmt]] if isinstance(fmt, str) and fmt in _FORMATS else []
        pattern = node.get("pattern")
        matching = from_pattern(pattern) if isinstance(pattern, str) else None
        candidates += [matching] if matching is not None else []
        candidates += list(_STRINGS)
        for candidate in candidates:
            text = _fit_length(candidate, low, high)
            if not self.document.validate(dict(node), text):
                return text
        return _fit_length(candidates[0], low, high)


def from_pattern(pattern: str) -> str | None:
    """The shortest plain string a regular expression matches (None if unsure).

    Reads the pattern with the `re` module's own parser: literals, classes (their first
    member), repeats (their minimum), groups, the first branch, anchors, negative
    lookarounds (skipped: the result is checked against the pattern); anything else
    (positive lookarounds, backreferences) gives None and the caller tries its fixed
    candidates.
    """
    try:
        from re import _parser  # type: ignore[attr-defined]

        text = _from_parsed(_parser.parse(pattern))
    except Exception:
        return None
    return text if text is not None and re.search(pattern, text) else None


def _from_parsed(items: Any) -> str | None:
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name in ("AT", "ASSERT_NOT"):
            continue  # a negative lookaround only excludes; the final search checks it
        elif name == "IN":
            char = _from_class(arg)
            if char is None:
                return None
            out.append(char)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = arg
            part = _from_parsed(sub)
            if part is None:
                return None
            out.append(part * low)
        elif name == "SUBPATTERN":
            part = _from_parsed(arg[-1])
            if part is None:
                return None
            out.append(part)
        elif name == "ATOMIC_GROUP":
            part = _from_parsed(arg)
            if part is None:
                return None
            out.append(part)
        elif name == "BRANCH":
            part = _from_parsed(arg[1][0])
            if part is None:
                return None
            out.append(part)
        else:
            return None
    return "".join(out)


def _from_class(members: Any) -> str | None:
    if members and str(members[0][0]) == "NEGATE":
        excluded = {chr(arg) for op, arg in members[1:] if str(op) == "LITERAL"}
        if len(excluded) != len(members) - 1:
            return None
        return next(c for c in "axyz0" if c not in excluded)
    for op, arg in members:
        name = str(op)
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _CATEGORIES.get(str(arg))
    return None


def _fit_length(text: str, low: int, high: int | None) -> str:
    if len(text) < low:
        text += "x" * (low - len(text))
    return text if high is None else text[: max(high, 0)]


def _number(node: Mapping[str, Any], preferred: float, *, integer: bool) -> Any:
    """A number within the schema's bounds (and a multiple of `multipleOf` where one fits)."""
    nudge = 1 if integer else 0.5
    low: Any = node.get("minimum")
    high: Any = node.get("maximum")
    exclusive_low: Any = node.get("exclusiveMinimum")
    exclusive_high: Any = node.get("exclusiveMaximum")
    if exclusive_low is True and low is not None:  # OpenAPI 3.0: a flag on `minimum`
        low += nudge
    elif _is_number(exclusive_low):  # JSON Schema 2020-12: the bound itself
        low = exclusive_low + nudge
    if exclusive_high is True and high is not None:
        high -= nudge
    elif _is_number(exclusive_high):
        high = exclusive_high - nudge
    value: Any = preferred
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    step: Any = node.get("multipleOf")
    if _is_number(step) and step > 0:
        multiple = math.ceil(value / step) * step
        if high is None or multiple <= high:
            value = multiple
    return int(value) if integer else float(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _varied(item: Any, index: int) -> Any:
    return item + index if isinstance(item, int) else f"{item}{index}"


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Two schemas as one: properties merged one by one, `required` joined, the rest overlaid."""
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        properties = dict(base["properties"])
        for name, prop in extra["properties"].items():
            properties[name] = _merge(properties[name], prop) if name in properties else prop
        merged["properties"] = properties
    if "required" in base and "required" in extra:
        merged["required"] = sorted({*base["required"], *extra["required"]})
    return merged


def _not_failing(value: Any, condition: Mapping[str, Any]) -> Any:
    """`value` changed so that one `x-sdk-result` failure condition does not hold."""
    path = list(condition.get("member") or ())
    if not path or not isinstance(value, dict):
        return value
    holder: Any = value
    for name in path[:-1]:
        if not isinstance(holder, dict) or not isinstance(holder.get(name), dict):
            return value
        holder = holder[name]
    last = path[-1]
    if not isinstance(holder, dict) or last not in holder:
        return value
    found = holder[last]
    if "equals" in condition:
        expected = condition["equals"]
        if type(found) is type(expected) and found == expected:
            holder[last] = _other_than(expected)
    elif "not-in" in condition:
        allowed = list(condition["not-in"])
        if found is not None and found not in allowed and allowed:
            holder[last] = allowed[0]
    elif condition.get("non-empty") and found:
        holder[last] = type(found)() if isinstance(found, str | list | dict | int | float) else None
    return value


def _other_than(value: Any) -> Any:
    """A value of the same type that differs (None where there is no obvious one)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "-other"
    return None
