"""`edgedelivery demo`: the shield dump against an embedded fake API, no account needed.

The fake (`edgedelivery_async.testing.FakeEdgeDelivery`) serves on 127.0.0.1 on a free
port, seeded with pull zones and their shield zones. Every 250th pull zone has no
shield zone (its line is a 404 error, on purpose), a small share of requests is
answered 503, which the SDK's retries absorb, and the key is rate-limited like the live
API's (a token bucket, 429 past it), which the SDK's rate control finds and holds just
under. The dump then runs over the SDK's default (aiohttp) transport, exactly as
against the real API.

Exit status: 0 when the only failures are the pull zones seeded without a shield
zone, 1 when anything else failed, 130 after Ctrl-C.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ._commands import Concurrency, IntegerRange, NumberRange
from ._options import settings
from ._output import FAILED, INTERRUPTED, OK, LineWriter, say

if TYPE_CHECKING:  # imported when the demo runs: `--help` loads none of the SDK
    from edgedelivery_openapi.models import ShieldZoneConfig

    from .. import BulkResult
    from ..testing import FakeEdgeDelivery

MISSING_EVERY = 250  # every 250th pull zone is seeded without a shield zone
RATE_503 = 0.02
RATE_LIMIT = 500.0  # requests per second per key, in bursts of up to a tenth of that
MOST_PULL_ZONES = 1_000_000  # --pull-zones at most, as for `serve` (each is held in memory)
DEMO_MAX_RETRIES = 5  # with 2% injected faults, 6 failures in a row never happen in practice


def seed(fake: FakeEdgeDelivery, count: int) -> set[int]:
    """Pull zones 1..count with shield zones, except every 250th; returns those without."""
    from ..testing import SEED_SHIELD_ZONE_OFFSET

    missing = set()
    for pull_zone_id in range(1, count + 1):
        fake.add_pull_zone(pull_zone_id)
        if pull_zone_id % MISSING_EVERY == 0:
            missing.add(pull_zone_id)
            continue
        fake.add_shield_zone(
            pull_zone_id,
            SEED_SHIELD_ZONE_OFFSET + pull_zone_id,
            wafEnabled=pull_zone_id % 10 != 0,
            learningMode=pull_zone_id % 17 == 0,
        )
    return missing


def check_pace(latency: float, rate_limit: float) -> None:
    """Refuse what the fake cannot serve: NaN, infinity, a latency past a minute, a limit
    outside the fake's (0.001 to 1e9 a second; 0 for none)."""
    from ..testing._rate_limit import LARGEST, SLOWEST

    if not 0 <= latency <= 60:
        raise typer.BadParameter("must be from 0 to 60 seconds", param_hint="--latency")
    if not (rate_limit == 0 or SLOWEST <= rate_limit <= LARGEST):
        raise typer.BadParameter(
            f"must be 0 (no limit) or from {SLOWEST:g} to {LARGEST:,.0f} requests per second",
            param_hint="--rate-limit",
        )


