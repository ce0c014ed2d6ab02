#!/usr/bin/env bash
# Stoplight Prism, the mock server tests/corpus/test_prism.py runs on the merged corpus
# document. `scripts/prism.sh install` installs it (npm ci, pinned in
# tools/prism/package-lock.json: @stoplight/prism-cli 5.16.0) into tools/prism/node_modules
# when it is missing or not the pinned version; `scripts/prism.sh mock ARGS...` installs it
# the same way, then runs `prism mock ARGS...` in its place (exec). The npm registry is the
# only network use. Prism 5 runs on the machine's node (18 or later).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOL_DIR="$ROOT/tools/prism"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "prism: '$tool' not found; install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 2
  fi
done

wanted="$(node -p 'require("'"$TOOL_DIR"'/package-lock.json").packages["node_modules/@stoplight/prism-cli"].version')"
installed="$(node -p 'try { require("'"$TOOL_DIR"'/node_modules/@stoplight/prism-cli/package.json").version } catch { "" }')"
if [ "$installed" != "$wanted" ]; then
  echo "prism: installing @stoplight/prism-cli $wanted into tools/prism (npm ci)" >&2
  npm ci --prefix "$TOOL_DIR" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi

case "${1:-}" in
  install) exit 0 ;;
  mock) shift; exec node "$TOOL_DIR/node_modules/@stoplight/prism-cli/dist/index.js" mock "$@" ;;
  *) echo "usage: scripts/prism.sh install | mock ARGS..." >&2; exit 2 ;;
esac
