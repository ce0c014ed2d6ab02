"""What the command line prints: JSON on stdout, errors on stderr, exit statuses.

Errors are printed as plain text (never through rich markup) with the SDK's own
message, which never contains the access key.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import sys
import time
from typing import IO, TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from .. import EdgeDeliveryError

#: Exit statuses.
OK = 0
FAILED = 1  # the API (or the connection) reported a failure; some dump items failed
USAGE = 2  # bad command line or input; nothing (more) was sent
INTERRUPTED = 130  # Ctrl-C


_told: set[str] = set()  # the first words of the messages said in this run


def said(first_word: str) -> bool:
    """Whether a message starting with `first_word` was said (`interrupted`, say)."""
    return first_word in _told


def forget_said() -> None:
    """A new run of the command line (in one process, a test's) has said nothing yet."""
    _told.clear()


def say(text: str) -> None:
    """One message on stderr, flushed. Control characters in it (a server's text may hold
    line breaks or terminal escapes) are shown escaped, so it stays one line of plain
    text; a closed stderr gets nothing (`print` would write it to stdout, into the JSON)."""
    _told.add(text.partition(" ")[0].rstrip(":"))
    stream = sys.stderr
    if stream is None:
        return
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):  # (ValueError: a closed file) nowhere left to say it
        pass


