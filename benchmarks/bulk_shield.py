"""Benchmark: reading the shield configuration of many pull zones, and start-up.

Starts nginx (Debian `nginx-light` + `libnginx-mod-http-echo`; installed by
`benchmarks/setup.sh`) on loopback in its own process. It answers
`GET /shield/shield-zone/get-by-pullzone/{id}` with a realistic 700-byte
configuration after a fixed delay, and the same under `/fast/...` at once. Every
client runs in a fresh subprocess, its imports done before its clock starts, and the
runs alternate between clients; each figure is the best of `--repeats` runs.

Prints one table:

- bulk: bare aiohttp loop (baseline), the SDK's `iter_zones_by_pull_zones` on each
  transport (aiohttp; wreq and reqwest, each also on uvloop), bare wreq and pyreqwest
  loops on uvloop (the floors under those transports), and httpx's AsyncClient with the
  generated model's `from_dict`: wall s, req/s, CPU us/req, peak RSS, x bare aiohttp;
- CPU per request at zero delay, per transport;
- start-up: `import edgedelivery_async`, the first call (client built to first read
  done, loopback), `edgedelivery --help`;
- peak RSS growth from 10,000 to 200,000 ids through the SDK (`--skip-scale` skips it).

    python benchmarks/bulk_shield.py                    # the issue's configuration
    python benchmarks/bulk_shield.py --ids 2000 --repeats 1 --skip-scale   # quick look
    python benchmarks/bulk_shield.py --profile          # where the SDK's CPU goes
    python benchmarks/bulk_shield.py --instructions --zero-delay-ids 2000 \
        --against /tmp/before          # instructions a read (valgrind): noise-free
    git worktree add /tmp/before COMMIT && \
        python benchmarks/bulk_shield.py --against /tmp/before   # no slower than before?
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    location /fast/shield/shield-zone/get-by-pullzone/ {{
      default_type application/json;
      echo '{body}';
    }}
  }}
}}
"""

ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
PATH = "/shield/shield-zone/get-by-pullzone/"
KEY = "bench-key"  # not a secret: nginx ignores it


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


# ------------------------------------------------------- clients (child process)
#
# Each `prepare_*` imports what its client needs and returns the coroutine function
# the child times, so no import happens on the clock.

Runner = Callable[[str, int, int], Any]


def prepare_bare_aiohttp() -> Runner:
    import asyncio

    import aiohttp

    async def run(url: str, ids: int, concurrency: int) -> int:
        semaphore = asyncio.Semaphore(concurrency)
        ok = 0
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one(i: int) -> None:
                nonlocal ok
                async with semaphore, session.get(f"{url}{PATH}{i}") as response:
                    await response.json()
                    ok += response.status == 200

            await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
        return ok

    return run


def prepare_bare_pyreqwest() -> Runner:
    """The floor under the reqwest transport: pyreqwest alone, as the bare aiohttp loop."""
    import asyncio

    from pyreqwest.client import ClientBuilder

    async def run(url: str, ids: int, concurrency: int) -> int:
        semaphore = asyncio.Semaphore(concurrency)
        ok = 0
        client = ClientBuilder().max_connections(concurrency).follow_redirects(False).build()

        async def one(i: int) -> None:
            nonlocal ok
            async with semaphore, client.get(f"{url}{PATH}{i}").build_streamed() as response:
                json.loads((await response.bytes()).to_bytes())
                ok += response.status == 200

        try:
            await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
        finally:
            await client.close()
        return ok

    return run


def prepare_bare_wreq() -> Runner:
    """The floor under the wreq transport: wreq alone, as the bare aiohttp loop."""
    import asyncio

    import wreq

    async def run(url: str, ids: int, concurrency: int) -> int:
        semaphore = asyncio.Semaphore(concurrency)
        ok = 0
        client = wreq.Client(redirect=wreq.redirect.Policy.none())

        async def one(i: int) -> None:
            nonlocal ok
            async with semaphore:
                response = await client.get(f"{url}{PATH}{i}")
                json.loads(bytes(await response.bytes()))
                ok += response.status.as_int() == 200

        try:
            await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
        finally:
            client.close()
        return ok

    return run


