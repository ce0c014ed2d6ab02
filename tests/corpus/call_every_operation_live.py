"""Call every operation of the shipped document through the client against a live server.

Run in a project copy (`PYTHONPATH=src:generated`) against a mock of the document (Stoplight
Prism, tests/corpus/test_prism.py), on the SDK's default transport (aiohttp). Arguments
come from the document as in `call_every_operation.py` (the fake's samples of each
schema, the CLI's reading of the names). Every paginated operation is also iterated, and
every binary or text one written to a file. Prints one JSON object: the operations that
worked, those that raised one of the SDK's own errors (by class, with the message), and
those that raised anything else (with the traceback): the finding.

Usage: python call_every_operation_live.py BASE_URL
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from edgedelivery_async import EdgeDeliveryClient, EdgeDeliveryError, Hooks, ResponseEvent, _schema
from edgedelivery_async.cli import _document as cli_document
from edgedelivery_async.testing._calls import document_call
from edgedelivery_async.testing._document import Document

KEY = "corpus-key"


async def main(base_url: str) -> dict[str, Any]:
    document = Document()
    worked: list[str] = []
    typed: dict[str, str] = {}
    raw: dict[str, str] = {}
    operations = sorted(cli_document.operations())
    violations: dict[str, str] = {}  # what Prism found wrong in a request (`sl-violations`)

    def record(event: ResponseEvent) -> None:
        found = event.headers.get("sl-violations")
        if found:
            violations[event.request.operation_id or event.request.url] = found[:300]

    hooks = Hooks(on_response=record)
    async with EdgeDeliveryClient(KEY, base_url, max_retries=0, hooks=hooks) as client:
        for operation_id in operations:
            await _run(operation_id, _call(client, operation_id, document), worked, typed, raw)
        for operation_id, operation in sorted(_schema.operations().items()):
            if operation.pagination is not None:
                run = _iterate(client, operation_id, document)
                await _run(f"iterate {operation_id}", run, worked, typed, raw)
            if operation.reply != "json":
                run = _to_file(client, operation_id, document)
                await _run(f"to_file {operation_id}", run, worked, typed, raw)
    return {
        "operations": len(operations),
        "worked": worked,
        "typed": typed,
        "raw": raw,
        "violations": violations,
    }


async def _run(
    name: str, call: Any, worked: list[str], typed: dict[str, str], raw: dict[str, str]
) -> None:
    try:
        await call
    except EdgeDeliveryError as error:
        typed[name] = f"{type(error).__name__}: {error}"[:300]
    except BaseException:  # any other exception is the finding
        raw[name] = traceback.format_exc()[-1500:]
    else:
        worked.append(name)


async def _call(client: EdgeDeliveryClient, operation_id: str, document: Document) -> None:
    args, kwargs = document_call(operation_id, document)
    await client.call(operation_id, *args, **kwargs)


async def _iterate(client: EdgeDeliveryClient, operation_id: str, document: Document) -> None:
    args, kwargs = document_call(operation_id, document)
    async for _ in client.operation(operation_id).iterate(*args, **kwargs):
        pass


async def _to_file(client: EdgeDeliveryClient, operation_id: str, document: Document) -> None:
    args, kwargs = document_call(operation_id, document)
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "download"
        await client.operation(operation_id).to_file(target, *args, **kwargs)


if __name__ == "__main__":
    json.dump(asyncio.run(main(sys.argv[1])), sys.stdout, indent=1)
