"""`.iterate()` through a real client against loopback servers that behave and that don't:
it ends, accounts for every item once, gives each page the client's retries and rate
control, raises the SDK's typed error after the items already yielded, and keeps what was
yielded when cancelled.

Our own document declares no paginated operation, so a list operation (`Thing_Index`,
`GET /things?page=n`) is added to the operation table the runtime reads, with a method
shaped as the emitter writes them. The corpus's real ones iterate against the fake in
tests/corpus.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from aiohttp import web
from edgedelivery_openapi.types import UNSET, Unset
from transport.loopback import (
    EVERY_TRANSPORT,
    LoopbackServer,
    cut_off,
    loopback_server,
    open_client,
)

from edgedelivery_async import (
    APIConnectionError,
    APIResponseValidationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    NotFoundError,
    RetryPolicy,
    _schema,
)
from edgedelivery_async._call import Call, Resource, endpoint

KEY = "edk-pages-2c9"
PER_PAGE = 100
FAST = RetryPolicy(initial_delay=0.001, max_delay=0.002, jitter=0.0)
RULE = {
    "page": "page",
    "page-argument": "page",
    "items": "Items",
    "has-more": "HasMoreItems",
    "first": 1,
}


class Things(Resource):
    @endpoint("Thing_Index")
    def index(self, *, page: int | Unset = UNSET) -> Call[Any]:
        """List things, a page at a time."""
        return Call("Thing_Index", object, query={"page": page})


@pytest.fixture(autouse=True)
def thing_index() -> Iterator[None]:
    table = _schema.operations()
    page = _schema.Parameter("page", {"type": "integer", "minimum": 1}, False, True)
    table["Thing_Index"] = _schema.Operation(
        operation_id="Thing_Index",
        method="GET",
        path="/things",
        path_params=(),
        requires_key=False,
        body_schema=None,
        query_params=(page,),
        result_schema={
            "type": "object",
            "properties": {
                "Items": {"type": "array", "items": {"type": "object"}},
                "HasMoreItems": {"type": "boolean"},
            },
        },
        pagination=RULE,
    )
    try:
        yield
    finally:
        del table["Thing_Index"]


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


def things(client: EdgeDeliveryClient) -> Things:
    return Things(client.registries._runtime)


def listing(total: int) -> Any:
    """A well-behaved list of `total` things, PER_PAGE a page."""

    async def reply(request: web.Request) -> web.StreamResponse:
        page = int(request.query["page"])
        start = (page - 1) * PER_PAGE
        items = [{"Id": n} for n in range(start, min(start + PER_PAGE, total))]
        return web.json_response({"Items": items, "HasMoreItems": start + PER_PAGE < total})

    return reply


def pages_seen(server: LoopbackServer) -> list[str]:
    return [seen.raw_path for seen in server.requests]


async def collect(client: EdgeDeliveryClient, found: list[Any]) -> None:
    async for thing in things(client).index.iterate():
        found.append(thing["Id"])


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_every_item_once_in_order_and_it_stops_at_the_last_page(
    name: str, server: LoopbackServer
) -> None:
    server.replies.extend([listing(250)] * 3)
    found: list[Any] = []
    async with open_client(name, KEY, server.base_url) as client:
        await collect(client, found)
    assert found == list(range(250))
    assert pages_seen(server) == ["/things?page=1", "/things?page=2", "/things?page=3"]


async def test_each_page_is_retried_and_paced_as_any_call(server: LoopbackServer) -> None:
    async def unavailable(request: web.Request) -> web.StreamResponse:
        return web.json_response({}, status=503)

    async def slow_down(request: web.Request) -> web.StreamResponse:
        return web.json_response({}, status=429, headers={"Retry-After": "0"})

    server.replies.extend([listing(250), unavailable, listing(250), slow_down, listing(250)])
    found: list[Any] = []
    async with open_client("aiohttp", KEY, server.base_url, retry=FAST) as client:
        await collect(client, found)
        assert client.rate_controller.rate_limited == 1  # the 429 reached rate control
    assert found == list(range(250))
    assert pages_seen(server) == [f"/things?page={n}" for n in (1, 2, 2, 3, 3)]


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_an_error_midway_is_typed_and_comes_after_the_items_before_it(
    name: str, server: LoopbackServer
) -> None:
    async def gone(request: web.Request) -> web.StreamResponse:
        return web.json_response({"Message": "no such page"}, status=404)

    async def html(request: web.Request) -> web.StreamResponse:
        return web.Response(text="<html>maintenance</html>", content_type="text/html")

    async with open_client(name, KEY, server.base_url, max_retries=0) as client:
        for failing, expected in ((gone, NotFoundError), (html, APIResponseValidationError)):
            server.replies[:] = [listing(500), listing(500), failing]
            found: list[Any] = []
            with pytest.raises(expected):
                await collect(client, found)
            assert found == list(range(200))


async def test_a_connection_cut_midway_is_a_connection_error_after_the_items(
    server: LoopbackServer,
) -> None:
    server.replies.extend([listing(500), cut_off])
    found: list[Any] = []
    async with open_client("aiohttp", KEY, server.base_url, max_retries=0) as client:
        with pytest.raises(APIConnectionError):
            await collect(client, found)
    assert found == list(range(100))


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_server_that_ignores_the_page_number_raises_and_never_loops(
    name: str, server: LoopbackServer
) -> None:
    async def same(request: web.Request) -> web.StreamResponse:
        return web.json_response({"Items": [{"Id": 1}, {"Id": 2}], "HasMoreItems": True})

    server.replies.extend([same] * 10)
    found: list[Any] = []
    async with open_client(name, KEY, server.base_url) as client:
        with pytest.raises(APIResponseValidationError, match="page 2 repeats page 1") as caught:
            await collect(client, found)
    assert found == [1, 2]
    assert len(server.requests) == 2
    assert isinstance(caught.value, EdgeDeliveryError)


async def test_more_said_with_an_empty_page_raises(server: LoopbackServer) -> None:
    async def empty(request: web.Request) -> web.StreamResponse:
        return web.json_response({"Items": [], "HasMoreItems": True})

    server.replies.extend([listing(500), empty])
    found: list[Any] = []
    async with open_client("aiohttp", KEY, server.base_url) as client:
        with pytest.raises(APIResponseValidationError, match="page 2 has no items while"):
            await collect(client, found)
    assert found == list(range(100))
    assert len(server.requests) == 2


async def test_cancelling_keeps_what_was_yielded_and_the_client_works_on(
    server: LoopbackServer,
) -> None:
    async def hang(request: web.Request) -> web.StreamResponse:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    server.replies.extend([listing(500), hang])
    found: list[Any] = []
    async with open_client("aiohttp", KEY, server.base_url) as client:
        task = asyncio.create_task(collect(client, found))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if len(server.requests) == 2:
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert found == list(range(100))
        server.replies.extend([listing(150)] * 2)
        again: list[Any] = []
        await collect(client, again)
    assert again == list(range(150))
