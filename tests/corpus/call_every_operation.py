"""Call every operation of the shipped document through the client against the fake.

Run in a project copy (`PYTHONPATH=src:generated`); prints one JSON object: the
operations that worked, those that raised one of the SDK's own errors (with the error),
and those that raised anything else (with the traceback). Everything comes from the
document: arguments are the CLI's reading of it (the generated names, hints included)
and values are the fake's own samples of each schema (`edgedelivery_async.testing._calls`).
The fake's stateful operations get a seeded resource: their ids are the seeded ones.

Usage: python call_every_operation.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from edgedelivery_async import EdgeDeliveryClient, EdgeDeliveryError, _schema
from edgedelivery_async.cli import _document as cli_document
from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._calls import document_call
from edgedelivery_async.testing._document import Document

KEY = "corpus-key"
Arguments = tuple[tuple[Any, ...], dict[str, Any]]


def _template(fake: FakeEdgeDelivery) -> Arguments:
    app = fake.add_app()
    return (app, fake.add_template(app), {"LOG_LEVEL": "debug"}), {}


def _pull_zone_with_shield(fake: FakeEdgeDelivery) -> Arguments:
    pull_zone = fake.add_pull_zone()
    fake.add_shield_zone(pull_zone)
    return (pull_zone,), {}


#: The fake's stateful operations reach a stored resource only with seeded ids; every
#: other operation is called with arguments read from the document.
SEEDS: dict[str, Callable[[FakeEdgeDelivery], Arguments]] = {
    "PullZonePublic_SetForceSSL": lambda fake: (
        (fake.add_pull_zone(hostnames=["cdn.example.test"]),),
        {"hostname": "cdn.example.test", "force_ssl": True},
    ),
    "ComputeScript_AddVariable": lambda fake: ((fake.add_script(),), {"name": "API_URL"}),
    "ContainerTemplate_SetEnvironmentVariables": _template,
    "ContainerTemplate_Add": lambda fake: ((fake.add_app(),), {"name": "api", "image": "nginx"}),
    "ContainerRegistry_Get": lambda fake: ((fake.add_registry("main", password="pw-123"),), {}),
    "ShieldZone_GetByPullZone": _pull_zone_with_shield,
    "ShieldZone_GetUploadScanning": lambda fake: (
        (fake.add_shield_zone(fake.add_pull_zone()),),
        {},
    ),
}


async def main() -> dict[str, Any]:
    fake = FakeEdgeDelivery(access_key=KEY)
    document = Document()
    worked: list[str] = []
    typed: dict[str, str] = {}
    raw: dict[str, str] = {}
    kinds: dict[str, str] = {}  # the type of each result
    items: dict[str, list[str]] = {}  # list results: the module and type of each item
    accept: dict[str, str] = {}  # the Accept header each operation sent
    iterated: dict[str, int] = {}  # paginated operations: how many items they yielded
    downloaded: dict[str, bool] = {}  # binary/text operations: to_file wrote what the call read
    calls: dict[str, Arguments] = {}
    async with httpx.AsyncClient(transport=fake) as http:
        client = EdgeDeliveryClient(KEY, "https://fake.test", http_client=http, max_retries=0)
        async with client:
            for operation_id in sorted(cli_document.operations()):
                try:
                    seed = SEEDS.get(operation_id)
                    args, kwargs = seed(fake) if seed else document_call(operation_id, document)
                    calls[operation_id] = (args, kwargs)
                    result = await client.call(operation_id, *args, **kwargs)
                except EdgeDeliveryError as error:
                    typed[operation_id] = f"{type(error).__name__}: {error}"[:300]
                except BaseException:
                    raw[operation_id] = traceback.format_exc()[-1500:]
                else:
                    worked.append(operation_id)
                    kinds[operation_id] = type(result).__name__
                    if isinstance(result, list):
                        items[operation_id] = sorted(
                            {f"{type(item).__module__}.{type(item).__name__}" for item in result}
                        )
                    if _schema.operations()[operation_id].reply != "json":
                        downloaded[operation_id] = await _download(
                            client, operation_id, calls[operation_id], result
                        )
                sent = fake.requests_for(operation_id)
                if sent:
                    accept[operation_id] = sent[-1].headers.get("accept", "")
        # Every paginated operation (`x-sdk-pagination`) iterates to its last page.
        async with EdgeDeliveryClient(
            KEY, "https://fake.test", http_client=http, max_retries=0
        ) as client:
            for operation_id, operation in sorted(_schema.operations().items()):
                if operation.pagination is None:
                    continue
                try:
                    args, kwargs = document_call(operation_id, document)
                    found = client.operation(operation_id).iterate(*args, **kwargs)
                    iterated[operation_id] = len([item async for item in found])
                except EdgeDeliveryError as error:
                    typed[f"iterate {operation_id}"] = f"{type(error).__name__}: {error}"[:300]
                except BaseException:  # any other exception is the finding
                    raw[f"iterate {operation_id}"] = traceback.format_exc()[-1500:]
    return {
        "downloaded": downloaded,
        "iterated": iterated,
        "operations": len(cli_document.operations()),
        "worked": worked,
        "typed": typed,
        "raw": raw,
        "kinds": kinds,
        "items": items,
        "accept": accept,
    }


async def _download(
    client: EdgeDeliveryClient, operation_id: str, arguments: Arguments, result: Any
) -> bool:
    """Whether `to_file` writes the body the call read (the file's bytes, as a str for text)."""
    args, kwargs = arguments
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "download"
        reply = await client.operation(operation_id).to_file(target, *args, **kwargs)
        written = reply.parsed.read_bytes()
        left = sorted(os.listdir(folder))
    same = written == result if isinstance(result, bytes) else written.decode() == result
    return same and left == ["download"]


if __name__ == "__main__":
    json.dump(asyncio.run(main()), sys.stdout, indent=1)
