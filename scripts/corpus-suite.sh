#!/usr/bin/env bash
# Run the whole suite on a copy of the project with the service's published documents merged
# in (issue 20: "after merging, the whole suite passes unchanged").
#
# The copy is made exactly as tests/corpus/test_corpus.py makes its own
# (scripts/project_copy.py: merge-corpus.py, the x-sdk-pagination line, regenerate.sh), but of
# the whole tree, in a temporary folder. Then, on the copy, the steps of scripts/test.sh that
# read the document or the code: ruff, mypy --strict, openapi-spec-validator (on the repaired
# document) and Redocly (shown only, see below), regenerate.sh --check and
# `pytest -q -p no:cacheprovider` (the copy's own src/ and generated/ come first on
# PYTHONPATH). Every step runs; the exit status is non-zero when any failed.
# Too slow for CI (the pytest run alone takes several minutes); run it by hand after changing
# codegen/, the runtime or the tests.
#
# Usage: scripts/corpus-suite.sh [--corpus DIR] [--keep] [PYTEST ARGS...]
#   --corpus DIR  the published documents (default: ../shared/corpus of the repository)
#   --keep        leave the copy in place (its path is printed) instead of removing it
#   PYTEST ARGS   instead of the whole suite (e.g. tests/e2e -x)
# Needs the development environment of scripts/test.sh (.venv, or PYTHON=...).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="$ROOT/../shared/corpus"
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --corpus) CORPUS="$2"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    *) break ;;
  esac
done
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
fi
BIN="$(dirname "$PYTHON")"
export PYTHON PATH="$BIN:$PATH"

WORK="$(mktemp -d)"
COPY="$WORK/project"
if [ "$KEEP" = 1 ]; then
  echo "corpus-suite: the copy stays in $COPY"
else
  trap 'rm -rf "$WORK"' EXIT
fi

step() { printf '\n== %s\n' "$*"; }

step "copy the project, merge $CORPUS, declare pagination, regenerate"
"$PYTHON" "$ROOT/scripts/project_copy.py" "$COPY" --whole --merge-corpus "$CORPUS" | tail -n 3 \
  || { echo "corpus-suite: the merged copy could not be made" >&2; exit 1; }
cd "$COPY"
export PYTHONPATH="$COPY/src:$COPY/generated"

failed=()
run() {
  local name="$1"; shift
  step "$name"
  "$@" || failed+=("$name")
}

if [ $# -eq 0 ]; then
  run "ruff check" ruff check .
  run "ruff format --check" ruff format --check .
  run "mypy --strict" mypy
  # openapi-spec-validator on the document as regenerate.sh sees it (after prepare_spec's
  # repairs: the shipped openapi.json); the published documents as such break what the
  # repairs mend (a default below its own minimum).
  run "openapi-spec-validator (the repaired document)" \
    "$PYTHON" -m openapi_spec_validator generated/edgedelivery_openapi/openapi.json
  # Redocly's recommended rules are style rules of our hand-written document (tag
  # descriptions, summaries, one-member oneOf ...): the published documents, taken as
  # published, break them, so its findings are shown but do not fail the run.
  step "Redocly lint (style rules of our own document; shown, not counted)"
  scripts/lint-spec.sh 2>&1 | grep -E "failed with|Woohoo|is valid|lint-spec:" || true
  run "regenerate.sh --check" scripts/regenerate.sh --check
  run "pytest" "$PYTHON" -m pytest -q -p no:cacheprovider
else
  run "pytest $*" "$PYTHON" -m pytest -q -p no:cacheprovider "$@"
fi

if [ ${#failed[@]} -ne 0 ]; then
  printf '\ncorpus-suite: FAILED on the merged copy: %s\n' "$(IFS=,; echo "${failed[*]}")" >&2
  exit 1
fi
printf '\ncorpus-suite: every step passed on the merged copy\n'
