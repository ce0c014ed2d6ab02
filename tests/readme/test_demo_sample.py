"""The demo's sample output in the README is what `edgedelivery demo` prints today.

The README's block is compared line by line with a real run (stdout and stderr as a
terminal shows them), numbers aside: ports, counts and timings vary, the lines do not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from ._blocks import blocks

NUMBER = re.compile(r"\d+(\.\d+)?")


def normalised(lines: list[str]) -> list[str]:
    return [NUMBER.sub("N", line.rstrip()) for line in lines if line.strip()]


def test_the_readme_shows_what_the_demo_prints() -> None:
    (sample,) = [b for b in blocks("") if b.code.startswith("fake Edge Delivery API on ")]
    assert sample.section == "The demo: the main job with no account and no network"
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    env.update(NO_COLOR="1", PYTHONUNBUFFERED="1")
    done = subprocess.run(
        [sys.executable, "-m", "edgedelivery_async.cli", "demo"],  # as the README runs it
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout
    assert normalised(sample.code.splitlines()) == normalised(done.stdout.splitlines())
    assert "sample lines (use -o FILE for all of them):" in sample.code
