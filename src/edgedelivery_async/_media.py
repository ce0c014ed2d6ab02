"""Which media types are JSON, and how a request body is sent: one rule for the runtime,
the fake, the command line and the emitter.

Imports nothing, so the command line's help can read the document with it and load
none of the SDK's runtime.
"""

from __future__ import annotations

from typing import Any


def is_json(media_type: str) -> bool:
    """`application/json`, `text/json` and `application/<anything>+json` (parameters aside)."""
    kind = media_type.split(";", 1)[0].strip().lower()
    return kind in ("application/json", "text/json") or (
        kind.startswith("application/") and kind.endswith("+json")
    )


def json_media(content: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON media type object of a `content` map (`application/json` first), if any."""
    if "application/json" in content:
        found: dict[str, Any] = content["application/json"]
        return found
    return next((media for kind, media in content.items() if is_json(kind)), None)


def request_media(content: dict[str, Any]) -> tuple[str, str | None]:
    """How a request body is sent: ("json", None) for `application/json` (or no body),
    ("json", type) for another JSON spelling alone, ("text", type) for `text/...` (from a
    str), ("binary", type) for anything else (from bytes or a file)."""
    kinds = [str(kind) for kind in content]
    if not kinds or "application/json" in kinds:
        return "json", None
    for kind in kinds:
        if is_json(kind):
            return "json", kind
    kind = kinds[0]
    return ("text" if kind.lower().startswith("text/") else "binary"), kind
