"""Reply bodies read exactly as `json.loads` reads them, through orjson or not (`_json`)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedelivery_async import _json

pytest.importorskip("orjson")  # the `speed` extra, part of the dev install

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same JSON types all the way down (1 is not 1.0, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES, st.booleans())
def test_every_document_reads_as_the_standard_library_reads_it(value: Any, ascii: bool) -> None:
    content = json.dumps(value, ensure_ascii=ascii).encode()
    assert same(_json.loads(content), json.loads(content))


@pytest.mark.parametrize(
    "text",
    [
        "9223372036854775807",  # 2**63 - 1: orjson's own, exact
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        '{"id": 123456789012345678901234567890, "name": "x"}',
        "[1, 12345678901234567890123]",
    ],
)
def test_integers_beyond_64_bits_stay_exact_integers(text: str) -> None:
    found = _json.loads(text.encode())
    assert same(found, json.loads(text))


@pytest.mark.parametrize(
    "content",
    [
        b"NaN",
        b'{"a": Infinity}',
        b'"\\ud800"',  # a lone surrogate escape
        b"\xef\xbb\xbf{}",  # a UTF-8 byte order mark
        '{"a": 1}'.encode("utf-16"),
        b"1e400",  # the standard library reads infinity
        b'{"a": 1, "a": 2}',
    ],
)
def test_what_orjson_refuses_the_standard_library_decides(content: bytes) -> None:
    assert same(_json.loads(content), json.loads(content))


@pytest.mark.parametrize("content", [b"", b"<html>502</html>", b"{", b"\xff\xfe\xfd"])
def test_what_is_not_json_raises_as_json_loads_does(content: bytes) -> None:
    with pytest.raises((json.JSONDecodeError, UnicodeDecodeError)):
        _json.loads(content)


def test_orjson_reads_ordinary_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is taken (a test that fails if it were switched off)."""
    read: list[bytes] = []
    import orjson

    def spy(content: bytes) -> Any:
        read.append(content)
        return orjson.loads(content)

    monkeypatch.setattr(_json, "_fast", spy)
    monkeypatch.setattr(_json, "_looked", True)
    assert _json.loads(b'{"shieldZoneId": 9001}') == {"shieldZoneId": 9001}
    assert _json.loads(b"[12345678901234567890123]") == [12345678901234567890123]
    assert read == [b'{"shieldZoneId": 9001}']
