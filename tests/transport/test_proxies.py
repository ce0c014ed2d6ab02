"""HTTP(S)_PROXY and NO_PROXY, read from the environment once per origin, on every stack."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from edgedelivery_async import APIConnectionError

from .loopback import STACKS, LoopbackServer, closed_port, loopback_server, open_client

KEY = "edk-proxy-41b7"
NAMES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture
async def proxy(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[LoopbackServer]:
    """A loopback server standing in for a forward proxy, named by HTTP_PROXY."""
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    async with loopback_server() as server:
        monkeypatch.setenv("HTTP_PROXY", server.base_url)
        yield server


@pytest.mark.parametrize("name", STACKS)
async def test_requests_go_through_the_proxy(name: str, proxy: LoopbackServer) -> None:
    target = f"http://127.0.0.1:{closed_port()}"  # nothing listens: only the proxy answers
    async with open_client(name, KEY, target, max_retries=0) as client:
        registry = await client.registries.get(31)
        await client.registries.get(32)
    assert registry.id == 31
    assert len(proxy.requests) == 2
    assert proxy.requests[0].raw_path.endswith("/mc/registries/31")
    assert proxy.header(0, "AccessKey") == [KEY]


@pytest.mark.parametrize("name", STACKS)
async def test_no_proxy_goes_direct(
    name: str, proxy: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    target = f"http://127.0.0.1:{closed_port()}"
    async with open_client(name, KEY, target, max_retries=0) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.get(31)
    assert info.value.request_sent is False
    assert proxy.requests == []
