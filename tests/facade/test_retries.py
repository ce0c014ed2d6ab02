"""Retries: which failures, how often, how long to wait (recorded, never timed)."""

from __future__ import annotations

import datetime
import email.utils
from typing import Any

import httpx
import pytest

from edgedelivery_async import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    EdgeDeliveryClient,
    RateLimitError,
    RetryPolicy,
)

from .conftest import REGISTRY, TEMPLATE, FakeClock, Recorder, mock_client

OK_REGISTRY = httpx.Response(200, json=REGISTRY)
NO_JITTER = RetryPolicy(initial_delay=1.0, max_delay=4.0, jitter=0.0)

GET = ("GET", lambda c: c.registries.get(31), OK_REGISTRY)
PUT = (
    "PUT",
    lambda c: c.containers.set_environment("app", "ct", {"A": "1"}),
    httpx.Response(200, json=TEMPLATE),
)
IDEMPOTENT = [GET, PUT]
POSTS = [
    ("force ssl", lambda c: c.pull_zones.set_force_ssl(1, hostname="h", force_ssl=True)),
    ("variable", lambda c: c.compute.add_script_variable(1, name="A")),
    ("dns zone", lambda c: c.dns_zones.add(domain="example.com")),
    ("registry", lambda c: c.registries.add(display_name="main")),
    ("template", lambda c: c.containers.add_template("app", name="n", image="i")),
]


def status(code: int, **headers: str) -> httpx.Response:
    return httpx.Response(code, json={"title": f"status {code}"}, headers=headers)


async def test_default_policy_is_two_retries_with_backoff_from_half_a_second(
    clock: FakeClock,
) -> None:
    recorder = Recorder(status(503))
    async with mock_client(recorder, retry=RetryPolicy()) as client:
        assert client.retry == RetryPolicy(max_retries=2, initial_delay=0.5, max_delay=8.0)
        with pytest.raises(APIStatusError):
            await client.registries.get(31)

    assert len(recorder.requests) == 3
    first, second = clock.sleeps
    assert 0.5 * 0.75 <= first <= 0.5
    assert 1.0 * 0.75 <= second <= 1.0


async def test_client_default_is_two_retries(clock: FakeClock) -> None:
    recorder = Recorder(status(502))
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as http:
        client = EdgeDeliveryClient("k", "https://api.edge.test", http_client=http)
        with pytest.raises(APIStatusError):
            await client.registries.get(31)
    assert len(recorder.requests) == 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504])
@pytest.mark.parametrize(("method", "call", "ok"), IDEMPOTENT, ids=["GET", "PUT"])
async def test_idempotent_calls_retry(
    clock: FakeClock, method: str, call: Any, ok: httpx.Response, code: int
) -> None:
    recorder = Recorder(status(code), status(code), ok)
    async with mock_client(recorder) as client:
        result = await call(client)

    assert result is not None
    assert [r.method for r in recorder.requests] == [method] * 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504])
@pytest.mark.parametrize(("method", "call", "ok"), IDEMPOTENT, ids=["GET", "PUT"])
async def test_idempotent_calls_give_up_after_max_retries(
    clock: FakeClock, method: str, call: Any, ok: httpx.Response, code: int
) -> None:
    recorder = Recorder(status(code))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError) as info:
            await call(client)

    assert info.value.status_code == code
    # a 429 is retried up to max_rate_limited_retries (6 by default), apart from max_retries
    attempts = 7 if code == 429 else 3
    assert len(recorder.requests) == attempts
    assert len(clock.sleeps) == attempts - 1


async def test_rate_limited_retries_are_counted_apart(clock: FakeClock) -> None:
    """Two 429s and two 503s with max_retries=2 and max_rate_limited_retries=2: each
    kind has its own count, so the fifth attempt is made and succeeds."""
    policy = RetryPolicy(max_retries=2, max_rate_limited_retries=2, initial_delay=1, jitter=0)
    recorder = Recorder(status(429), status(503), status(429), status(503), OK_REGISTRY)
    async with mock_client(recorder, retry=policy) as client:
        await client.registries.get(31)
    assert len(recorder.requests) == 5
    failing = Recorder(status(429), status(429), status(429), OK_REGISTRY)
    async with mock_client(failing, retry=policy) as client:
        with pytest.raises(RateLimitError):
            await client.registries.get(31)
    assert len(failing.requests) == 3


