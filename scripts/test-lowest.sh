#!/usr/bin/env bash
# The SDK with every dependency at the lowest version pyproject.toml allows
# (scripts/lowest_versions.py), on the oldest CPython it supports (python3: 3.11 here):
# the runtime's tests, then the pytest plugin from a bare project with the `testing`
# extra's lowest pytest and pytest-asyncio. A bound that no longer holds fails here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=.venv-lowest
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
constraints="$(mktemp)"
python3 scripts/lowest_versions.py > "$constraints"
echo "lowest versions:" $(cat "$constraints")
"$venv/bin/python" -m pip install --quiet --upgrade pip
# The SDK and its extras at their lowest, with the suite's own test tools (not the
# `dev` extra, whose code generator and linters are not the SDK's dependencies).
"$venv/bin/python" -m pip install --quiet -c "$constraints" -e '.[cli,otel,speed,reqwest]' \
  "pytest==9.0.3" "pytest-asyncio==1.5.0" "pytest-xdist==3.8.0" pytest-httpx hypothesis \
  pyyaml "opentelemetry-sdk==$(sed -n 's/^opentelemetry-api==//p' "$constraints")"
"$venv/bin/python" -m pip check
"$venv/bin/python" -m pytest -q -p no:cacheprovider -n 2 --dist worksteal \
  tests/facade tests/transport tests/bulk tests/testing tests/cli

# The plugin as a user's project meets it: `pip install edgedelivery-async[testing]` at
# the extra's lowest pytest and pytest-asyncio, a tests package, asyncio_mode = auto.
project="$(mktemp -d)"
mkdir "$project/tests"
touch "$project/tests/__init__.py"
cp tests/testing/test_plugin.py "$project/tests/"
printf '[tool.pytest.ini_options]\nasyncio_mode = "auto"\n' > "$project/pyproject.toml"
plugin_constraints="$(mktemp)"
python3 - "$plugin_constraints" <<'PY'
import re, sys, tomllib
extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["testing"]
with open(sys.argv[1], "w") as out:
    for requirement in extra:
        name, bound = re.match(r"([\w.-]+)\s*>=\s*([^,;\s]+)", requirement).groups()
        out.write(f"{name}=={bound}\n")
PY
echo "the plugin with:" $(cat "$plugin_constraints")
"$venv/bin/python" -m pip uninstall --quiet --yes pytest-httpx pytest-xdist
"$venv/bin/python" -m pip install --quiet -c "$plugin_constraints" -e '.[testing]'
(cd "$project" && "$OLDPWD/$venv/bin/python" -m pytest -q -p no:cacheprovider tests)
