"""Timeouts: finite defaults, per client and per `with_options`; a hanging server times out."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    APITimeoutError,
    ConfigurationError,
    EdgeDeliveryClient,
    Timeout,
)
from edgedelivery_async._timeouts import LONGEST

from .conftest import BASE, REGISTRY, mock_client


class Hanging:
    """A handler that never answers the first `hangs` requests."""

    def __init__(self, hangs: int = 1_000) -> None:
        self.hangs = hangs
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if len(self.requests) <= self.hangs:
            await asyncio.Event().wait()
        return httpx.Response(200, json=REGISTRY)


def timeouts_seen(handler_log: list[httpx.Request]) -> dict[str, Any]:
    timeouts: dict[str, Any] = handler_log[-1].extensions["timeout"]
    return timeouts


def test_default_timeout() -> None:
    client = EdgeDeliveryClient("k", BASE)
    assert client.timeout == Timeout(connect=5.0, read=30.0, total=60.0)
    assert Timeout() == Timeout(5.0, 30.0, 60.0)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (2.0, Timeout(connect=2.0, read=2.0, total=2.0)),
        (12, Timeout(connect=5.0, read=12, total=12)),
        (Timeout(connect=1, read=2, total=3), Timeout(connect=1, read=2, total=3)),
    ],
)
def test_client_timeout(given: Any, expected: Timeout) -> None:
    assert EdgeDeliveryClient("k", BASE, timeout=given).timeout == expected


def test_with_options_timeout_leaves_the_original_alone() -> None:
    client = EdgeDeliveryClient("k", BASE, timeout=20)
    quick = client.with_options(timeout=Timeout(connect=1, read=1, total=2))

    assert quick.timeout == Timeout(connect=1, read=1, total=2)
    assert client.timeout == Timeout(connect=5, read=20, total=20)
    assert quick.with_options(max_retries=1).timeout == quick.timeout


@pytest.mark.parametrize(
    "bad", [0, -1, True, "5", float("nan"), [1], float("inf"), 10**400, 1e15, LONGEST * 2]
)
def test_invalid_timeouts(bad: Any) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient("k", BASE, timeout=bad)
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient("k", BASE).with_options(timeout=bad)


@pytest.mark.parametrize("field", ["connect", "read", "total"])
def test_invalid_timeout_fields(field: str) -> None:
    with pytest.raises(ConfigurationError, match=field):
        Timeout(**{field: 0})


async def test_timeouts_reach_the_http_stack() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=REGISTRY)

    async with mock_client(handler, timeout=Timeout(connect=2, read=7, total=9)) as client:
        await client.registries.get(1)
        assert timeouts_seen(seen)["connect"] == 2
        assert timeouts_seen(seen)["read"] == 7
        await client.with_options(timeout=3).registries.get(1)
        assert timeouts_seen(seen)["read"] == 3


async def test_hanging_get_times_out_and_is_retried() -> None:
    handler = Hanging()
    async with mock_client(handler, timeout=Timeout(connect=0.05, read=0.05, total=0.05)) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.registries.get(31)

    assert len(handler.requests) == 3
    assert info.value.request_sent is True
    assert info.value.method == "GET"
    assert info.value.path == "/mc/registries/31"


async def test_hanging_get_recovers_on_retry() -> None:
    handler = Hanging(hangs=1)
    async with mock_client(handler, timeout=0.05) as client:
        registry = await client.registries.get(31)
    assert registry.id == 31
    assert len(handler.requests) == 2


async def test_hanging_post_times_out_once() -> None:
    handler = Hanging()
    async with mock_client(handler) as client:
        quick = client.with_options(timeout=0.05)
        with pytest.raises(APITimeoutError) as info:
            await quick.registries.add(display_name="main")

    assert len(handler.requests) == 1
    assert info.value.request_sent is True
