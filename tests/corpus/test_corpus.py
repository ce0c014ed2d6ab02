"""The service's published documents (../shared/corpus), merged into a copy of the project,
regenerate with no hand edit, and every operation works through the client against the fake.

On a copy: `scripts/merge-corpus.py`, then `scripts/regenerate.sh` (its repairs print one
line each), then `call_every_operation.py` in a subprocess on the copy's own code, and the
copy's own CLI test that runs every operation's command against the fake. The public
surface only grows; every operation returns its result, in its declared media type, and
no call raises anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._corpus import ROOT

JSON_TYPES = ("application/json", "text/json")


def _shipped(copy: Path) -> dict[str, Any]:
    text = (copy / "generated" / "edgedelivery_openapi" / "openapi.json").read_text("utf-8")
    shipped: dict[str, Any] = json.loads(text)
    return shipped


def test_the_corpus_regenerates_and_each_repair_names_its_operation(merged: Path) -> None:
    lines = (merged / "regenerate.log").read_text(encoding="utf-8").splitlines()
    repairs = [line for line in lines if line.startswith("repaired ")]
    methods = ("GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE")
    for line in repairs:
        assert line.split(" ")[1] in methods, line
        assert line.split(" ")[2].startswith("/"), line
    operations = [
        op
        for item in _shipped(merged)["paths"].values()
        for method, op in item.items()
        if method in {m.lower() for m in methods}
    ]
    assert len(operations) > 200
    assert lines[-1].startswith("wrote generated/edgedelivery_openapi")


def test_the_public_surface_only_grows(merged: Path) -> None:
    before = (ROOT / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8").splitlines()
    after = set((merged / "generated" / "PUBLIC_API.txt").read_text("utf-8").splitlines())
    assert [line for line in before if line not in after] == []


def _success_content(operation: dict[str, Any]) -> dict[str, Any]:
    for status in ("200", "201", "2XX", "203", "204", "202"):
        response = operation.get("responses", {}).get(status)
        if response is not None:
            content: dict[str, Any] = response.get("content") or {}
            return content
    return {}


def _is_json(media_type: str) -> bool:
    return media_type in ("application/json", "text/json") or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def test_every_operation_works_through_the_client_against_the_fake(merged: Path) -> None:
    path = os.pathsep.join([str(merged / "src"), str(merged / "generated")])
    script = Path(__file__).with_name("call_every_operation.py")
    ran = subprocess.run(
        [sys.executable, str(script)],
        cwd=merged,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    assert outcome["raw"] == {}, "\n".join(outcome["raw"].values())
    assert outcome["typed"] == {}
    operations = {
        op["operationId"]: op
        for item in _shipped(merged)["paths"].values()
        for method, op in item.items()
        if method in ("get", "put", "post", "delete", "patch", "head")
    }
    assert outcome["operations"] == len(operations) > 200
    assert set(outcome["worked"]) == set(operations)
    # Replies in the media type the operation declares: the Accept header names it, and a
    # text reply is a str, a binary one bytes.
    binary = 0
    for operation_id, op in operations.items():
        content = _success_content(op)
        if not content or any(_is_json(kind) for kind in content):
            assert outcome["accept"][operation_id] in ("application/json", "text/json")
            continue
        assert outcome["accept"][operation_id] == ", ".join(content)
        text = all(kind.startswith("text/") for kind in content)
        assert outcome["kinds"][operation_id] == ("str" if text else "bytes")
        binary += not text
    assert binary >= 1
    # ... and each of them writes the same body to a file with `.to_file(path, ...)`,
    # which the surface snapshot lists.
    surface = (merged / "generated" / "PUBLIC_API.txt").read_text(encoding="utf-8")
    downloads = [line for line in surface.splitlines() if line.startswith("to_file ")]
    non_json = {op for op, kind in outcome["kinds"].items() if kind in ("str", "bytes")}
    non_json = {op for op in non_json if not any(map(_is_json, _success_content(operations[op])))}
    assert set(outcome["downloaded"]) == non_json
    assert all(outcome["downloaded"].values()), outcome["downloaded"]
    assert len(downloads) == len(non_json)
    # A bare array of a model (the list operations) is a list of that model, not of dicts.
    schemas = _shipped(merged)["components"]["schemas"]
    lists = {}
    for operation_id, op in operations.items():
        media = next((m for kind, m in _success_content(op).items() if _is_json(kind)), {})
        items = media.get("schema", {}).get("items", {})
        name = str(items.get("$ref", "")).rsplit("/", 1)[-1]
        if media.get("schema", {}).get("type") == "array" and "properties" in schemas.get(name, {}):
            lists[operation_id] = outcome["items"][operation_id]
    assert len(lists) >= 10, lists
    assert any(lists.values()), lists  # some list holds items
    for operation_id, kinds in lists.items():
        assert all(k.startswith("edgedelivery_openapi.models.") for k in kinds), (
            operation_id,
            kinds,
        )
    # Every operation the declaration makes paginated iterates to its last page.
    paginated = [line for line in surface.splitlines() if line.startswith("iterate ")]
    assert len(outcome["iterated"]) == len(paginated) > 0
    assert all(count > 0 for count in outcome["iterated"].values()), outcome["iterated"]


def test_every_operation_runs_through_the_cli_against_the_fake(merged: Path) -> None:
    path = os.pathsep.join([str(merged / "src"), str(merged / "generated")])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x"]
    ran = subprocess.run(
        [*command, "tests/cli/test_cli_generated.py", "-k", "runs_against_the_fake"],
        cwd=merged,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    passed = int(ran.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed > 200
