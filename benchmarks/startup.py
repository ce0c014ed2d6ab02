"""Start-up time with the shipped document and with the service's published documents merged.

    .venv/bin/python benchmarks/startup.py [--corpus ../shared/corpus] [--runs 7]

For each document, in fresh interpreters: `from edgedelivery_async import
EdgeDeliveryClient` plus building a client, and `edgedelivery --help`. The merged
document is made on a copy of the project (scripts/merge-corpus.py, then
scripts/regenerate.sh), as the corpus test makes it. Prints the best and the median
of the runs (seconds) and the number of operations; the goal is 0.5 s for each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT = (
    "from edgedelivery_async import EdgeDeliveryClient\n"
    "EdgeDeliveryClient('key', 'https://api.example.invalid')\n"
)
HELP = "import sys\nfrom edgedelivery_async.cli import main\nsys.exit(main(['--help']))\n"


def timed(code: str, root: Path, runs: int) -> tuple[float, float]:
    """(best, median) wall time of a fresh interpreter running `code` on `root`'s code."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root / "generated")]),
    }
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def merged_copy(corpus: Path, into: Path) -> Path:
    copy = into / "project"
    for name in ("openapi", "codegen", "scripts", "generated", "src"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "generator-config.yaml", copy / "generator-config.yaml")  # regenerate.sh's
    env = {**os.environ, "PYTHON": sys.executable}
    merge = [sys.executable, "scripts/merge-corpus.py", "--corpus", str(corpus)]
    subprocess.run(merge, cwd=copy, env=env, check=True, capture_output=True)
    regenerate = ["bash", "scripts/regenerate.sh"]
    subprocess.run(regenerate, cwd=copy, env=env, check=True, capture_output=True)
    return copy


def operations(root: Path) -> int:
    spec = json.loads((root / "generated/edgedelivery_openapi/openapi.json").read_text("utf-8"))
    methods = {"get", "put", "post", "delete", "patch", "head"}
    return sum(1 for item in spec["paths"].values() for m in item if m in methods)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        roots = {"shipped": ROOT, "merged corpus": merged_copy(args.corpus, Path(scratch))}
        print(f"{'document':<15} {'operations':>10} {'what':<28} {'best s':>7} {'median s':>9}")
        for name, root in roots.items():
            for what, code in (("import + client", IMPORT), ("edgedelivery --help", HELP)):
                best, median = timed(code, root, args.runs)
                print(f"{name:<15} {operations(root):>10} {what:<28} {best:>7.3f} {median:>9.3f}")


if __name__ == "__main__":
    main()
