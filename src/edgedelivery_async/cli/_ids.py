"""Pull zone ids for `shield dump`, read lazily: range specs and ids files.

A range spec is a comma-separated list of ids and inclusive ranges, `1-5000,7001`.
An ids file has one id or range spec per line; blank lines and `#` comments are
skipped. Nothing here materialises the ids of ranges: they are generators, and files
are read line by line as the dump asks for more.

Repeated ids are read once, wherever they repeat (overlapping ranges, a file line
naming an id again, or an id of both the file and --pull-zones): `unique` skips them
and counts them. Remembering the ids a file gave costs about 60 bytes an id.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import io
import json
import os
import re
import stat
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import IO

_ITEM = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")  # ASCII digits only
_MAX_ID = 2**63 - 1
_MAX_DIGITS = len(str(_MAX_ID))
_OK_LINE = re.compile(r'"ok"\s*:\s*true')  # a dump line that may say ok, however spaced


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

    Ids are positive integers (0 is refused) and a range's start is not above its end.
    Ranges that overlap are merged (each pull zone is read once), in ascending order.
    """
    ranges: list[tuple[int, int]] = []
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            raise ValueError(f"empty item in {spec.strip()!r}")
        match = _ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f"{_shown(item)} is neither an id nor a range like 1-5000")
        if any(len(digits.lstrip("0")) > _MAX_DIGITS for digits in match.groups() if digits):
            raise ValueError(f"{_shown(item)} is beyond the 64-bit id range")
        first = _number(match.group(1))
        last = _number(match.group(2)) if match.group(2) is not None else first
        if first < 1:
            message = "0 is not an id; ids are positive integers (1 or more)"
            raise ValueError(f"{_shown(item)}: {message}")
        if last < first:
            raise ValueError(f"range {_shown(item)} ends before it starts")
        if last > _MAX_ID:
            raise ValueError(f"{_shown(item)} is beyond the 64-bit id range")
        ranges.append((first, last))
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    overlapping = sum(last - first + 1 for first, last in ranges) != sum(
        last - first + 1 for first, last in merged
    )
    return IdRanges(tuple(merged) if overlapping else tuple(ranges))


def _number(digits: str) -> int:
    """ASCII digits as an int, leading zeros dropped first (int() refuses a string of
    over 4,300 digits, zeros too)."""
    return int(digits.lstrip("0") or "0")


def _shown(item: str) -> str:
    """An item quoted for a message, shortened when long."""
    return repr(item if len(item) <= 40 else item[:37] + "...")


def count_in(ranges: IdRanges, ids: frozenset[int]) -> int:
    """How many of `ids` the ranges hold (one search each, however many ranges)."""
    bounds = sorted(ranges.ranges)
    starts = [first for first, _ in bounds]
    count = 0
    for pull_zone_id in ids:
        at = bisect.bisect_right(starts, pull_zone_id) - 1
        count += at >= 0 and pull_zone_id <= bounds[at][1]
    return count


def repeats_in(spec: str) -> int:
    """How many ids of a valid range spec repeat an earlier one (read once each)."""
    given = sum(last - first + 1 for first, last in parse_each(spec))
    return given - len(parse_ranges(spec))


def parse_each(spec: str) -> list[tuple[int, int]]:
    """The ranges of a valid spec as given, overlaps and all."""
    return [parse_ranges(item).ranges[0] for item in spec.split(",")]


@dataclass(slots=True)
class Skipped:
    """Ids a dump did not read: already read (`--resume`), or repeats of an earlier id."""

    done: int = 0
    repeated: int = 0
    _seen: set[int] = field(default_factory=set, repr=False)


async def unique(
    ids: AsyncIterator[int],
    ranges: IdRanges | None,
    done: frozenset[int],
    skipped: Skipped,
) -> AsyncGenerator[int, None]:
    """`ids` without those in `done` and without repeats; `ranges` (already merged) come
    first in `ids`, so only the ids after them need remembering."""
    ranged = len(ranges) if ranges is not None else 0
    bounds = sorted(ranges.ranges) if ranges is not None else []
    starts = [first for first, _ in bounds]
    seen = skipped._seen
    async for pull_zone_id in ids:
        if ranged > 0:  # still in the ranges: merged, so no repeats among them
            ranged -= 1
            if pull_zone_id in done:
                skipped.done += 1
                continue
            yield pull_zone_id
            continue
        at = bisect.bisect_right(starts, pull_zone_id) - 1
        if (at >= 0 and pull_zone_id <= bounds[at][1]) or pull_zone_id in seen:
            skipped.repeated += 1  # (read before, or skipped before as already read)
            continue
        seen.add(pull_zone_id)
        if pull_zone_id in done:
            skipped.done += 1
            continue
        yield pull_zone_id