class ClosedStdout(io.TextIOBase):
    """Stands for a closed stdout (`>&-`, where Python's `sys.stdout` is None) while the
    command line runs: every write fails, so the version, help and results all say
    "stdout is closed" with status 1 instead of vanishing with status 0."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise OSError("stdout is closed")

    @property
    def buffer(self) -> Any:  # (a binary result)
        raise OSError("stdout is closed")


def stdout_closed() -> bool:
    """Whether stdout is closed (see `ClosedStdout`)."""
    return sys.stdout is None or isinstance(sys.stdout, ClosedStdout)


class NotWritable(ValueError):
    """A result too deeply nested to write as JSON (json.dumps would raise RecursionError)."""


NOT_WRITABLE = "the result is nested too deeply to write as JSON"


def json_text(value: Any, stream: IO[str] | None, **options: Any) -> str:
    """`value` as JSON that `stream` can take: its text as it is, unless the stream's
    encoding cannot hold it (a lone surrogate from a reply's "\\ud800", or "café" on an
    ASCII terminal); then with \\u escapes, the same JSON. A reply's NaN or Infinity,
    which JSON has no spelling for (Python's parser reads them), is written as null.
    Data nested past Python's recursion limit raises `NotWritable`."""
    try:
        return _json_text(value, stream, **options)
    except RecursionError:
        raise NotWritable(NOT_WRITABLE) from None


def _json_text(value: Any, stream: IO[str] | None, **options: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    except ValueError:
        value = _finite(value)
        text = json.dumps(value, ensure_ascii=False, **options)
    if text.isascii():
        return text
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return json.dumps(value, ensure_ascii=True, **options)
    # JSON escapes only the 7-bit controls; a terminal also acts on the 8-bit ones (U+009B
    # opens an escape sequence) and shows text reordered by the bidirectional controls.
    # Outside strings JSON is ASCII, so each stands in a string: \u escaped, same JSON.
    return _TERMINAL_CONTROLS.sub(_escaped, text)


# C1 controls, the bidirectional marks, embeddings, overrides and isolates, and the
# line and paragraph separators.
_TERMINAL_CONTROLS = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def _finite(value: Any) -> Any:
    """`value` with each NaN or infinite float as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def to_jsonable(value: Any) -> Any:
    """A model's `to_dict()`, a list of models' too, or the value itself (already JSON-shaped)."""
    if isinstance(value, list):
        return [to_jsonable(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def print_json(value: Any) -> None:
    """Pretty JSON (indent 2) on stdout; a binary result (bytes) as it came.

    A stdout that is closed or cannot be written (a full disk) is an error with status 1.
    """
    out = sys.stdout
    try:
        if out is None:
            raise OSError("stdout is closed")
        if isinstance(value, bytes | bytearray):
            out.flush()
            out.buffer.write(value)
            out.buffer.flush()
            return
        try:
            text = json_text(to_jsonable(value), out, indent=2)
        except (NotWritable, RecursionError):  # (RecursionError: a model's to_dict())
            say(f"error: cannot write the result: {NOT_WRITABLE}")
            raise typer.Exit(FAILED) from None
        out.write(text + "\n")
        out.flush()
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            _quiet_stdout()
        say(f"error: cannot write the result: {exc}")
        raise typer.Exit(FAILED) from None


def exit_code(error: BaseException) -> int:
    """2 for input the SDK refused before sending or unusable settings, else 1."""
    from .. import ConfigurationError, InvalidRequestError

    return USAGE if isinstance(error, InvalidRequestError | ConfigurationError) else FAILED


#: Python arguments the SDK's messages may name, and the global option that sets each.
CLI_OPTIONS = {
    "allow_insecure_http=True": "--allow-insecure-http",
    "base_url=": "--base-url",
    "access_key=": "--access-key",
}
INSECURE_HTTP_HINT = (
    "hint: use an https:// base URL, or pass the global option --allow-insecure-http "
    "(before the command) to send the key over plain http anyway"
)
# A base URL was given (by --base-url, else EDGEDELIVERY_BASE_URL) but cannot be used.
BASE_URL_HINT = (
    "hint: the base URL is the global option --base-url, else EDGEDELIVERY_BASE_URL: "
    "an absolute https:// URL such as https://api.example.com"
)

# An access key was given (by --access-key, else EDGEDELIVERY_ACCESS_KEY) but cannot be used.
ACCESS_KEY_HINT = (
    "hint: the access key is the global option --access-key, else EDGEDELIVERY_ACCESS_KEY "
    "(check the variable for a stray space or line break)"
)


def message_of(error: BaseException) -> tuple[str, str | None]:
    """The error's message as the command line says it, and a hint naming CLI options.

    The SDK's messages name Python arguments (`allow_insecure_http=True`, `base_url=`);
    here they name the global options that set them. A missing setting's message says
    what to pass; a base URL or an access key that was given but cannot be used gets a
    hint on where it came from, not one to pass it.
    """
    from .. import ConfigurationError

    text = str(error)
    if not isinstance(error, ConfigurationError):
        return text, None
    named = [python for python in CLI_OPTIONS if python in text]
    for python in named:
        text = text.replace(python, CLI_OPTIONS[python])
    if "allow_insecure_http=True" in named:
        return text, INSECURE_HTTP_HINT
    if text.startswith("base_url "):
        return text, BASE_URL_HINT
    if text.startswith("access_key "):  # ("access_key must be printable ASCII", ...)
        return text, ACCESS_KEY_HINT
    return text, None


def fail(error: EdgeDeliveryError) -> NoReturn:
    """Print `error: <the SDK's message>` (and a hint) on stderr and exit with its status."""
    text, hint = message_of(error)
    say(f"error: {text}")
    if hint is not None:
        say(hint)
    raise typer.Exit(exit_code(error))


def error_record(error: Exception) -> dict[str, Any]:
    """An error as a dump line carries it: its type, HTTP status (or null) and message."""
    from .. import APIError

    status = error.status_code if isinstance(error, APIError) else None
    return {"type": type(error).__name__, "status": status, "message": str(error)}


#: Bytes of a file or stdin given to an option (`--body FILE`, JSON, text or binary) at
#: most: the SDK's cap on a reply read into memory (`max_response_bytes`, 64 MiB).
MAX_INPUT = 64 * 2**20


def _size(count: int) -> str:
    """A byte count as the messages say it: `64 MiB`, or `1,000 bytes`."""
    return f"{count // 2**20} MiB" if count and count % 2**20 == 0 else f"{count:,} bytes"


def read_bytes(path: str, option: str, limit: int) -> bytes:
    """The bytes of a file, or of stdin for `-`; a usage error when unreadable (stdin
    closed, more than `limit` bytes). At most `limit + 1` bytes are read, so a file of
    10 GB is refused without being read."""
    size = limit + 1
    try:
        if path == "-":
            if sys.stdin is None:
                raise typer.BadParameter("stdin is closed", param_hint=option)
            buffer = getattr(sys.stdin, "buffer", None)  # (none when stdin is replaced by text)
            if buffer is not None:
                data: bytes = buffer.read(size)
            else:
                data = sys.stdin.read(size).encode("utf-8", "surrogateescape")
        else:
            with open(path, "rb") as handle:
                data = handle.read(size)
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path!r}: {exc}", param_hint=option) from None
    if len(data) > limit:
        message = f"{path!r} is over {_size(limit)}, the most the CLI reads"
        raise typer.BadParameter(message, param_hint=option)
    return data


def read_text(path: str, option: str, limit: int) -> str:
    """The UTF-8 text of a file, or of stdin for `-`; a usage error when unreadable
    (as `read_bytes`, and bytes that are not UTF-8)."""
    data = read_bytes(path, option, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise typer.BadParameter(f"cannot read {path!r}: {exc}", param_hint=option) from None


def read_json(path: str, option: str) -> Any:
    """The JSON in a file, or in stdin for `-`, as UTF-8; a usage error when unreadable
    (stdin closed, bytes that are not UTF-8, more than `MAX_INPUT` bytes). A byte-order
    mark before it is skipped, as in an ids file (Windows editors write one; Python's
    parser refused it: "Unexpected UTF-8 BOM")."""
    text = read_text(path, option, MAX_INPUT).removeprefix("\ufeff")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise typer.BadParameter(f"{path!r} is not valid JSON: {exc}", param_hint=option) from None
    except RecursionError:
        message = f"{path!r} is not usable JSON: nested too deeply"
        raise typer.BadParameter(message, param_hint=option) from None


class LineWriter:
    """JSON lines to a file or stdout, flushed regularly so readers see progress.

    Lines are written whole, and the stream is flushed at least every
    `flush_interval` seconds and on close, so an interrupted run leaves only
    complete lines. `stream=None` discards the lines (the demo without `-o`). A write
    that fails (a full disk, an I/O error) stops the writing: `error` holds it, and
    every later `write` raises it. A reader that went away (`| head`), seen by a write
    or by a flush, makes every later `write` raise `BrokenPipeError`.
    """

    def __init__(self, stream: IO[str] | None, *, owned: bool, flush_interval: float = 0.2) -> None:
        self.stream = stream
        self.owned = owned
        self.flush_interval = flush_interval
        self.lines = 0
        self.broken = False
        self.error: OSError | None = None
        self._flushed = time.monotonic()

    @classmethod
    def open(cls, path: str | None, *, append: bool = False, new_line: bool = False) -> LineWriter:
        """`-` is stdout, None discards, anything else is a file (created or truncated;
        with `append`, added to, after a line break first when `new_line`)."""
        if path is None:
            return cls(None, owned=False)
        if path == "-":
            if stdout_closed():
                raise typer.BadParameter("stdout is closed: give a file", param_hint="-o")
            return cls(sys.stdout, owned=False)
        try:
            stream = open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
            if new_line:
                stream.write("\n")  # a line cut short by a crash stays apart from the next
        except OSError as exc:
            hint = "--resume" if append else "-o"
            raise typer.BadParameter(f"cannot write {path!r}: {exc}", param_hint=hint) from None
        return cls(stream, owned=True)

    def write(self, record: dict[str, Any]) -> str:
        """Write one record as one line; returns the line (without its newline)."""
        line = json_text(record, self.stream, separators=(",", ":"))
        if self.error is not None:
            raise self.error
        if self.broken and self.stream is not None:  # (a flush found the reader gone)
            raise BrokenPipeError(errno.EPIPE, "the reader of the output went away")
        if self.stream is not None:
            try:
                self.stream.write(line + "\n")
                now = time.monotonic()
                if now - self._flushed >= self.flush_interval:
                    self.stream.flush()
                    self._flushed = now
            except BrokenPipeError:
                self._broken_pipe()
                raise
            except OSError as exc:
                self._failed(exc)
                raise
        self.lines += 1
        return line

    def flush(self) -> None:
        """Flush what was written since the last flush (a slow source's lines too)."""
        if self.stream is None or self.broken:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            self._broken_pipe()
        except OSError as exc:
            self._failed(exc)
        self._flushed = time.monotonic()

    def close(self) -> None:
        """Flush, and close the file if this writer opened it."""
        if self.stream is None:
            return
        try:
            if not self.broken:
                self.stream.flush()
        except BrokenPipeError:
            self._broken_pipe()
        except OSError as exc:
            self._failed(exc)
        finally:
            if self.owned:
                try:
                    self.stream.close()
                except OSError as exc:  # what was left to flush could not be written
                    self._failed(exc)

    def _failed(self, error: OSError) -> None:
        """A write or flush failed: keep the first error, and write nothing more."""
        self.broken = True
        if self.error is None:
            self.error = error
        if self.stream is sys.stdout:
            _quiet_stdout()

    def _broken_pipe(self) -> None:
        """The reader went away (`| head`): stop writing, and keep exit-time flushes quiet."""
        self.broken = True
        if self.stream is not None and self.stream is sys.stdout:
            _quiet_stdout()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit neither fails nor blocks."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no descriptor to point (captured in tests): nothing to do
        pass
