#!/usr/bin/env python3
"""Copy the project into another folder, optionally with the published documents merged in.

The one place that knows which parts of the tree a copy needs: the tests that regenerate
a changed document on a copy (tests/maintainer, tests/spec, tests/corpus) and
`scripts/corpus-suite.sh`, which runs the whole suite on a merged copy, all use it.

- `copy_project(dest)`: what `scripts/regenerate.sh` needs (the document, codegen/,
  scripts/, generated/, the generator's config and pyproject.toml), plus `extra` folders;
- `copy_project(dest, whole=True)`: the whole working tree, without VCS data, virtual
  environments, caches and build output (npm tools are linked, not copied), with
  `../shared` (the corpus) linked beside it when there is none;
- `merge_corpus(dest, corpus)`: on a copy, what a maintainer does to take the service's
  published documents (issue 20): `scripts/merge-corpus.py`, the one `x-sdk-pagination`
  line, then `scripts/regenerate.sh`. Its output is kept in `regenerate.log`.

Usage: python scripts/project_copy.py DEST [--whole] [--merge-corpus DIR]
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = Path("openapi") / "edge-delivery-1.0.0.yaml"
# What scripts/regenerate.sh reads and writes.
REGENERATION = (
    "openapi",
    "codegen",
    "scripts",
    "generated",
    "generator-config.yaml",
    "pyproject.toml",
    "src/edgedelivery_async/_client.py",  # the emitter reserves the client's own names
    "src/edgedelivery_async/_notes.py",  # codegen/runtime_rules.py: the runtime's rules
    "src/edgedelivery_async/_media.py",  # codegen/runtime_rules.py: the runtime's rules
    "src/edgedelivery_async/_schema.py",
)
# Never part of a copy: VCS data, environments, caches, build output.
LEFT_OUT = (
    ".git",
    ".venv",
    ".venv-*",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "dist",
    "build",
    "site",
    "node_modules",
)
# The pagination a maintainer declares once for the merged document.
PAGINATION = {"page": "page", "items": "Items", "has-more": "HasMoreItems"}


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {name for name in names if any(fnmatch.fnmatch(name, p) for p in LEFT_OUT)}


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=_ignore, symlinks=True, dirs_exist_ok=True)
    else:
        shutil.copy2(source, target)


def copy_project(dest: Path, extra: Iterable[str] = (), *, whole: bool = False) -> Path:
    """Copy the project (what regeneration needs plus `extra`, or all of it) into `dest`."""
    dest = Path(dest)
    if whole:
        shutil.copytree(ROOT, dest, ignore=_ignore, symlinks=True)
        # The spec linter's npm packages are installed once, in the tree; link them.
        for modules in ROOT.glob("tools/*/node_modules"):
            (dest / modules.relative_to(ROOT)).symlink_to(modules, target_is_directory=True)
        # The copy sees the same ../shared (the corpus) the repository sees.
        shared, beside = ROOT.parent / "shared", dest.parent / "shared"
        if shared.is_dir() and not beside.exists():
            beside.symlink_to(shared.resolve(), target_is_directory=True)
        return dest
    for name in (*REGENERATION, *extra):
        _copy(ROOT / name, dest / name)
    return dest


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def read_document(path: Path) -> dict[str, Any]:
    """A YAML (or JSON) document as codegen/prepare_spec.py reads it (`prepare_spec.load`:
    YAML 1.2, so a key `On:` stays `On`, not YAML 1.1's `true`): one rule for every reader.
    Written back with the safe dumper, a string YAML 1.1 would read otherwise is quoted."""
    found = importlib.util.spec_from_file_location("prepare_spec", ROOT / "codegen/prepare_spec.py")
    assert found is not None
    assert found.loader is not None
    prepare_spec = importlib.util.module_from_spec(found)
    found.loader.exec_module(prepare_spec)
    document: dict[str, Any] = prepare_spec.load(str(path))
    return document


def declare_pagination(document: Path) -> None:
    """The one `x-sdk-pagination` line a maintainer adds to a merged document."""
    spec = read_document(document)
    spec["x-sdk-pagination"] = PAGINATION
    document.write_text(yaml.dump(spec, Dumper=yaml.CSafeDumper, sort_keys=False), "utf-8")


def merge_corpus(dest: Path, corpus: Path) -> str:
    """Merge `corpus` into the copy's document, declare pagination, regenerate.

    Returns regenerate.sh's output; raises RuntimeError with the output of the step that failed.
    """
    merged = _run([sys.executable, "scripts/merge-corpus.py", "--corpus", str(corpus)], dest)
    if merged.returncode != 0:
        raise RuntimeError(f"merge-corpus.py failed:\n{merged.stdout}{merged.stderr}")
    declare_pagination(dest / DOCUMENT)
    regenerated = _run(["bash", "scripts/regenerate.sh"], dest)
    if regenerated.returncode != 0:
        raise RuntimeError(f"regenerate.sh failed:\n{regenerated.stdout}{regenerated.stderr}")
    (dest / "regenerate.log").write_text(regenerated.stdout, encoding="utf-8")
    return regenerated.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="the folder to create (must not exist)")
    parser.add_argument("--whole", action="store_true", help="copy the whole working tree")
    parser.add_argument("--merge-corpus", type=Path, metavar="DIR", help="published documents")
    args = parser.parse_args()
    copy_project(args.dest, whole=args.whole)
    if args.merge_corpus is not None:
        try:
            print(merge_corpus(args.dest, args.merge_corpus.resolve()), end="")
        except RuntimeError as failed:
            print(failed, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
