"""The code a caller's own client runs: `http_client=`'s event hooks, `session=`'s
middlewares and trace configs.

A hook or middleware that calls `raise_for_status()` (a common setup) made a 404 an
`APIConnectionError`, retried as a failed connection; one that raised anything else let
the raw exception escape, its traceback's frames holding the request with the key. The
reply's status decides now, and the caller's code failing is a `HookError`, not retried.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import httpx
import pytest

from edgedelivery_async import (
    EdgeDeliveryClient,
    HookError,
    InternalServerError,
    NotFoundError,
)
from edgedelivery_async._transport import TransportFailure

from .loopback import LoopbackServer, loopback_server, status
from .test_key_not_in_tracebacks import SECRET, places

Handler = Callable[[aiohttp.ClientRequest], Any]


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


async def raise_for_status(response: httpx.Response) -> None:
    response.raise_for_status()


async def read_then_raise_for_status(response: httpx.Response) -> None:
    await response.aread()
    response.raise_for_status()


async def middleware_raise_for_status(
    request: aiohttp.ClientRequest, handler: Handler
) -> aiohttp.ClientResponse:
    response: aiohttp.ClientResponse = await handler(request)
    response.raise_for_status()
    return response


def fails(*args: Any) -> None:
    raise KeyError("tenant")


async def middleware_fails_first(request: aiohttp.ClientRequest, handler: Handler) -> Any:
    raise KeyError("tenant")


async def middleware_fails_after(request: aiohttp.ClientRequest, handler: Handler) -> Any:
    await handler(request)
    raise ValueError("tenant")


async def trace_fails(*args: Any) -> None:
    raise KeyError("tenant")


def tracing(event: str) -> list[aiohttp.TraceConfig]:
    config = aiohttp.TraceConfig()
    getattr(config, event).append(trace_fails)
    return [config]


CLIENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "httpx raise_for_status": ("httpx", {"event_hooks": {"response": [raise_for_status]}}),
    "httpx read, raise_for_status": (
        "httpx",
        {"event_hooks": {"response": [read_then_raise_for_status]}},
    ),
    "aiohttp middleware raise_for_status": (
        "aiohttp",
        {"middlewares": (middleware_raise_for_status,)},
    ),
}
FAILING: dict[str, tuple[str, dict[str, Any]]] = {
    "httpx request hook": ("httpx", {"event_hooks": {"request": [fails]}}),
    "httpx response hook": ("httpx", {"event_hooks": {"response": [fails]}}),
    "aiohttp middleware, before": ("aiohttp", {"middlewares": (middleware_fails_first,)}),
    "aiohttp middleware, after": ("aiohttp", {"middlewares": (middleware_fails_after,)}),
    "aiohttp trace, request start": ("aiohttp", {"trace_configs": tracing("on_request_start")}),
    "aiohttp trace, request end": ("aiohttp", {"trace_configs": tracing("on_request_end")}),
}


@asynccontextmanager
async def callers_client(
    kind: str, settings: dict[str, Any], base_url: str, **options: Any
) -> AsyncIterator[EdgeDeliveryClient]:
    """An SDK client over the caller's own httpx client or aiohttp session."""
    if kind == "httpx":
        async with (
            httpx.AsyncClient(**settings) as http_client,
            EdgeDeliveryClient(SECRET, base_url, http_client=http_client, **options) as client,
        ):
            yield client
    else:
        async with (
            aiohttp.ClientSession(**settings) as session,
            EdgeDeliveryClient(SECRET, base_url, session=session, **options) as client,
        ):
            yield client


@pytest.mark.parametrize("setup", list(CLIENTS))
async def test_a_callers_raise_for_status_leaves_the_status_to_decide(
    setup: str, server: LoopbackServer
) -> None:
    kind, settings = CLIENTS[setup]
    server.replies = [status(404, {"Message": "no such registry"})]
    async with callers_client(kind, settings, server.base_url) as client:
        with pytest.raises(NotFoundError) as info:
            await client.registries.get(31)
    assert len(server.requests) == 1  # a 404: not retried
    if "read" in setup:  # the hook read the body: it is the error's
        assert "no such registry" in str(info.value)
    assert places(info.value, SECRET, __file__) == []


@pytest.mark.parametrize("setup", list(CLIENTS))
async def test_a_callers_raise_for_status_on_a_retryable_status(
    setup: str, server: LoopbackServer
) -> None:
    kind, settings = CLIENTS[setup]
    server.replies = [status(503, None, **{"Retry-After": "0"})] * 2
    async with callers_client(kind, settings, server.base_url, max_retries=1) as client:
        with pytest.raises(InternalServerError) as info:
            await client.registries.get(31)
    assert info.value.status_code == 503
    assert len(server.requests) == 2  # retried as a 503, once


@pytest.mark.parametrize("setup", list(FAILING))
async def test_the_callers_client_code_that_raises_is_a_hook_error(
    setup: str, server: LoopbackServer
) -> None:
    kind, settings = FAILING[setup]
    async with callers_client(kind, settings, server.base_url) as client:
        with pytest.raises(HookError) as info:
            await client.registries.get(31)
    assert len(server.requests) <= 1  # never retried
    which = "http_client=" if kind == "httpx" else "session="
    assert f"GET /mc/registries/31: the {which} given to the client raised" in str(info.value)
    assert "tenant" in str(info.value)
    assert isinstance(info.value.__cause__, TransportFailure)
    assert info.value.__context__ is None
    assert places(info.value, SECRET, __file__) == []
    frames = []
    traceback = info.value.__traceback__
    while traceback is not None:
        frames.append(traceback.tb_frame.f_code.co_filename)
        traceback = traceback.tb_next
    assert not any("aiohttp" in name or "httpx" in name for name in frames)
