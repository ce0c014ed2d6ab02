"""Request bodies are sent in the media type the document gives (issue 20, item 5): a JSON
spelling other than application/json as itself, `text/plain` from a str,
`application/octet-stream` from bytes or a binary file, `multipart/form-data` from bytes with
the boundary of their first line. On a copy of the project, three
such operations are added and regenerated; the copy's client sends them on an httpx mock
and against the fake."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from ._copies import run_in_copy

ROOT = Path(__file__).resolve().parents[2]
DONE = {"204": {"description": "Done."}}


def _operation(operation_id: str, media: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "tags": ["Compute"],
        "security": [{"AccessKey": []}],
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
        ],
        "requestBody": {"required": True, "content": {media: {"schema": schema}}},
        "responses": DONE,
    }


SCRIPT = textwrap.dedent(
    """
    import asyncio, io, json
    import httpx
    from edgedelivery_async import EdgeDeliveryClient, InvalidRequestError
    from edgedelivery_async.testing import FakeEdgeDelivery

    seen = []
    FORM = b'--b0und\\r\\nContent-Disposition: form-data; name="a"\\r\\n\\r\\n1'
    FORM += b"\\r\\n--b0und--\\r\\n"

    def reply(request):
        seen.append((request.headers["content-type"], request.content))
        return httpx.Response(204)

    async def main():
        mock = httpx.AsyncClient(transport=httpx.MockTransport(reply))
        async with EdgeDeliveryClient("k", "https://api.test", http_client=mock) as client:
            await client.compute.set_code(7, "export default 1;")
            await client.compute.upload(7, b"\\x00\\x01")
            await client.compute.upload(7, io.BytesIO(b"file"))
            await client.compute.set_json(7, name="x")
            await client.compute.set_form(7, FORM)
            for call in (lambda: client.compute.set_code(7, b"no"),
                         lambda: client.compute.upload(7, "no"),
                         lambda: client.compute.set_form(7, b"no boundary line")):
                try:
                    await call()
                except InvalidRequestError as error:
                    assert "body" in str(error) or "must be" in str(error), error
                else:
                    raise AssertionError("a body of the wrong kind was sent")
        assert seen == [
            ("text/plain", b"export default 1;"),
            ("application/octet-stream", b"\\x00\\x01"),
            ("application/octet-stream", b"file"),
            ("text/json", b'{"Name":"x"}'),
            ("multipart/form-data; boundary=b0und", FORM),
        ], seen
        fake = FakeEdgeDelivery(access_key="k")
        http = httpx.AsyncClient(transport=fake)
        async with EdgeDeliveryClient("k", "https://fake.test", http_client=http) as client:
            assert await client.compute.set_code(7, "x") is None
            assert await client.compute.upload(7, b"x") is None
            assert await client.compute.set_json(7, name="x") is None
            assert await client.compute.set_form(7, FORM) is None

    asyncio.run(main())

    # The command line takes the text/json body's fields as options, as for application/json
    import contextlib
    from edgedelivery_async.cli import main as cli
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert cli(["compute", "set-json", "--help"]) == 0
    assert "--name" in shown.getvalue(), shown.getvalue()
    print("ok")
    """
)


def test_request_bodies_go_in_the_declared_media_type(
    tmp_path: Path, project_copy: ModuleType
) -> None:
    copy: Path = project_copy.copy_project(tmp_path / "project", extra=("src",))
    document = copy / "openapi" / "edge-delivery-1.0.0.yaml"
    spec = yaml.safe_load(document.read_text(encoding="utf-8"))
    text = {"type": "string"}
    binary = {"type": "string", "format": "binary"}
    named = {"type": "object", "properties": {"Name": {"type": "string"}}}
    spec["paths"]["/compute/script/{id}/code"] = {
        "post": {**_operation("Script_SetCode", "text/plain", text), "x-sdk-method": "set_code"}
    }
    spec["paths"]["/compute/script/{id}/upload"] = {
        "put": _operation("Script_Upload", "application/octet-stream", binary)
    }
    spec["paths"]["/compute/script/{id}/json"] = {
        "put": {**_operation("Script_SetJson", "text/json", named), "x-sdk-method": "set_json"}
    }
    # multipart/form-data from bytes the caller built: sent with the boundary of its first
    # line (the bare media type was sent, which no server can split), else refused.
    form = {"type": "object", "properties": {"a": {"type": "string"}}}
    spec["paths"]["/compute/script/{id}/form"] = {
        "put": {
            **_operation("Script_SetForm", "multipart/form-data", form),
            "x-sdk-method": "set_form",
        }
    }
    document.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    env = {**os.environ, "PYTHON": sys.executable}
    command = ["bash", "scripts/regenerate.sh"]
    ran = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    surface = (copy / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    assert "method compute.set_code(id: int, body: str) -> None" in surface
    assert "method compute.upload(id: int, body: bytes | IO[bytes]) -> None" in surface

    run = run_in_copy(copy, SCRIPT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("ok")
