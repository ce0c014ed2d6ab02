"""Downloads straight to a file: `await method.to_file(path, ...)`.

For operations whose reply is binary or text (an export, a log, an archive): the body is
written to the file block by block as it arrives, never held in memory whole, on every
transport. The promises:

- The cap: `max_download_bytes` (a client option, `with_options` too); when not set, the
  client's `max_response_bytes` applies, as for a reply read into memory. A body past it
  ends with `ResponseTooLargeError`, as soon as it goes past.
- No partial file: the body goes to a temporary file beside the destination
  (`.<name>.<random>.part`, the name cut to 240 bytes), renamed over the destination
  only once complete. A destination that is a symbolic link is written through: the
  file it names gets the body, and the link stays. An existing file keeps its
  permissions (as with `open(path, "wb")`); a new one gets 0666 less the umask. On any
  failure (a status error, a broken connection, the cap, cancellation, a failed write)
  the temporary file is removed and the destination is left as it was.
- Retries, rate control, timeouts and redirects as for any call; a retried attempt
  writes the body afresh. Error replies (non-2xx) are read into memory as usual and
  raise the SDK's status errors.
- The bytes are written as the server sent them (decompressed; a text reply is not
  re-encoded). A failed write raises `DownloadError`; so does a destination that cannot
  be written (no such folder, a folder, a path ending in a separator, which names a
  folder, a name too long, a folder that may not be searched, an existing file this
  process may not write: any OSError in looking at it), before anything is sent.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ._exceptions import DownloadError, InvalidRequestError
from ._http import SinkFailed
from ._response import APIResponse
from ._schema import Problem, operations

if TYPE_CHECKING:
    from ._call import Call
    from ._runtime import ClientRuntime


# A new file of our own, in binary mode (Windows would translate line ends otherwise).
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


class FileSink:
    """A temporary file the transport writes a 2xx body into (`_http.BodySink`)."""

    __slots__ = ("file", "limit")

    def __init__(self, file: IO[bytes], limit: int) -> None:
        self.file = file
        self.limit = limit

    def begin(self) -> None:
        """Start the body afresh: a retried attempt overwrites what an earlier one wrote."""
        try:
            self.file.seek(0)
            self.file.truncate()
        except OSError as exc:
            raise SinkFailed(_reason(exc)) from None

    def write(self, block: bytes) -> None:
        try:
            self.file.write(block)
        except OSError as exc:
            raise SinkFailed(_reason(exc)) from None


async def download(runtime: ClientRuntime, call: Call[Any], destination: Any) -> APIResponse[Path]:
    """Send `call`; write its 2xx body to `destination`; return the path with the reply."""
    operation = operations().get(call.operation_id) if call.operation_id else None
    if operation is None or call.result is None or operation.reply == "json":
        what = "declares no reply body" if call.result is None else "replies with JSON"
        message = f"to_file is for operations whose reply is binary or text; this one {what}"
        raise InvalidRequestError(call.operation_id or "request", [Problem("", message, "")])
    target = _target(call.operation_id, destination)
    written = _written(target)
    part = written.with_name(f".{_shortened(written.name)}.{secrets.token_hex(4)}.part")
    try:  # created as the destination would be: the umask applies, no other writer shares it
        kept = _mode_of(written)
        descriptor = os.open(part, _CREATE, 0o666 if kept is None else kept)
    except OSError as exc:
        raise DownloadError(str(target), _reason(exc)) from None
    file = os.fdopen(descriptor, "wb")
    renamed = False
    try:
        if kept is not None:  # exactly its mode (the umask may have taken bits off), before
            try:  # any of the body is written
                _set_mode(file, part, kept)
            except OSError as exc:
                raise DownloadError(str(target), _reason(exc)) from None
        _, reply = runtime.send(call, FileSink(file, runtime.max_download_bytes))
        try:
            raw = await reply
        except SinkFailed as exc:
            raise DownloadError(str(target), str(exc)) from None
        try:
            file.close()
            os.replace(part, written)
        except OSError as exc:
            raise DownloadError(str(target), _reason(exc)) from None
        renamed = True
    finally:
        if not renamed:
            file.close()
            with contextlib.suppress(OSError):
                os.unlink(part)
    return APIResponse(target, raw)


def _target(operation_id: str, destination: Any) -> Path:
    """The destination as a path whose folder exists and which is not itself a folder."""
    try:
        given = os.fspath(destination)
        target = Path(given)
    except TypeError:
        problem = Problem("destination", "must be a path (str or os.PathLike)")
        raise InvalidRequestError(operation_id, [problem]) from None
    if not target.name:
        problem = Problem("destination", "must be a file path (str or os.PathLike of str)")
        raise InvalidRequestError(operation_id, [problem])
    try:
        unusable = b"\0" in os.fsencode(target)
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        unusable = True
    if unusable:
        problem = Problem("destination", "must be a path the file system can name (no NUL)")
        raise InvalidRequestError(operation_id, [problem])
    try:
        found = _stat(target)
        folder = _stat(target.parent)
    except OSError as exc:  # a name too long, no permission to look: what open() would say
        raise DownloadError(str(target), _reason(exc)) from None
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise DownloadError(str(target), "it is a folder")
    if _names_a_folder(given):  # ("out/": open() refuses it as well)
        reason = "it ends in a path separator (or '.'), so it names a folder, and there is none"
        raise DownloadError(given, reason)
    if folder is None or not stat.S_ISDIR(folder.st_mode):
        raise DownloadError(str(target), f"no such folder: {str(target.parent)!r}")
    return target


def _names_a_folder(given: str) -> bool:
    """Whether a path, as given, can only name a folder: it ends in a separator or in
    `.` (`Path` drops both, so "out/" would be taken for a file named "out")."""
    separators = (os.sep, os.altsep) if os.altsep else (os.sep,)
    return given.endswith(separators) or os.path.basename(given) == "."


def _stat(path: Path) -> os.stat_result | None:
    """`os.stat(path)`, following links; None when there is no such file (any other
    failure, such as a name too long or no permission, raises its OSError)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _written(target: Path) -> Path:
    """The file the body goes to: `target`, or the file a link at `target` names (as
    `open(target, "wb")` would write it), so that renaming over it keeps the link."""
    try:
        if not os.path.islink(target):
            return target
        written = Path(os.path.realpath(target))  # (a link to a folder: `_target` refused it)
        folder = _stat(written.parent)
    except OSError as exc:
        raise DownloadError(str(target), _reason(exc)) from None
    if folder is None or not stat.S_ISDIR(folder.st_mode):
        raise DownloadError(str(target), f"it links into no such folder: {str(written.parent)!r}")
    return written