def prepare_httpx_model() -> Runner:
    import asyncio

    import httpx
    from edgedelivery_openapi.models import ShieldZoneConfig

    async def run(url: str, ids: int, concurrency: int) -> int:
        semaphore = asyncio.Semaphore(concurrency)
        ok = 0
        limits = httpx.Limits(max_connections=concurrency)
        async with httpx.AsyncClient(limits=limits, headers={"AccessKey": KEY}) as client:

            async def one(i: int) -> None:
                nonlocal ok
                async with semaphore:
                    response = await client.get(f"{url}{PATH}{i}")
                    ShieldZoneConfig.from_dict(response.json()["data"])
                    ok += response.status_code == 200

            await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
        return ok

    return run


def _import_transport(transport: str) -> None:
    """The transport's modules, imported before the clock starts."""
    if transport == "reqwest":
        import edgedelivery_async._reqwest
    elif transport == "wreq":
        import edgedelivery_async._wreq  # noqa: F401


def sdk_client(url: str, transport: str) -> Any:
    """The SDK client on `transport`; None when the client cannot select it (yet)."""
    from edgedelivery_async import EdgeDeliveryClient  # imported by `prepare_*` already

    if transport == "aiohttp":
        return EdgeDeliveryClient(access_key=KEY, base_url=url)
    try:
        return EdgeDeliveryClient(access_key=KEY, base_url=url, transport=transport)
    except TypeError:  # no `transport=` argument in this version
        return None


def prepare_sdk(transport: str) -> Runner:
    from edgedelivery_async import EdgeDeliveryClient  # noqa: F401 - before the clock

    _import_transport(transport)

    async def run(url: str, ids: int, concurrency: int) -> int:
        client = sdk_client(url, transport)
        if client is None:
            return -1
        ok = 0
        async with client:
            results = client.shield.iter_zones_by_pull_zones(
                range(1, ids + 1), concurrency=concurrency
            )
            async for result in results:
                ok += result.ok
        return ok

    return run


def prepare_transport(transport: str) -> Runner:
    """The SDK's transport alone (no engine, no model): send, then json.loads."""
    import asyncio

    from edgedelivery_async import Timeout
    from edgedelivery_async._http import RawRequest
    from edgedelivery_async._transport import make_transport

    _import_transport(transport)

    headers = {"User-Agent": "bench", "Accept": "application/json"}

    async def run(url: str, ids: int, concurrency: int) -> int:
        stack = make_transport(transport, max_connections=concurrency)
        timeout = Timeout()
        semaphore = asyncio.Semaphore(concurrency)
        ok = 0

        async def one(i: int) -> None:
            nonlocal ok
            path = f"{PATH}{i}"
            async with semaphore:
                reply = await stack.send(RawRequest("GET", url + path, path, headers), timeout)
                json.loads(reply.content)
                ok += reply.status == 200

        try:
            await asyncio.gather(*(one(i) for i in range(1, ids + 1)))
        finally:
            await stack.aclose()
        return ok

    return run


def prepare_first_call(transport: str) -> Runner:
    """Time from building the client to the first read done (not a bulk run)."""
    from edgedelivery_async import EdgeDeliveryClient  # noqa: F401 - before the clock

    _import_transport(transport)

    async def run(url: str, ids: int, concurrency: int) -> int:
        started = time.perf_counter()
        client = sdk_client(url, transport)
        if client is None:
            return -1
        async with client:
            await client.shield.get_zone_by_pull_zone(1)
            INNER["wall"] = time.perf_counter() - started
        return 1

    return run


INNER: dict[str, float] = {}  # a runner's own timing, when it has one


