"""The loopback adapter: an aiohttp low-level server answering from a fake."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler, RequestPayloadError

from . import _replies as r
from ._faults import DroppedConnection
from ._replies import Responder


class _Protocol(RequestHandler):
    """aiohttp's connection handler, with the fake's replies to what aiohttp refuses itself.

    A request aiohttp cannot parse (a bad request line or method, headers too long or too
    many, a bad Content-Length or chunk size) was aiohttp's text/plain 400, and a
    traceback on stderr for each; it is a JSON problem (like the fake's own 404/405), and
    logged at debug level only. A 500 (a fault of the fake itself) stays aiohttp's, logged.
    """

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status >= 500:
            return super().handle_error(request, status, exc, message)
        self.logger.debug("Error handling request from %s", request.remote, exc_info=exc)
        if request.writer.output_size > 0:  # (as aiohttp: a reply is under way already)
            raise ConnectionError("a reply is being sent: no error reply can follow it")
        # aiohttp's first line, without what it quotes of the request (a header's value)
        detail = (message or "").strip().partition("\n")[0].partition(":")[0].strip()
        body = r.problem(status, detail or "The request cannot be read.", "/")
        reply = r.json_reply(status, body)
        response = web.Response(status=status, headers=list(reply.headers), body=reply.body)
        response.force_close()
        return response

    def log_exception(self, *args: Any, **kw: Any) -> None:
        """What is left of a body that did not decode is the client's fault, not the fake's."""
        if isinstance(kw.get("exc_info"), RequestPayloadError | HttpProcessingError):
            self.logger.debug(*args, **kw)
        else:
            super().log_exception(*args, **kw)


class _Server(web.Server):
    def __call__(self) -> RequestHandler:
        return _Protocol(self, loop=self._loop, **self._kwargs)


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

    return _Server(handle, access_log=None)


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
