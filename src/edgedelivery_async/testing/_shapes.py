"""Reply shapes: an operation's success reply, reshaped the way the live service may send it.

`FakeEdgeDelivery.reply_next(operation_id, shape)` queues one. The operation answers as
usual first (its stateful handler, or the document's example), and when that answer is a
success the shape rewrites it. Every shape is read from the document, never from code
written per operation:

- `success`: the reply unchanged.
- `failure-in-body`: the success status, with a body for which every `failure` condition
  of the success schema's `x-sdk-result` holds (`error.success` false with a message and an
  error key; a registry `status` other than `saved` with a message in `error`). The
  `value` member is null where the document lets it be null, else left out. Needs
  `failure` conditions.
- `accepted`: 202 with the document's accepted-result example (some members absent).
  Needs a declared 202 response.
- `nulls`: the success body with every member null; an object member (and each object of
  an array of objects) keeps its members, each nulled the same way. Needs a JSON body.
- `unknown-enum`: every member whose schema has an `enum` gets a value the enum does not
  list. Needs such a member in the success schema.
- `lowercase-timestamps`: every `date-time` member written with lowercase `t` and `z`.
  Needs such a member in the success schema.

A shape that does not apply to an operation is refused with a ValueError naming it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from edgedelivery_async._response import holds

from . import _replies as r
from ._document import Document
from ._replies import Reply
from ._routes import Route
from ._samples import example

ReplyShape = Literal[
    "success", "failure-in-body", "accepted", "nulls", "unknown-enum", "lowercase-timestamps"
]
#: Every reply shape, in the order `shapes_for` lists them.
REPLY_SHAPES: tuple[ReplyShape, ...] = (
    "success",
    "failure-in-body",
    "accepted",
    "nulls",
    "unknown-enum",
    "lowercase-timestamps",
)
FAILURE_MESSAGE = "Injected failure."
FAILURE_KEY = "fake.injected_failure"
#: The value an `unknown-enum` string member gets (digits appended if the enum lists it).
UNLISTED = "notInTheDocument"
REDACTED = "<redacted>"
_TIMESTAMP = "2026-01-01t00:00:00z"
_JSON_RE = re.compile(r"^application/(?:[!#$&^_.+\-0-9a-z]+\+)?json$")
_MAX_DEPTH = 16
_MISSING: Any = object()

# A member test: (member name, or None for an array item; its schema, or None) -> applies.
Test = Callable[[str | None, Mapping[str, Any] | None], bool]
# What an applying member becomes: (its schema, or None; its value, or _MISSING) -> value.
Make = Callable[[Mapping[str, Any] | None, Any], Any]


# ---------------------------------------------------------------- applicability
def shapes_for(route: Route, document: Document) -> tuple[ReplyShape, ...]:
    """The reply shapes the document allows for an operation."""
    return tuple(s for s in REPLY_SHAPES if refusal(route, document, s) is None)


def refusal(route: Route, document: Document, shape: str) -> str | None:
    """Why `shape` does not apply to the operation (None: it applies)."""
    if shape not in REPLY_SHAPES:
        return f"unknown reply shape {shape!r}; one of: {', '.join(REPLY_SHAPES)}"
    operation_id = route.operation_id
    if shape == "success":
        return None
    if shape == "accepted":
        if "202" in route.responses and route.success_key != "202":
            return None
        return f"{operation_id} cannot answer 'accepted': the document declares no 202 for it"
    schema = success_schema(route, document)
    if schema is None:
        return f"{operation_id} cannot answer {shape!r}: its success reply has no JSON body"
    if shape == "nulls":
        return None
    if shape == "failure-in-body":
        if _failure_conditions(schema):
            return None
        return (
            f"{operation_id} cannot answer 'failure-in-body': its success schema has no "
            "x-sdk-result failure condition"
        )
    test = _is_enum if shape == "unknown-enum" else _is_timestamp
    if _declares(document, schema, test, 0, set()):
        return None
    what = "enum" if shape == "unknown-enum" else "date-time"
    return f"{operation_id} cannot answer {shape!r}: its success schema has no {what} member"


def success_schema(route: Route, document: Document) -> dict[str, Any] | None:
    """The schema of the success reply's JSON body (None: no JSON body)."""
    key = route.success_key
    raw = document.raw(route.operation)
    response = document.deref(raw.get("responses", {}).get(key, {})) if key else {}
    content: dict[str, Any] = response.get("content") or {}
    media_type = next((m for m in content if _JSON_RE.match(str(m).lower())), None)
    if media_type is None:
        return None
    return document.deref(document.deref(content[media_type]).get("schema", {}))