# name: (label, prepare, use uvloop)
CLIENTS: dict[str, tuple[str, Callable[[], Runner], bool]] = {
    "bare-aiohttp": ("bare aiohttp loop (baseline)", prepare_bare_aiohttp, False),
    "bare-pyreqwest-uvloop": ("bare pyreqwest loop on uvloop", prepare_bare_pyreqwest, True),
    "sdk-aiohttp": ("SDK, aiohttp transport (default)", lambda: prepare_sdk("aiohttp"), False),
    "sdk-aiohttp-uvloop": (
        "SDK, aiohttp transport on uvloop",
        lambda: prepare_sdk("aiohttp"),
        True,
    ),
    "sdk-wreq": ("SDK, wreq transport", lambda: prepare_sdk("wreq"), False),
    "sdk-wreq-uvloop": ("SDK, wreq transport on uvloop", lambda: prepare_sdk("wreq"), True),
    "bare-wreq-uvloop": ("bare wreq loop on uvloop", prepare_bare_wreq, True),
    "transport-wreq": ("transport alone, wreq", lambda: prepare_transport("wreq"), False),
    "transport-wreq-uvloop": (
        "transport alone, wreq on uvloop",
        lambda: prepare_transport("wreq"),
        True,
    ),
    "first-wreq": ("first call, wreq", lambda: prepare_first_call("wreq"), False),
    "sdk-reqwest": ("SDK, reqwest transport", lambda: prepare_sdk("reqwest"), False),
    "sdk-reqwest-uvloop": (
        "SDK, reqwest transport on uvloop",
        lambda: prepare_sdk("reqwest"),
        True,
    ),
    "httpx-model": ("httpx AsyncClient + model.from_dict", prepare_httpx_model, False),
    "transport-aiohttp": ("transport alone, aiohttp", lambda: prepare_transport("aiohttp"), False),
    "transport-aiohttp-uvloop": (
        "transport alone, aiohttp on uvloop",
        lambda: prepare_transport("aiohttp"),
        True,
    ),
    "transport-reqwest": ("transport alone, reqwest", lambda: prepare_transport("reqwest"), False),
    "transport-reqwest-uvloop": (
        "transport alone, reqwest on uvloop",
        lambda: prepare_transport("reqwest"),
        True,
    ),
    "first-aiohttp": ("first call, aiohttp", lambda: prepare_first_call("aiohttp"), False),
    "first-reqwest": ("first call, reqwest", lambda: prepare_first_call("reqwest"), False),
}
BULK = [
    "bare-aiohttp",
    "sdk-aiohttp",
    "sdk-wreq",
    "sdk-wreq-uvloop",
    "bare-wreq-uvloop",
    "sdk-reqwest",
    "sdk-reqwest-uvloop",
    "bare-pyreqwest-uvloop",
    "httpx-model",
]
ZERO_DELAY = [
    "bare-aiohttp",
    "bare-wreq-uvloop",
    "bare-pyreqwest-uvloop",
    "transport-wreq",
    "transport-wreq-uvloop",
    "transport-aiohttp",
    "transport-aiohttp-uvloop",
    "transport-reqwest",
    "transport-reqwest-uvloop",
    "sdk-aiohttp",
    "sdk-aiohttp-uvloop",
    "sdk-wreq",
    "sdk-wreq-uvloop",
    "sdk-reqwest",
    "sdk-reqwest-uvloop",
]


def child(name: str, url: str, ids: int, concurrency: int, profile: bool) -> None:
    """Run one client and print its measurements as JSON (imports before the clock)."""
    import asyncio

    _, prepare, on_uvloop = CLIENTS[name]
    runner = prepare()
    # Every client reads under the same glibc malloc state: freeing one block above
    # asyncio's 256 KiB read buffer raises glibc's mmap threshold, as the SDK's client does
    # itself (`_transport.settle_read_buffers`). Without this, whether each reply costs an
    # mmap/mremap/munmap depended on what the process had imported (25-35 us per reply).
    block = bytes(320 * 1024)
    del block
    factory = None
    if on_uvloop:
        import uvloop

        factory = uvloop.new_event_loop
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu0, wall0 = time.process_time(), time.perf_counter()
    with asyncio.Runner(loop_factory=factory) as loop:
        if profiler is not None:
            profiler.enable()
        ok = loop.run(runner(url, ids, concurrency))
        if profiler is not None:
            profiler.disable()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if profiler is not None:
        print_profile(profiler)
    wall = INNER.get("wall", wall)
    print(json.dumps({"ok": ok, "wall": wall, "cpu": cpu, "rss_mb": rss_mb, "rss0_mb": rss0}))


