"""The loopback adapter: an aiohttp low-level server answering from a fake."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from ._faults import DroppedConnection
from ._replies import Responder


def _handler(fake: Responder) -> web.Server:
    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        try:
            body: bytes | None = await request.read()
        except Exception:  # (aiohttp raises its payload errors, zlib's, 413 as HTTPException)
            # A Content-Encoding that does not decode, a body past aiohttp's size limit:
            # answered as the operation's 400, not aiohttp's text/plain 500 or 413.
            body = None
        outcome = await fake.respond(request.method, request.raw_path, request.headers, body)
        if isinstance(outcome, DroppedConnection):
            if request.transport is not None:
                request.transport.abort()  # no reply at all: the client sees a disconnect
            raise asyncio.CancelledError
        response = web.Response(
            status=outcome.status, headers=list(outcome.headers), body=outcome.body
        )
        if body is None:  # what is left of the body cannot be told from the next request
            response.force_close()
        return response

    return web.Server(handle, access_log=None)


@contextlib.asynccontextmanager
async def serve(fake: Responder, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve `fake` on `host:port` (0: a free port); yields the base URL with the real port."""
    runner = web.ServerRunner(_handler(fake), shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, backlog=2048)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
        yield f"http://{shown}:{bound_port}"
    finally:
        await runner.cleanup()
