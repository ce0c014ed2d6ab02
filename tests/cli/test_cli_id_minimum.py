"""An integer path parameter takes what its schema's `minimum` allows: 0 where the document
says `minimum: 0`; positive integers where it says 1 or nothing (the shipped commands)."""

from __future__ import annotations

from typing import Any

import pytest

from edgedelivery_async.cli import _clicklib as click
from edgedelivery_async.cli._commands import id_type


@pytest.mark.parametrize(
    ("schema", "takes", "refuses", "rule"),
    [
        ({"type": "integer", "minimum": 0}, ["0", "7"], ["-1"], "integers of 0 or more"),
        ({"type": "integer", "format": "int64"}, ["1"], ["0", "-1"], "positive integers"),
        ({"type": "integer", "minimum": 1}, ["1"], ["0"], "positive integers"),
        ({"type": "integer", "minimum": 0, "exclusiveMinimum": True}, ["1"], ["0"], "positive"),
        ({"type": "integer", "minimum": 5}, ["5"], ["4"], "integers of 5 or more"),
    ],
)
def test_an_id_takes_what_its_minimum_allows(
    schema: dict[str, Any], takes: list[str], refuses: list[str], rule: str
) -> None:
    """`0` was refused ("0 is not an id: ids are positive integers") whatever the document
    said: every integer path parameter was a positive id."""
    kind = id_type(schema)
    assert [kind.convert(text, None, None) for text in takes] == [int(text) for text in takes]
    for text in refuses:
        with pytest.raises(click.UsageError, match=rule):
            kind.convert(text, None, None)
