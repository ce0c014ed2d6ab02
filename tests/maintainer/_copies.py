"""Running code against a regenerated project copy (`project_copy` fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_in_copy(copy: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` in a fresh interpreter that imports the copy's own `src` and `generated`."""
    path = os.pathsep.join([str(copy / "src"), str(copy / "generated")])
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=copy,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
