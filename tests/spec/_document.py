"""The checked-in OpenAPI document as data, and small helpers to walk it.

Everything here reads `openapi/edge-delivery-1.0.0.yaml` itself (not the copy shipped in the
generated package), so the tests judge the source of truth, as `scripts/regenerate.sh` sees
it: after `codegen/prepare_spec.py`'s repairs (every operation has an operationId, path
parameters match the path, ...). Our own document needs none
(tests/maintainer/test_repairs.py); a document taken as published (the merged corpus,
scripts/corpus-suite.sh) is judged by the rules generation depends on, once repaired.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi" / "edge-delivery-1.0.0.yaml"
PACKAGE_DIR = ROOT / "generated" / "edgedelivery_openapi"
JSON = "application/json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# The success reply an operation's result comes from, first match wins (as in the SDK):
# a 202 is "accepted", with the result only when no other success reply is documented.
SUCCESS = ("200", "201", "2XX", "203", "204", "202")


@functools.cache
def _load() -> dict[str, Any]:
    """The document after prepare_spec's repairs, which are what regeneration reads."""
    spec = importlib.util.spec_from_file_location("prepare_spec", ROOT / "codegen/prepare_spec.py")
    assert spec is not None
    assert spec.loader is not None
    prepare_spec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prepare_spec)
    with SPEC_PATH.open(encoding="utf-8") as handle:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        loaded: dict[str, Any] = yaml.load(handle, Loader=loader)
    repaired: dict[str, Any] = prepare_spec.repair(loaded)[0]
    return repaired


def document() -> dict[str, Any]:
    """A fresh deep copy of the document (tests may mutate what they get)."""
    return copy.deepcopy(_load())


def resolve(node: Any) -> Any:
    """Follow local `$ref`s (`#/...`) until a node without one is reached."""
    seen: set[str] = set()
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are expected, got {ref}"
        assert ref not in seen, f"reference cycle at {ref}"
        seen.add(ref)
        node = pointer(ref[1:])
    return node


def pointer(path: str) -> Any:
    """The node at a JSON pointer (`/components/schemas/X`) of the document."""
    node: Any = _load()
    for raw in path.lstrip("/").split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    op: dict[str, Any]

    @property
    def operation_id(self) -> str:
        return str(self.op["operationId"])

    @property
    def pointer(self) -> str:
        return f"/paths/{escape(self.path)}/{self.method}"

    def parameters(self) -> list[dict[str, Any]]:
        return [resolve(p) for p in self.op.get("parameters", [])]

    def parameters_in(self, location: str) -> list[dict[str, Any]]:
        """The parameters of one location (path, query, header), in the document's order."""
        return [p for p in self.parameters() if p["in"] == location]

    @property
    def security(self) -> list[dict[str, Any]]:
        """The operation's security requirements (the document's own when it gives none)."""
        return list(self.op.get("security", _load().get("security", [])))

    @property
    def requires_key(self) -> bool:
        """An AccessKey is required: some requirement, and no empty (anonymous) alternative."""
        return bool(self.security) and {} not in self.security

    def request_body(self) -> dict[str, Any] | None:
        body = self.op.get("requestBody")
        return None if body is None else resolve(body)

    def success_status(self) -> str | None:
        """The response key of the success reply (`204`, `2XX`, ...), if the document has one."""
        keys = [str(key) for key in self.op["responses"]]
        for key in (*SUCCESS, *keys):
            if key in keys and key.startswith("2"):
                return key
        return None

    def request_schema(self) -> dict[str, Any]:
        return resolve(self.op["requestBody"]["content"][JSON]["schema"])  # type: ignore[no-any-return]

    def response_schema(self, status: str) -> dict[str, Any]:
        response = resolve(self.op["responses"][status])
        return resolve(response["content"][JSON]["schema"])  # type: ignore[no-any-return]


def operations() -> list[Operation]:
    found = []
    for path, item in _load()["paths"].items():
        for method in METHODS:
            if method in item:
                found.append(Operation(path, method, item[method]))
    return found


def operation(operation_id: str) -> Operation:
    (match,) = [o for o in operations() if o.operation_id == operation_id]
    return match


@dataclass(frozen=True)
class Example:
    """One example of a request or response body, with the schema it belongs to."""

    operation: Operation
    kind: str  # "request" or "response"
    status: str | None  # response key ("204", "2XX", "default"); None for requests
    media_type: str
    name: str
    value: Any
    schema_pointer: str  # JSON pointer of the media type's schema in the document

    @property
    def id(self) -> str:
        where = self.kind if self.status is None else f"{self.kind}-{self.status}"
        return f"{self.operation.operation_id}-{where}-{self.media_type}-{self.name}"


def media_examples(media: dict[str, Any]) -> list[tuple[str, Any]]:
    """The examples of a media type object: `example`, or each of `examples` (resolved)."""
    found: list[tuple[str, Any]] = []
    if "example" in media:
        found.append(("example", media["example"]))
    for name, entry in media.get("examples", {}).items():
        found.append((name, resolve(entry)["value"]))
    return found


def examples() -> Iterator[Example]:
    for operation_ in operations():
        body = operation_.op.get("requestBody")
        if body is not None:
            for media_type, media in resolve(body)["content"].items():
                for name, value in media_examples(media):
                    schema_ptr = f"{operation_.pointer}/requestBody/content/{escape(media_type)}"
                    yield Example(
                        operation_, "request", None, media_type, name, value, schema_ptr + "/schema"
                    )
        for status, response in operation_.op["responses"].items():
            if "$ref" in response:
                base = response["$ref"][1:]
            else:
                base = f"{operation_.pointer}/responses/{escape(status)}"
            for media_type, media in resolve(response).get("content", {}).items():
                for name, value in media_examples(media):
                    schema_ptr = f"{base}/content/{escape(media_type)}/schema"
                    yield Example(
                        operation_, "response", status, media_type, name, value, schema_ptr
                    )
