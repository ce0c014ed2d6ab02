"""The one path from a `Call` to its result: prepare, send, read.

`ClientRuntime` pairs the shared engine (transport, key, retries, the 429 pause)
with one client's options; `with_options` copies get their own runtime over the
same engine.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from ._call import Call
from ._engine import CallOptions, Engine
from ._http import RawResponse
from ._requests import prepare_call
from ._response import APIResponse, read_result
from ._telemetry import Telemetry

T = TypeVar("T")


class ClientRuntime:
    """Runs calls for one client: its engine and its options."""

    __slots__ = ("engine", "options")

    def __init__(self, engine: Engine, options: CallOptions) -> None:
        self.engine = engine
        self.options = options

    async def execute(self, call: Call[T]) -> APIResponse[T]:
        """Check, send with retries, and read the result, or raise the SDK's error."""
        parsed, raw = await self.run(call)
        return APIResponse(parsed, raw)

    async def run(self, call: Call[T]) -> tuple[T, RawResponse]:
        """The result and the reply it came from (`execute` without the APIResponse)."""
        prepared = prepare_call(call)
        options = self.options
        if prepared.headers:
            options = dataclasses.replace(options, headers={**options.headers, **prepared.headers})
        operation = prepared.operation
        raw = await self.engine.request(
            prepared.method,
            prepared.target,
            body=prepared.content,
            requires_key=prepared.requires_key,
            options=options,
            operation_id=operation.operation_id if operation is not None else None,
            template=operation.path if operation is not None else None,
            accept=operation.accept if operation is not None else None,
            content_type=operation.body_media if operation is not None else None,
        )
        parsed: T = read_result(operation, raw, call.result)
        return parsed, raw

    @property
    def telemetry(self) -> Telemetry | None:
        """The client's telemetry backend, if any."""
        return self.options.telemetry

    def reserve_connections(self, count: int) -> None:
        """Let the pool open `count` connections at once (bulk runs)."""
        self.engine.transport.reserve_connections(count)
