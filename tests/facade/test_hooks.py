"""Hooks: request, response and retry callbacks on any transport."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
from aiohttp import web

from edgedelivery_async import (
    APIStatusError,
    ConfigurationError,
    EdgeDeliveryClient,
    HookError,
    Hooks,
    NotFoundError,
    RequestEvent,
    ResponseEvent,
    RetryEvent,
)

from .conftest import KEY, SHIELD_CONFIG, Recorder, mock_client

OK = httpx.Response(200, json={"data": SHIELD_CONFIG})


async def test_a_hook_that_logs(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("my-service")

    def log_request(event: RequestEvent) -> None:
        log.info("-> %s %s (attempt %d)", event.method, event.url, event.attempt)

    async def log_response(event: ResponseEvent) -> None:  # async hooks work too
        log.info("<- %s in %.3f s", event.status_code, event.elapsed)

    hooks = Hooks(on_request=log_request, on_response=[log_response])
    with caplog.at_level(logging.INFO, logger="my-service"):
        async with mock_client(Recorder(OK), hooks=hooks) as client:
            await client.shield.get_zone_by_pull_zone(42)
    lines = [record.getMessage() for record in caplog.records]
    assert (
        lines[0] == "-> GET https://api.edge.test/shield/shield-zone/get-by-pullzone/42 (attempt 0)"
    )
    assert lines[1].startswith("<- 200 in ")


async def test_a_hook_that_adds_a_header_and_never_sees_the_key() -> None:
    seen: list[dict[str, str]] = []

    def add_header(event: RequestEvent) -> None:
        seen.append(dict(event.headers))
        event.headers["X-Request-Id"] = "req-1"
        event.headers["AccessKey"] = "not-the-clients-key"  # ignored: the client's key wins

    recorder = Recorder(OK)
    async with mock_client(recorder, hooks=Hooks(on_request=add_header)) as client:
        await client.shield.get_zone_by_pull_zone(42)
    sent = recorder.requests[0].headers
    assert sent["X-Request-Id"] == "req-1"
    assert sent["AccessKey"] == KEY
    assert all(KEY not in value for headers in seen for value in headers.values())
    assert "accesskey" not in {name.lower() for name in seen[0]}


async def test_hooks_never_see_a_key_the_server_echoes() -> None:
    """A reply header echoing the key reached on_response hooks as it came: they see ***
    there now."""
    seen: list[str] = []
    hooks = Hooks(
        on_request=lambda event: seen.append(f"{event.url} {event.headers}"),
        on_response=lambda event: seen.append(repr(dict(event.headers))),
        on_retry=lambda event: seen.append(f"{event.request.url} {event.reason!r}"),
    )

    def reply(request: httpx.Request) -> httpx.Response:
        key = request.headers["AccessKey"]
        if "k=" not in str(request.url):
            return httpx.Response(302, headers={"Location": f"{request.url.path}?k=1"})
        echo = {"X-Echo": key, f"X-Seen-{key.lower()}": "1"}
        if len(recorder.requests) == 2:
            return httpx.Response(503, headers={**echo, "Retry-After": "0"})
        return httpx.Response(200, json={"data": SHIELD_CONFIG}, headers=echo)

    recorder = Recorder(reply)
    async with mock_client(recorder, hooks=hooks) as client:
        await client.shield.get_zone_by_pull_zone(42)
    assert len(recorder.requests) == 3  # the redirect, a retried 503, the result
    assert len(seen) == 7
    assert all(KEY not in text and KEY.lower() not in text for text in seen)
    assert "?k=1" in seen[2]
    assert "'x-echo': '***'" in seen[-1].lower()


async def test_a_redirect_that_echoes_the_key_is_not_followed() -> None:
    """A URL a redirect gave (`?k=<key>`) reached on_request hooks (masked there), and
    was sent: the key went into a URL. Hooks see the 302's Location masked, and it ends
    the call."""
    seen: list[str] = []
    hooks = Hooks(
        on_request=lambda event: seen.append(event.url),
        on_response=lambda event: seen.append(repr(dict(event.headers))),
    )

    def reply(request: httpx.Request) -> httpx.Response:
        key = request.headers["AccessKey"]
        return httpx.Response(302, headers={"Location": f"{request.url.path}?k={key}"})

    recorder = Recorder(reply)
    async with mock_client(recorder, hooks=hooks) as client:
        with pytest.raises(APIStatusError) as info:
            await client.shield.get_zone_by_pull_zone(42)
    assert info.value.status_code == 302
    assert len(recorder.requests) == 1
    assert len(seen) == 2
    assert all(KEY not in text for text in seen)
    assert "?k=***" in seen[1]


async def test_retry_hooks_see_each_retry() -> None:
    retries: list[RetryEvent] = []
    responses: list[int] = []
    hooks = Hooks(on_retry=retries.append, on_response=lambda e: responses.append(e.status_code))
    recorder = Recorder(httpx.Response(503), httpx.Response(429), OK)
    async with mock_client(recorder, hooks=hooks) as client:
        await client.shield.get_zone_by_pull_zone(42)
    assert [(event.retry, event.reason) for event in retries] == [(1, 503), (2, 429)]
    assert [event.request.attempt for event in retries] == [0, 1]
    assert responses == [503, 429, 200]


async def test_response_hooks_run_before_errors_are_raised() -> None:
    statuses: list[int] = []
    hooks = Hooks(on_response=lambda event: statuses.append(event.status_code))
    async with mock_client(Recorder(httpx.Response(404)), hooks=hooks) as client:
        with pytest.raises(NotFoundError):
            await client.registries.get(7)
    assert statuses == [404]


@pytest.mark.parametrize("where", ["on_request", "on_response", "on_retry"])
async def test_a_hook_that_raises_is_an_sdk_error(where: str) -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("boom")

    recorder = Recorder(httpx.Response(503), OK)
    async with mock_client(recorder, hooks=Hooks(**{where: broken})) as client:
        with pytest.raises(HookError, match="boom") as info:
            await client.shield.get_zone_by_pull_zone(42)
    assert isinstance(info.value.__cause__, RuntimeError)


@pytest.mark.parametrize("where", ["on_request", "on_response", "on_retry"])
async def test_a_hook_that_raises_cancelled_error_of_its_own_is_an_sdk_error(where: str) -> None:
    """A hook awaiting something cancelled let a raw CancelledError out of the call,
    which nobody had cancelled (and a bulk run then waited for that key for ever)."""

    async def awaits_a_cancelled_future(event: Any) -> None:
        done = asyncio.get_running_loop().create_future()
        done.cancel()
        await done

    recorder = Recorder(httpx.Response(503), OK)
    async with mock_client(recorder, hooks=Hooks(**{where: awaits_a_cancelled_future})) as client:
        with pytest.raises(HookError, match="nobody cancelled the call"):
            await client.shield.get_zone_by_pull_zone(42)


async def test_a_cancelled_call_still_ends_cancelled_while_its_hook_runs() -> None:
    """The caller's own cancellation (a timeout) is not turned into a HookError."""

    async def slow(event: Any) -> None:
        await asyncio.sleep(10)

    async with mock_client(Recorder(OK), hooks=Hooks(on_request=slow)) as client:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await client.shield.get_zone_by_pull_zone(42)


