"""The fenced code blocks of README.md, with where they are and the marker before them.

A block the README's tests cannot run is marked on the line before its fence:

    <!-- readme-test: skip (the reason) -->

Python blocks marked so are still compiled; shell blocks are not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

_FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)[ ]*\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.M | re.S,
)
_MARKER = re.compile(r"<!--\s*readme-test:\s*skip\s*\((?P<reason>.+?)\)\s*-->")
_HEADING = re.compile(r"^#+ (.+)$", re.M)


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, first line of code (1-based), code and marker."""

    lang: str
    line: int
    code: str
    section: str
    skip: str | None  # the reason given by a `readme-test: skip` marker, if any

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-")
        return f"{self.lang or 'text'}-L{self.line}-{slug}"


def blocks(lang: str | None = None, text: str | None = None) -> list[Block]:
    """The README's blocks in order (those of one language when `lang` is given)."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        line = before.count("\n") + 2  # the line after the opening fence
        headings = _HEADING.findall(before)
        previous = before.rstrip("\n").rsplit("\n", 1)[-1]
        marker = _MARKER.search(previous)
        indent = len(match.group("indent"))
        code = "".join(
            row[indent:] if row[:indent].strip() == "" else row
            for row in match.group("body").splitlines(keepends=True)
        )
        found.append(
            Block(
                lang=match.group("lang"),
                line=line,
                code=code,
                section=headings[-1] if headings else "top",
                skip=marker.group("reason") if marker else None,
            )
        )
    return [b for b in found if lang is None or b.lang == lang]
