"""A transport (and a client) used under one event loop after another.

Scripts that call `asyncio.run` twice, notebooks, and test suites that make a loop
per test all do this. The transport must rebind its pool to the running loop, never
fail with `RuntimeError: Event loop is closed`, and leave nothing unclosed behind.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
from collections.abc import Callable, Iterator

import httpx
import pytest

from edgedelivery_async import ConfigurationError, EdgeDeliveryClient, RateControl, Timeout
from edgedelivery_async._http import RawRequest, Transport
from edgedelivery_async._transport import AiohttpTransport, make_transport

from .loopback import STACKS, ThreadedServer, build_client

KEY = "edk-loops-5d1e0b"

try:
    import uvloop
except ImportError:  # no uvloop (Windows, or no speed extra)
    uvloop = None

LOOPS = [
    pytest.param(asyncio.new_event_loop, id="asyncio"),
    pytest.param(
        getattr(uvloop, "new_event_loop", None),
        id="uvloop",
        marks=pytest.mark.skipif(uvloop is None, reason="uvloop is not installed"),
    ),
]


@pytest.fixture
def server() -> Iterator[ThreadedServer]:
    threaded = ThreadedServer()
    with threaded:
        yield threaded


@pytest.fixture
def clean(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail on any ResourceWarning or 'Unclosed ...' report, also from the garbage collector."""
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        yield
        gc.collect()
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []
    assert [r.getMessage() for r in caplog.records if "nclosed" in r.getMessage()] == []


def run(
    main: Callable[[], object], loop_factory: Callable[[], asyncio.AbstractEventLoop]
) -> object:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main())  # type: ignore[arg-type]


def get(transport: Transport, base_url: str) -> Callable[[], object]:
    async def main() -> int:
        request = RawRequest("GET", f"{base_url}/mc/registries/31", "/mc/registries/31", {})
        reply = await transport.send(request, Timeout(connect=2, read=5, total=10))
        return reply.status

    return main


@pytest.mark.parametrize("first", LOOPS)
@pytest.mark.parametrize("second", LOOPS)
@pytest.mark.parametrize("name", STACKS)
def test_a_transport_under_successive_loops(
    server: ThreadedServer,
    clean: None,
    name: str,
    first: Callable[[], asyncio.AbstractEventLoop],
    second: Callable[[], asyncio.AbstractEventLoop],
) -> None:
    transport = make_transport(name)
    assert run(get(transport, server.base_url), first) == 200
    if isinstance(transport, AiohttpTransport):
        assert transport._session is not None
        assert transport._session.closed  # closed by the first loop's shutdown, inside it
    assert run(get(transport, server.base_url), second) == 200
    assert run(get(transport, server.base_url), first) == 200
    run(transport.aclose, second)
    assert len(server.loopback.requests) == 3


@pytest.mark.parametrize("name", STACKS)
def test_a_client_under_two_asyncio_runs(server: ThreadedServer, clean: None, name: str) -> None:
    client = build_client(name, KEY, server.base_url)

    async def read() -> int:
        registry = await client.registries.get(31)
        return registry.id

    assert asyncio.run(read()) == 31
    assert asyncio.run(read()) == 31
    asyncio.run(client.aclose())
    assert [r.raw_path for r in server.loopback.requests] == ["/mc/registries/31"] * 2


def test_a_callers_httpx_client_from_an_ended_loop_is_a_configuration_error(
    server: ThreadedServer,
) -> None:
    """The caller's httpx client keeps connections of the loop that made them (it was a
    raw RuntimeError: Event loop is closed)."""

    def read_twice() -> None:
        client = EdgeDeliveryClient(KEY, server.base_url, http_client=httpx.AsyncClient())

        async def read() -> int:
            return (await client.registries.get(31)).id

        assert asyncio.run(read()) == 31
        with pytest.raises(ConfigurationError, match="make the httpx client in the loop"):
            asyncio.run(read())

    read_twice()
    # The caller's client still held the ended loop's connection: collected here, with
    # the warning that says so, not in the next test's `clean` check.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.mark.parametrize("name", STACKS)
def test_closing_from_another_loop(server: ThreadedServer, clean: None, name: str) -> None:
    transport = make_transport(name)
    assert asyncio.run(get(transport, server.base_url)()) == 200
    asyncio.run(transport.aclose())
    asyncio.run(transport.aclose())  # twice is fine


@pytest.mark.parametrize("name", STACKS)
def test_a_loop_closed_without_shutting_down(server: ThreadedServer, name: str) -> None:
    """`loop.close()` without `shutdown_asyncgens()`: the next loop still gets a pool.

    The old loop's sockets can then only be closed by the garbage collector.
    """
    transport = make_transport(name)
    loop = asyncio.new_event_loop()
    assert loop.run_until_complete(get(transport, server.base_url)()) == 200
    loop.close()
    assert asyncio.run(get(transport, server.base_url)()) == 200
    asyncio.run(transport.aclose())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.mark.parametrize("name", STACKS)
def test_a_call_from_a_second_running_loop_is_refused_and_the_first_goes_on(
    server: ThreadedServer, clean: None, name: str
) -> None:
    """One client, two loops running at once (a thread's `asyncio.run`): the second
    loop's call forgot the first loop's paced calls, which then waited for ever (and on
    aiohttp it closed the pool under them). Now it is refused, and they all end."""
    client = build_client(name, KEY, server.base_url, rate_control=RateControl(max_rate=20))

    async def read() -> int:
        return (await client.registries.get(31)).id

    def from_a_thread() -> None:
        with pytest.raises(ConfigurationError, match="one client per thread"):
            asyncio.run(read())

    async def main() -> list[int]:
        calls = [asyncio.create_task(read()) for _ in range(20)]  # paced: about 1 s
        await asyncio.sleep(0.05)
        await asyncio.to_thread(from_a_thread)
        async with asyncio.timeout(10):
            done = await asyncio.gather(*calls)
        await client.aclose()
        return done

    assert asyncio.run(main()) == [31] * 20
    assert len(server.loopback.requests) == 20


@pytest.mark.parametrize("when", ["before the first call", "between calls"])
async def test_a_callers_closed_httpx_client_is_a_configuration_error(
    server: ThreadedServer, when: str
) -> None:
    """It was a raw RuntimeError: Cannot send a request, as the client has been closed."""
    http = httpx.AsyncClient()
    client = EdgeDeliveryClient(KEY, server.base_url, http_client=http, max_retries=1)
    if when == "between calls":
        assert (await client.registries.get(31)).id == 31
    await http.aclose()
    with pytest.raises(ConfigurationError, match="has been closed: close it after"):
        await client.registries.get(31)
    await client.aclose()
