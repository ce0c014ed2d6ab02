"""The fake's rate limit: a token bucket per access key, like a real API's."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from edgedelivery_async import ConfigurationError
from edgedelivery_async.testing import FakeEdgeDelivery, RateLimit
from edgedelivery_async.testing.__main__ import build_fake, main, parser
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


def test_a_change_of_rate_applies_from_its_time_not_to_the_idle_time_before() -> None:
    """The bucket refilled the whole idle stretch at the rate found on waking."""
    clock = Clock()
    rising = TokenBuckets(RateLimit(1, burst=100, changes=((10.0, 1000.0),)), clock)
    assert sum(rising.take("k")[0] for _ in range(100)) == 100  # the burst, at t=0
    clock.now += 10.01  # 10 s at 1/s, then 0.01 s at 1000/s: 20 tokens
    assert sum(rising.take("k")[0] for _ in range(100)) == 20
    clock = Clock()
    falling = TokenBuckets(RateLimit(1000, burst=100, changes=((0.1, 1.0),)), clock)
    assert sum(falling.take("k")[0] for _ in range(100)) == 100
    clock.now += 1.0  # 0.1 s at 1000/s (100 tokens), then 0.9 s at 1/s
    assert sum(falling.take("k")[0] for _ in range(200)) == 100


def test_buckets_that_refilled_are_forgotten() -> None:
    """One bucket per key ever presented, kept for ever: 60,000 wrong keys held 60,000."""
    clock = Clock()
    buckets = TokenBuckets(RateLimit(10, burst=1), clock)
    buckets.take("busy")
    for batch in range(60):
        for n in range(1000):
            buckets.take(f"k{batch}-{n}")
        clock.now += 0.05  # half a token: those just taken have not refilled
        buckets.take("busy")  # ... nor has this one, taken every 50 ms
    assert len(buckets) <= 4096
    assert not buckets.take("busy")[0]  # a bucket still being drained is kept
    clock.now += 1.0
    buckets.take("new")
    assert buckets.take("k59-1")[0]  # refilled, forgotten or not: the same


def test_header_numbers_are_plain_decimals() -> None:
    limit = RateLimit(1234567, burst=1500000, retry_after=2592000, headers=True)
    buckets = TokenBuckets(limit, Clock())
    assert dict(buckets.take("k")[1])["RateLimit-Policy"] == "1234567;w=1;burst=1500000"
    assert dict(buckets.take("k")[1])["RateLimit-Limit"] == "1500000"
    slow = TokenBuckets(RateLimit(0.5, burst=1, retry_after=2.25), Clock())
    slow.take("k")
    assert dict(slow.take("k")[1])["Retry-After"] == "2.25"


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "bad",
    [
        {"rate": 0},
        {"rate": -1},
        {"rate": INF},
        {"rate": NAN},
        {"rate": 10**400},
        {"rate": 1e-310},
        {"rate": 2e9},
        {"rate": True},
        {"rate": "5"},
        {"rate": 5, "burst": 0.5},
        {"rate": 5, "burst": INF},
        {"rate": 5, "burst": 10**400},
        {"rate": 5, "burst": "5"},
        {"rate": 5, "retry_after": -1},
        {"rate": 5, "retry_after": INF},
        {"rate": 5, "retry_after": NAN},
        {"rate": 5, "retry_after": "1"},
        {"rate": 5, "changes": ((1.0, 0.0),)},
        {"rate": 5, "changes": ((NAN, 5.0),)},
        {"rate": 5, "changes": ((1.0, "x"),)},
        {"rate": 5, "changes": ((1.0,),)},
        {"rate": 5, "changes": 5},
    ],
)
def test_nonsense_limits_are_refused(bad: dict[str, object]) -> None:
    """Some were accepted and then raised OverflowError at the first request (a 500
    when served); others raised a raw TypeError or ValueError."""
    with pytest.raises(ConfigurationError, match=r"rate|burst|retry_after|changes|change's"):
        RateLimit(**bad)  # type: ignore[arg-type]
    if list(bad) == ["rate"]:  # a number is a rate: the same check
        with pytest.raises(ConfigurationError):
            FakeEdgeDelivery(rate_limit=bad["rate"])  # type: ignore[arg-type]


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
    [
        ["--rate-change", "5"],
        ["--rate-limit", "5", "--rate-change", "x:1"],
        ["--burst", "3"],
        ["--retry-after", "2"],  # (was silently ignored: no limit, no 429 to carry it)
        ["--no-retry-after"],
        ["--rate-limit", "5", "--retry-after", "2", "--no-retry-after"],
    ],
)
def test_serve_refuses_unusable_limit_options(argv: list[str]) -> None:
    args = parser().parse_args(["serve", "--access-key", "k", "--empty", *argv])
    with pytest.raises(ValueError, match="--"):
        build_fake(args)


@pytest.mark.parametrize(
    "argv",
    [
        ["--rate-limit", "10", "--burst", "inf"],
        ["--rate-limit", "1e-310"],
        ["--rate-limit", "10", "--rate-change", "1e400:5"],
        ["--rate-limit", "10", "--retry-after", "inf"],
        ["--latency", "inf"],
        ["--latency", "nan"],
    ],
)
def test_serve_refuses_limits_and_latencies_it_cannot_keep(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`--burst inf --rate-limit-headers` started, then answered every request 500;
    `--latency inf` held every request for ever."""
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--access-key", "k", "--empty", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "error: " in err
    assert "Traceback" not in err