def read_done(path: str) -> tuple[frozenset[int], bool]:
    """Ids with an `"ok": true` line in a dump (`--resume`), and whether it ends mid-line.

    Lines that do not parse (a line cut by a crash, JSON nested too deeply), lines that
    are not objects, and failed lines are not done. A byte-order mark is skipped.
    """
    done: set[int] = set()
    last = ""
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as lines:
            for last in lines:
                if _OK_LINE.search(last) is None:  # most lines of a large dump: no parse
                    continue
                try:
                    record = json.loads(last)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(record, dict) or record.get("ok") is not True:
                    continue
                pull_zone_id = record.get("pullZoneId")
                if type(pull_zone_id) is int:
                    done.add(pull_zone_id)
    except FileNotFoundError:
        return frozenset(), False
    return frozenset(done), bool(last) and not last.endswith("\n")


class IdsFile:
    """The ids of a file (or stdin), one id or range spec per line, read as needed.

    Iteration stops at the first malformed line, a line longer than `_LINE_LIMIT`
    bytes, or a failed read, and leaves its description in `error`, so a dump can
    finish what it started and then report it. The stream is best binary: bytes that
    are not UTF-8 then make only their own line malformed.
    """

    def __init__(self, stream: IO[str] | IO[bytes], name: str) -> None:
        self.stream = stream
        self.name = name
        self.error: str | None = None

    async def ids(self) -> AsyncGenerator[int, None]:
        """Every id, in file order."""
        number = 0
        async with contextlib.aclosing(_lines(self.stream)) as lines:
            while True:
                try:
                    line = await anext(lines)
                except StopAsyncIteration:
                    return
                except UnicodeDecodeError:  # a text stream's own strict decoder
                    self.error = f"{self.name}, line {number + 1}: not UTF-8 text"
                    return
                except ValueError:  # a line past the limit
                    too_long = f"longer than {_LINE_LIMIT:,} bytes"
                    self.error = f"{self.name}, line {number + 1}: {too_long}"
                    return
                except OSError as exc:  # a read that failed (an I/O error)
                    self.error = f"cannot read {self.name}: {exc.strerror or exc}"
                    return
                if not number:
                    line = line.removeprefix("\ufeff")  # a byte-order mark
                for part in _CR.split(line):  # lines ended by a bare CR (old Mac files)
                    number += 1
                    text = part.split("#", 1)[0].strip()
                    if not text:
                        continue
                    try:
                        ranges = parse_ranges(text)
                    except ValueError as exc:
                        self.error = f"{self.name}, line {number}: {exc}"
                        return
                    for pull_zone_id in ranges:
                        yield pull_zone_id


async def _lines(stream: IO[str] | IO[bytes]) -> AsyncGenerator[str, None]:
    """Lines of a stream, as text; pipes, FIFOs and terminals are read without blocking
    the loop. A line longer than `_LINE_LIMIT` bytes raises ValueError.

    A regular file or a device is read directly (its reads do not wait on anyone), a
    line at a time up to the limit (`/dev/zero` is one endless line). A pipe or a
    terminal is read through the event loop, so that requests in flight go on and
    Ctrl-C works while a slow producer has nothing to say.
    """
    fd = _watchable_fd(stream)
    if fd is None:
        while line := stream.readline(_LINE_LIMIT + 1):
            if len(line) > _LINE_LIMIT and line[-1:] not in ("\n", b"\n"):
                raise ValueError("line too long")
            yield line if isinstance(line, str) else line.decode("utf-8", errors="replace")
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
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


_LINE_LIMIT = 1 << 20  # bytes a line of an ids file may hold (up to a line feed)
_CR = re.compile(r"\r(?!\n|$)")  # a carriage return that ends a line by itself


def _watchable_fd(stream: IO[str] | IO[bytes]) -> int | None:
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
