"""The document's text for users: without the notes for its maintainers.

The document's descriptions also say where it departs from the API reference ("Status
codes are not shown in the reference") and cite the issue a fact came from ("(issue
11)"). Method docstrings (`codegen/docstrings.py`) and the command line's help show the
text without them. Standard library only: the code generator loads this file by path.
"""

from __future__ import annotations

import re

_MAINTAINERS = re.compile(r"\bthe reference\b", re.I)  # a clause about the reference
_CITATION = re.compile(r"\s*\(issue \d+\)|,\s*issue \d+(?=[;)])")  # "(issue 11)", ", issue 11)"


def for_users(text: str) -> str:
    """`text` without citations of issues and the clauses that speak of the reference."""
    text = _CITATION.sub("", " ".join(text.split()))
    kept: list[str] = []
    for sentence in re.split(r"(?<=\.)\s+", text):
        clauses = [c for c in sentence.rstrip(".").split("; ") if c and not _MAINTAINERS.search(c)]
        if clauses:
            joined = "; ".join(clauses)
            kept.append(joined[0].upper() + joined[1:] + ".")
    return " ".join(kept)
