"""Walk an example together with its schema: unknown-field injection, date-time
normalization, and the component objects nested inside it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from ._document import resolve

UNKNOWN_KEY = "zzNotInTheDocument"
UNKNOWN_VALUE = {"nested": [1, "two", None, {"deep": True}], "number": 1.5}


def merged(schema: Any) -> dict[str, Any]:
    """The resolved schema; a one-member `allOf`/`oneOf`/`anyOf` (a `$ref` made nullable)
    is its member, and several object shapes become one shape with every field of each
    (what codegen/prepare_spec.py gives the generator for the error-body unions)."""
    schema = resolve(schema) if isinstance(schema, dict) else {}
    for key in ("allOf", "oneOf", "anyOf"):
        variants = schema.get(key)
        if not isinstance(variants, list) or not variants or "properties" in schema:
            continue
        shapes = [merged(variant) for variant in variants]
        if len(shapes) == 1:
            return {**{k: v for k, v in schema.items() if k != key}, **shapes[0]}
        properties: dict[str, Any] = {}
        for shape in shapes:
            properties.update(shape.get("properties", {}))
        if properties:
            return {"type": "object", "properties": properties}
    return schema  # type: ignore[no-any-return]


def inject_unknown(value: Any, schema: Any) -> Any:
    """A copy of `value` with an unknown field added to every object that allows one."""
    schema = merged(schema)
    if isinstance(value, list):
        return [inject_unknown(item, schema.get("items", {})) for item in value]
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties", {})
    out = {key: inject_unknown(item, properties.get(key, {})) for key, item in value.items()}
    extra = schema.get("additionalProperties", True)
    if extra is False:
        return out
    if isinstance(extra, dict) and resolve(extra).get("type") == "string":
        out[UNKNOWN_KEY] = "a value of a key the document does not list"
    else:
        out[UNKNOWN_KEY] = UNKNOWN_VALUE
    return out


def normalize_dates(value: Any, schema: Any) -> Any:
    """A copy of `value` whose date-time strings are datetimes, so that `Z` and `+00:00`
    (which the generated models write) compare equal when they denote the same instant."""
    schema = merged(schema)
    if isinstance(value, list):
        return [normalize_dates(item, schema.get("items", {})) for item in value]
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return {k: normalize_dates(v, properties.get(k, {})) for k, v in value.items()}
    if isinstance(value, str) and schema.get("format") == "date-time":
        return dt.datetime.fromisoformat(value)
    return value


def component_objects(value: Any, schema: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(component name, object) for every object of `value` described by a `$ref`'d component
    schema, the top level included. In an `anyOf`, the variants whose fields cover the object."""
    if isinstance(schema, dict) and "$ref" in schema and isinstance(value, dict):
        yield schema["$ref"].rsplit("/", 1)[1], value
    resolved = resolve(schema) if isinstance(schema, dict) else {}
    if "anyOf" in resolved and isinstance(value, dict):
        for variant in resolved["anyOf"]:
            if set(value) <= set(resolve(variant).get("properties", {})):
                yield from component_objects(value, variant)
        return
    if isinstance(value, list):
        for item in value:
            yield from component_objects(item, resolved.get("items", {}))
    elif isinstance(value, dict):
        properties = resolved.get("properties", {})
        for key, item in value.items():
            if key in properties:
                yield from component_objects(item, properties[key])