async def test_a_hook_that_sets_a_bad_header_is_an_sdk_error() -> None:
    def bad(event: RequestEvent) -> None:
        event.headers["X-Bad"] = "line\nbreak"

    recorder = Recorder(OK)
    async with mock_client(recorder, hooks=Hooks(on_request=bad)) as client:
        with pytest.raises(HookError):
            await client.shield.get_zone_by_pull_zone(42)
    assert recorder.requests == []


@pytest.mark.parametrize("value", ["not callable", [print, 3], 7])
def test_hooks_must_be_callables(value: Any) -> None:
    with pytest.raises(ConfigurationError):
        Hooks(on_request=value)


def test_hooks_option_must_be_hooks() -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, "https://api.edge.test", hooks=print)  # type: ignore[arg-type]


async def test_hooks_on_the_default_transport() -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"data": {**SHIELD_CONFIG, "seen": request.headers["X-Team"]}})

    app = web.Application()
    app.router.add_get("/shield/shield-zone/get-by-pullzone/{id}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        hooks = Hooks(on_request=lambda event: event.headers.update({"X-Team": "edge"}))
        async with EdgeDeliveryClient(KEY, f"http://127.0.0.1:{port}", hooks=hooks) as client:
            config = await client.shield.get_zone_by_pull_zone(42)
        assert config["seen"] == "edge"
    finally:
        await runner.cleanup()
    await asyncio.sleep(0)