# ------------------------------------------------------------------- reshaping
def reshape(shape: str, route: Route, document: Document, reply: Reply) -> Reply:
    """A success `reply` of the operation given `shape` (which must apply to it)."""
    if shape == "success":
        return reply
    if shape == "accepted":
        return accepted_reply(route, document)
    schema = success_schema(route, document) or {}
    body = json.loads(reply.body) if reply.body.strip() else None
    if shape == "failure-in-body":
        shaped = _failing(body, schema, document)
    elif shape == "nulls":
        shaped = _nulled(body)
    elif shape == "unknown-enum":
        shaped = _rewrite(document, schema, body, _is_enum, _unlisted, 0)
    else:
        shaped = _rewrite(document, schema, body, _is_timestamp, _lowercase, 0)
    return r.json_reply(reply.status, shaped)


def accepted_reply(route: Route, document: Document) -> Reply:
    """202 with the declared accepted-result example (a sample if there is none)."""
    response = document.deref(document.raw(route.operation)["responses"]["202"])
    content: dict[str, Any] = response.get("content") or {}
    if not content:
        return r.empty_reply(202)
    media_type = next((m for m in content if _JSON_RE.match(str(m).lower())), next(iter(content)))
    media = document.deref(content[media_type])
    body = example(media, document.deref(media.get("schema", {})), document)
    if _JSON_RE.match(str(media_type).lower()):
        return r.json_reply(202, body)
    text = body if isinstance(body, str) else json.dumps(body)
    return Reply(202, (("Content-Type", str(media_type)),), text.encode())


def reports_failure(route: Route, document: Document, reply: Reply) -> bool:
    """Whether a reply says the request did not take effect: a 202, or a failure condition."""
    if reply.status == 202 and route.success_key != "202":
        return True
    schema = success_schema(route, document)
    if schema is None or not reply.body.strip():
        return False
    try:
        body = json.loads(reply.body)
    except ValueError:
        return False
    return any(holds(condition, body) for condition in _failure_conditions(schema))


def redact_passwords(document: Document, schema: Mapping[str, Any] | None, value: Any) -> Any:
    """`value` with every password member replaced: one named `password` (any case), or
    one whose schema has `format: password`."""
    return _rewrite(document, schema, value, _is_password, _redacted, 0, add_absent=False)


