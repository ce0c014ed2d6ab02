"""The fake's samples fit patterns with negative lookaheads (published documents use them)."""

from __future__ import annotations

import re

import pytest

from edgedelivery_async.testing._samples import from_pattern


@pytest.mark.parametrize(
    "pattern",
    [
        r"^/(?!.*//)(?!.*\.\.)(?!.*\s)([a-zA-Z0-9._-]+/?)+$",
        r"^(?!-)[a-z0-9-]{3,}$",
    ],
)
def test_a_negative_lookahead_is_skipped_and_the_result_checked(pattern: str) -> None:
    text = from_pattern(pattern)
    assert text is not None
    assert re.search(pattern, text)


def test_a_positive_lookahead_gives_no_sample() -> None:
    assert from_pattern(r"^(?=.*[A-Z])[a-z]+$") is None
