"""Prepare the generator's input from the checked-in OpenAPI document.

The checked-in document says what the API reference says. openapi-python-client
0.29.1 mis-generates a few of those constructs without an error (see
shared/notes/openapi-python-client.md), so this step rewrites them into forms it
handles, and nothing else. Each rewrite is a function below with the reason.
The facade enforces the rules that are dropped here.

Usage: python codegen/prepare_spec.py SOURCE.yaml OUTPUT.json
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import yaml

JSON = "application/json"


def keep_only_json_request_bodies(spec: dict[str, Any]) -> None:
    """Several request media types on one body break the generated module.

    `text/json` is dropped with a warning and `application/*+json` yields a second
    body whose literal Content-Type is sent; `application/json` alone is correct.
    """
    for operation in _operations(spec):
        content = operation.get("requestBody", {}).get("content", {})
        for media_type in list(content):
            if media_type != JSON:
                del content[media_type]


def keep_only_json_responses(spec: dict[str, Any]) -> None:
    """A `text/...` response media type makes the generated parser call
    `from_dict(response.text)`, which raises at run time."""
    for operation in _operations(spec):
        for response in operation.get("responses", {}).values():
            content = response.get("content", {})
            for media_type in list(content):
                if media_type != JSON:
                    del content[media_type]


def drop_property_combinators(spec: dict[str, Any]) -> None:
    """A top-level anyOf/oneOf next to `properties` silently drops the other
    properties. It only carries the "image or imageRegistryId non-empty" rule,
    which the facade enforces."""
    for schema in spec["components"]["schemas"].values():
        if "properties" in schema:
            schema.pop("anyOf", None)
            schema.pop("oneOf", None)


def merge_error_body_unions(spec: dict[str, Any]) -> None:
    """Two all-optional error shapes under one status: the generated union always
    picks the first. Merging them into one object with every field of both keeps
    every field readable."""
    schemas = spec["components"]["schemas"]
    for response in _responses(spec):
        media = response.get("content", {}).get(JSON)
        if not media or "anyOf" not in media.get("schema", {}):
            continue
        merged: dict[str, Any] = {"type": "object", "properties": {}}
        for variant in media["schema"]["anyOf"]:
            target = schemas[variant["$ref"].rsplit("/", 1)[1]]
            merged["properties"].update(copy.deepcopy(target.get("properties", {})))
        media["schema"] = merged


def drop_optional_security(spec: dict[str, Any]) -> None:
    """The generator types `client` as `AuthenticatedClient` whenever `security` is
    non-empty, even when `{}` (no credential) is one of its alternatives. The shield
    operations accept an AccessKey but do not require one: without `security` in the
    generator input their `client` is `AuthenticatedClient | Client`, and an
    AuthenticatedClient still sends its AccessKey header."""
    for operation in _operations(spec):
        if {} in operation.get("security", []):
            del operation["security"]


def nullable_everywhere(spec: dict[str, Any]) -> None:
    """The live service sends `null` for members the reference calls plain values, and the
    reference says "not shown" for nullability almost everywhere. Generated models treat a
    null in a non-nullable member as an error (and the old fallback dropped every null), so
    the generator sees every property as nullable: a member sent as null reads `None`,
    an absent one `UNSET`. Requests are still validated against the checked-in document.
    A nullable date-time that does not parse is kept as the raw string by the generated
    union parser, so one odd timestamp never makes the whole object unreadable."""

    def nullable(node: dict[str, Any]) -> dict[str, Any]:
        visit(node)
        if "$ref" in node:
            return {"allOf": [node], "nullable": True}
        if node:  # `{}` (any value) already allows null
            node["nullable"] = True
        return node

    def visit(schema: dict[str, Any]) -> None:
        properties = schema.get("properties", {})
        for name, prop in list(properties.items()):
            properties[name] = nullable(prop)
        items = schema.get("items")
        if isinstance(items, dict) and not _plain(items):
            # A plain item (a string, a number) needs no parsing: a null item passes
            # through the generated list as None; nullable plain items would make the
            # generated code rebuild every list item by item.
            schema["items"] = nullable(items)

    for schema in spec.get("components", {}).get("schemas", {}).values():
        visit(schema)


def mark_secrets(spec: dict[str, Any]) -> None:
    """The generator keeps no `format: password`; its description carries a `[secret]`
    mark instead, which the model template (templates/model.py.jinja) turns into a
    field left out of the model's repr, so a password never shows in a repr or a log."""
    for schema in spec.get("components", {}).get("schemas", {}).values():
        for prop in schema.get("properties", {}).values():
            if prop.get("format") == "password" or prop.get("writeOnly"):
                prop["description"] = (prop.get("description", "") + " [secret]").strip()


def _plain(schema: dict[str, Any]) -> bool:
    """A schema of one plain JSON value: no $ref, no nesting, no format to parse."""
    return (
        "$ref" not in schema
        and schema.get("type") in ("string", "integer", "number", "boolean")
        and "format" not in schema
        and "enum" not in schema
    )


def _operations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for item in spec["paths"].values() for op in item.values() if isinstance(op, dict)]


def _responses(spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(spec.get("components", {}).get("responses", {}).values())
    for operation in _operations(spec):
        found.extend(r for r in operation.get("responses", {}).values() if "$ref" not in r)
    return found


REWRITES = (
    keep_only_json_request_bodies,
    keep_only_json_responses,
    drop_property_combinators,
    merge_error_body_unions,
    drop_optional_security,
    mark_secrets,
    nullable_everywhere,
)


def prepare(spec: dict[str, Any]) -> dict[str, Any]:
    prepared = copy.deepcopy(spec)
    for rewrite in REWRITES:
        rewrite(prepared)
    return prepared


def main(source: str, output: str) -> None:
    with open(source, encoding="utf-8") as handle:
        spec = yaml.safe_load(handle)
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(prepare(spec), handle, indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:])
