"""The in-process adapter: an httpx transport that answers from a fake, no sockets."""

from __future__ import annotations

import httpx

from ._faults import DroppedConnection
from ._replies import Responder


class FakeTransport(httpx.AsyncBaseTransport):
    """`httpx.AsyncClient(transport=FakeTransport(fake))`: requests go straight to `fake`.

    A dropped connection surfaces as httpx would report it: `httpx.ConnectError` when the
    request never reached the server, `httpx.RemoteProtocolError` when it was processed
    but no reply came back.
    """

    def __init__(self, fake: Responder) -> None:
        self._fake = fake

    def __repr__(self) -> str:
        return f"<FakeTransport of {self._fake!r}>"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer one request from the fake."""
        body = await request.aread()
        outcome = await self._fake.respond(
            request.method, request.url.raw_path.decode("ascii"), request.headers, body
        )
        if isinstance(outcome, DroppedConnection):
            if outcome.after_processing:
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                )
            raise httpx.ConnectError("[fake] connection dropped", request=request)
        return httpx.Response(
            outcome.status, headers=list(outcome.headers), content=outcome.body, request=request
        )
