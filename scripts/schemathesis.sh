#!/usr/bin/env bash
# Check FakeEdgeDelivery against the document with Schemathesis, every check on.
#   scripts/schemathesis.sh [extra `schemathesis run` options]
# Serves the fake on 127.0.0.1 (a free port, seeded with the identifiers named in
# scripts/schemathesis.toml, faults off), runs Schemathesis with the checked-in document,
# stops the fake, and exits non-zero on any failure. MAX_EXAMPLES and SEED tune the run;
# the whole run is capped at TIME_LIMIT seconds (default 170).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPEC="openapi/edge-delivery-1.0.0.yaml"
CONFIG="scripts/schemathesis.toml"
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  PYTHON=python3
  [ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
fi
MAX_EXAMPLES="${MAX_EXAMPLES:-60}"
SEED="${SEED:-1}"
TIME_LIMIT="${TIME_LIMIT:-170}"

cd "$ROOT"
if ! "$PYTHON" -c 'import schemathesis' 2>/dev/null; then
  echo "schemathesis is not installed for $PYTHON: pip install -e '.[dev]'" >&2
  exit 2
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A throwaway key for this run only.
KEY="st-$("$PYTHON" -c 'import secrets; print(secrets.token_hex(12))')"

# SEED: what the identifiers in scripts/schemathesis.toml point at.
EDGEDELIVERY_FAKE_ACCESS_KEY="$KEY" "$PYTHON" - >"$work/server.out" 2>"$work/server.err" <<'PY' &
import asyncio, os, signal
from edgedelivery_async.testing import FakeEdgeDelivery

async def main() -> None:
    fake = FakeEdgeDelivery(os.environ["EDGEDELIVERY_FAKE_ACCESS_KEY"])
    # Pull zones 1-5 also carry the document's example hostname (cdn.example.com), so the
    # Examples phase sends a Force SSL request the fake can accept instead of a certain 400.
    for zone_id in range(1, 6):
        fake.add_pull_zone(zone_id, hostnames=[f"pz{zone_id}.example.test", "cdn.example.com"])
    fake.seed_pull_zones(5)  # their shield zones
    for script_id in (1, 2, 3):
        fake.add_script(script_id)
    fake.add_app("app-1")
    fake.add_app("app-2")
    assert fake.add_template("app-1") == "tpl-1"
    fake.add_registry("main", password="correct-horse-battery")
    fake.add_registry("mirror", password="staple-9")
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with fake.serve("127.0.0.1", 0) as url:
        print(f"serving {url}", flush=True)
        await stop.wait()

asyncio.run(main())
PY
server_pid=$!

url=""
for _ in $(seq 1 100); do
  url="$(awk '/^serving /{print $2; exit}' "$work/server.out")"
  [ -n "$url" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "the fake did not start:" >&2
    cat "$work/server.err" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "the fake printed no URL within 10 s" >&2
  exit 1
fi
echo "fake serving at $url"

# One worker: Schemathesis's workers are threads, and on CPython 3.11 before 3.11.8 two
# threads in ast.parse (Hypothesis describes lambdas with it) share the AST builder's
# recursion counter and fail with "SystemError: AST constructor recursion depth mismatch"
# (python/cpython#106905). The machines run 3.11.7, and CI failed on it once.
status=0
timeout --signal=INT --kill-after=10 "$TIME_LIMIT" \
  "$PYTHON" -m schemathesis.cli --config-file "$CONFIG" run "$SPEC" \
    --url "$url" \
    --checks all \
    --header "AccessKey: $KEY" \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$SEED" \
    --workers 1 \
    "$@" || status=$?

# aiohttp logs the requests it refuses itself (Schemathesis probes a NUL byte in a header),
# so the fake's stderr is shown only when something failed.
if [ "$status" -ne 0 ] && [ -s "$work/server.err" ]; then
  echo "--- the fake's stderr ---" >&2
  cat "$work/server.err" >&2
fi
if [ "$status" -eq 124 ]; then
  echo "schemathesis did not finish within $TIME_LIMIT s" >&2
fi
exit "$status"
