#!/usr/bin/env bash
# Lint openapi/edge-delivery-1.0.0.yaml with two independent tools; exit non-zero on any error.
#   1. openapi-spec-validator (Python, pinned in the `dev` extra of pyproject.toml)
#   2. Redocly CLI `lint` (npm, pinned in tools/spec-lint/package-lock.json) with redocly.yaml:
#      the recommended ruleset with every rule an error; exceptions are explained there and in
#      .redocly.lint-ignore.yaml.
# The npm tool is installed with `npm ci` into tools/spec-lint/node_modules when it is missing
# or not the pinned version; that is the only network use (the npm registry).
# PYTHON selects the interpreter (default: .venv/bin/python of the repository, else python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPEC="openapi/edge-delivery-1.0.0.yaml"
TOOL_DIR="tools/spec-lint"
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
fi

cd "$ROOT"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "lint-spec: '$tool' not found; install Node.js (>= 20.19) and npm" >&2
    exit 2
  fi
done

# @redocly/cli 2.77.0 declares node ">=22.12.0 || >=20.19.0 <21.0.0" (Debian 12's own nodejs is 18).
if ! node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit((major === 20 && minor >= 19) || major > 22 || (major === 22 && minor >= 12) ? 0 : 1);
'; then
  echo "lint-spec: Node.js $(node --version) is too old for @redocly/cli; need >= 20.19 (20.x) or >= 22.12" >&2
  exit 2
fi

# The version the lock file pins, and the one installed (empty when none is).
wanted="$(node -p 'require("./'"$TOOL_DIR"'/package-lock.json").packages["node_modules/@redocly/cli"].version')"
installed="$(node -p 'try { require("./'"$TOOL_DIR"'/node_modules/@redocly/cli/package.json").version } catch { "" }')"
if [ "$installed" != "$wanted" ]; then
  echo "lint-spec: installing @redocly/cli $wanted into $TOOL_DIR (npm ci)"
  npm ci --prefix "$TOOL_DIR" --ignore-scripts --no-audit --no-fund --loglevel=error
fi

status=0

echo "lint-spec: openapi-spec-validator $SPEC"
"$PYTHON" -m openapi_spec_validator "$SPEC" || status=1

echo "lint-spec: redocly lint $SPEC"
# No telemetry, no update or announcement checks: nothing but the linting runs.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_SUPPRESS_NOTIFICATIONS=true \
  "$TOOL_DIR/node_modules/.bin/redocly" lint --config redocly.yaml --format=stylish </dev/null \
  || status=1

if [ "$status" -ne 0 ]; then
  echo "lint-spec: FAILED" >&2
else
  echo "lint-spec: both linters passed"
fi
exit "$status"