@pytest.mark.parametrize(("max_retries", "refusals"), [(0, 0), (1, 6), (2, 6), (9, 9)], ids=str)
async def test_rate_limited_retries_follow_max_retries(max_retries: int, refusals: int) -> None:
    assert RetryPolicy(max_retries=max_retries).max_rate_limited_retries == refusals
    assert RetryPolicy(max_rate_limited_retries=1).max_rate_limited_retries == 1
    client = EdgeDeliveryClient("k", "https://api.test", max_retries=max_retries)
    assert client.retry.max_rate_limited_retries == refusals


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 422, 501, 505, 520])
@pytest.mark.parametrize(("method", "call", "ok"), IDEMPOTENT, ids=["GET", "PUT"])
async def test_other_statuses_are_not_retried(
    clock: FakeClock, method: str, call: Any, ok: httpx.Response, code: int
) -> None:
    recorder = Recorder(status(code), ok)
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError):
            await call(client)

    assert len(recorder.requests) == 1
    assert clock.sleeps == []


@pytest.mark.parametrize("code", [429, 503])
@pytest.mark.parametrize(("name", "call"), POSTS, ids=[n for n, _ in POSTS])
async def test_post_is_retried_on_429_and_503(
    clock: FakeClock, name: str, call: Any, code: int
) -> None:
    recorder = Recorder(status(code))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError):
            await call(client)

    assert len(recorder.requests) == (7 if code == 429 else 3)
    assert all(r.method == "POST" for r in recorder.requests)
    assert len({r.content for r in recorder.requests}) == 1  # the same body each time


@pytest.mark.parametrize("code", [408, 500, 502, 504, 520])
@pytest.mark.parametrize(("name", "call"), POSTS, ids=[n for n, _ in POSTS])
async def test_post_is_not_retried_when_the_server_may_have_acted(
    clock: FakeClock, name: str, call: Any, code: int
) -> None:
    recorder = Recorder(status(code))
    async with mock_client(recorder) as client:
        with pytest.raises(APIStatusError):
            await call(client)

    assert len(recorder.requests) == 1
    assert clock.sleeps == []


# ------------------------------------------------------------ connection failures


@pytest.mark.parametrize(
    "failure", [httpx.ConnectError("refused"), httpx.ConnectTimeout("slow connect")]
)
@pytest.mark.parametrize(("name", "call"), [*POSTS, GET[:2]], ids=[*(n for n, _ in POSTS), "GET"])
async def test_connection_that_never_opened_is_retried_for_every_method(
    clock: FakeClock, name: str, call: Any, failure: Exception
) -> None:
    recorder = Recorder(failure)
    async with mock_client(recorder) as client:
        with pytest.raises(APIConnectionError) as info:
            await call(client)

    assert info.value.request_sent is False
    assert len(recorder.requests) == 3
    assert len(clock.sleeps) == 2


async def test_connection_failure_then_success(clock: FakeClock) -> None:
    recorder = Recorder(httpx.ConnectError("refused"), httpx.Response(200, json={"id": 5}))
    async with mock_client(recorder) as client:
        reply = await client.registries.add.with_response(display_name="main")

    assert reply.parsed == 5
    assert reply.retries_taken == 1
    assert len(recorder.requests) == 2


@pytest.mark.parametrize(
    ("failure", "error_class"),
    [
        (httpx.ReadTimeout("no reply"), APITimeoutError),
        (httpx.WriteTimeout("stuck"), APITimeoutError),
        (httpx.RemoteProtocolError("closed mid-reply"), APIConnectionError),
        (httpx.ReadError("reset"), APIConnectionError),
    ],
)
@pytest.mark.parametrize(("name", "call"), POSTS, ids=[n for n, _ in POSTS])
async def test_no_post_retry_once_the_request_was_sent(
    clock: FakeClock, name: str, call: Any, failure: Exception, error_class: type[Exception]
) -> None:
    recorder = Recorder(failure, status(200))
    async with mock_client(recorder) as client:
        with pytest.raises(error_class) as info:
            await call(client)

    assert isinstance(info.value, APIConnectionError)
    assert info.value.request_sent is True
    assert len(recorder.requests) == 1
    assert clock.sleeps == []


