"""The compiled fast check of reply types says yes exactly when the detailed check finds nothing.

`_shape.fits` (straight-line code per schema, the bulk path) and `_shape.checker`
(closures that name what is wrong) must agree on every value, for every result schema
of the document: values are drawn per schema, with any member replaced by any JSON.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedelivery_async import _shape
from edgedelivery_async._schema import deref, operations

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)
ANY_JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def typed(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly values of the schema's own types, any JSON anywhere now and then."""
    node = deref(schema)
    kind = node.get("type") or ("object" if "properties" in node else None)
    if depth > 4 or kind is None:
        return ANY_JSON
    own: st.SearchStrategy[Any]
    if kind == "object":
        members = {
            name: typed(sub, depth + 1) for name, sub in (node.get("properties") or {}).items()
        }
        own = st.fixed_dictionaries({}, optional=members)
    elif kind == "array":
        own = st.lists(typed(node.get("items") or {}, depth + 1), max_size=3)
    elif kind == "integer":
        own = st.integers()
    elif kind == "number":
        own = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    elif kind == "boolean":
        own = st.booleans()
    else:
        own = st.text(max_size=4)
    return st.one_of(own, own, own, st.none(), ANY_JSON)


SCHEMAS = {
    op_id: op.result_schema
    for op_id, op in sorted(operations().items())
    if op.result_schema is not None
}


def detailed(schema: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    _shape.checker(schema)(value, "", found)
    return found


@pytest.mark.parametrize("operation_id", sorted(SCHEMAS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_and_detailed_checks_agree(operation_id: str, data: st.DataObject) -> None:
    schema = SCHEMAS[operation_id]
    value = data.draw(typed(schema))
    assert _shape.fits(schema, value) == (not detailed(schema, value))


def test_the_fast_check_refuses_what_the_detailed_one_names() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "child": {"type": "object", "properties": {"flag": {"type": "boolean"}}},
        },
    }
    good = {"n": 1.5, "i": 2, "tags": ["a", None], "child": {"flag": True}, "other": object()}
    assert _shape.fits(schema, good)
    for bad in (
        {"n": math.inf},
        {"n": math.nan},
        {"n": True},
        {"i": 1.0},
        {"tags": ["a", 1]},
        {"tags": "a"},
        {"child": {"flag": 1}},
        {"child": []},
    ):
        assert not _shape.fits(schema, bad), bad
        assert detailed(schema, bad), bad
    assert _shape.fits(schema, None)
    assert not _shape.fits(schema, [])
