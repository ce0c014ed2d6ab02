"""Shared fixtures: a client on pytest-httpx, clients on `httpx.MockTransport`, a fake clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from edgedelivery_async import EdgeDeliveryClient, RetryPolicy, _engine

KEY = "edk-Secret-7f3a9c2e51"
BASE = "https://api.edge.test"
FAST = RetryPolicy(initial_delay=0.001, max_delay=0.002, jitter=0.0)

Handler = Callable[[httpx.Request], Any]

# Success bodies from the document's examples.
SCRIPT_VARIABLE = {"Id": 17, "Name": "API_URL", "Required": True, "DefaultValue": "https://x"}
TEMPLATE = {
    "id": "tpl-6c1",
    "packageId": "pkg-2f9",
    "name": "api",
    "imageName": "api",
    "imageNamespace": "team",
    "imageTag": "1.4.2",
    "imageRegistryId": "reg-31",
    "environmentVariables": [{"name": "LOG_LEVEL", "value": "debug"}],
    "endpoints": [
        {
            "id": "ep-1",
            "displayName": "public",
            "publicHost": "api-6c1.edge.example.net",
            "isSslEnabled": True,
            "pullZoneId": "42",
            "portMappings": [{"containerPort": 8080, "exposedPort": 443, "protocols": ["tcp"]}],
            "stickySessions": {"enabled": False, "sessionHeaders": [], "cookieName": ""},
            "internalIpAddresses": [{"address": "10.0.0.5", "region": "de"}],
            "publicIpAddresses": [{"address": "203.0.113.7", "region": "de"}],
        }
    ],
    "volumeMounts": [{"name": "data", "mountPath": "/var/lib/app"}],
}
REGISTRY = {
    "id": 31,
    "accountId": "acc-5a1",
    "userId": "usr-77c",
    "namespaceId": "ns-main",
    "displayName": "main",
    "hostName": "registry.example.com",
    "userName": "deploy",
    "firstPasswordSymbols": "ab",
    "lastPasswordSymbols": "yz",
    "createdAt": "2026-11-01T08:30:00Z",
    "isPublic": False,
    "lastUpdatedAt": "2026-11-02T10:00:00Z",
}
SHIELD_CONFIG = {
    "shieldZoneId": 9001,
    "pullZoneId": 42,
    "learningMode": False,
    "learningModeUntil": "2026-12-01T00:00:00Z",
    "wafEnabled": True,
    "wafDisabledRules": ["913100"],
    "wafLogOnlyRules": ["920350"],
    "wafCustomRuleOrder": [3, 1, 2],
    "wafRequestHeaderLoggingEnabled": True,
    "requestBodyLoggingEnabled": False,
    "wafRequestIgnoredHeaders": ["cookie"],
    "wafRealtimeThreatIntelligenceEnabled": True,
    "wafProfileId": 1,
    "wafEngineConfig": [{"name": "paranoia_level", "valueEncoded": "MQ=="}],
    "rateLimitRulesLimit": 10,
    "customWafRulesLimit": 25,
    "dDoSChallengeWindow": 1800,
    "whitelabelResponsePages": False,
}
UPLOAD_SCANNING = {
    "error": {"success": True, "message": "", "errorKey": ""},
    "data": {"shieldZoneId": 9001, "isEnabled": True},
}


def body_json(request: httpx.Request) -> Any:
    """The JSON a request carried."""
    return json.loads(request.content)


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A plain `httpx.AsyncClient`; pytest-httpx answers it when `httpx_mock` is in use."""
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
async def client(httpx_mock: Any, http: httpx.AsyncClient) -> AsyncIterator[EdgeDeliveryClient]:
    """A client with a key on pytest-httpx, with fast retries."""
    async with EdgeDeliveryClient(KEY, BASE, http_client=http, retry=FAST) as sdk:
        yield sdk


@asynccontextmanager
async def mock_client(handler: Handler, **options: Any) -> AsyncIterator[EdgeDeliveryClient]:
    """A client sending through `httpx.MockTransport(handler)`."""
    options.setdefault("retry", FAST)
    access_key = options.pop("access_key", KEY)
    base_url = options.pop("base_url", BASE)
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http_client,
        EdgeDeliveryClient(access_key, base_url, http_client=http_client, **options) as sdk,
    ):
        yield sdk


class Recorder:
    """A MockTransport handler that records requests and plays replies in order.

    Each reply is an `httpx.Response`, an exception to raise, or a callable of the
    request; the last one repeats.
    """

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(request)
        assert isinstance(reply, httpx.Response)
        return reply


class FakeClock:
    """`asyncio.sleep` and `time.monotonic` as the engine sees them: sleeping is instant."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Record the engine's sleeps instead of waiting (only the engine's view is patched)."""
    fake = FakeClock()
    monkeypatch.setattr(_engine, "asyncio", SimpleNamespace(sleep=fake.sleep))
    monkeypatch.setattr(_engine, "time", SimpleNamespace(monotonic=fake.monotonic))
    return fake
