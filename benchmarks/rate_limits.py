"""Bulk shield reads against a server that rate-limits like a real API; prints a table.

Each scenario serves a fresh fake (`python -m edgedelivery_async.testing serve`) in its
own process: one token bucket per access key, 20 ms per reply, 429 past the limit. The
clients run in processes of their own and read `GET /shield/shield-zone/get-by-pullzone/{id}`
for every id with concurrency 100:

- `sdk`: `client.shield.iter_zones_by_pull_zones(ids, concurrency=100)`, defaults only;
- `sdk rate_limit=N`: the same with the caller's own cap;
- `aiohttp`: a plain aiohttp loop (semaphore of 100) with the SDK's default retries
  (2 retries of a 429, after Retry-After or a 0.5 s doubling backoff).

Columns: reads per second, that as a share of the limit (time-averaged when it changes),
the share of replies answered 429, and ids that failed. A client still running after
`--deadline` seconds is stopped and shown as "not done".

    python benchmarks/rate_limits.py            # the whole table (about 8 minutes)
    python benchmarks/rate_limits.py --only 1,4 # some rows
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

KEY = "bench-rate-limit-key"
LATENCY = 0.02
CONCURRENCY = 100


@dataclass(frozen=True)
class Scenario:
    name: str
    rate: float
    ids: int
    burst: float = 20
    retry_after: float | None = 1.0
    headers: bool = False
    changes: tuple[tuple[float, float], ...] = ()
    processes: int = 1
    clients: tuple[str, ...] = ("sdk", "aiohttp")

    def limit_over(self, seconds: float) -> float:
        """The limit's average over the first `seconds` of the run."""
        if not self.changes or seconds <= 0:
            return self.rate
        total, at, rate = 0.0, 0.0, self.rate
        for when, changed in sorted(self.changes):
            if when >= seconds:
                break
            total += rate * (when - at)
            at, rate = when, changed
        total += rate * (seconds - at)
        return total / seconds


SCENARIOS = [
    Scenario("200/s, burst 20, Retry-After 1", 200, 3000),
    Scenario("200/s, no Retry-After", 200, 3000, retry_after=None),
    Scenario("40/s, Retry-After 2", 40, 600, burst=4, retry_after=2.0),
    Scenario("400/s falling to 100/s after 5 s", 400, 3000, burst=40, changes=((5.0, 100.0),)),
    Scenario("200/s, one key shared by two processes", 200, 3000, processes=2),
    Scenario("200/s, caller passes rate_limit=180", 200, 2000, clients=("sdk:180",)),
    Scenario("200/s, caller passes rate_limit=210", 200, 2000, clients=("sdk:210",)),
    Scenario("5/s, burst 5", 5, 150, burst=5, clients=("sdk",)),
    Scenario("5/s, burst 5, two minutes", 5, 600, burst=5, clients=("sdk",)),
    Scenario("2,000/s, burst 200", 2000, 20000, burst=200, clients=("sdk",)),
    Scenario("200/s with RateLimit-* headers", 200, 3000, headers=True, clients=("sdk",)),
    Scenario("no limit (the fake at full speed)", 0, 10000, clients=("sdk", "aiohttp")),
]


