"""`python -m edgedelivery_async.testing serve ...`: the fake on loopback until stopped."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from ._fake import FakeEdgeDelivery
from ._rate_limit import RateLimit
from ._seedfile import EXAMPLE_SEED, SEED_FORMAT, SeedError, apply_seed, inventory, load_seed

_RETRY_AFTER = 1.0  # seconds: the Retry-After of a 429 unless --retry-after says
MOST_PULL_ZONES = 1_000_000  # --pull-zones at most (each is held in memory)

DESCRIPTION = "A stateful fake of the Edge Delivery Management API, served over HTTP."
SERVE_DESCRIPTION = """\
Serve the fake over HTTP until SIGINT/SIGTERM (Ctrl-C). On start it prints `serving URL`,
then what it holds: the access key, the ids of its pull zones (with hostnames), shield
zones, scripts, apps (with template ids) and registries, and the settings to use it.

What it holds: without --seed-file or --empty, the example inventory (every id the README
uses: pull zone 42 with cdn.example.com and shield zone 9001, scripts 5 and 7, app app-1
with template tpl-6c1, registry 31); --pull-zones N adds pull zones 1..N, each with
pz<id>.example.test and shield zone 100000+id, keeping the ones already seeded."""


def parser() -> argparse.ArgumentParser:
    """The command line of `python -m edgedelivery_async.testing`."""
    root = argparse.ArgumentParser(
        prog="python -m edgedelivery_async.testing", description=DESCRIPTION
    )
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve the fake over HTTP until SIGINT/SIGTERM",
        description=SERVE_DESCRIPTION,
        epilog=SEED_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = serve.add_argument_group("where and how")
    where.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    where.add_argument(
        "--port",
        type=_port,
        default=8080,
        help="port to listen on; 0 picks a free one (default: %(default)s)",
    )
    where.add_argument(
        "--access-key",
        default=os.environ.get("EDGEDELIVERY_FAKE_ACCESS_KEY"),
        metavar="KEY",
        help="the key the fake accepts in the AccessKey header "
        "(default: $EDGEDELIVERY_FAKE_ACCESS_KEY; one of the two is required)",
    )
    seeding = serve.add_argument_group("what it holds")
    seeding.add_argument(
        "--seed-file",
        metavar="FILE",
        help="seed from this JSON file (format below; - reads stdin) instead of the examples",
    )
    seeding.add_argument("--empty", action="store_true", help="start without the example inventory")
    seeding.add_argument(
        "--pull-zones",
        type=int,
        default=0,
        metavar="N",
        help="also seed pull zones 1..N (pz<id>.example.test) with shield zones 100000+id",
    )
    faults = serve.add_argument_group("faults")
    faults.add_argument(
        "--latency", type=float, default=0.0, metavar="SECONDS", help="added to every request"
    )
    for status in (429, 500, 503):
        faults.add_argument(
            f"--rate-{status}",
            type=float,
            default=0.0,
            metavar="SHARE",
            help=f"share of requests (0 to 1) answered {status}"
            + (" (with Retry-After 1)" if status != 500 else ""),
        )
    faults.add_argument(
        "--drop-rate",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of requests (0 to 1) whose connection is dropped without a reply",
    )
    faults.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the random choice of faulty requests (default: %(default)s)",
    )
    limits = serve.add_argument_group("rate limit (a token bucket per access key)")
    limits.add_argument(
        "--rate-limit",
        type=float,
        metavar="N",
        help="answer 429 past N requests per second per key (default: no limit)",
    )
    limits.add_argument(
        "--burst", type=float, metavar="N", help="bucket size (default: a tenth of the rate)"
    )
    limits.add_argument(
        "--retry-after",
        type=float,
        metavar="SECONDS",
        help=f"the Retry-After of a 429 (default: {_RETRY_AFTER})",
    )
    limits.add_argument(
        "--no-retry-after", action="store_true", help="send 429 replies without Retry-After"
    )
    limits.add_argument(
        "--rate-limit-headers",
        action="store_true",
        help="send RateLimit-Policy/-Limit/-Remaining/-Reset on every reply",
    )
    limits.add_argument(
        "--rate-change",
        action="append",
        default=[],
        metavar="SECONDS:N",
        help="SECONDS after the first request, the limit becomes N per second (repeatable)",
    )
    commands.add_parser(
        "example-seed",
        help="print the example inventory as a seed file (a start for your own)",
        description="Print the example inventory in the --seed-file format.",
    )
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and serve; returns the exit status."""
    root = parser()
    args = root.parse_args(argv)
    if args.command == "example-seed":
        print(json.dumps(EXAMPLE_SEED, indent=2))
        return 0
    if not args.access_key:
        root.error("--access-key (or $EDGEDELIVERY_FAKE_ACCESS_KEY) is required")
    if not 0 <= args.pull_zones <= MOST_PULL_ZONES:
        root.error(f"--pull-zones must be from 0 to {MOST_PULL_ZONES:,}")
    if args.seed_file is not None and args.empty:
        root.error("--seed-file and --empty cannot be combined")
    try:
        fake = build_fake(args)
    except KeyboardInterrupt:  # Ctrl-C while seeding: nothing served yet
        print("interrupted while seeding the fake", file=sys.stderr)
        return 130
    except (OSError, SeedError) as exc:
        print(f"cannot seed the fake: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # fault rates out of range
        root.error(str(exc))
    try:
        asyncio.run(_serve(fake, args.host, args.port))
    except OSError as exc:
        print(f"cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def build_fake(args: argparse.Namespace) -> FakeEdgeDelivery:
    """The fake `serve` runs for its parsed options: seeded, with its faults set."""
    limit = rate_limit_of(args)  # (its usage errors before any seeding)
    fake = FakeEdgeDelivery(args.access_key, seed=args.seed)
    if args.seed_file is not None:
        source = "stdin" if args.seed_file == "-" else args.seed_file
        seed = load_seed(_read(args.seed_file), source)
        try:
            apply_seed(fake, seed)
        except SeedError as exc:
            raise SeedError(f"{source}: {exc}") from None
    elif not args.empty:
        apply_seed(fake, EXAMPLE_SEED)
    fake.seed_pull_zones(args.pull_zones)
    fake.set_faults(
        latency=args.latency,
        rate_429=args.rate_429,
        rate_500=args.rate_500,
        rate_503=args.rate_503,
        drop_rate=args.drop_rate,
    )
    fake.set_rate_limit(limit)
    return fake


def rate_limit_of(args: argparse.Namespace) -> RateLimit | None:
    """The `RateLimit` the rate-limit options describe, or None without --rate-limit."""
    if args.rate_limit is None:
        given = (
            args.rate_change,
            args.burst is not None,
            args.rate_limit_headers,
            args.retry_after is not None,
            args.no_retry_after,
        )
        if any(given):
            raise ValueError(
                "--burst, --rate-change, --rate-limit-headers, --retry-after and"
                " --no-retry-after need --rate-limit"
            )
        return None
    if args.no_retry_after and args.retry_after is not None:
        raise ValueError("--retry-after and --no-retry-after cannot be combined")
    changes = []
    for change in args.rate_change:
        when, sep, rate = change.partition(":")
        try:
            changes.append((float(when), float(rate)))
        except ValueError:
            raise ValueError(f"--rate-change takes SECONDS:N, not {change!r}") from None
        if not sep:
            raise ValueError(f"--rate-change takes SECONDS:N, not {change!r}")
    return RateLimit(
        args.rate_limit,
        burst=args.burst,
        retry_after=None
        if args.no_retry_after
        else (_RETRY_AFTER if args.retry_after is None else args.retry_after),
        headers=args.rate_limit_headers,
        changes=tuple(changes),
    )


def _port(text: str) -> int:
    """A TCP port number, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, not {text!r}")
    return port


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise OSError(f"{name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # (a ValueError: it was a usage error without the file)
        raise SeedError(f"{name}: not UTF-8 text (byte {exc.start})") from None


async def _serve(fake: FakeEdgeDelivery, host: str, port: int) -> None:
    """Serve; print the URL (the first line) and what the fake holds; stop on a signal."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with fake.serve(host, port) as url:
        _say_started(startup_text(fake, url))
        await stop.wait()


def _say_started(text: str) -> None:
    """Print the startup text; a stdout that is closed, or a pipe nobody reads any more,
    does not stop the serving (it was reported as "cannot serve on ...: Broken pipe")."""
    try:
        print(text, flush=True)
    except (OSError, ValueError, AttributeError):  # (closed: ValueError; None: AttributeError)
        with contextlib.suppress(OSError):  # nothing is flushed at exit into the broken pipe
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the rest of the process


def startup_text(fake: FakeEdgeDelivery, url: str) -> str:
    """`serving URL`, what the fake holds, and how to point the CLI or the SDK at it."""
    key = fake.access_key
    lines = [
        f"serving {url}",
        f"access key: {key}",
        *inventory(fake),
        "use it with:",
        f"  export EDGEDELIVERY_BASE_URL={url} EDGEDELIVERY_ACCESS_KEY={shlex.quote(key)}",
        "stop with Ctrl-C",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
