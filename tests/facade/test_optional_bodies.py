"""A request body the document does not require may be left out (`requestBody.required`,
false by default): the SDK sends none, and the fake takes a request without one."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from edgedelivery_async import InvalidRequestError, _requests, _schema
from edgedelivery_async._call import Call
from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing._document import read_operations

DONE = {"204": {"description": "done"}}


def _document() -> dict[str, Any]:
    document = copy.deepcopy(_schema.spec())
    for name, required in (("optional", False), ("required", True), ("unsaid", None)):
        body: dict[str, Any] = {
            "content": {
                "application/json": {"schema": {"type": "array", "items": {"type": "string"}}}
            }
        }
        if required is not None:
            body["required"] = required
        document["paths"][f"/added/purge/{name}"] = {
            "post": {"operationId": f"Added_Purge_{name}", "requestBody": body, "responses": DONE}
        }
    return document


@pytest.mark.parametrize(
    ("name", "sent"), [("optional", True), ("unsaid", True), ("required", False)]
)
def test_an_optional_body_left_out_is_not_sent(
    monkeypatch: pytest.MonkeyPatch, name: str, sent: bool
) -> None:
    """`purge()` (body `... | None = None`) raised "(body): None is not of type 'array'"."""
    operations = read_operations(_document())
    monkeypatch.setattr(_requests, "operations", lambda: operations)
    call = Call(f"Added_Purge_{name}", object, body=None)
    if sent:
        assert _requests.prepare_call(call).content is None
    else:
        with pytest.raises(InvalidRequestError, match=r"\(body\): None is not of type 'array'"):
            _requests.prepare_call(call)
    given = _requests.prepare_call(Call(f"Added_Purge_{name}", object, body=["a"]))
    assert given.content == b'["a"]'


@pytest.mark.parametrize(
    ("name", "status"), [("optional", 204), ("unsaid", 204), ("required", 400)]
)
def test_the_fake_takes_no_body_where_none_is_required(name: str, status: int) -> None:
    """The fake answered 400 ("a request body is required") to any empty body."""
    fake = FakeEdgeDelivery("k", document=_document())
    reply = fake.handle("POST", f"/added/purge/{name}", {"AccessKey": "k"}, b"")
    assert reply.status == status, reply.body
    headers = {"AccessKey": "k", "Content-Type": "application/json"}
    assert fake.handle("POST", f"/added/purge/{name}", headers, b'["a"]').status == 204