# --------------------------------------------------------------------- the server
def start_server(scenario: Scenario) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "edgedelivery_async.testing", "serve", "--port", "0",
        "--access-key", KEY, "--empty", "--pull-zones", str(scenario.ids),
        "--latency", str(LATENCY),
    ]  # fmt: skip
    if scenario.rate:
        command += ["--rate-limit", str(scenario.rate), "--burst", str(scenario.burst)]
        if scenario.retry_after is None:
            command.append("--no-retry-after")
        else:
            command += ["--retry-after", str(scenario.retry_after)]
        if scenario.headers:
            command.append("--rate-limit-headers")
        for when, rate in scenario.changes:
            command += ["--rate-change", f"{when}:{rate}"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    first = server.stdout.readline().split()
    if len(first) != 2 or first[0] != "serving":
        server.kill()
        raise SystemExit(f"the fake did not start: {first}")
    return server, first[1]


# --------------------------------------------------------------------- the clients
@dataclass
class Outcome:
    ok: int = 0
    failed: int = 0
    replies: int = 0
    refused: int = 0
    elapsed: float = 0.0
    done: bool = True
    extra: dict[str, float] = field(default_factory=dict)


async def sdk_client(url: str, ids: list[int], cap: float | None) -> Outcome:
    from edgedelivery_async import EdgeDeliveryClient

    outcome = Outcome()
    async with EdgeDeliveryClient(KEY, url) as client:
        started = time.perf_counter()
        results = client.shield.iter_zones_by_pull_zones(
            ids, concurrency=CONCURRENCY, rate_limit=cap
        )
        async for result in results:
            if result.ok:
                outcome.ok += 1
            else:
                outcome.failed += 1
        outcome.elapsed = time.perf_counter() - started
        controller = client.rate_controller
        outcome.replies, outcome.refused = controller.responses, controller.rate_limited
        outcome.extra["settled"] = controller.rate or 0.0
    return outcome


async def aiohttp_client(url: str, ids: list[int]) -> Outcome:
    import aiohttp

    outcome = Outcome()
    gate = asyncio.Semaphore(CONCURRENCY)
    headers = {"AccessKey": KEY, "Accept": "application/json"}

    async def read(session: aiohttp.ClientSession, pull_zone_id: int) -> None:
        async with gate:
            for attempt in range(3):
                path = f"{url}/shield/shield-zone/get-by-pullzone/{pull_zone_id}"
                async with session.get(path, headers=headers) as reply:
                    await reply.read()
                    outcome.replies += 1
                    if reply.status == 200:
                        outcome.ok += 1
                        return
                    if reply.status != 429 or attempt == 2:
                        outcome.failed += 1
                        return
                    outcome.refused += 1
                    after = reply.headers.get("Retry-After")
                    wait = float(after) if after else 0.5 * 2**attempt * random.uniform(0.75, 1)
                await asyncio.sleep(wait)

    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.perf_counter()
        await asyncio.gather(*(read(session, i) for i in ids))
        outcome.elapsed = time.perf_counter() - started
    return outcome


def client_main(args: argparse.Namespace) -> None:
    first, last = map(int, args.ids.split("-"))
    ids = list(range(first, last + 1))
    kind, _, cap = args.client.partition(":")
    if kind == "sdk":
        outcome = asyncio.run(sdk_client(args.url, ids, float(cap) if cap else None))
    else:
        outcome = asyncio.run(aiohttp_client(args.url, ids))
    print(json.dumps(outcome.__dict__), flush=True)


def run_clients(scenario: Scenario, client: str, url: str, deadline: float) -> Outcome:
    per = scenario.ids // scenario.processes
    processes = []
    for index in range(scenario.processes):
        span = f"{index * per + 1}-{(index + 1) * per}"
        command = [sys.executable, __file__, "--client", client, "--url", url, "--ids", span]
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
    started = time.perf_counter()
    total = Outcome()
    for process in processes:
        try:
            left = deadline - (time.perf_counter() - started)
            out, _ = process.communicate(timeout=max(1.0, left))
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            total.done = False
            continue
        part = Outcome(**json.loads(out.strip().splitlines()[-1]))
        total.ok += part.ok
        total.failed += part.failed
        total.replies += part.replies
        total.refused += part.refused
        total.elapsed = max(total.elapsed, part.elapsed)
    if not total.done:
        total.elapsed = time.perf_counter() - started
    return total


# --------------------------------------------------------------------- the table
def label(client: str) -> str:
    kind, _, cap = client.partition(":")
    if kind == "sdk":
        return f"SDK, rate_limit={cap}" if cap else "SDK, defaults"
    return "plain aiohttp loop, same retries"


def row(scenario: Scenario, client: str, outcome: Outcome) -> str:
    reads = outcome.ok / outcome.elapsed if outcome.elapsed else 0.0
    share = f"{reads / scenario.limit_over(outcome.elapsed):.0%}" if scenario.rate else "-"
    refused = outcome.refused / outcome.replies if outcome.replies else 0.0
    status = "" if outcome.done else f" (not done after {outcome.elapsed:.0f} s)"
    failed = scenario.ids - outcome.ok if not outcome.done else outcome.failed
    return (
        f"| {scenario.name} | {scenario.ids:,} | {label(client)} | {outcome.elapsed:.1f} s{status} "
        f"| {reads:,.0f} | {share} | {refused:.1%} ({outcome.refused:,}) | {failed:,} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated row numbers (1-based)")
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds per client run")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client_main(args)
        return
    chosen = [SCENARIOS[int(n) - 1] for n in args.only.split(",")] if args.only else SCENARIOS
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; the fake serves with "
        f"{LATENCY * 1000:.0f} ms per reply; concurrency {CONCURRENCY}\n"
    )
    print("| server | ids | client | wall | reads/s | of the limit | replies 429 | ids failed |")
    print("|---|---|---|---|---|---|---|---|")
    for scenario in chosen:
        for client in scenario.clients:
            server, url = start_server(scenario)
            try:
                outcome = run_clients(scenario, client, url, args.deadline)
            finally:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=10)
            print(row(scenario, client, outcome), flush=True)


if __name__ == "__main__":
    main()
