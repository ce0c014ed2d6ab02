"""Prove a freshly generated package works before scripts/regenerate.sh writes it.

Every module compiles; the package imports together with the hand-written runtime (from
`SRC`, so the runtime of the tree being regenerated); every operation of the document is
a method of its resource, bound to its operationId; a client can be made and has every
resource. Exits 1 naming what is wrong.

Usage: python codegen/prove_package.py WORK_DIR PACKAGE DOCUMENT.json SRC
"""

from __future__ import annotations

import compileall
import contextlib
import importlib
import json
import sys
import traceback
from pathlib import Path

METHODS = ("get", "put", "post", "delete", "patch", "head")


def main(work: str, package: str, document: str, src: str) -> int:
    # quiet=1: the file and the error (compileall prints them on stdout; they go to stderr).
    with contextlib.redirect_stdout(sys.stderr):
        compiled = compileall.compile_dir(Path(work) / package, quiet=1, legacy=False, workers=1)
    if not compiled:
        print(f"prove_package: a module of {package} does not compile", file=sys.stderr)
        return 1
    sys.path[:0] = [work, src]
    try:
        resources = importlib.import_module(f"{package}.resources")
        sdk = importlib.import_module("edgedelivery_async")
    except Exception:
        traceback.print_exc()
        print(f"prove_package: {package} does not import", file=sys.stderr)
        return 1
    try:  # a resource whose name the client takes for itself fails here, not in users' code
        client = sdk.EdgeDeliveryClient("prove", "https://api.example.com")
        for name in resources.Resources.__annotations__:
            getattr(client, name)
    except Exception:
        traceback.print_exc()
        print("prove_package: a client cannot be made with these resources", file=sys.stderr)
        return 1
    spec = json.loads(Path(document).read_text(encoding="utf-8"))
    missing = []
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            operation_id = operation["operationId"]
            where = resources.OPERATIONS.get(operation_id)
            found = None
            if where is not None:
                resource = resources.Resources.__annotations__.get(where[0])
                cls = getattr(resources, str(resource), None) if resource else None
                found = getattr(cls, where[1], None) if cls is not None else None
            if getattr(found, "operation_id", None) != operation_id:
                missing.append(f"{method.upper()} {path} ({operation_id})")
    if missing:
        print("prove_package: operations without their method:", file=sys.stderr)
        for line in missing:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
