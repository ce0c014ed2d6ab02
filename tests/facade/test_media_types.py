"""Replies in the media type the operation declares (issue 20, item 5): JSON in any of its
spellings, text as a str, anything else as bytes, and the Accept header that asks for it.
End to end (the corpus's binary replies through the client and the fake): tests/corpus."""

from __future__ import annotations

from typing import Any

import pytest

from edgedelivery_async import _schema
from edgedelivery_async._http import RawResponse
from edgedelivery_async._response import read_result, text_of


def _op(content: dict[str, Any] | None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": "ok"}
    if content is not None:
        response["content"] = content
    return {"responses": {"200": response}}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, ("json", "application/json")),
        ({"application/json": {}}, ("json", "application/json")),
        ({"text/plain": {}, "application/json": {}, "text/json": {}}, ("json", "application/json")),
        ({"text/json": {}}, ("json", "text/json")),
        ({"application/problem+json": {}}, ("json", "application/problem+json")),
        ({"text/csv": {}}, ("text", "text/csv")),
        ({"application/octet-stream": {}}, ("binary", "application/octet-stream")),
        ({"application/pdf": {}, "text/plain": {}}, ("binary", "application/pdf, text/plain")),
    ],
)
def test_the_reply_kind_and_accept_header_come_from_the_document(
    content: dict[str, Any] | None, expected: tuple[str, str]
) -> None:
    assert _schema.reply_media(_op(content), lambda node: node) == expected


def _raw(content: bytes, content_type: str) -> RawResponse:
    return RawResponse(
        "GET", "https://x.invalid/a", "/a", 200, {"content-type": content_type}, content
    )


def test_text_is_read_in_its_charset() -> None:
    assert text_of(_raw("zone;é".encode("latin-1"), "text/csv; charset=latin-1")) == "zone;é"
    assert text_of(_raw("é".encode(), "text/csv")) == "é"
    assert text_of(_raw(b"\xff", "text/csv; charset=nonsense")) == "\ufffd"


def test_a_binary_or_text_operation_returns_bytes_or_str() -> None:
    operation = next(iter(_schema.operations().values()))
    binary = _schema.Operation(**{**_fields(operation), "reply": "binary"})
    text = _schema.Operation(**{**_fields(operation), "reply": "text"})
    body = b"\x00\x01not json"
    assert read_result(binary, _raw(body, "application/octet-stream"), bytes) == body
    assert read_result(text, _raw(b"a,b\n", "text/csv"), str) == "a,b\n"


def _fields(operation: _schema.Operation) -> dict[str, Any]:
    return {name: getattr(operation, name) for name in operation.__dataclass_fields__}
