"""Turning a call's arguments into a request, or into an InvalidRequestError.

Path parameters are checked and percent-encoded so that no value can change the
request path; bodies (generated models or plain JSON-shaped values) are checked
against the document's own schema. Every problem is collected before raising,
and nothing is sent when there is one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from ._exceptions import InvalidRequestError
from ._schema import Operation, Problem, operations, validate

_INT64 = (-(2**63), 2**63 - 1)


def prepare(
    operation_id: str, path_values: Mapping[str, object], body: Any = None
) -> tuple[Operation, str, bytes | None]:
    """(operation, encoded path, JSON bytes) for a call, or raise InvalidRequestError."""
    op = operations()[operation_id]
    problems: list[Problem] = []
    path = op.path
    for name, schema in op.path_params:
        encoded = encode_path_value(name, path_values[name], schema, problems)
        path = path.replace("{" + name + "}", encoded)
    content = None
    if op.body_schema is not None:
        body_problems: list[Problem] = []
        try:
            wire = to_wire(body, "", body_problems)
        except RecursionError:
            raise InvalidRequestError(
                op.operation_id, [Problem("", "is nested too deeply (or contains itself)")]
            ) from None
        flagged = {problem.field for problem in body_problems}
        body_problems.extend(p for p in validate(op.body_schema, wire) if p.field not in flagged)
        if not body_problems:
            try:
                content = json.dumps(wire, allow_nan=False, separators=(",", ":")).encode()
            except (TypeError, ValueError) as exc:
                body_problems.append(Problem("", f"cannot be sent as JSON: {exc}"))
        problems.extend(body_problems)
    if problems:
        raise InvalidRequestError(op.operation_id, problems)
    return op, path, content


def encode_path_value(
    name: str, value: object, schema: Mapping[str, Any], problems: list[Problem]
) -> str:
    """The percent-encoded path segment for one parameter (collecting problems)."""
    integer_only = schema.get("type") == "integer"
    if isinstance(value, bool):
        problems.append(Problem(name, "must be an identifier, not a boolean"))
    elif isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            problems.append(Problem(name, f"{value} is out of the 64-bit integer range"))
        return str(value)
    elif integer_only:
        problems.append(Problem(name, f"must be an integer, not {type(value).__name__}"))
    elif not isinstance(value, str):
        problems.append(
            Problem(name, f"must be a string or an integer, not {type(value).__name__}")
        )
    elif not value:
        problems.append(Problem(name, "must not be empty"))
    elif value in (".", ".."):
        problems.append(Problem(name, f"{value!r} is not an identifier"))
    elif not _encodable(value):
        problems.append(Problem(name, "must be valid Unicode text (no lone surrogates)"))
    else:
        return quote(value, safe="")
    return ""


def _encodable(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def to_wire(value: Any, where: str, problems: list[Problem]) -> Any:
    """JSON-shaped data from generated models and plain values; non-JSON values are problems."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        try:
            return to_wire(to_dict(), where, problems)
        except (AttributeError, TypeError, ValueError) as exc:
            problems.append(Problem(where, f"cannot be serialized: {exc}"))
            return None
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(Problem(where, f"keys must be strings, not {key!r}"))
                continue
            out[key] = to_wire(item, f"{where}.{key}" if where else key, problems)
        return out
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return [to_wire(item, f"{where}[{i}]", problems) for i, item in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        problems.append(Problem(where, f"{value} is not a JSON number"))
    elif value is not None and not isinstance(value, str | int | float):
        kind = type(value).__name__
        problems.append(Problem(where, f"a value of type {kind} cannot be sent as JSON"))
    return value