@pytest.mark.parametrize("port", ["99999", "-1", "x"])
def test_serve_refuses_a_port_that_is_not_one(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """99999 ended in an OverflowError traceback from bind()."""
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--access-key", "k", "--port", port])
    assert exit_.value.code == 2
    assert "must be a port number from 0 to 65535" in capsys.readouterr().err


def test_serve_without_retry_after_given_sends_one_second() -> None:
    args = parser().parse_args(["serve", "--access-key", "k", "--empty", "--rate-limit", "5"])
    limit = build_fake(args).rate_limit
    assert limit is not None
    assert limit.retry_after == 1.0


@pytest.mark.parametrize("count", ["-1", "1000001"])
def test_serve_refuses_pull_zones_out_of_range(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A count past a million was seeded in memory, however long that took."""
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--access-key", "k", "--pull-zones", count])
    assert exit_.value.code == 2
    assert "--pull-zones must be from 0 to 1,000,000" in capsys.readouterr().err


def test_ctrl_c_while_seeding_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while a large --pull-zones was being seeded printed a traceback."""

    def interrupted(self: object, count: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(FakeEdgeDelivery, "seed_pull_zones", interrupted)
    assert main(["serve", "--access-key", "k", "--pull-zones", "5"]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted while seeding the fake\n"


def test_serve_refuses_limit_options_before_seeding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A usage error came only after --pull-zones had been seeded (4.4 s for 300,000)."""

    def seeding(self: object, count: int) -> None:
        raise AssertionError("seeded before the options were checked")

    monkeypatch.setattr(FakeEdgeDelivery, "seed_pull_zones", seeding)
    args = parser().parse_args(["serve", "--access-key", "k", "--retry-after", "2"])
    with pytest.raises(ValueError, match="need --rate-limit"):
        build_fake(args)


def test_a_seed_file_that_is_not_utf8_is_a_seed_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was argparse's usage text and the codec's message, without the file's name."""
    seed = tmp_path / "seed.json"
    seed.write_bytes(b'{"pullZones": [{"id": 1, "hostnames": ["\xff"]}]}')
    assert main(["serve", "--access-key", "k", "--seed-file", str(seed)]) == 2
    err = capsys.readouterr().err
    assert err == f"cannot seed the fake: {seed}: not UTF-8 text (byte 40)\n"
