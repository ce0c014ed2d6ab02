"""The one path from a `Call` to its result: prepare, send, read.

`ClientRuntime` pairs the shared engine (transport, key, retries, the 429 pause)
with one client's options; `with_options` copies get their own runtime over the
same engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from ._call import Call
from ._engine import CallOptions, Engine
from ._exceptions import APIError
from ._http import DEFAULT_MAX_RESPONSE_BYTES, BodySink, RawResponse
from ._requests import prepare_call
from ._response import APIResponse, read_result
from ._schema import Operation
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
        operation, reply = self.send(call)
        raw = await reply
        try:
            return read_result(operation, raw, call.result), raw
        except APIError:  # a 2xx whose body reports a failure, perhaps quoting the key
            key = self.engine.access_key
            if key is None or not key.scrub(raw):
                raise
        # Read again, without the key, and outside the handler: the first error, which
        # quoted it, is then not the new one's __context__ (shown in every traceback).
        parsed: T = read_result(operation, raw, call.result)
        return parsed, raw

    def send(
        self, call: Call[Any], sink: BodySink | None = None
    ) -> tuple[Operation | None, Awaitable[RawResponse]]:
        """Check `call` and start sending it with retries: its operation, and the 2xx
        reply to await (not a coroutine itself: none more per call on the bulk path).

        With a `sink` the 2xx body goes there instead of the reply (`to_file`).
        """
        prepared = prepare_call(call)
        options = self.options
        if prepared.headers:
            options = dataclasses.replace(options, headers={**options.headers, **prepared.headers})
        operation = prepared.operation
        reply = self.engine.request(
            prepared.method,
            prepared.target,
            body=prepared.content,
            requires_key=prepared.requires_key,
            options=options,
            operation_id=operation.operation_id if operation is not None else None,
            template=operation.path if operation is not None else None,
            accept=operation.accept if operation is not None else None,
            content_type=prepared.content_type,
            sink=sink,
        )
        return operation, reply

    async def download(self, call: Call[Any], destination: Any) -> APIResponse[Path]:
        """Send `call` and write its 2xx body to `destination` (see `_download`)."""
        from ._download import download  # only when a download is asked for

        return await download(self, call, destination)

    @property
    def max_download_bytes(self) -> int:
        """The cap on a body written to a file: `max_download_bytes`, else the transport's."""
        found = self.options.max_download_bytes
        if found is not None:
            return found
        limit = getattr(self.engine.transport, "max_response_bytes", DEFAULT_MAX_RESPONSE_BYTES)
        return int(limit)

    @property
    def telemetry(self) -> Telemetry | None:
        """The client's telemetry backend, if any."""
        return self.options.telemetry

    def reserve_connections(self, count: int) -> None:
        """Let the pool open `count` connections at once (bulk runs), unless the caller
        set `max_connections`: then that is the most, whatever a run's concurrency."""
        if not self.engine.pool_fixed:
            self.engine.transport.reserve_connections(count)

    def finishing(self, remaining: int) -> None:
        """A bulk run has read its last key and has `remaining` calls left."""
        self.engine.rate.finishing(remaining)
