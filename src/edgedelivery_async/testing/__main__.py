"""`python -m edgedelivery_async.testing serve ...`: the fake on loopback until stopped."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from ._fake import FakeEdgeDelivery
from ._server import serve_until_stopped


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and serve; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m edgedelivery_async.testing",
        description="A stateful fake of the Edge Delivery Management API.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the fake over HTTP until SIGINT/SIGTERM")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    serve.add_argument(
        "--access-key",
        default=os.environ.get("EDGEDELIVERY_FAKE_ACCESS_KEY"),
        help="the accepted AccessKey (default: $EDGEDELIVERY_FAKE_ACCESS_KEY)",
    )
    serve.add_argument(
        "--pull-zones", type=int, default=0, help="seed pull zones 1..N with shield zones"
    )
    serve.add_argument("--seed", type=int, default=0, help="seed of the fault RNG")
    serve.add_argument("--latency", type=float, default=0.0, help="seconds added per request")
    serve.add_argument("--rate-429", type=float, default=0.0)
    serve.add_argument("--rate-500", type=float, default=0.0)
    serve.add_argument("--rate-503", type=float, default=0.0)
    serve.add_argument("--drop-rate", type=float, default=0.0)
    args = parser.parse_args(argv)
    if not args.access_key:
        parser.error("--access-key (or $EDGEDELIVERY_FAKE_ACCESS_KEY) is required")
    fake = FakeEdgeDelivery(args.access_key, seed=args.seed, pull_zones=args.pull_zones)
    fake.set_faults(
        latency=args.latency,
        rate_429=args.rate_429,
        rate_500=args.rate_500,
        rate_503=args.rate_503,
        drop_rate=args.drop_rate,
    )
    try:
        asyncio.run(serve_until_stopped(fake, args.host, args.port))
    except OSError as exc:
        print(f"cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
