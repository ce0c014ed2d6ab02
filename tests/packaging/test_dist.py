"""The sdist and the wheel, built with hatchling as pip would: metadata, licence, contents.

The sdist must hold everything `bash scripts/test.sh` needs (spec linter configuration and
npm lock files, scripts, benchmarks), so the test command can pass from an unpacked sdist.
"""

from __future__ import annotations

import email.parser
import email.policy
import os
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from pathlib import Path

import pytest

pytest.importorskip("hatchling", reason="hatchling (in the dev extra) builds the distributions")

ROOT = Path(__file__).resolve().parents[2]

BUILD = """
import sys
from hatchling.build import build_sdist, build_wheel
out = sys.argv[1]
print(build_sdist(out))
print(build_wheel(out))
"""

PYTHONS = ("3.11", "3.12", "3.13")
URLS = ("Homepage", "Documentation", "Source", "Issues")

# What the test command reads besides the package, tests and the document.
SDIST_NEEDS = (
    "LICENSE",
    "README.md",
    ".ci/run",
    "pyproject.toml",
    "generator-config.yaml",
    "redocly.yaml",
    ".redocly.lint-ignore.yaml",
    "scripts/test.sh",
    "scripts/lint-spec.sh",
    "scripts/regenerate.sh",
    "scripts/docs.sh",
    "scripts/schemathesis.sh",
    "scripts/schemathesis.toml",
    "tools/spec-lint/package.json",
    "tools/spec-lint/package-lock.json",
    "tools/node/package.json",
    "tools/node/package-lock.json",
    "openapi/edge-delivery-1.0.0.yaml",
    "src/edgedelivery_async_pytest.py",
    "src/edgedelivery_async_cli.py",
)
SDIST_DIRS = ("benchmarks/", "codegen/", "examples/", "generated/", "src/", "tests/")


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel) built from the working tree into a temporary folder."""
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    result = subprocess.run(
        [sys.executable, "-c", BUILD, str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    sdist_name, wheel_name = result.stdout.split()
    return out / sdist_name, out / wheel_name


def parse(text: str) -> Message:
    return email.parser.Parser(policy=email.policy.compat32).parsestr(text)


def sdist_files(sdist: Path) -> tuple[str, list[str]]:
    """The sdist's top folder and its paths relative to it."""
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    return top, [name.removeprefix(f"{top}/") for name in names if "/" in name]


def check_metadata(meta: Message) -> None:
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert set(URLS) <= set(urls), urls
    assert all(url.startswith("https://") for url in urls.values())
    classifiers = meta.get_all("Classifier") or []
    for version in PYTHONS:
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression


def test_wheel_metadata_license_and_plugin_module(dists: tuple[Path, Path]) -> None:
    _, wheel = dists
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = parse(archive.read(f"{info}/METADATA").decode())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
    check_metadata(meta)
    assert licence.startswith("MIT License")
    assert "edgedelivery-async developers" in licence
    # The pytest plugin is a top-level module, so loading it imports nothing of the package.
    assert "edgedelivery = edgedelivery_async_pytest" in entry_points
    assert "edgedelivery_async_pytest.py" in names
    # So is the console script's, so Ctrl-C while the package loads is handled.
    assert "edgedelivery = edgedelivery_async_cli:main" in entry_points
    assert "edgedelivery_async_cli.py" in names
    assert "edgedelivery_async/__init__.py" in names
    assert "edgedelivery_openapi/__init__.py" in names


def test_sdist_metadata_and_what_the_test_command_needs(dists: tuple[Path, Path]) -> None:
    sdist, _ = dists
    top, files = sdist_files(sdist)
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(f"{top}/PKG-INFO")
        assert member is not None
        check_metadata(parse(member.read().decode()))
    missing = [name for name in SDIST_NEEDS if name not in files]
    assert missing == []
    empty = [d for d in SDIST_DIRS if not any(f.startswith(d) for f in files)]
    assert empty == []
    assert any(f.startswith("benchmarks/") and f.endswith(".py") for f in files)
    # Installed tools and local environments stay out.
    assert not [f for f in files if "node_modules" in f or f.startswith(".venv")]
