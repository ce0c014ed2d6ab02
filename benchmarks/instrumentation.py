"""What hooks and OpenTelemetry cost per call: CPU per call over an in-memory transport.

    .venv/bin/python benchmarks/instrumentation.py

Each row makes the same shield reads through `httpx.MockTransport` (no network), so
the difference between rows is the SDK's own work. Best of several alternating runs;
imports and client start-up are outside the timed region.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider

from edgedelivery_async import EdgeDeliveryClient, Hooks
from edgedelivery_async.otel import OpenTelemetry

CALLS = 3000
ROUNDS = 5
BODY = {"data": {"shieldZoneId": 9001, "pullZoneId": 42, "wafEnabled": True}}


def reply(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=BODY)


def clients() -> dict[str, dict[str, Any]]:
    otel = OpenTelemetry(
        tracer_provider=TracerProvider(),
        meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]),
    )
    return {
        "plain (baseline)": {},
        "hooks (3 no-op callbacks)": {
            "hooks": Hooks(on_request=_noop, on_response=_noop, on_retry=_noop)
        },
        "OpenTelemetry (SDK providers)": {"telemetry": otel},
    }


def _noop(event: Any) -> None:
    return None


async def run(options: dict[str, Any]) -> float:
    http = httpx.AsyncClient(transport=httpx.MockTransport(reply))
    async with EdgeDeliveryClient(
        "k", "https://api.example.test", http_client=http, **options
    ) as c:
        await c.shield.get_zone_by_pull_zone(1)  # warm-up, outside the timed region
        started = time.process_time()
        for number in range(CALLS):
            await c.shield.get_zone_by_pull_zone(number + 1)
        return (time.process_time() - started) / CALLS * 1e6


def main() -> None:
    rows = clients()
    best = {name: float("inf") for name in rows}
    for _ in range(ROUNDS):
        for name, options in rows.items():
            best[name] = min(best[name], asyncio.run(run(options)))
    base = best["plain (baseline)"]
    print(f"| client ({CALLS} calls, best of {ROUNDS}) | CPU us/call | over baseline |")
    print("|---|---|---|")
    for name, value in best.items():
        print(f"| {name} | {value:.1f} | {value - base:+.1f} us |")


if __name__ == "__main__":
    main()