def demo_command(
    ctx: typer.Context,
    pull_zones: Annotated[
        int,
        typer.Option(
            "--pull-zones",
            "-p",
            metavar="N",
            click_type=IntegerRange(1, MOST_PULL_ZONES),
            help="How many pull zones to seed.",
        ),
    ] = 3000,
    concurrency: Concurrency = 100,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write every JSON line here (- for stdout); default: print two sample lines.",
            show_default=False,
        ),
    ] = None,
    latency: Annotated[
        float,
        typer.Option(
            "--latency",
            metavar="SECONDS",
            click_type=NumberRange(min=0.0),
            help="Seconds the fake waits per request.",
        ),
    ] = 0.01,
    rate_limit: Annotated[
        float,
        typer.Option(
            "--rate-limit",
            metavar="N",
            click_type=NumberRange(min=0.0),
            help="Requests per second the fake allows the key (0: no limit).",
        ),
    ] = RATE_LIMIT,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar (the summary is still printed).")
    ] = False,
) -> None:
    """Run `shield dump` against an embedded fake API on loopback: no account, no network.

    Every 250th pull zone has no shield zone (a 404 line, on purpose), 2% of requests
    fail with 503, which the retries absorb, and the fake limits the key to --rate-limit
    requests per second (429 past it), which the SDK's rate control finds and holds just
    under. Exits 0 when the only failures are the intended 404s. The global
    --access-key/--base-url are not used.
    """
    from .. import APIStatusError, EdgeDeliveryClient, NotFoundError
    from ..testing import FakeEdgeDelivery
    from ._dump import dump, report_output_error, run_to_end
    from ._ids import IdRanges, chain
    from ._progress import RunStats, stderr_is_terminal

    check_pace(latency, rate_limit)
    options = settings(ctx)
    fake = FakeEdgeDelivery(
        request_log_limit=max(10_000, 2 * pull_zones), rate_limit=rate_limit or None
    )
    missing = seed(fake, pull_zones)
    fake.set_faults(latency=latency, rate_503=RATE_503, retry_after=0)
    writer = LineWriter.open(output)
    stats = RunStats()
    samples: dict[bool, str] = {}
    unexpected: list[str] = []  # the first failure that was not intended, if any
    unexpected_count = 0
    unabsorbed = 0  # injected 503 replies that reached the output (retries ran out)

    def on_result(result: BulkResult[int, ShieldZoneConfig], line: str) -> None:
        nonlocal unexpected_count, unabsorbed
        samples.setdefault(result.ok, line)
        intended = isinstance(result.error, NotFoundError) and result.key in missing
        if not result.ok and not intended:
            unexpected_count += 1
            unexpected[:] = unexpected or [line]
            if isinstance(result.error, APIStatusError) and result.error.status_code == 503:
                unabsorbed += 1

    async def main() -> None:
        async with fake.serve() as url:
            limited = f"{rate_limit:g} requests/s per key" if rate_limit else "no rate limit"
            say(
                f"fake Edge Delivery API on {url}: {pull_zones} pull zones, "
                f"{len(missing)} without a shield zone (404 on purpose), "
                f"{RATE_503:.0%} 503 replies (retried), {limited}"
            )
            async with EdgeDeliveryClient(
                fake.access_key,
                url,
                timeout=options.timeout,
                max_retries=options.max_retries
                if options.max_retries is not None
                else DEMO_MAX_RETRIES,
            ) as client:
                await dump(
                    client,
                    chain(IdRanges(((1, pull_zones),)), None),
                    writer,
                    stats,
                    concurrency=concurrency,
                    rate_limit=None,
                    total=pull_zones,
                    show_progress=not quiet and stderr_is_terminal() and output != "-",
                    on_result=on_result,
                    description="demo: shield dump",
                )

    run_to_end(main, stats, writer)
    report_output_error(writer, output, stats)
    if output is None and samples:
        say("sample lines (use -o FILE for all of them):")
        for ok in (True, False):
            if ok in samples:
                print(samples[ok], flush=True)
    injected = sum(1 for item in fake.requests if item.fault == "status")
    say(stats.summary())
    if stats.interrupted:
        raise typer.Exit(INTERRUPTED)
    say(
        f"the fake injected {injected} 503 replies; "
        f"the SDK's retries absorbed {injected - unabsorbed} of them"
    )
    if rate_limit:
        replies = len(fake.requests)
        say(
            f"rate limit: {stats.rate:.0f} reads/s against the fake's {rate_limit:g}/s "
            f"({stats.rate / rate_limit:.0%} of it), {fake.rate_limited} of {replies} "
            f"replies 429 ({fake.rate_limited / max(replies, 1):.1%})"
        )
    if stats.output_closed or stats.output_error:
        raise typer.Exit(FAILED)
    if unexpected_count:
        say(f"{unexpected_count} failures were not intended; the first: {unexpected[0]}")
        raise typer.Exit(FAILED)
    verdict = (
        f"ok: the {stats.failed} failures are exactly the pull zones seeded without a shield zone"
        if stats.failed
        else "ok: every pull zone was read"
    )
    say(verdict)
    raise typer.Exit(OK)
