"""A maintainer adds an operation and a response field, regenerates, and these tests pass
unchanged (issue 10, item 7).

In a copy of the repository, the document gains `GET /pullzone/{id}` (query parameters of
every kind: boolean with a default, bounded integer, string, enum, exploded and unexploded
arrays; a header parameter; a new response model) and `ContainerRegistry` gains a field.
`scripts/regenerate.sh` rewrites the copy's generated package, and the copy's tests/spec run
against it: the new operation is called through the client with its query string and
header, its example round-trips, its method and snapshot line are checked, and nothing
written for the nine operations of the reference fails because of the addition.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

NEW_ID = "PullZonePublic_GetPullZone"
SPEC = "openapi/edge-delivery-1.0.0.yaml"

NEW_OPERATION: dict[str, Any] = {
    "operationId": NEW_ID,
    "tags": ["Pull Zone"],
    "summary": "Get a pull zone",
    "description": "Returns one pull zone (added by a test, not in the reference).",
    "security": [{"AccessKey": []}],
    "parameters": [
        {
            "name": "id",
            "in": "path",
            "required": True,
            "schema": {"type": "integer", "format": "int64"},
        },
        {
            "name": "includeCertificate",
            "in": "query",
            "schema": {"type": "boolean", "default": False},
        },
        {
            "name": "limit",
            "in": "query",
            "required": True,
            "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
        },
        {"name": "search", "in": "query", "schema": {"type": "string"}},
        {"name": "mode", "in": "query", "schema": {"type": "string", "enum": ["full", "brief"]}},
        {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
        {
            "name": "fields",
            "in": "query",
            "explode": False,
            "schema": {"type": "array", "items": {"type": "integer"}},
        },
        {"name": "X-Request-Tag", "in": "header", "schema": {"type": "string"}},
    ],
    "responses": {
        "200": {
            "description": "The pull zone.",
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/PullZone"},
                    "example": {
                        "Id": 7,
                        "Name": "zone",
                        "Hostnames": [{"Value": "cdn.example.com", "ForceSSL": True}],
                    },
                }
            },
        },
        "default": {
            "description": "The pull zone could not be read.",
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/ApiErrorData"},
                    "example": {"ErrorKey": "pullzone.not_found", "Field": None, "Message": "no"},
                }
            },
        },
    },
}
NEW_SCHEMAS = {
    "PullZone": {
        "type": "object",
        "properties": {
            "Id": {"type": "integer", "format": "int64", "readOnly": True},
            "Name": {"type": "string"},
            "Hostnames": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/PullZoneHostname"},
            },
        },
    },
    "PullZoneHostname": {
        "type": "object",
        "properties": {"Value": {"type": "string"}, "ForceSSL": {"type": "boolean"}},
    },
}


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env={**os.environ, "PYTHON": sys.executable, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def add_to_document(root: Path) -> None:
    path = root / SPEC
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["paths"].setdefault("/pullzone/{id}", {})["get"] = NEW_OPERATION
    spec["components"]["schemas"].update(NEW_SCHEMAS)
    # A response field the reference does not have, in the schema and in its example.
    spec["components"]["schemas"]["ContainerRegistry"]["properties"]["region"] = {"type": "string"}
    get = spec["paths"]["/mc/registries/{registryId}"]["get"]
    get["responses"]["2XX"]["content"]["application/json"]["example"]["region"] = "de"
    path.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")


def test_an_added_operation_passes_the_spec_tests_unchanged(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    root: Path = project_copy.copy_project(tmp_path / "repo", extra=("tests/spec",))
    add_to_document(root)

    regenerated = run(["bash", "scripts/regenerate.sh"], root)
    assert regenerated.returncode == 0, regenerated.stderr
    surface = (root / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    assert f"# {NEW_ID}" in surface
    assert "field ContainerRegistry.region" in surface

    tests = run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-v",
            "-rfE",
            "-p",
            "no:cacheprovider",
            "tests/spec",
            "--ignore=tests/spec/test_regenerate.py",
            "--ignore=tests/spec/test_new_operation.py",
        ],
        root,
        # The copy's generated package comes first on the path, before the installed one.
        PYTHONPATH=str(root / "generated"),
    )
    assert tests.returncode == 0, tests.stdout[-6000:] + tests.stderr[-2000:]
    # The new operation was exercised by the tests that read the document's operations.
    for test in (
        "test_endpoints.py::test_arguments_follow_the_document",
        "test_endpoints.py::test_request_on_the_wire",
        "test_endpoints.py::test_without_a_key",
        "test_endpoints.py::test_documented_error_statuses_raise",
        "test_generated_package.py::test_public_api_lists_every_operation",
        "test_models.py::test_response_model_round_trips",
    ):
        passed = [line for line in tests.stdout.splitlines() if test in line and NEW_ID in line]
        assert passed, test
        assert all("PASSED" in line for line in passed), passed
