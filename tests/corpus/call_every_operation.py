"""Call every operation of the shipped document through the client against the fake.

Run in a project copy (`PYTHONPATH=src:generated`); prints one JSON object: the
operations that worked, those that raised one of the SDK's own errors (with the error),
and those that raised anything else (with the traceback). Everything comes from the
document: arguments are the CLI's reading of it (the generated names, hints included)
and values are the fake's own samples of each schema. The stateful operations get a
seeded resource where one is needed: their ids are the seeded ones.

Usage: python call_every_operation.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any

import httpx

from edgedelivery_async import EdgeDeliveryClient, EdgeDeliveryError
from edgedelivery_async.cli import _document as cli_document
from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._document import Document
from edgedelivery_async.testing._samples import sample

KEY = "corpus-key"


def arguments(
    spec: cli_document.OperationSpec, document: Document
) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments a call of `spec` needs, from the document."""
    args = [sample(p.schema, document) for p in spec.path_params]
    kwargs: dict[str, Any] = {}
    for parameter in (*spec.query_params, *spec.fields):
        if parameter.required:
            kwargs[parameter.python] = sample(parameter.schema, document)
    if spec.body_param is not None and spec.body_required:
        args.append(sample(spec.body_schema, document))
    return args, kwargs


async def main() -> dict[str, Any]:
    fake = FakeEdgeDelivery(access_key=KEY)
    document = Document()
    worked: list[str] = []
    typed: dict[str, str] = {}
    raw: dict[str, str] = {}
    async with httpx.AsyncClient(transport=fake) as http:
        client = EdgeDeliveryClient(KEY, "https://fake.test", http_client=http, max_retries=0)
        async with client:
            for operation_id, spec in sorted(cli_document.operations().items()):
                try:
                    args, kwargs = arguments(spec, document)
                    await client.call(operation_id, *args, **kwargs)
                except EdgeDeliveryError as error:
                    typed[operation_id] = f"{type(error).__name__}: {error}"[:300]
                except BaseException:
                    raw[operation_id] = traceback.format_exc()[-1500:]
                else:
                    worked.append(operation_id)
    return {
        "operations": len(cli_document.operations()),
        "worked": worked,
        "typed": typed,
        "raw": raw,
    }


if __name__ == "__main__":
    json.dump(asyncio.run(main()), sys.stdout, indent=1)