@pytest.mark.parametrize(
    "failure",
    [httpx.ReadTimeout("no reply"), httpx.RemoteProtocolError("closed"), httpx.ReadError("x")],
)
@pytest.mark.parametrize(("method", "call", "ok"), IDEMPOTENT, ids=["GET", "PUT"])
async def test_idempotent_calls_retry_after_a_read_failure(
    clock: FakeClock, method: str, call: Any, ok: httpx.Response, failure: Exception
) -> None:
    recorder = Recorder(failure, failure, ok)
    async with mock_client(recorder) as client:
        assert await call(client) is not None
    assert len(recorder.requests) == 3


async def test_read_timeout_on_get_gives_up_with_api_timeout_error(clock: FakeClock) -> None:
    recorder = Recorder(httpx.ReadTimeout("no reply"))
    async with mock_client(recorder) as client:
        with pytest.raises(APITimeoutError) as info:
            await client.registries.get(31)
    assert len(recorder.requests) == 3
    assert str(info.value).startswith("GET /mc/registries/31: timed out")


# ------------------------------------------------------------------ Retry-After


async def test_retry_after_in_seconds_is_honoured(clock: FakeClock) -> None:
    recorder = Recorder(status(429, **{"Retry-After": "3"}), status(503, **{"Retry-After": "0.5"}))
    async with mock_client(recorder, retry=NO_JITTER) as client:
        with pytest.raises(APIStatusError):
            await client.registries.add(display_name="main")

    # the 429's retry is counted apart, so the 503 (repeated) gets its own two
    assert clock.sleeps == [3.0, 0.5, 0.5]
    assert len(recorder.requests) == 4


async def test_retry_after_as_http_date_is_honoured(clock: FakeClock) -> None:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=30)
    header = email.utils.format_datetime(when, usegmt=True)
    recorder = Recorder(status(429, **{"Retry-After": header}), OK_REGISTRY)
    async with mock_client(recorder, retry=NO_JITTER) as client:
        await client.registries.get(31)

    (slept,) = clock.sleeps
    assert 25.0 <= slept <= 30.0  # the date has one-second resolution


