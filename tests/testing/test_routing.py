"""Routing over any document: a declared HEAD operation, and path parameters inside a
segment (`/reports/{day}.csv`)."""

from __future__ import annotations

from typing import Any

from edgedelivery_async.testing._document import Document
from edgedelivery_async.testing._routes import Match, NotAllowed, Router

OK = {"200": {"description": "ok"}}
NAME = [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}]


def _op(operation_id: str, parameters: list[Any] | None = None) -> dict[str, Any]:
    return {"operationId": operation_id, "parameters": parameters or NAME, "responses": OK}


def _router() -> Router:
    day = [{"name": "day", "in": "path", "required": True, "schema": {"type": "string"}}]
    both = [*day, {"name": "kind", "in": "path", "required": True, "schema": {"type": "string"}}]
    paths = {
        "/files/{name}": {"head": _op("File_Exists")},
        "/both/{name}": {"get": _op("Both_Get"), "head": _op("Both_Head")},
        "/plain/{name}": {"get": _op("Plain_Get")},
        "/reports/{day}.csv": {"get": _op("Report_Csv", day)},
        "/reports/{day}": {"get": _op("Report_Get", day)},
        "/reports/latest.csv": {"get": _op("Report_Latest", [])},
        "/r/{day}-{kind}.txt": {"get": _op("Report_Two", both)},
    }
    return Router(Document({"openapi": "3.0.3", "paths": paths, "components": {}}))


def _reached(router: Router, method: str, path: str) -> tuple[str, dict[str, Any]]:
    match = router.resolve(method, path)
    assert isinstance(match, Match), match
    return match.route.operation_id, match.params


def test_head_reaches_a_declared_head_operation_before_the_get() -> None:
    """A declared HEAD was answered `405 HEAD is not allowed here`: HEAD was always looked
    up as GET."""
    router = _router()
    assert _reached(router, "HEAD", "/files/f") == ("File_Exists", {"name": "f"})
    assert _reached(router, "HEAD", "/both/f") == ("Both_Head", {"name": "f"})
    assert _reached(router, "HEAD", "/plain/f") == ("Plain_Get", {"name": "f"})
    refused = router.resolve("GET", "/files/f")
    assert isinstance(refused, NotAllowed)
    assert "HEAD" in refused.allowed


def test_a_path_parameter_inside_a_segment_is_routed() -> None:
    """`GET /reports/{day}.csv` was a 404: only a whole `{...}` segment was a parameter."""
    router = _router()
    assert _reached(router, "GET", "/reports/2024-01-01.csv") == (
        "Report_Csv",
        {"day": "2024-01-01"},
    )
    assert _reached(router, "GET", "/reports/2024-01-01") == ("Report_Get", {"day": "2024-01-01"})
    assert _reached(router, "GET", "/reports/latest.csv") == ("Report_Latest", {})
    assert _reached(router, "GET", "/r/d1-k-2.txt") == ("Report_Two", {"day": "d1", "kind": "k-2"})
    assert _reached(router, "GET", "/reports/.csv") == ("Report_Get", {"day": ".csv"})
