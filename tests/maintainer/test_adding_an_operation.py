"""Issue 10's proof: an operation added to the document, regenerated, works everywhere.

On a copy of the project, one operation with a path parameter, query parameters and a
header parameter is
added to the document and `scripts/regenerate.sh` is run. With no hand-written line, the
new operation is then a typed method on the client, served by the fake, and a command of
the CLI; the copy's own code is exercised in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import yaml

from ._copies import run_in_copy

ROOT = Path(__file__).resolve().parents[2]

NEW_OPERATION = {
    "get": {
        "operationId": "PullZone_Get",
        "tags": ["Pull Zone"],
        "summary": "Get a pull zone",
        "security": [{"AccessKey": []}],
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            {
                "name": "includeCertificate",
                "in": "query",
                "schema": {"type": "boolean", "default": False},
            },
            {
                "name": "fields",
                "in": "query",
                "explode": False,
                "schema": {"type": "array", "items": {"type": "string"}},
            },
            {"name": "X-Trace-Tag", "in": "header", "schema": {"type": "string"}},
        ],
        "responses": {
            "200": {
                "description": "The pull zone.",
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/PullZoneSummary"},
                        "example": {"Id": 42, "Name": "zone-42", "Enabled": True},
                    }
                },
            }
        },
    }
}
LIST_OPERATION = {  # a bare array of the model, as the live documents' list operations reply
    "get": {
        "operationId": "PullZone_List",
        "tags": ["Pull Zone"],
        "summary": "List pull zones",
        "security": [{"AccessKey": []}],
        "responses": {
            "200": {
                "description": "The pull zones.",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/PullZoneSummary"},
                        },
                        "example": [{"Id": 1, "Name": "a"}, {"Id": 2, "Name": "b", "New": 1}],
                    }
                },
            }
        },
    }
}
LONG_ID = "PullZone_" + "GetWithAVeryLongName" * 12  # 249 characters: past a file name
LONG_OPERATION = {
    "get": {
        "operationId": LONG_ID,
        "tags": ["Pull Zone"],
        "security": [{"AccessKey": []}],
        "responses": {
            "200": {
                "description": "An inline object (the generator names a model after the id).",
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "properties": {"Id": {"type": "integer"}}},
                        "example": {"Id": 7},
                    }
                },
            }
        },
    }
}
NEW_SCHEMA = {
    "type": "object",
    "properties": {
        "Id": {"type": "integer", "format": "int64"},
        "Name": {"type": "string"},
        "Enabled": {"type": "boolean"},
    },
}

SCRIPT = textwrap.dedent(
    """
    import asyncio, contextlib, io, json, threading
    import httpx
    from edgedelivery_async import EdgeDeliveryClient, InvalidRequestError
    from edgedelivery_async.testing import FakeEdgeDelivery
    from edgedelivery_openapi.models import PullZoneSummary

    fake = FakeEdgeDelivery(access_key="k")

    async def main():
        http = httpx.AsyncClient(transport=fake)
        async with EdgeDeliveryClient("k", "https://fake.test", http_client=http) as client:
            zone = await client.pull_zones.get(
                42, include_certificate=True, fields=["a", "b,c"], x_trace_tag="t-1"
            )
            assert isinstance(zone, PullZoneSummary), zone
            assert (zone.id, zone.name, zone.enabled) == (42, "zone-42", True)
            same = await client.call("PullZone_Get", 42)
            assert same.name == "zone-42"
            assert await client.call("PullZone_" + "GetWithAVeryLongName" * 12) == {"Id": 7}
            zones = await client.pull_zones.list()
            assert [type(z) for z in zones] == [PullZoneSummary] * 2, zones
            assert [z.name for z in zones] == ["a", "b"]
            assert zones[1].additional_properties == {"New": 1}
            try:
                await client.pull_zones.get(42, include_certificate="yes")
            except InvalidRequestError as error:
                assert "includeCertificate" in str(error)
            else:
                raise AssertionError("an invalid query value was sent")
        sent = fake.requests_for("PullZone_Get")
        # explode false: the delimiter is a plain comma, a comma inside a value is encoded
        assert sent[0].path == "/pullzone/42?includeCertificate=true&fields=a,b%2Cc", sent[0].path
        assert sent[0].headers["x-trace-tag"] == "t-1", sent[0].headers

    asyncio.run(main())

    # The CLI, against the fake on loopback.
    from edgedelivery_async.cli._app import run
    ready, stop = threading.Event(), None
    box = {}
    def serve():
        async def inner():
            async with fake.serve() as url:
                box["url"] = url
                ready.set()
                while not box.get("stop"):
                    await asyncio.sleep(0.05)
        asyncio.run(inner())
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(10)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run(
            ["--base-url", box["url"], "--access-key", "k", "pull-zones", "get", "42",
             "--x-trace-tag", "t-2"]
        )
    listed = io.StringIO()
    with contextlib.redirect_stdout(listed):
        listed_code = run(["--base-url", box["url"], "--access-key", "k", "pull-zones", "list"])
    box["stop"] = True
    thread.join(5)
    assert code == 0, code
    assert json.loads(out.getvalue())["Name"] == "zone-42", out.getvalue()
    assert fake.requests_for("PullZone_Get")[-1].headers["x-trace-tag"] == "t-2"
    assert listed_code == 0, listed_code
    assert [z["Name"] for z in json.loads(listed.getvalue())] == ["a", "b"], listed.getvalue()
    print("ok")
    """
)


def test_a_new_operation_needs_no_hand_written_line(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    copy: Path = project_copy.copy_project(tmp_path / "project", extra=("src",))
    document = copy / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.safe_load(document.read_text(encoding="utf-8"))
    spec["paths"]["/pullzone/{id}"] = NEW_OPERATION
    spec["paths"]["/pullzone"] = LIST_OPERATION
    spec["paths"]["/pullzone/long"] = LONG_OPERATION
    spec["components"]["schemas"]["PullZoneSummary"] = NEW_SCHEMA
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    before = {path.relative_to(copy) for path in (copy / "src").rglob("*.py")}

    env = {**os.environ, "PYTHON": sys.executable}
    generated = subprocess.run(
        ["bash", "scripts/regenerate.sh"], cwd=copy, env=env, capture_output=True, text=True
    )
    assert generated.returncode == 0, generated.stderr

    surface = (copy / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    assert "method pull_zones.get(id: int" in surface or "method pull_zones.get(" in surface
    assert "method pull_zones.list() -> list[PullZoneSummary]" in surface
    assert {path.relative_to(copy) for path in (copy / "src").rglob("*.py")} == before

    ran = run_in_copy(copy, SCRIPT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip().endswith("ok")
