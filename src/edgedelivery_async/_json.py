"""Reading reply bodies as JSON: the standard library's result, faster when it can be.

`loads(content)` always returns what `json.loads` returns for the same bytes. With
orjson installed (the `speed` extra), a body goes through orjson first: about 3x less
CPU for a typical reply. orjson differs from the standard library in one way that would
change a result silently: it reads an integer beyond 64 bits as a float. A body with a
run of 19 or more digits therefore goes to the standard library, and so does every body
orjson refuses (NaN, a byte order mark, UTF-16, lone surrogates, very deep nesting), so
the standard library decides those as before.

A reply nested deeper than `MAX_DEPTH` levels is refused (`TooDeep`, a ValueError): no
reply of this API comes near it, and such data breaks the caller's own code (`json.dumps`
raises RecursionError on it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

# Every digit to "9", every other byte to "x": a run of 19 digits becomes "9" * 19.
_DIGIT_RUNS = bytes(0x39 if 0x30 <= byte <= 0x39 else 0x78 for byte in range(256))
_LONG_NUMBER = b"9" * 19  # 2**63 has 19 digits; orjson keeps every shorter integer exact

# Arrays and objects nested in a reply, at most: the document's deepest result nests 7.
MAX_DEPTH = 128


class TooDeep(ValueError):
    """A body nested deeper than `MAX_DEPTH` levels."""


class TooManyDigits(ValueError):
    """A body holding an integer of more digits than Python reads (4,300 by default,
    `sys.set_int_max_str_digits`): valid JSON, which json.loads refuses."""


_fast: Callable[[bytes], Any] | None = None
_looked = False


def loads(content: bytes) -> Any:
    """`content` parsed as JSON, exactly as `json.loads` would (raises `ValueError`, and
    `TooDeep` past `MAX_DEPTH` levels)."""
    try:
        value = _loads(content)
    except RecursionError:  # the standard library's parser, nested past the stack's depth
        raise TooDeep(f"nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        limit = sys.get_int_max_str_digits()
        raise TooManyDigits(
            f"holds an integer of more than {limit:,} digits, more than Python reads"
            " (sys.set_int_max_str_digits)"
        ) from None
    # Fewer brackets than the cap cannot nest past it (a count in C: no walk at all).
    if content.count(b"[") + content.count(b"{") > MAX_DEPTH and _deeper(value, MAX_DEPTH):
        raise TooDeep(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _loads(content: bytes) -> Any:
    fast = _fast if _looked else _find_fast()
    if fast is not None and _LONG_NUMBER not in content.translate(_DIGIT_RUNS):
        try:
            return fast(content)
        except ValueError:  # orjson.JSONDecodeError: the standard library decides
            pass
    try:  # UTF-8 (nearly always): decoding first spares json its encoding sniffing
        return json.loads(content.decode())
    except ValueError:  # a BOM, UTF-16/32, or not JSON: json's own reading decides
        return json.loads(content)


def _deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` levels in `value` (no recursion)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def _find_fast() -> Callable[[bytes], Any] | None:
    """orjson's `loads` when it is installed (imported on the first reply, not at start)."""
    global _fast, _looked
    try:
        import orjson
    except ImportError:
        _fast = None
    else:
        _fast = orjson.loads
    _looked = True
    return _fast