async def test_retry_after_in_the_past_means_now(clock: FakeClock) -> None:
    recorder = Recorder(
        status(503, **{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), OK_REGISTRY
    )
    async with mock_client(recorder, retry=NO_JITTER) as client:
        await client.registries.get(31)
    assert clock.sleeps == [0.0]


@pytest.mark.parametrize("header", ["soon", "", "-", "inf", "nan", "Wed, 99 Foo"])
async def test_unreadable_retry_after_falls_back_to_backoff(clock: FakeClock, header: str) -> None:
    recorder = Recorder(status(503, **{"Retry-After": header}), OK_REGISTRY)
    async with mock_client(recorder, retry=NO_JITTER) as client:
        await client.registries.get(31)
    assert clock.sleeps == [1.0]


async def test_retry_after_above_the_cap_ends_the_retries(clock: FakeClock) -> None:
    recorder = Recorder(status(429, **{"Retry-After": "120"}))
    async with mock_client(recorder, retry=NO_JITTER) as client:
        with pytest.raises(RateLimitError) as info:
            await client.registries.get(31)

    assert info.value.retry_after == 120.0
    assert len(recorder.requests) == 1
    assert clock.sleeps == []


async def test_retry_after_cap_is_configurable(clock: FakeClock) -> None:
    policy = RetryPolicy(initial_delay=1.0, jitter=0.0, max_retry_after=5.0)
    recorder = Recorder(status(429, **{"Retry-After": "5"}), status(429, **{"Retry-After": "6"}))
    async with mock_client(recorder, retry=policy) as client:
        with pytest.raises(RateLimitError) as info:
            await client.registries.get(31)

    assert clock.sleeps == [5.0]
    assert info.value.retry_after == 6.0
    assert len(recorder.requests) == 2


async def test_rate_limit_error_after_the_last_retry_carries_retry_after(clock: FakeClock) -> None:
    recorder = Recorder(status(429, **{"Retry-After": "2"}))
    async with mock_client(recorder, retry=NO_JITTER) as client:
        with pytest.raises(RateLimitError) as info:
            await client.registries.get(31)
    assert info.value.retry_after == 2.0
    assert clock.sleeps == [2.0] * 6  # max_rate_limited_retries


# ---------------------------------------------------------------------- backoff


async def test_backoff_doubles_and_is_capped(clock: FakeClock) -> None:
    policy = RetryPolicy(max_retries=5, initial_delay=1.0, max_delay=4.0, jitter=0.0)
    recorder = Recorder(status(500))
    async with mock_client(recorder, retry=policy) as client:
        with pytest.raises(APIStatusError):
            await client.registries.get(31)

    assert clock.sleeps == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert len(recorder.requests) == 6


async def test_jitter_only_shortens_the_wait(clock: FakeClock) -> None:
    policy = RetryPolicy(max_retries=6, initial_delay=0.5, max_delay=8.0, jitter=0.25)
    recorder = Recorder(status(504))
    async with mock_client(recorder, retry=policy) as client:
        with pytest.raises(APIStatusError):
            await client.registries.get(31)

    for n, slept in enumerate(clock.sleeps):
        full = min(0.5 * 2**n, 8.0)
        assert full * 0.75 <= slept <= full


def test_policy_delay_directly() -> None:
    policy = RetryPolicy(max_retries=3, initial_delay=0.5, max_delay=8.0, jitter=0.0)
    assert [policy.delay(n) for n in range(4)] == [0.5, 1.0, 2.0, None]
    assert policy.delay(0, retry_after=10) == 10
    assert policy.delay(0, retry_after=61) is None
    assert policy.delay(3, retry_after=1) is None


async def test_max_retries_zero_and_with_options(clock: FakeClock) -> None:
    recorder = Recorder(status(503))
    async with mock_client(recorder, max_retries=0) as client:
        with pytest.raises(APIStatusError):
            await client.registries.get(31)
        assert len(recorder.requests) == 1

        more = client.with_options(max_retries=4)
        assert more.retry.max_retries == 4
        assert client.retry.max_retries == 0
        with pytest.raises(APIStatusError):
            await more.registries.get(31)
        assert len(recorder.requests) == 1 + 5


async def test_retries_taken_via_with_response(clock: FakeClock) -> None:
    recorder = Recorder(status(503), status(502), OK_REGISTRY)
    async with mock_client(recorder) as client:
        reply = await client.registries.get.with_response(31)
        fresh = await client.registries.get.with_response(31)

    assert reply.retries_taken == 2
    assert reply.status_code == 200
    assert reply.parsed.id == 31
    assert fresh.retries_taken == 0


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("5", 5.0),
        (" 3 ", 3.0),
        ("1.5", 1.5),  # not RFC 9110's form, but plain enough to honour
        ("-5", None),  # these are no delta-seconds: Python's float() read them
        ("+5", None),
        ("1_000", None),
        ("1e1", None),
        ("\uff15", None),  # a full-width digit
        ("\u0665", None),  # an Arabic-Indic digit
        ("9" * 400, None),  # no float holds it
        ("Mon, 01 Jan 99999999999999999999 00:00:00 GMT", None),  # overflowed a C long
        ("Mon, 01 Jan 10000 00:00:00 GMT", None),  # past datetime's last year
        ("Mon, 01 Jan 2026 99:00:00 GMT", None),
    ],
)
def test_retry_after_seconds_are_ascii_digits(value: str, seconds: float | None) -> None:
    from edgedelivery_async._http import parse_retry_after

    assert parse_retry_after(value) == seconds
