"""Benchmark: reading the shield configuration of many pull zones.

Starts nginx (Debian `nginx-light` + `libnginx-mod-http-echo`; installed by
`benchmarks/setup.sh`) on loopback in its own process, answering every
`GET /shield/shield-zone/get-by-pullzone/{id}` with a realistic configuration after
a fixed delay, then runs each client in a fresh subprocess and prints one table:

  raw aiohttp | generated endpoint function over default httpx | SDK bulk iterator

plus a scale run (200,000 ids streamed through the SDK iterator) whose peak RSS is
compared with the SDK's 10,000-id run. Ratios are against raw aiohttp in the same run.

    python benchmarks/bulk_shield.py                 # the issue's configuration
    python benchmarks/bulk_shield.py --ids 2000 --scale-ids 20000 --skip-httpx   # quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHIELD_BODY = json.dumps(
    {
        "data": {
            "shieldZoneId": 9001,
            "pullZoneId": 42,
            "learningMode": False,
            "learningModeUntil": "2026-12-01T00:00:00Z",
            "wafEnabled": True,
            "wafDisabledRules": ["913100", "920350", "942100"],
            "wafLogOnlyRules": ["920230", "930120"],
            "wafCustomRuleOrder": [3, 1, 2],
            "wafRequestHeaderLoggingEnabled": True,
            "requestBodyLoggingEnabled": False,
            "wafRequestIgnoredHeaders": ["cookie", "authorization"],
            "wafRealtimeThreatIntelligenceEnabled": True,
            "wafProfileId": 1,
            "wafEngineConfig": [
                {"name": "paranoia_level", "valueEncoded": "MQ=="},
                {"name": "anomaly_threshold", "valueEncoded": "NQ=="},
            ],
            "rateLimitRulesLimit": 10,
            "customWafRulesLimit": 25,
            "dDoSChallengeWindow": 1800,
            "whitelabelResponsePages": False,
        }
    },
    separators=(",", ":"),
)

NGINX_CONF = """
load_module {module};
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  server {{
    listen 127.0.0.1:{port};
    location /shield/shield-zone/get-by-pullzone/ {{
      default_type application/json;
      echo_sleep {delay};
      echo '{body}';
    }}
  }}
}}
"""

ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Nginx:
    """nginx on loopback in its own process group, stopped on exit."""

    def __init__(self, delay: float) -> None:
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(nginx).exists() or not Path(ECHO_MODULE).exists():
            sys.exit("nginx with the echo module is missing: run benchmarks/setup.sh")
        self.prefix = tempfile.mkdtemp(prefix="bench-nginx-")
        self.port = free_port()
        conf = Path(self.prefix) / "nginx.conf"
        conf.write_text(
            NGINX_CONF.format(
                module=ECHO_MODULE,
                prefix=self.prefix,
                port=self.port,
                delay=delay,
                body=SHIELD_BODY,
            )
        )
        self.process = subprocess.Popen(
            [nginx, "-p", self.prefix, "-c", str(conf), "-g", "daemon off;"],
            start_new_session=True,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            self.stop()
            sys.exit("nginx did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.prefix, ignore_errors=True)


# ---------------------------------------------------------------- client runs


async def run_raw_aiohttp(url: str, ids: int, concurrency: int) -> int:
    import aiohttp

    semaphore = asyncio.Semaphore(concurrency)
    ok = 0
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(i: int) -> None:
            nonlocal ok
            async with (
                semaphore,
                session.get(f"{url}/shield/shield-zone/get-by-pullzone/{i}") as response,
            ):
                await response.json()
                ok += response.status == 200

        await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
    return ok


async def run_generated_httpx(url: str, ids: int, concurrency: int) -> int:
    import httpx
    from edgedelivery_openapi import AuthenticatedClient
    from edgedelivery_openapi.api.shield import shield_zone_get_by_pull_zone as get_by_pull_zone

    semaphore = asyncio.Semaphore(concurrency)
    ok = 0
    client = AuthenticatedClient(
        base_url=url,
        token="bench",  # not a secret
        prefix="",
        auth_header_name="AccessKey",
        httpx_args={"limits": httpx.Limits(max_connections=concurrency)},
    )
    async with client:

        async def one(i: int) -> None:
            nonlocal ok
            async with semaphore:
                response = await get_by_pull_zone.asyncio_detailed(str(i), client=client)
                ok += response.status_code == 200

        await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
    return ok


async def run_sdk(url: str, ids: int, concurrency: int) -> int:
    from edgedelivery_async import EdgeDeliveryClient

    ok = 0
    async with EdgeDeliveryClient(base_url=url) as client:
        async for result in client.shield.iter_zones_by_pull_zones(
            range(1, ids + 1), concurrency=concurrency
        ):
            ok += result.ok
    return ok


RUNNERS = {
    "raw-aiohttp": run_raw_aiohttp,
    "generated-httpx": run_generated_httpx,
    "sdk-bulk": run_sdk,
}

LABELS = {
    "raw-aiohttp": "raw aiohttp (baseline)",
    "generated-httpx": "generated function, default httpx",
    "sdk-bulk": "SDK iter_zones_by_pull_zones",
}


def child(name: str, url: str, ids: int, concurrency: int) -> None:
    """Run one client and print its measurements as JSON."""
    runner = RUNNERS[name]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    ok = asyncio.run(runner(url, ids, concurrency))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"ok": ok, "wall": wall, "cpu": cpu, "rss_mb": rss_mb}))


def measure(name: str, url: str, ids: int, concurrency: int) -> dict[str, float]:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            name,
            "--url",
            url,
            "--ids",
            str(ids),
            "--concurrency",
            str(concurrency),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    found: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if found["ok"] != ids:
        sys.exit(f"{name}: only {found['ok']} of {ids} reads succeeded")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--scale-ids", type=int, default=200_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--delay", type=float, default=0.02, help="server delay, seconds")
    parser.add_argument("--skip-httpx", action="store_true", help="skip the slow httpx run")
    parser.add_argument("--child")
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.url, args.ids, args.concurrency)
        return

    server = Nginx(args.delay)
    try:
        names = [n for n in RUNNERS if not (args.skip_httpx and n == "generated-httpx")]
        rows = {name: measure(name, server.url, args.ids, args.concurrency) for name in names}
        scale = measure("sdk-bulk", server.url, args.scale_ids, args.concurrency)
    finally:
        server.stop()

    ideal = args.ids / args.concurrency * args.delay
    print(
        f"\n{args.ids:,} reads, {args.concurrency} in flight, {args.delay * 1000:.0f} ms server "
        f"delay (ideal wall time {ideal:.2f} s); python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores\n"
    )
    header = (
        f"| {'client':<36} | {'wall s':>7} | {'req/s':>7} | {'CPU us/req':>10} | "
        f"{'peak RSS MB':>11} | {'x raw aiohttp':>13} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    base = rows["raw-aiohttp"]["wall"]
    for name, row in rows.items():
        print(
            f"| {LABELS[name]:<36} | {row['wall']:7.2f} | {args.ids / row['wall']:7.0f} | "
            f"{row['cpu'] / args.ids * 1e6:10.0f} | {row['rss_mb']:11.1f} | "
            f"{row['wall'] / base:13.2f} |"
        )
    sdk = rows["sdk-bulk"]
    print(
        f"\nScale: {args.scale_ids:,} ids streamed through the SDK iterator in "
        f"{scale['wall']:.1f} s; peak RSS {scale['rss_mb']:.1f} MB vs {sdk['rss_mb']:.1f} MB "
        f"at {args.ids:,} ids (+{scale['rss_mb'] - sdk['rss_mb']:.1f} MB)."
    )
    if "generated-httpx" in rows:
        speedup = rows["generated-httpx"]["wall"] / sdk["wall"]
        print(f"SDK bulk vs generated function over default httpx: {speedup:.1f}x faster.")


if __name__ == "__main__":
    main()
