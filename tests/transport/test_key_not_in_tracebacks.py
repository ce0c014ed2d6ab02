"""The access key is nowhere an error reporter could find it.

Error reporters record the local variables of every frame of a traceback (Sentry does
by default, so does `pytest --showlocals`) and follow the exception's cause chain.
For a connection error and a status error over every transport, walk all of that,
into objects' attributes and containers a few levels deep: the key's text must not
be there.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from aiohttp import web

from edgedelivery_async import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    EdgeDeliveryError,
    InternalServerError,
    Timeout,
)
from edgedelivery_async._exceptions import ResponseTooLargeError
from edgedelivery_async._http import AccessKey

from .loopback import (
    EVERY_TRANSPORT,
    LoopbackServer,
    closed_port,
    hang,
    loopback_server,
    open_client,
    status,
)

# Distinctive, so a hit cannot be a coincidence. Only module globals hold it (they are
# not walked); test functions never bind it to a local.
SECRET = "edk-Tr4ceback-Canary-9f0c2e"
DEPTH = 4


def places(root: object, needle: str, test_file: str = __file__) -> list[str]:
    """Paths under `root` (attributes, items, frames' locals) whose text holds `needle`,
    but for the frames of `test_file`'s code (the test's own, where the server is)."""
    found: list[str] = []
    seen: set[int] = set()
    raw = needle.encode()

    def walk(value: object, path: str, depth: int) -> None:
        if isinstance(value, str):
            if needle in value:
                found.append(path)
            return
        if isinstance(value, bytes | bytearray | memoryview):
            if raw in bytes(value):
                found.append(path)
            return
        if depth == 0 or isinstance(value, skipped) or id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, BaseException):
            for name, link in (("__cause__", value.__cause__), ("__context__", value.__context__)):
                if link is not None:
                    walk(link, f"{path}.{name}", DEPTH)  # the chain is walked whole
            if value.__traceback__ is not None:
                for index, frame in enumerate(frames(value.__traceback__)):
                    if frame.f_code.co_filename == test_file:
                        continue  # the test's own frame, where the server's records live
                    where = f"{path}<frame {index} {frame.f_code.co_name}>"
                    for name, local in frame.f_locals.items():
                        walk(local, f"{where}.{name}", DEPTH)
            walk(value.args, f"{path}.args", depth - 1)
        if isinstance(value, Mapping):
            try:
                items = list(value.items())
            except Exception:
                items = []
            for key, item in items:
                walk(key, f"{path}[key]", depth - 1)
                walk(item, f"{path}[{key!r}]", depth - 1)
        elif isinstance(value, list | tuple | set | frozenset):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]", depth - 1)
        for name in attributes(value):
            try:
                attribute = object.__getattribute__(value, name)
            except Exception:
                continue
            walk(attribute, f"{path}.{name}", depth - 1)
        if not isinstance(value, int | float | bool | type(None)):
            try:
                text = repr(value)
            except Exception:
                text = ""
            if needle in text:
                found.append(f"repr({path})")

    walk(root, "error", DEPTH)
    return found


skipped = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.CodeType)


def frames(traceback: types.TracebackType | None) -> Iterator[types.FrameType]:
    while traceback is not None:
        yield traceback.tb_frame
        traceback = traceback.tb_next


def attributes(value: object) -> list[str]:
    names = list(getattr(value, "__dict__", {}) or {})
    for kind in type(value).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return names


@pytest.fixture
async def server() -> Any:
    async with loopback_server() as loopback:
        yield loopback


def test_the_walker_finds_a_plain_key() -> None:
    """The walk reaches frames' locals and objects' attributes (so its silence means something)."""
    code = """
class Holder:
    def __init__(self, secret):
        self.headers = {"AccessKey": secret}

def fail(secret):
    holder = Holder(secret)
    raise ValueError("boom")
