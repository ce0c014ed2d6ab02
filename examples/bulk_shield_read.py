"""Read the shield configuration of many pull zones at once, results streaming in.

    .venv/bin/python examples/bulk_shield_read.py                   # 1000 pull zones of a fake API
    .venv/bin/python examples/bulk_shield_read.py --last 5000 -c 50 # with EDGEDELIVERY_* set: real

The fake runs on 127.0.0.1 so the requests go over the SDK's default aiohttp transport;
every 100th pull zone has no shield zone there, and 2% of requests are answered 503
(retried by the SDK). An `on_retry` hook counts the retries, by what caused them.
"""

from __future__ import annotations

import argparse
from collections import Counter

from _target import connect, run

from edgedelivery_async import BulkProgress, Hooks, RetryEvent
from edgedelivery_async.testing import FakeEdgeDelivery

SEEDED = 1000


def seed(fake: FakeEdgeDelivery) -> None:
    for pull_zone_id in range(1, SEEDED + 1):
        fake.add_pull_zone(pull_zone_id)
        if pull_zone_id % 100:
            fake.add_shield_zone(pull_zone_id, wafEnabled=pull_zone_id % 7 != 0)
    fake.set_faults(rate_503=0.02, retry_after=0)


async def main(last: int, concurrency: int) -> None:
    progress = BulkProgress()  # live counters; read them from anywhere while it runs
    waf_off: list[int] = []
    errors: Counter[str] = Counter()
    retries: Counter[str] = Counter()

    def count_retry(event: RetryEvent) -> None:  # the reason: a status, or an SDK error
        reason = event.reason
        retries[str(reason) if isinstance(reason, int) else type(reason).__name__] += 1

    async with connect(seed, loopback=True) as plain:
        # Four retries, not the default two: at 2% of 503s, three in a row for one of
        # 1000 pull zones happen in about one run in a hundred, and that zone would fail.
        client = plain.with_options(hooks=Hooks(on_retry=count_retry), max_retries=4)
        async for result in client.shield.iter_zones_by_pull_zones(
            range(1, last + 1), concurrency=concurrency, progress=progress
        ):
            if result.error is not None:
                errors[type(result.error).__name__] += 1
            elif result.value is not None and result.value.waf_enabled is False:
                waf_off.append(result.key)
    print(f"read {progress.done} pull zones in {progress.elapsed:.2f} s ({progress.rate:.0f}/s)")
    print(f"succeeded: {progress.succeeded}, failed: {progress.failed} {dict(errors)}")
    print(f"retried: {sum(retries.values())} requests {dict(sorted(retries.items()))}")
    print(f"WAF off in {len(waf_off)} pull zones, e.g. {sorted(waf_off)[:5]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=int, default=SEEDED, help="read pull zones 1..LAST")
    parser.add_argument("-c", "--concurrency", type=int, default=100)
    args = parser.parse_args()
    run(main(args.last, args.concurrency))
