"""Constructor arguments, `with_options`, the connection pool and closing."""

from __future__ import annotations

import inspect
import platform
import re
from typing import Any

import httpx
import pytest

import edgedelivery_async
from edgedelivery_async import (
    ConfigurationError,
    EdgeDeliveryClient,
    RetryPolicy,
    Timeout,
    __version__,
)
from edgedelivery_async._engine import USER_AGENT
from edgedelivery_async._retry import MAX_RETRIES
from edgedelivery_async._transport import AiohttpTransport, HttpxTransport

from .conftest import BASE, KEY, REGISTRY, Recorder, mock_client


def test_public_names() -> None:
    for name in edgedelivery_async.__all__:
        assert hasattr(edgedelivery_async, name)
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)


def test_user_agent_names_the_sdk_and_its_version() -> None:
    expected = f"edgedelivery-async/{__version__} (python {platform.python_version()})"
    assert expected == USER_AGENT


def test_defaults() -> None:
    client = EdgeDeliveryClient(KEY, BASE + "/")
    assert client.base_url == BASE
    assert client.timeout == Timeout()
    assert client.retry == RetryPolicy()
    assert client.retry.max_retries == 2
    assert isinstance(client._engine.transport, AiohttpTransport)


async def test_async_with_returns_the_client() -> None:
    async with EdgeDeliveryClient(KEY, BASE) as client:
        assert isinstance(client, EdgeDeliveryClient)


async def test_callers_http_client_is_used_and_left_open() -> None:
    recorder = Recorder(httpx.Response(200, json=REGISTRY))
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as http:
        client = EdgeDeliveryClient(KEY, BASE, http_client=http)
        assert isinstance(client._engine.transport, HttpxTransport)
        await client.registries.get(1)
        await client.aclose()
        assert not http.is_closed
        await client.registries.get(2)
    assert len(recorder.requests) == 2


async def test_callers_http_client_settings_do_not_leak_in() -> None:
    recorder = Recorder(httpx.Response(200, json=REGISTRY))
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(recorder),
        base_url="https://other.test",
        headers={"X-From-Http-Client": "1"},
        follow_redirects=True,
    ) as http:
        await EdgeDeliveryClient(KEY, BASE, http_client=http).registries.get(1)
    (request,) = recorder.requests
    assert str(request.url) == f"{BASE}/mc/registries/1"
    assert request.headers["AccessKey"] == KEY


async def test_with_options_shares_the_pool_and_keeps_it_open() -> None:
    recorder = Recorder(httpx.Response(200, json=REGISTRY))
    async with mock_client(recorder, max_retries=1, default_headers={"X-A": "1"}) as client:
        copy = client.with_options(timeout=5)
        assert copy._engine is client._engine
        assert copy.base_url == client.base_url
        assert copy.retry == client.retry
        await copy.aclose()
        await copy.registries.get(1)
        await client.registries.get(2)
    assert [r.headers["X-A"] for r in recorder.requests] == ["1", "1"]


async def test_closing_a_copy_leaves_the_aiohttp_pool_open() -> None:
    client = EdgeDeliveryClient(KEY, BASE)
    transport = client._engine.transport
    assert isinstance(transport, AiohttpTransport)
    session = transport._open()
    await client.with_options(max_retries=0).aclose()
    assert not session.closed
    await client.aclose()
    assert session.closed
    await client.aclose()  # twice is fine


def test_with_options_max_retries_keeps_the_rest_of_the_policy() -> None:
    policy = RetryPolicy(
        max_retries=3, initial_delay=0.1, max_delay=1.0, max_retry_after=9, jitter=0
    )
    client = EdgeDeliveryClient(KEY, BASE, retry=policy)
    assert client.with_options(max_retries=7).retry == RetryPolicy(
        max_retries=7, initial_delay=0.1, max_delay=1.0, max_retry_after=9, jitter=0
    )
    assert client.with_options(retry=RetryPolicy()).retry == RetryPolicy()
    assert EdgeDeliveryClient(KEY, BASE, retry=policy, max_retries=0).retry.max_retries == 0


@pytest.mark.parametrize(
    "options",
    [
        {"http_client": object()},
        {"max_connections": 0},
        {"max_connections": True},
        {"max_retries": -1},
        {"max_retries": "2"},
        {"max_retries": True},
        {"retry": 2},
        {"default_headers": [("X-A", "1")]},
        {"default_headers": {"X-A": 1}},
        {"default_headers": {"": "x"}},
        {"default_headers": {"X:A": "x"}},
        {"default_headers": {"X-A": "a\r\nAccessKey: stolen"}},
        {"default_headers": {"X-A": "café"}},
        {"default_headers": {"X-Ä": "x"}},
        {"default_headers": {"X Y": "1"}},  # sent as given on aiohttp, a raw error on reqwest
        {"default_headers": {"X(y)": "1"}},
        {"default_headers": {"Content-Length": "5"}},  # hung aiohttp, h11's error on httpx
        {"default_headers": {"transfer-encoding": "chunked"}},
    ],
)
def test_invalid_options(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, BASE, **options)