"""
    namespace: dict[str, Any] = {}
    exec(compile(code, "<elsewhere>", "exec"), namespace)
    with pytest.raises(ValueError, match="boom") as info:
        namespace["fail"](SECRET)
    assert set(places(info.value, SECRET)) == {
        "error<frame 1 fail>.secret",
        "error<frame 1 fail>.holder.headers['AccessKey']",
        "repr(error<frame 1 fail>.holder.headers)",
    }

    def wrapped() -> None:
        try:
            namespace["fail"](SECRET)
        except ValueError as exc:
            raise RuntimeError("wrapped") from exc

    with pytest.raises(RuntimeError, match="wrapped") as chained:
        wrapped()
    assert "error.__cause__<frame 1 fail>.secret" in places(chained.value, SECRET)


def test_an_access_key_object_holds_no_plain_text() -> None:
    key = AccessKey(SECRET)
    assert places(ValueError(key), SECRET) == []
    assert key.reveal() == SECRET
    assert SECRET not in repr(key) + str(key)


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_connection_error(name: str) -> None:
    async with open_client(
        name, SECRET, f"http://127.0.0.1:{closed_port()}", max_retries=1
    ) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.get(31)
    assert info.value.request_sent is False
    assert places(info.value, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_timeout(name: str, server: LoopbackServer) -> None:
    server.replies = [hang]
    quick = Timeout(connect=1, read=0.2, total=0.3)
    async with open_client(name, SECRET, server.base_url, timeout=quick, max_retries=0) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.registries.add(display_name="main")
    assert places(info.value, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_status_error(name: str, server: LoopbackServer) -> None:
    server.replies = [status(500, {"title": "broken"})]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(InternalServerError) as info:
            await client.registries.get(31)
    assert server.header(0, "AccessKey") == [SECRET]  # it was sent, all the same
    error: EdgeDeliveryError = info.value
    assert places(error, SECRET) == []
    assert places(info.value.response, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_reply_over_the_cap(name: str, server: LoopbackServer) -> None:
    server.replies = [status(200, {"data": "x" * 1000})]
    async with open_client(
        name, SECRET, server.base_url, max_retries=0, max_response_bytes=100
    ) as client:
        with pytest.raises(ResponseTooLargeError) as info:
            await client.registries.get(31)
    assert places(info.value, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_the_callers_own_timeout(name: str, server: LoopbackServer) -> None:
    """`asyncio.timeout()` around a call: the TimeoutError's context, the CancelledError,
    carried aiohttp's and httpx's frames, whose locals hold the AccessKey header."""
    server.replies = [hang]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(TimeoutError) as info:
            async with asyncio.timeout(0.2):
                await client.registries.get(31)
    assert places(info.value, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("code", [401, 200])
async def test_a_reply_over_the_cap_that_quotes_the_key(
    name: str, code: int, server: LoopbackServer
) -> None:
    """Refused for its size, a reply never reached the engine's scrubbing: its headers
    quoting the key stayed in the error (`error.headers`, `error.response`), and in the
    transports' frames."""
    echoes = {"X-Echo": SECRET, f"X-Bad-{SECRET}": "1"}  # (a name may quote it too)
    server.replies = [status(code, {"data": "x" * 1000}, **echoes)]
    async with open_client(
        name, SECRET, server.base_url, max_retries=0, max_response_bytes=100
    ) as client:
        with pytest.raises(ResponseTooLargeError) as info:
            await client.registries.get(31)
    assert places(info.value, SECRET) == []
    assert info.value.headers["X-Echo"] == "***"


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_reply_with_too_many_fields_that_quote_the_key(
    name: str, server: LoopbackServer
) -> None:
    server.replies = [status(200, {}, **{f"X-Echo-{n}": SECRET for n in range(120)})]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.get(31)
    assert places(info.value, SECRET) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_status_error_whose_header_name_quotes_the_key(
    name: str, server: LoopbackServer
) -> None:
    """`X-Bad-<key>: 1`: the scrub masked header values only."""
    server.replies = [status(401, {"title": "no"}, **{f"X-Bad-{SECRET}": "1"})]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(EdgeDeliveryError) as info:
            await client.registries.get(31)
    assert places(info.value, SECRET) == []


def echoing_redirect(length: int | None) -> Any:
    """A same-origin redirect whose Location quotes the key (its first `length` characters)."""

    async def reply(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/moved/31?echo=x{SECRET[:length]}y")

    return reply


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
@pytest.mark.parametrize("length", [None, 12])
async def test_a_redirect_whose_location_quotes_the_key_is_not_followed(
    name: str, length: int | None, server: LoopbackServer, caplog: pytest.LogCaptureFixture
) -> None:
    """`302 Location: /moved/31?echo=<key>` was followed: the next reply's error (a 404
    there) held the key in `error.response.url` and `.request.url`, and the engine's
    frame in `request`, `reply` and `target`. The key is never put in a URL: the 302 is
    the error, its Location masked."""
    server.replies = [echoing_redirect(length), status(404, {"Message": "no such registry"})]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(APIStatusError) as info:
            await client.registries.get(31)
    assert info.value.status_code == 302
    assert len(server.requests) == 1  # the key went to no URL
    assert info.value.headers["Location"] == "/moved/31?echo=x***y"
    assert places(info.value, SECRET) == []
    assert places(info.value.response, SECRET) == []
    assert "its Location holds the access key" in caplog.text


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_status_error_for_a_url_that_holds_the_key(
    name: str, server: LoopbackServer
) -> None:
    """A path the caller wrote with the key in it: the error's URLs show *** there."""
    server.replies = [status(404, {"Message": "no"})]
    async with open_client(name, SECRET, server.base_url, max_retries=0) as client:
        with pytest.raises(APIStatusError) as info:
            await client.request("GET", "/x/" + SECRET)
    assert server.requests[0].raw_path == "/x/" + SECRET
    assert places(info.value.response, SECRET) == []
    assert str(info.value.response.url).endswith("/x/***")
    assert SECRET not in str(info.value)
