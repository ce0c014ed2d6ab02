"""Print pip constraints pinning each dependency to the lowest version pyproject.toml allows.

`scripts/test-lowest.sh` installs the SDK with these, so a lower bound that no longer
works (an aiohttp keyword the transport passes, a decompression bound it relies on) fails
a test instead of a user's install. Requirements without a `>=` bound are left free.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

# The tools the test suite itself pins (the `dev` extra): not the SDK's bounds to test.
_SUITES_OWN = {"pytest", "pytest-asyncio"}
_LOWER = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*[^;]*?>=\s*([^,;\s]+)")


def lowest(requirements: list[str]) -> dict[str, str]:
    """Each requirement's name and its `>=` bound (markers kept out of the pin)."""
    pins: dict[str, str] = {}
    for requirement in requirements:
        found = _LOWER.match(requirement.strip())
        if found and found.group(1).lower() not in _SUITES_OWN:
            pins[found.group(1).lower()] = found.group(2)
    return pins


def main() -> None:
    project = tomllib.loads(
        Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml").read_text()
    )["project"]
    requirements = list(project["dependencies"])
    for name, extra in project.get("optional-dependencies", {}).items():
        if name != "dev":
            requirements += [r for r in extra if not r.startswith("edgedelivery-async")]
    for name, version in sorted(lowest(requirements).items()):
        print(f"{name}=={version}")


if __name__ == "__main__":
    main()
