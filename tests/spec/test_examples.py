"""Every request and response example validates against its own schema.

The validator is openapi-schema-validator (independent of the generator and of the facade's
own translation to JSON Schema): OAS30WriteValidator for request bodies (readOnly fields are
refused) and OAS30ReadValidator for response bodies, with `$ref`s resolved against the whole
document and the OpenAPI 3.0 format checker (date-time, int64, ...).
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import (
    OAS30ReadValidator,
    OAS30WriteValidator,
    oas30_format_checker,
)
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from ._document import Example, _load, examples

URI = "urn:edgedelivery:openapi-1.0.0"
REGISTRY: Registry[Any] = Registry().with_resource(
    URI, Resource(contents=_load(), specification=DRAFT4)
)
EXAMPLES = list(examples())


def validator(cls: Any, schema_pointer: str) -> Any:
    return cls(
        {"$ref": f"{URI}#{schema_pointer}"},
        registry=REGISTRY,
        format_checker=oas30_format_checker,
    )


def errors(example: Example, value: Any = None) -> list[str]:
    cls = OAS30WriteValidator if example.kind == "request" else OAS30ReadValidator
    instance = example.value if value is None else value
    found = validator(cls, example.schema_pointer).iter_errors(instance)
    return [f"{list(e.absolute_path)}: {e.message}" for e in found]


def test_there_are_examples_for_every_operation() -> None:
    """Every operation of the reference has examples; held for the reference's operations
    only (see test_document.test_every_body_has_an_example: a style rule of the hand-written
    part of the document; every example there is, validates)."""
    from .test_document import reference_operations

    reference = {o.operation_id for o in reference_operations()}
    assert {e.operation.operation_id for e in EXAMPLES} >= reference
    assert {e.kind for e in EXAMPLES} == {"request", "response"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_validates_against_its_schema(example: Example) -> None:
    assert errors(example) == []


# The checks above would pass vacuously if references did not resolve or keywords were
# ignored; these show that the same validators refuse what the document forbids.
def component(name: str) -> str:
    return f"/components/schemas/{name}"


def refused(cls: Any, name: str, instance: Any) -> bool:
    try:
        validator(cls, component(name)).validate(instance)
    except ValidationError:
        return True
    return False


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("SetForceSslRequest", {"Hostname": "a.example", "ForceSSL": True, "Extra": 1}),
        ("SetForceSslRequest", {"Hostname": "", "ForceSSL": True}),
        ("SetForceSslRequest", {"Hostname": "a.example"}),
        ("SetForceSslRequest", {"hostname": "a.example", "forceSSL": True}),
        ("ContainerTemplateCreate", {"name": "api"}),
        ("ContainerTemplateCreate", {"name": "api", "image": ""}),
        ("ContainerTemplateCreate", {"name": "api", "imageRegistryId": ""}),
        ("ContainerTemplateCreate", {"name": "", "image": "x"}),
        ("ContainerTemplateCreate", {"name": "n" * 51, "image": "x"}),
        ("ContainerTemplateCreate", {"name": "api", "image": "x", "imageTag": "latest!"}),
        ("ContainerTemplateCreate", {"name": "api", "image": "x", "imageName": "a..b/"}),
        ("ContainerTemplateCreate", {"name": "api", "image": "x", "imageNamespace": "-a"}),
        ("ContainerTemplateCreate", {"name": "api", "image": "x", "imageTag": "1.0/x"}),
        ("ContainerTemplateCreate", {"name": "api", "image": "x", "imageDigest": "sha256:ab"}),
        (
            "ContainerTemplateCreate",
            {"name": "api", "image": "x", "imageDigest": "sha256:" + "A" * 64},
        ),
        (
            "ContainerTemplateCreate",
            {"name": "api", "image": "x", "imageDigest": "xsha256:" + "a" * 64},
        ),
        ("EnvironmentVariableMap", {"LOG_LEVEL": 3}),
        ("ScriptVariableCreate", {"Name": "A", "Required": "yes"}),
        ("DnsZoneCreate", {"Domain": "example.com", "Records": [{"Ttl": "300"}]}),
    ],
)
def test_request_validator_refuses(name: str, instance: Any) -> None:
    assert refused(OAS30WriteValidator, name, instance)


def test_request_validator_refuses_read_only_fields() -> None:
    assert refused(OAS30WriteValidator, "ScriptVariable", {"Id": 1, "Name": "A"})
    assert not refused(OAS30ReadValidator, "ScriptVariable", {"Id": 1, "Name": "A"})


@pytest.mark.parametrize(
    "instance",
    [
        {"name": "api", "image": "registry.example.com/team/api:1.4.2"},
        {"name": "a", "imageRegistryId": "reg-1", "imageTag": "1.4.2-rc.1"},
        {"name": "n" * 50, "image": "x", "imageDigest": "sha256:" + "0a" * 32},
    ],
)
def test_request_validator_accepts(instance: Any) -> None:
    assert not refused(OAS30WriteValidator, "ContainerTemplateCreate", instance)


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("ApiErrorData", {"ErrorKey": None, "Field": None, "Message": None}),
        ("ApiErrorData", {}),
        ("ContainerRegistry", {"id": 1, "createdAt": "2026-11-01T08:30:00.1234567Z"}),
        ("ContainerTemplate", {"id": "t", "unknownField": {"any": ["thing"]}}),
        ("ObjectResultError", {"location": None, "value": None, "statusCode": 404}),
        # The live service requires no member of this reply (issue 11): `Id` may be absent.
        ("ScriptVariable", {"Name": "A"}),
    ],
)
def test_response_validator_accepts(name: str, instance: Any) -> None:
    assert not refused(OAS30ReadValidator, name, instance)


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("ApiErrorData", {"ErrorKey": "x", "Unknown": "y"}),
        ("ApiErrorData", {"Message": 3}),
        ("ContainerRegistry", {"id": 1, "createdAt": "yesterday"}),
        ("ScriptVariable", {"Id": "17", "Name": "A"}),
        ("ShieldZoneConfig", {"learningModeUntil": "not a date"}),
    ],
)
def test_response_validator_refuses(name: str, instance: Any) -> None:
    assert refused(OAS30ReadValidator, name, instance)
