"""The fake's rate limit: a token bucket per access key, like a real API's."""

from __future__ import annotations

import httpx
import pytest

from edgedelivery_async.testing import FakeEdgeDelivery, RateLimit
from edgedelivery_async.testing.__main__ import build_fake, parser
from edgedelivery_async.testing._rate_limit import TokenBuckets

PATH = "/shield/shield-zone/get-by-pullzone/1"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(RateLimit(10, burst=3), clock)
    assert [buckets.take("k")[0] for _ in range(4)] == [True, True, True, False]
    clock.now += 0.1  # one token
    assert [buckets.take("k")[0] for _ in range(2)] == [True, False]
    clock.now += 10  # refilled, never beyond the burst
    assert [buckets.take("k")[0] for _ in range(4)] == [True, True, True, False]
    assert (buckets.allowed, buckets.refused) == (7, 3)


def test_each_key_has_its_own_bucket() -> None:
    buckets = TokenBuckets(RateLimit(1, burst=1), Clock())
    assert buckets.take("a")[0]
    assert buckets.take("b")[0]
    assert not buckets.take("a")[0]


def test_retry_after_and_rate_limit_headers() -> None:
    buckets = TokenBuckets(RateLimit(20, burst=2, retry_after=1.5, headers=True), Clock())
    allowed, headers = buckets.take("k")
    assert allowed
    assert dict(headers) == {
        "RateLimit-Policy": "20;w=1;burst=2",
        "RateLimit-Limit": "2",
        "RateLimit-Remaining": "1",
        "RateLimit-Reset": "1",
    }
    buckets.take("k")
    allowed, headers = buckets.take("k")
    assert not allowed
    assert dict(headers)["Retry-After"] == "1.5"
    assert dict(headers)["RateLimit-Remaining"] == "0"
    quiet = TokenBuckets(RateLimit(1, burst=1, retry_after=None), Clock())
    quiet.take("k")
    assert quiet.take("k") == (False, ())


def test_the_limit_changes_on_its_schedule() -> None:
    clock = Clock()
    buckets = TokenBuckets(RateLimit(100, burst=1, changes=((5.0, 10.0),)), clock)
    buckets.take("k")  # the run starts
    assert buckets.rate_now(clock.now + 4.9) == 100
    assert buckets.rate_now(clock.now + 5.0) == 10


@pytest.mark.parametrize(
    "bad",
    [
        {"rate": 0},
        {"rate": -1},
        {"rate": float("inf")},
        {"rate": True},
        {"rate": 5, "burst": 0.5},
        {"rate": 5, "retry_after": -1},
        {"rate": 5, "changes": ((1.0, 0.0),)},
    ],
)
def test_nonsense_limits_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"rate|burst|retry_after|changes"):
        RateLimit(**bad)  # type: ignore[arg-type]


async def test_the_fake_answers_429_past_the_limit_and_records_it() -> None:
    fake = FakeEdgeDelivery(rate_limit=RateLimit(1, burst=2, retry_after=2))
    fake.seed_pull_zones(1)
    headers = {"AccessKey": fake.access_key}
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        replies = [await http.get(PATH, headers=headers) for _ in range(3)]
    assert [r.status_code for r in replies] == [200, 200, 429]
    assert replies[2].headers["Retry-After"] == "2"
    assert replies[2].json()["status"] == 429
    assert fake.rate_limited == 1
    assert [r.fault for r in fake.requests] == [None, None, "rate-limited"]
    fake.set_rate_limit(None)
    assert fake.rate_limit is None
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        assert (await http.get(PATH, headers=headers)).status_code == 200


async def test_a_number_is_a_rate_per_second() -> None:
    fake = FakeEdgeDelivery(rate_limit=50)
    assert fake.rate_limit == RateLimit(50)
    assert fake.rate_limit.bucket_size == 5


def test_serve_options_make_the_limit() -> None:
    args = parser().parse_args(
        [
            "serve", "--access-key", "k", "--empty", "--rate-limit", "200", "--burst", "20",
            "--no-retry-after", "--rate-limit-headers", "--rate-change", "5:100",
        ]
    )  # fmt: skip
    fake = build_fake(args)
    assert fake.rate_limit == RateLimit(
        200, burst=20, retry_after=None, headers=True, changes=((5.0, 100.0),)
    )


@pytest.mark.parametrize(
    "argv",
    [["--rate-change", "5"], ["--rate-limit", "5", "--rate-change", "x:1"], ["--burst", "3"]],
)
def test_serve_refuses_unusable_limit_options(argv: list[str]) -> None:
    args = parser().parse_args(["serve", "--access-key", "k", "--empty", *argv])
    with pytest.raises(ValueError, match="--"):
        build_fake(args)