def print_profile(profiler: Any) -> None:
    """Own CPU time grouped by where the code lives, then the SDK's top functions."""
    import pstats

    stats = pstats.Stats(profiler)
    groups: dict[str, float] = {}
    sdk: list[tuple[float, str]] = []
    total = 0.0
    for (filename, line, function), row in stats.stats.items():  # type: ignore[attr-defined]
        own = row[2]
        total += own
        if "edgedelivery_async" in filename or "edgedelivery_openapi" in filename:
            group = "SDK (edgedelivery_async, generated models)"
            sdk.append((own, f"{Path(filename).name}:{line} {function}"))
        elif "aiohttp" in filename or "multidict" in filename or "yarl" in filename:
            group = "aiohttp, yarl, multidict"
        elif "pyreqwest" in filename or "wreq" in filename or filename == "~":
            group = "C builtins and the Rust clients (wreq, pyreqwest)"
        elif "asyncio" in filename or "uvloop" in filename:
            group = "event loop (asyncio)"
        else:
            group = "other Python"
        groups[group] = groups.get(group, 0.0) + own
    print("\nprofile (own time, share of the profiled total):", file=sys.stderr)
    for group, seconds in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {seconds / total:6.1%}  {group}", file=sys.stderr)
    print("  SDK functions by own time:", file=sys.stderr)
    for seconds, where in sorted(sdk, reverse=True)[:12]:
        print(f"    {seconds / total:6.1%}  {where}", file=sys.stderr)


# ---------------------------------------------------------------- parent


def child_command(
    name: str, url: str, ids: int, concurrency: int
) -> tuple[list[str], dict[str, str]]:
    """The command and environment of one child run of client `name`."""
    name, _, checkout = name.partition("@")  # "sdk-aiohttp@DIR": the SDK of another checkout
    env = dict(os.environ)
    if checkout:
        env["PYTHONPATH"] = f"{checkout}/src{os.pathsep}{checkout}/generated"
    command = [sys.executable, __file__, "--child", name, "--url", url, "--ids", str(ids)]
    return [*command, "--concurrency", str(concurrency)], env


def run_child(
    name: str, command: list[str], env: dict[str, str], ids: int
) -> tuple[dict[str, float], str]:
    """Run a child; its measurements and its stderr. Exits if it failed or lost reads."""
    out = subprocess.run(command, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"{name} failed (exit status {out.returncode}):\n{out.stderr[-3000:]}")
    found: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if found["ok"] not in (-1, ids):
        sys.exit(f"{name}: only {found['ok']} of {ids} reads succeeded\n{out.stderr[-2000:]}")
    return found, out.stderr


def measure(
    name: str, url: str, ids: int, concurrency: int, profile: bool = False
) -> dict[str, float]:
    command, env = child_command(name, url, ids, concurrency)
    found, stderr = run_child(name, [*command, *(["--profile"] if profile else [])], env, ids)
    if profile:
        print(stderr, end="")
    return found


