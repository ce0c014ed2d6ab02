#!/usr/bin/env bash
# Build the API reference with pdoc into site/ (git-ignored); open site/index.html.
#   scripts/docs.sh            build into site/
#   scripts/docs.sh DIR        build into DIR
#   PYTHON=/path/to/python ... use that interpreter
# Fails (exit 1) on any warning raised while importing or rendering the modules, and when
# a page or a central name is missing. Takes a couple of seconds: cheap enough for CI.
set -euo pipefail

PDOC_VERSION="16.0.0"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# An explicit PYTHON wins; otherwise the repository's .venv, else python3.
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x "$ROOT/.venv/bin/python" ] && PYTHON="$ROOT/.venv/bin/python"
fi
OUT="${1:-site}"
case "$OUT" in
  -*) echo "usage: $0 [OUTPUT_DIR]" >&2; exit 2 ;;
esac

cd "$ROOT"
have_pdoc="$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("pdoc"))' 2>/dev/null || true)"
if [ "$have_pdoc" != "$PDOC_VERSION" ]; then
  echo "need pdoc==$PDOC_VERSION (have '${have_pdoc:-none}'): pip install -e '.[dev]'" >&2
  exit 2
fi

"$PYTHON" - "$OUT" <<'PY'
"""Render the public modules; every warning is an error."""

import shutil
import sys
import warnings
from pathlib import Path

MODULES = [
    "edgedelivery_async",
    "edgedelivery_async.models",
    "edgedelivery_async.testing",
    "edgedelivery_async.cli",
]
# Each page, and a name that must be documented on it.
EXPECTED = {
    "edgedelivery_async.html": "EdgeDeliveryClient",
    "edgedelivery_async/models.html": "ShieldZoneConfig",
    "edgedelivery_async/testing.html": "FakeEdgeDelivery",
    "edgedelivery_async/cli.html": "main",
}

out = Path(sys.argv[1])
if out.exists():
    # Replace a previous build only: never delete a directory that is not one.
    if any(out.iterdir()) and not (out / "index.html").is_file():
        sys.exit(f"{out} exists and is not a previous pdoc build; choose another directory")
    shutil.rmtree(out)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import pdoc
    import pdoc.render

    from edgedelivery_async import __version__

    pdoc.render.configure(
        docformat="markdown", footer_text=f"edgedelivery-async {__version__}"
    )
    pdoc.pdoc(*MODULES, output_directory=out)
problems = [f"warning: {w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught]
for page, name in EXPECTED.items():
    path = out / page
    if not path.is_file():
        problems.append(f"missing page {path}")
    elif f'id="{name}"' not in path.read_text(encoding="utf-8"):
        problems.append(f"{path} does not document {name}")
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
pages = sum(1 for _ in out.rglob("*.html"))
print(f"API reference: {pages} pages in {out}/ (open {out}/index.html)")
PY
