"""Every operation of the merged corpus document, through the client, against Stoplight Prism.

Prism (`scripts/prism.sh`, pinned in tools/prism) mocks the document exactly as
regenerate.sh prepared it (the copy's shipped `openapi.json`) on loopback, and
`call_every_operation_live.py` calls each of its operations on the SDK's default transport,
iterates the paginated ones and writes the binary and text ones to a file. No raw
exception may escape. A typed SDK error is accepted only where Prism's reply is one the
SDK rightly refuses, or the document's own sample input breaks the document's rules; each
is counted and checked here by kind, so a new one fails the test.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ._corpus import ROOT

STARTUP_SECONDS = 120

# Typed errors that are the SDK doing its job: (what was run, error class, words of its
# message). Prism answers each operation with its first declared 2xx, which for the shield
# reads is 202 without a result; the document's sample body for ContainerTemplate_Add
# leaves out what its `anyOf` requires (refused before sending); and a static mock answers
# every page alike while saying more follow, which `iterate()` refuses instead of looping.
ACCEPTED = (
    ("call", "AcceptedWithoutResultError", "202 Accepted"),
    ("call", "InvalidRequestError", "nothing was sent"),
    ("iterate", "APIResponseValidationError", "repeats page 1"),
)
EXTRAS = ("iterate ", "to_file ")


def _kind(name: str) -> str:
    return name.split(" ")[0] if name.startswith(EXTRAS) else "call"


def _accepted(name: str, error: str) -> bool:
    kind, _, message = error.partition(": ")
    return any(
        _kind(name) == run and kind == cls and words in message for run, cls, words in ACCEPTED
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def prism(merged: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Prism mocking the merged document on a loopback port; its base URL."""
    document = merged / "generated" / "edgedelivery_openapi" / "openapi.json"
    port = _free_port()
    log = tmp_path_factory.mktemp("prism") / "prism.log"
    command = [
        "bash",
        str(ROOT / "scripts" / "prism.sh"),
        "mock",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        str(document),
    ]
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while "Prism is listening" not in log.read_text(errors="replace"):
            assert server.poll() is None, log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "Prism did not start in time"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the group of the process started here
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


@pytest.fixture(scope="module")
def outcome(merged: Path, prism: str) -> dict[str, Any]:
    path = os.pathsep.join([str(merged / "src"), str(merged / "generated")])
    script = Path(__file__).with_name("call_every_operation_live.py")
    ran = subprocess.run(
        [sys.executable, str(script), prism],
        cwd=merged,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    found: dict[str, Any] = json.loads(ran.stdout)
    return found


def test_every_operation_through_the_client_against_prism_raises_nothing_raw(
    outcome: dict[str, Any],
) -> None:
    assert outcome["raw"] == {}, "\n".join(outcome["raw"].values())
    assert outcome["operations"] > 200
    typed = outcome["typed"]
    called = [name for name in outcome["worked"] if _kind(name) == "call"]
    refused = [name for name in typed if _kind(name) == "call"]
    kinds = collections.Counter(
        f"{_kind(name)} {error.split(':')[0]}" for name, error in typed.items()
    )
    print(
        f"\nPrism: {outcome['operations']} operations: {len(called)} returned their result, "
        f"{len(refused)} raised a typed SDK error; typed errors by kind: {dict(kinds)}"
    )
    for name, error in sorted(typed.items()):
        print(f"  {name}: {error}")
    assert len(called) + len(refused) == outcome["operations"]
    assert {name: error for name, error in typed.items() if not _accepted(name, error)} == {}
    assert len(refused) <= 5, refused


def test_prism_finds_nothing_wrong_in_the_requests_the_client_sends(
    outcome: dict[str, Any],
) -> None:
    assert outcome["violations"] == {}


def test_paginated_and_binary_operations_work_against_prism(outcome: dict[str, Any]) -> None:
    iterated = [
        name for name in [*outcome["worked"], *outcome["typed"]] if _kind(name) == "iterate"
    ]
    downloaded = [name for name in outcome["worked"] if _kind(name) == "to_file"]
    assert iterated
    assert downloaded
    assert not [name for name in outcome["typed"] if _kind(name) == "to_file"], outcome["typed"]
