"""Fixtures: a fake, and raw httpx clients reaching it in-process or over loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._document import Document

KEY = "tk-Secret-5e1f0c"
AUTH = {"AccessKey": KEY}


@pytest.fixture
def fake() -> FakeEdgeDelivery:
    """A fake with two pull zones (and their shield zones), one script, one app."""
    fake = FakeEdgeDelivery(KEY)
    fake.seed_pull_zones(2)
    fake.add_script(7)
    fake.add_app("app-1")
    return fake


@pytest.fixture(params=["in-process", "loopback"])
async def http(
    request: pytest.FixtureRequest, fake: FakeEdgeDelivery
) -> AsyncIterator[httpx.AsyncClient]:
    """A raw httpx client on the fake: through its transport, or through the aiohttp server."""
    if request.param == "in-process":
        async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as client:
            yield client
    else:
        async with fake.serve() as url, httpx.AsyncClient(base_url=url) as client:
            yield client


def conforms(operation_id: str, response: httpx.Response, document: Document | None = None) -> None:
    """Assert the response is one the document (the shipped one by default) declares."""
    document = document or Document()
    operation = document.operations[operation_id]
    raw = document.spec["paths"][operation.path][operation.method.lower()]
    status = response.status_code
    key = next(
        (k for k in (str(status), f"{status // 100}XX", "default") if k in raw["responses"]), None
    )
    assert key is not None, f"{operation_id}: {status} is not declared"
    content = document.deref(raw["responses"][key]).get("content")
    if not content:
        if key != "default":
            assert response.content == b"", f"{operation_id}: {status} declares no body"
        return
    kind = response.headers["content-type"].split(";")[0].strip()
    if "application/json" not in content:
        # A text or binary reply (a zone file, a PDF): one of the declared media types.
        assert kind in content, f"{operation_id}: {kind} is not declared for {status}"
        assert response.content, f"{operation_id}: {status} declares a body"
        return
    assert kind == "application/json"
    schema = content["application/json"]["schema"]
    problems = document.validate(schema, response.json())
    assert problems == [], problems


def body(response: httpx.Response) -> Any:
    """The JSON body of a response."""
    return response.json()