def instructions_per_read(name: str, url: str, concurrency: int, few: int, many: int) -> float:
    """Instructions the client's process executes a read: callgrind's count for `many`
    reads less that for `few`, over the difference, so start-up cancels out. Unlike CPU
    time it does not move with a shared machine's load (runs agree to about 0.1%)."""
    counts = []
    for ids in (few, many):
        command, env = child_command(name, url, ids, concurrency)
        env["PYTHONHASHSEED"] = "0"  # the same dict layouts in every run
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        _, stderr = run_child(name, valgrind + command, env, ids)
        found = re.search(r"Collected : (\d+)", stderr)
        if found is None:
            sys.exit(f"{name}: no instruction count from valgrind\n{stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) / (many - few)


def label_of(name: str) -> str:
    """The table label of a client (`sdk-aiohttp@DIR`: the SDK of another checkout)."""
    name, _, checkout = name.partition("@")
    label: str = CLIENTS[name][0]
    return f"SDK at {Path(checkout).name}, aiohttp" if checkout else label


def best_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's best (smallest) value over the runs."""
    if any(run["ok"] == -1 for run in runs):
        return {"ok": -1}
    return {key: min(run[key] for run in runs) for key in runs[0]}


def alternate(
    names: list[str], url: str, ids: int, concurrency: int, repeats: int
) -> dict[str, dict[str, float]]:
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for _ in range(repeats):
        for name in names:
            runs[name].append(measure(name, url, ids, concurrency))
    return {name: best_of(found) for name, found in runs.items()}


def timed_command(command: list[str], repeats: int) -> float:
    """Best wall time of a command, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - started)
    return best


def import_time(statement: str, repeats: int) -> float:
    """Best time of an import statement in a fresh interpreter (the import alone)."""
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    best = float("inf")
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        )
        best = min(best, float(out.stdout.strip()))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--scale-ids", type=int, default=200_000)
    parser.add_argument("--zero-delay-ids", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--delay", type=float, default=0.02, help="server delay, seconds")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs per client")
    parser.add_argument("--skip-scale", action="store_true", help="skip the 200,000-id run")
    parser.add_argument("--skip-httpx", action="store_true", help="skip the slow httpx run")
    parser.add_argument("--profile", action="store_true", help="profile the SDK at zero delay")
    parser.add_argument("--only-zero-delay", action="store_true", help="the zero-delay table only")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instructions a read at zero delay under valgrind (noise-free), and nothing else",
    )
    parser.add_argument(
        "--against",
        metavar="CHECKOUT",
        help="add rows for the SDK of another checkout (e.g. a `git worktree` of an older commit)",
    )
    parser.add_argument("--child")
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.url, args.ids, args.concurrency, args.profile)
        return

    bulk = [n for n in BULK if not (args.skip_httpx and n == "httpx-model")]
    zero_delay = list(ZERO_DELAY)
    if args.against:  # the same run, with the SDK of another checkout beside this one
        checkout = str(Path(args.against).resolve())
        bulk.insert(2, f"sdk-aiohttp@{checkout}")
        zero_delay.insert(zero_delay.index("sdk-aiohttp") + 1, f"sdk-aiohttp@{checkout}")
    server = Nginx(args.delay)
    fast = f"{server.url}/fast"
    try:
        if args.instructions:
            print_instructions(args, zero_delay, fast)
            return
        if args.profile:
            for name in ("sdk-aiohttp", "sdk-wreq-uvloop", "sdk-reqwest-uvloop"):
                print(f"\n== {CLIENTS[name][0]}, {args.zero_delay_ids:,} reads at zero delay")
                measure(name, fast, args.zero_delay_ids, args.concurrency, profile=True)
            return
        zero = alternate(zero_delay, fast, args.zero_delay_ids, args.concurrency, args.repeats)
        if args.only_zero_delay:
            print_zero_delay(args, zero)
            return
        rows = alternate(bulk, server.url, args.ids, args.concurrency, args.repeats)
        first = alternate(
            ["first-aiohttp", "first-wreq", "first-reqwest"], fast, 1, 1, max(args.repeats, 5)
        )
        scale = None
        if not args.skip_scale:
            scale = measure("sdk-aiohttp", server.url, args.scale_ids, args.concurrency)
    finally:
        server.stop()
    started = {
        "import": import_time("import edgedelivery_async", max(args.repeats, 5)),
        "import client": import_time(
            "from edgedelivery_async import EdgeDeliveryClient", max(args.repeats, 5)
        ),
        "help": timed_command(
            [str(Path(sys.executable).with_name("edgedelivery")), "--help"], max(args.repeats, 5)
        ),
    }
    report(args, rows, zero, first, started, scale)


def print_instructions(args: argparse.Namespace, zero_delay: list[str], url: str) -> None:
    """The aiohttp clients' instructions a read, each counted once (counts do not vary)."""
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is missing: run benchmarks/setup.sh")
    names = [n for n in zero_delay if n == "bare-aiohttp" or n.startswith("sdk-aiohttp@")]
    names.insert(1, "sdk-aiohttp")
    few, many = args.zero_delay_ids // 10, args.zero_delay_ids
    print(
        f"\nInstructions a read at zero delay (valgrind's callgrind: {many:,} reads less "
        f"{few:,}, {args.concurrency} in flight; x is over the bare aiohttp loop's):\n"
    )
    print(f"| {'client':<38} | {'instructions a read':>19} | {'x bare aiohttp':>14} |")
    print(f"|{'-' * 40}|{'-' * 21}|{'-' * 16}|")
    base = None
    for name in names:
        count = instructions_per_read(name, url, args.concurrency, few, many)
        base = base or count
        print(f"| {label_of(name):<38} | {count:19,.0f} | {count / base:14.3f} |", flush=True)


def print_zero_delay(args: argparse.Namespace, zero: dict[str, dict[str, float]]) -> None:
    print(
        f"\nCPU per request at zero delay ({args.zero_delay_ids:,} reads, {args.concurrency} "
        "in flight; x is CPU per request over the bare aiohttp loop's):\n"
    )
    print(f"| {'client':<38} | {'CPU us/req':>10} | {'x bare aiohttp':>14} |")
    print(f"|{'-' * 40}|{'-' * 12}|{'-' * 16}|")
    zero_base = zero["bare-aiohttp"]["cpu"]
    for name, row in zero.items():
        if row.get("ok") == -1:
            print(f"| {label_of(name):<38} | {'n/a':>10} | {'n/a':>14} |")
            continue
        per = row["cpu"] / args.zero_delay_ids * 1e6
        print(f"| {label_of(name):<38} | {per:10.0f} | {row['cpu'] / zero_base:14.2f} |")


def report(
    args: argparse.Namespace,
    rows: dict[str, dict[str, float]],
    zero: dict[str, dict[str, float]],
    first: dict[str, dict[str, float]],
    started: dict[str, float],
    scale: dict[str, float] | None,
) -> None:
    ideal = args.ids / args.concurrency * args.delay
    print(
        f"\n{args.ids:,} reads, {args.concurrency} in flight, {args.delay * 1000:.0f} ms server "
        f"delay (ideal wall time {ideal:.2f} s); best of {args.repeats} alternating runs; "
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores\n"
    )
    header = (
        f"| {'client':<38} | {'wall s':>7} | {'req/s':>7} | {'CPU us/req':>10} | "
        f"{'peak RSS MB':>11} | {'x bare aiohttp':>14} |"
    )
    print(header)
    print("|" + "|".join("-" * len(c) for c in header.split("|")[1:-1]) + "|")
    base = rows["bare-aiohttp"]

    def line(label: str, row: dict[str, float], ids: int, baseline: dict[str, float]) -> None:
        if row.get("ok") == -1:
            na = " | ".join(f"{'n/a':>{width}}" for width in (7, 7, 10, 11, 14))
            print(f"| {label:<38} | {na} |")
            return
        print(
            f"| {label:<38} | {row['wall']:7.2f} | {ids / row['wall']:7.0f} | "
            f"{row['cpu'] / ids * 1e6:10.0f} | {row['rss_mb']:11.1f} | "
            f"{row['wall'] / baseline['wall']:14.2f} |"
        )

    for name, row in rows.items():
        line(label_of(name), row, args.ids, base)

    print_zero_delay(args, zero)

    print("\nStart-up (best of several fresh processes):\n")
    print(f"| {'figure':<53} | {'ms':>7} |")
    print(f"|{'-' * 55}|{'-' * 9}|")
    print(f"| {'import edgedelivery_async':<53} | {started['import'] * 1000:7.0f} |")
    label = "from edgedelivery_async import EdgeDeliveryClient"
    print(f"| {label:<53} | {started['import client'] * 1000:7.0f} |")
    for name, label in (
        ("first-aiohttp", "first call, aiohttp (client built to first read done)"),
        ("first-wreq", "first call, wreq (client built to first read done)"),
        ("first-reqwest", "first call, reqwest (client built to first read done)"),
    ):
        row = first[name]
        value = "n/a" if row.get("ok") == -1 else f"{row['wall'] * 1000:7.1f}"
        print(f"| {label:<53} | {value:>7} |")
    print(f"| {'edgedelivery --help (whole process)':<53} | {started['help'] * 1000:7.0f} |")

    if scale is not None:
        sdk = rows["sdk-aiohttp"]
        print(
            f"\nScale: {args.scale_ids:,} ids through the SDK (aiohttp) in {scale['wall']:.1f} s; "
            f"peak RSS {scale['rss_mb']:.1f} MB vs {sdk['rss_mb']:.1f} MB at {args.ids:,} ids "
            f"({scale['rss_mb'] - sdk['rss_mb']:+.1f} MB)."
        )
    if "httpx-model" in rows and rows["httpx-model"].get("ok") != -1:
        speedup = rows["httpx-model"]["wall"] / rows["sdk-aiohttp"]["wall"]
        print(f"SDK (aiohttp) vs httpx AsyncClient + from_dict: {speedup:.1f}x faster.")


if __name__ == "__main__":
    main()
