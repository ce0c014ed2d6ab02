"""Which media types are JSON: one rule for the runtime, the fake and the command line.

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