# ---------------------------------------------------------------------- shapes
def _failure_conditions(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    rule = schema.get("x-sdk-result")
    if not isinstance(rule, Mapping):
        return []
    return [c for c in rule.get("failure") or () if isinstance(c, Mapping) and c.get("member")]


def _failing(body: Any, schema: Mapping[str, Any], document: Document) -> dict[str, Any]:
    """The body with every failure condition holding and no result in it."""
    shaped: dict[str, Any] = copy.deepcopy(body) if isinstance(body, dict) else {}
    conditions = _failure_conditions(schema)
    chosen: dict[int, set[str]] = {}  # id(holder) -> members set by a condition
    holders: list[tuple[dict[str, Any], Mapping[str, Any] | None]] = []
    for condition in conditions:
        path = [str(name) for name in condition["member"]]
        holder: dict[str, Any] = shaped
        holder_schema: Mapping[str, Any] | None = schema
        for name in path[:-1]:
            inner = _properties(document, holder_schema).get(name)
            if not isinstance(holder.get(name), dict):
                holder[name] = {}
            holder, holder_schema = holder[name], inner
        last = path[-1]
        if last not in _properties(document, holder_schema):
            holder_schema = _declared_elsewhere(document, path) or holder_schema
        member = _properties(document, holder_schema).get(last)
        if "equals" in condition:
            holder[last] = condition["equals"]
        elif "not-in" in condition:
            holder[last] = _not_listed(document, member, list(condition["not-in"]))
        elif condition.get("non-empty"):
            holder[last] = _non_empty(document, member)
        chosen.setdefault(id(holder), set()).add(last)
        if len(path) > 1:
            holders.append((holder, holder_schema))
    for holder, holder_schema in holders:  # a wrapper's message and key, where it has them
        for name, member in _properties(document, holder_schema).items():
            if name in chosen[id(holder)] or holder.get(name):
                continue
            if _facet(document, member, "type") == "string":
                holder[name] = FAILURE_KEY if name.lower().endswith("key") else FAILURE_MESSAGE
    rule = schema.get("x-sdk-result")
    value = str(rule.get("value") or "") if isinstance(rule, Mapping) else ""
    if value and not any(str(c["member"][0]) == value for c in conditions):
        member = _properties(document, schema).get(value)
        if _facet(document, member, "nullable"):
            shaped[value] = None
        else:
            shaped.pop(value, None)
    return shaped


def _declared_elsewhere(document: Document, path: list[str]) -> Mapping[str, Any] | None:
    """The first schema of the document's components that declares the member at `path`:
    the holder of a wrapper member the success schema does not name (`error.success`)."""
    schemas = document.spec.get("components", {}).get("schemas", {})
    for candidate in schemas.values():
        holder: Mapping[str, Any] | None = document.deref(candidate)
        for name in path[:-1]:
            holder = _properties(document, holder).get(name)
            if holder is None:
                break
        if holder is not None and path[-1] in _properties(document, holder):
            return document.deref(holder)
    return None


def _not_listed(document: Document, member: Mapping[str, Any] | None, allowed: list[Any]) -> Any:
    """A value of the member's enum that `allowed` does not list, else a string it lacks."""
    for candidate in _facet(document, member, "enum") or ():
        if candidate is not None and candidate not in allowed:
            return candidate
    return _fresh_string("failed", allowed)


def _non_empty(document: Document, member: Mapping[str, Any] | None) -> Any:
    kind = _facet(document, member, "type")
    if kind == "array":
        return [FAILURE_MESSAGE]
    if kind == "object":
        return {"message": FAILURE_MESSAGE}
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    return FAILURE_MESSAGE


def _nulled(value: Any) -> Any:
    """Every member null; objects (and arrays of objects) keep their shape, nulled inside."""
    if isinstance(value, dict):
        return {name: _nulled(item) for name, item in value.items()}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [_nulled(item) for item in value]
    return None


def _is_enum(name: str | None, schema: Mapping[str, Any] | None) -> bool:
    return schema is not None and bool(schema.get("enum"))


def _is_timestamp(name: str | None, schema: Mapping[str, Any] | None) -> bool:
    return schema is not None and schema.get("format") == "date-time"


def _is_password(name: str | None, schema: Mapping[str, Any] | None) -> bool:
    named = name is not None and name.lower() == "password"
    return named or (schema is not None and schema.get("format") == "password")


def _unlisted(schema: Mapping[str, Any] | None, value: Any) -> Any:
    listed = list((schema or {}).get("enum") or ())
    kind = (schema or {}).get("type")
    numbers = [v for v in listed if isinstance(v, int | float) and not isinstance(v, bool)]
    if kind in ("integer", "number") or (numbers and len(numbers) == len(listed)):
        return max(numbers, default=0) + 1
    if kind == "boolean" or (listed and all(isinstance(v, bool) for v in listed)):
        missing = [b for b in (False, True) if b not in listed]
        return missing[0] if missing else value
    return _fresh_string(UNLISTED, listed)


def _lowercase(schema: Mapping[str, Any] | None, value: Any) -> Any:
    return value.lower() if isinstance(value, str) else _TIMESTAMP


def _redacted(schema: Mapping[str, Any] | None, value: Any) -> Any:
    return REDACTED


def _fresh_string(base: str, taken: list[Any]) -> str:
    text, index = base, 0
    while text in taken:
        index += 1
        text = f"{base}{index}"
    return text


# ----------------------------------------------------------------- walking
def _rewrite(
    document: Document,
    schema: Mapping[str, Any] | None,
    value: Any,
    test: Test,
    make: Make,
    depth: int,
    *,
    add_absent: bool = True,
) -> Any:
    """`value` with `make` applied to every member (and array item) `test` picks.

    The schema guides the walk (properties, array items, additional properties; `allOf`,
    `anyOf` and `oneOf` variants merged); members the schema does not declare are still
    walked, without a schema. With `add_absent`, a declared member that `test` picks and the
    object lacks is added.
    """
    if depth > _MAX_DEPTH * 4:
        return value
    if isinstance(value, dict):
        declared = _properties(document, schema)
        extra = _facet(document, schema, "additionalProperties")
        out: dict[str, Any] = {}
        for name, item in value.items():
            sub = declared.get(name, extra if isinstance(extra, Mapping) else None)
            node = _flat(document, sub)
            if test(name, node):
                out[name] = make(node, item)
            else:
                out[name] = _rewrite(
                    document, sub, item, test, make, depth + 1, add_absent=add_absent
                )
        if add_absent:
            for name, sub in declared.items():
                node = _flat(document, sub)
                made = make(node, _MISSING) if name not in out and test(name, node) else _MISSING
                if made is not _MISSING:
                    out[name] = made
        return out
    if isinstance(value, list):
        items = _facet(document, schema, "items")
        sub = items if isinstance(items, Mapping) else None
        node = _flat(document, sub)
        if test(None, node):
            return [make(node, item) for item in value]
        return [
            _rewrite(document, sub, item, test, make, depth + 1, add_absent=add_absent)
            for item in value
        ]
    return value


def _declares(
    document: Document, schema: Mapping[str, Any] | None, test: Test, depth: int, seen: set[int]
) -> bool:
    """Whether a member (or array item) of the schema, at any depth, passes `test`."""
    node = document.deref(schema) if schema is not None else None
    if node is None or id(node) in seen or depth > _MAX_DEPTH:
        return False
    seen.add(id(node))
    children: list[tuple[str | None, Any]] = list(_properties(document, node).items())
    for keyword in ("items", "additionalProperties"):
        sub = _facet(document, node, keyword)
        if isinstance(sub, Mapping):
            children.append((None, sub))
    for name, sub in children:
        if test(name, _flat(document, sub)):
            return True
        if _declares(document, sub, test, depth + 1, seen):
            return True
    return False


def _variants(node: Mapping[str, Any]) -> list[Any]:
    return [*node.get("allOf", ()), *node.get("anyOf", ()), *node.get("oneOf", ())]


def _properties(
    document: Document, schema: Mapping[str, Any] | None, depth: int = 0
) -> dict[str, Any]:
    """Declared members of a schema, its own first, then those of its variants."""
    if schema is None or depth > _MAX_DEPTH:
        return {}
    node = document.deref(schema)
    found: dict[str, Any] = dict(node.get("properties") or {})
    for variant in _variants(node):
        for name, sub in _properties(document, variant, depth + 1).items():
            found.setdefault(name, sub)
    return found


def _facet(document: Document, schema: Mapping[str, Any] | None, key: str, depth: int = 0) -> Any:
    """A keyword of a schema, or of the first of its variants that has it."""
    if schema is None or depth > _MAX_DEPTH:
        return None
    node = document.deref(schema)
    if key in node:
        return node[key]
    for variant in _variants(node):
        found = _facet(document, variant, key, depth + 1)
        if found is not None:
            return found
    return None


def _flat(document: Document, schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The keywords a member test reads (`enum`, `format`, `type`), through variants."""
    if schema is None:
        return None
    return {
        key: value
        for key in ("enum", "format", "type", "nullable")
        if (value := _facet(document, schema, key)) is not None
    }
