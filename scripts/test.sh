#!/usr/bin/env bash
# Set up (first run) and run the whole test suite: lint, types, both spec linters,
# the regeneration check, the API reference build, Schemathesis against the fake, and
# pytest (last, so its summary closes the run).
# Needs only Python 3.11+ (and npm for the second spec linter); installs the rest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The second spec linter comes from npm; install Node.js and npm from Debian if the machine
# lacks npm. Any node will do: when it is older than the linter needs (Debian 12 ships 18),
# scripts/lint-spec.sh fetches a pinned Node.js 22 from the npm registry for the linter.
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
export PATH="$PWD/.venv/bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

step "ruff (lint and format)"
ruff check .
ruff format --check .

step "mypy --strict (src and the generated package)"
mypy

step "OpenAPI document: openapi-spec-validator and Redocly"
scripts/lint-spec.sh

step "generated/ matches the document"
scripts/regenerate.sh --check

step "API reference (pdoc), built into a temporary folder"
scripts/docs.sh "$(mktemp -d)/site"

step "Schemathesis against the fake server"
scripts/schemathesis.sh

step "Stoplight Prism for tests/corpus/test_prism.py (npm, pinned in tools/prism)"
scripts/prism.sh install

# One worker per core (pytest-xdist); a worker takes the next test when it is free, as the
# heaviest tests (the virtual-time runs, the corpus through the CLI) take over a minute.
step "pytest"
pytest -q -p no:cacheprovider -n auto --dist worksteal
