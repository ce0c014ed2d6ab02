"""A reply nested deeper than the SDK's cap is an APIResponseValidationError, on every
transport; before, a 990-level reply was returned, and `json.dumps` of it (the CLI's
output) raised RecursionError."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from edgedelivery_async import APIResponseValidationError, _json
from edgedelivery_async._json import MAX_DEPTH

from .loopback import EVERY_TRANSPORT, REGISTRY, loopback_server, open_client

KEY = "edk-depth-5e2a"


def nested(levels: int) -> str:
    """The registry reply with an extra member holding `levels` levels of arrays (the
    reply object itself is one more level)."""
    return json.dumps({**REGISTRY, "deep": 0})[:-2] + "[" * levels + "]" * levels + "}"


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_reply_nested_past_the_cap_is_refused(name: str) -> None:
    async with loopback_server() as server:
        for levels in (MAX_DEPTH, 990):

            async def reply(request: web.Request, text: str = nested(levels)) -> web.Response:
                return web.Response(text=text, content_type="application/json")

            server.replies.append(reply)
        async with open_client(name, KEY, server.base_url, max_retries=0) as client:
            with pytest.raises(APIResponseValidationError) as info:
                await client.registries.get(31)  # 128 levels inside the reply: 129 in all
            assert f"nested more than {MAX_DEPTH} levels deep" in str(info.value)
            with pytest.raises(APIResponseValidationError) as info:
                await client.registries.get(31)
            assert f"nested more than {MAX_DEPTH} levels deep" in str(info.value)


@pytest.mark.parametrize("name", ["aiohttp"])
async def test_a_reply_at_the_cap_is_read(name: str) -> None:
    async with loopback_server() as server:

        async def reply(request: web.Request) -> web.Response:
            return web.Response(text=nested(MAX_DEPTH - 1), content_type="application/json")

        server.replies.append(reply)
        async with open_client(name, KEY, server.base_url, max_retries=0) as client:
            registry = await client.registries.get(31)
            assert registry.id == 31


def test_without_orjson_a_reply_past_the_stack_is_too_deep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the `speed` extra the standard library parses, and a reply nested past
    Python's stack raised RecursionError there, which the engine reported as "the reply
    is not JSON" (found by running the suite at the lowest versions, without orjson)."""
    monkeypatch.setattr(_json, "_fast", None)
    monkeypatch.setattr(_json, "_looked", True)
    with pytest.raises(_json.TooDeep, match=f"nested more than {MAX_DEPTH} levels deep"):
        _json.loads(b"[" * 100_000 + b"]" * 100_000)
    assert _json.loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