@pytest.mark.parametrize(
    "options",
    [
        {"max_retries": -1},
        {"headers": {"X-A": "\n"}},
        {"headers": {"X-A": "ü"}},
        {"retry": "x"},
        {"headers": [("X-A", "1")]},  # a raw TypeError before
        {"headers": "X-A"},
    ],
)
def test_invalid_with_options(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, BASE).with_options(**options)


def test_an_option_with_options_does_not_take_is_a_configuration_error() -> None:
    """`with_options(nope=1)` or `with_options(max_response_bytes=...)` raised Python's
    TypeError (where `.map(bogus=1)` is an InvalidRequestError); now a ConfigurationError
    naming the option and listing what `with_options` takes. So for the constructor."""
    client = EdgeDeliveryClient(KEY, BASE)
    takes = ", ".join(p for p in inspect.signature(client.with_options).parameters)
    with pytest.raises(ConfigurationError) as raised:
        client.with_options(nope=1)  # type: ignore[call-arg]
    assert str(raised.value) == f"with_options has no option 'nope'; it takes {takes}"
    with pytest.raises(ConfigurationError, match=r"no option 'max_response_bytes' \(.*made"):
        client.with_options(max_response_bytes=2**20)  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match="headers= here"):
        client.with_options(default_headers={"X-A": "1"})  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match="positional"):
        client.with_options(5)  # type: ignore[misc]
    with pytest.raises(ConfigurationError, match="no option 'nope'; it takes access_key, "):
        EdgeDeliveryClient(KEY, BASE, nope=1)  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match="multiple values for argument 'access_key'"):
        EdgeDeliveryClient(KEY, BASE, access_key=KEY)  # type: ignore[misc]
    with pytest.raises(ConfigurationError) as raised:
        EdgeDeliveryClient(KEY, BASE, 3)  # type: ignore[misc]
    assert KEY not in str(raised.value)


@pytest.mark.parametrize(
    "policy",
    [
        {"jitter": -0.1},
        {"jitter": 1.5},
        {"jitter": "x"},  # a raw TypeError before
        {"jitter": None},
        {"jitter": True},
        # accepted before, then a raw TypeError or OverflowError at the first retry
        {"initial_delay": "0.5"},
        {"max_delay": "8"},
        {"max_retry_after": "60"},
        {"initial_delay": 10**400},
        {"initial_delay": -1},
        {"initial_delay": float("nan")},  # the call never ended
        {"initial_delay": float("inf")},
        {"max_delay": float("inf")},
        {"max_retry_after": 2e9},
        # counts: accepted before without a bound (10**9 retries of one call)
        {"max_retries": 10**9},
        {"max_retries": MAX_RETRIES + 1},
        {"max_retries": -1},
        {"max_retries": 2.0},
        {"max_rate_limited_retries": 10**9},
        {"max_rate_limited_retries": MAX_RETRIES + 1},
        {"max_rate_limited_retries": -1},
    ],
)
def test_invalid_retry_policy(policy: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        RetryPolicy(**policy)


def test_the_most_retries_are_accepted_and_their_backoff_is_max_delay() -> None:
    policy = RetryPolicy(
        max_retries=MAX_RETRIES, max_rate_limited_retries=MAX_RETRIES, max_delay=3.0, jitter=0
    )
    assert policy.delay(MAX_RETRIES - 1) == 3.0
    assert policy.delay(MAX_RETRIES) is None


def test_the_client_refuses_an_unbounded_retry_count() -> None:
    with pytest.raises(ConfigurationError, match="max_retries must be between 0 and 100"):
        EdgeDeliveryClient(KEY, BASE, max_retries=10**9)
    with pytest.raises(ConfigurationError, match="max_retries must be between 0 and 100"):
        EdgeDeliveryClient(KEY, BASE).with_options(max_retries=MAX_RETRIES + 1)


@pytest.mark.parametrize(("access_key", "base_url"), [(123, BASE), (KEY, 123), (b"key", BASE)])
def test_key_and_base_url_must_be_strings(access_key: Any, base_url: Any) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(access_key, base_url)
