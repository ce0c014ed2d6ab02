"""Nulls in requests (issue 11): every member the document marks nullable may be sent as
null; validation refuses only what the document says is invalid."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from edgedelivery_async import InvalidRequestError
from edgedelivery_async._requests import prepare
from edgedelivery_async._schema import deref, operations, spec


def _nullable(schema: dict[str, Any]) -> bool:
    return bool(schema.get("nullable"))


def _paths(schema: dict[str, Any], example: Any, where: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Paths in `example` whose schema member is nullable."""
    node = deref(schema)
    found: list[tuple[Any, ...]] = []
    if isinstance(example, dict):
        for name, member in node.get("properties", {}).items():
            if name not in example:
                continue
            if _nullable(member):
                found.append((*where, name))
            target = deref(member.get("allOf", [member])[0]) if "allOf" in member else member
            found += _paths(target, example[name], (*where, name))
    elif isinstance(example, list) and isinstance(node.get("items"), dict):
        for index, item in enumerate(example):
            found += _paths(node["items"], item, (*where, index))
    return found


def _examples() -> list[tuple[str, dict[str, Any], tuple[Any, ...]]]:
    cases = []
    for op in operations().values():
        raw = spec()["paths"][op.path][op.method.lower()]
        media = deref(raw.get("requestBody", {})).get("content", {}).get("application/json")
        if not media or op.body_schema is None:
            continue
        example = media.get("example")
        if example is None and media.get("examples"):
            example = deref(next(iter(media["examples"].values())))["value"]
        for path in _paths(op.body_schema, example, ()):
            cases.append((op.operation_id, example, path))
    return cases


CASES = _examples()


def _path_values(operation_id: str) -> dict[str, Any]:
    return {
        p.name: 1 if p.schema.get("type") == "integer" else "x"
        for p in operations()[operation_id].path_params
    }


@pytest.mark.parametrize(
    ("operation_id", "example", "path"),
    CASES,
    ids=[f"{c[0]}:{'.'.join(map(str, c[2]))}" for c in CASES],
)
def test_every_nullable_member_of_an_example_may_be_null(
    operation_id: str, example: Any, path: tuple[Any, ...]
) -> None:
    body = copy.deepcopy(example)
    target = body
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = None
    _, _, content = prepare(operation_id, _path_values(operation_id), body)
    assert content is not None


@pytest.mark.parametrize(
    ("operation_id", "body"),
    [
        ("DnsZone_Add", {"Domain": "example.com", "Records": None}),
        (
            "DnsZone_Add",
            {
                "Domain": "example.com",
                "Records": [
                    {
                        k: None
                        for k in (
                            "Ttl",
                            "Value",
                            "Name",
                            "Weight",
                            "Priority",
                            "Flags",
                            "Tag",
                            "Port",
                            "PullZoneId",
                            "ScriptId",
                            "Accelerated",
                            "GeolocationLatitude",
                            "GeolocationLongitude",
                            "LatencyZone",
                            "Disabled",
                            "EnviromentalVariables",
                            "Comment",
                            "AutoSslIssuance",
                        )
                    }
                ],
            },
        ),
        ("ContainerTemplate_Add", {"name": "api", "image": None, "imageRegistryId": "reg-1"}),
        ("ContainerTemplate_Add", {"name": "api", "image": "nginx", "imageDigest": None}),
        (
            "ContainerTemplate_Add",
            {
                "name": "api",
                "image": "nginx",
                "endpoints": [
                    {
                        "cdn": {
                            "pullZoneId": None,
                            "portMappings": [{"containerPort": 80, "exposedPort": None}],
                        }
                    }
                ],
            },
        ),
    ],
)
def test_the_live_services_nullable_members(operation_id: str, body: Any) -> None:
    prepare(operation_id, _path_values(operation_id), body)


def test_domain_is_still_required() -> None:
    with pytest.raises(InvalidRequestError, match="Domain"):
        prepare("DnsZone_Add", {}, {"Records": None})