def _mode_of(written: Path) -> int | None:
    """The permissions of the file at `written`, which the download keeps, as
    `open(path, "wb")` keeps them (a private 0600 export stays private); None for a new
    file. Only the read, write and run bits: a downloaded body never gets set-user-id.
    A file this process may not write raises PermissionError, as `open(path, "wb")`
    would: renaming over it would replace a file its owner made read-only."""
    found = _stat(written)
    if found is None:
        return None
    if not os.access(written, os.W_OK):  # (a 0400 file, say: open() would be refused too)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(written))
    return stat.S_IMODE(found.st_mode) & 0o777


def _set_mode(file: IO[bytes], part: Path, mode: int) -> None:
    """Give the temporary file `mode` (by its descriptor where the system can)."""
    if hasattr(os, "fchmod"):
        os.fchmod(file.fileno(), mode)
    else:  # (Windows before 3.13)
        os.chmod(part, mode)


# The longest name the temporary file takes from the destination's: with the dot, the
# random part and ".part" (15 bytes), it stays within the usual 255 bytes of a name.
_PART_STEM = 240


def _shortened(name: str) -> str:
    """`name`, cut to at most `_PART_STEM` bytes for the temporary file's name."""
    while len(os.fsencode(name)) > _PART_STEM:
        name = name[:-1]
    return name


def _reason(exc: OSError) -> str:
    """What the operating system said, without the library's repr."""
    return exc.strerror or type(exc).__name__
