"""Pull zone ids for `shield dump`, read lazily: range specs and ids files.

A range spec is a comma-separated list of ids and inclusive ranges, `1-5000,7001`.
An ids file has one id or range spec per line; blank lines and `#` comments are
skipped. Nothing here materialises the ids: ranges are generators, files are read
line by line as the dump asks for more.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import os
import re
import stat
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from typing import IO

_ITEM = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")
_MAX_ID = 2**63 - 1


@dataclass(frozen=True, slots=True)
class IdRanges:
    """Inclusive ranges of ids, iterated lazily in the order given."""

    ranges: tuple[tuple[int, int], ...]

    def __iter__(self) -> Iterator[int]:
        for first, last in self.ranges:
            yield from range(first, last + 1)

    def __len__(self) -> int:
        return sum(last - first + 1 for first, last in self.ranges)


def parse_ranges(spec: str) -> IdRanges:
    """Parse `1-5000,7001`; raises ValueError saying what is wrong.

    Ids are positive integers (0 is refused), a range's start is not above its end, and ranges
    must not overlap (each pull zone is read once).
    """
    ranges: list[tuple[int, int]] = []
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            raise ValueError(f"empty item in {spec.strip()!r}")
        match = _ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f"{item!r} is neither an id nor a range like 1-5000")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if first < 1:
            raise ValueError(f"{item!r}: 0 is not an id; ids are positive integers (1 or more)")
        if last < first:
            raise ValueError(f"range {item!r} ends before it starts")
        if last > _MAX_ID:
            raise ValueError(f"{item!r} is beyond the 64-bit id range")
        ranges.append((first, last))
    ordered = sorted(ranges)
    for (first_a, last_a), (first_b, last_b) in itertools.pairwise(ordered):
        if first_b <= last_a:
            raise ValueError(f"{_show(first_a, last_a)} and {_show(first_b, last_b)} overlap")
    return IdRanges(tuple(ranges))


def _show(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


class IdsFile:
    """The ids of a file (or stdin), one id or range spec per line, read as needed.

    Iteration stops at the first malformed line and leaves its description in `error`,
    so a dump can finish what it started and then report the bad line.
    """

    def __init__(self, stream: IO[str], name: str) -> None:
        self.stream = stream
        self.name = name
        self.error: str | None = None

    async def ids(self) -> AsyncGenerator[int, None]:
        """Every id, in file order."""
        number = 0
        async with contextlib.aclosing(_lines(self.stream)) as lines:
            async for line in lines:
                number += 1
                text = line.split("#", 1)[0].strip()
                if not text:
                    continue
                try:
                    ranges = parse_ranges(text)
                except ValueError as exc:
                    self.error = f"{self.name}, line {number}: {exc}"
                    return
                for pull_zone_id in ranges:
                    yield pull_zone_id


async def _lines(stream: IO[str]) -> AsyncGenerator[str, None]:
    """Lines of a text stream; pipes, FIFOs and terminals are read without blocking the loop.

    A regular file is read directly (its reads do not wait on anyone). A pipe or a
    terminal is read through the event loop, so that requests in flight go on and
    Ctrl-C works while a slow producer has nothing to say.
    """
    fd = _watchable_fd(stream)
    if fd is None:
        for line in stream:
            yield line
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    was_blocking = os.get_blocking(fd)
    pipe = os.fdopen(os.dup(fd), "rb", buffering=0)  # the transport closes it
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    try:
        while chunk := await reader.readline():
            yield chunk.decode("utf-8", errors="replace")
    finally:
        transport.close()
        with contextlib.suppress(OSError):
            os.set_blocking(fd, was_blocking)  # the dup shares the O_NONBLOCK flag


def _watchable_fd(stream: IO[str]) -> int | None:
    """The descriptor of a pipe, socket or terminal (what the event loop can watch), else None."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd):
        return fd
    return None  # a regular file or a device such as /dev/null: its reads never wait


async def chain(ranges: IdRanges | None, ids_file: IdsFile | None) -> AsyncGenerator[int, None]:
    """The ids of the ranges, then those of the file."""
    if ranges is not None:
        for pull_zone_id in ranges:
            yield pull_zone_id
    if ids_file is not None:
        async with contextlib.aclosing(ids_file.ids()) as ids:
            async for pull_zone_id in ids:
                yield pull_zone_id
