"""Downloads straight to a file (`method.to_file(path, ...)`, issue 20 item 5) on every
transport: the body is written in blocks as it arrives, capped by `max_download_bytes`,
and nothing is left at the destination unless the whole body arrived.

Our own document's operations reply with JSON, so the registry read is declared binary
here (the operation table the runtime reads); the corpus's real binary and text
operations go through the client in tests/corpus.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import gzip
import os
import stat
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from aiohttp import web

from edgedelivery_async import (
    APIConnectionError,
    ConfigurationError,
    DownloadError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
    NotFoundError,
    ResponseTooLargeError,
    _schema,
)
from edgedelivery_async._download import FileSink
from edgedelivery_async._http import SinkFailed

from .loopback import EVERY_TRANSPORT, LoopbackServer, loopback_server, open_client, status

KEY = "edk-download-51f"
OPERATION = "ContainerRegistry_Get"
BLOCK = 64 * 1024


@pytest.fixture(autouse=True)
def binary_operation() -> Iterator[None]:
    """The registry read declared as an `application/octet-stream` reply."""
    table = _schema.operations()
    original = table[OPERATION]
    table[OPERATION] = dataclasses.replace(
        original, reply="binary", accept="application/octet-stream"
    )
    try:
        yield
    finally:
        table[OPERATION] = original


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


def payload(size: int) -> bytes:
    """`size` bytes that are not all alike (so a block written twice or out of place shows)."""
    pattern = bytes(range(251))
    return (pattern * (size // len(pattern) + 1))[:size]


def streamed(body: bytes, *, cut_after: int | None = None, hang_after: int | None = None):  # type: ignore[no-untyped-def]
    """A chunked reply sent in 64 KiB blocks; cut off or stalled after some bytes."""

    async def reply(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "application/octet-stream"}
        )
        response.enable_chunked_encoding()
        await response.prepare(request)
        for start in range(0, len(body), BLOCK):
            if cut_after is not None and start >= cut_after:
                assert request.transport is not None
                request.transport.close()
                return response
            if hang_after is not None and start >= hang_after:
                await asyncio.Event().wait()
            await response.write(body[start : start + BLOCK])
        await response.write_eof()
        return response

    return reply


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def part_size(folder: Path) -> int:
    """The size of the download's temporary file (0 when there is none yet)."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.name.endswith(".part"))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_the_body_is_written_to_the_file_and_the_path_returned(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    body = payload(3 * 2**20 + 17)
    server.replies.append(streamed(body))
    target = tmp_path / "export.bin"
    async with open_client(name, KEY, server.base_url) as client:
        reply = await client.registries.get.to_file(target, 31)
    assert reply.parsed == target
    assert reply.status_code == 200
    assert target.read_bytes() == body
    assert leftovers(tmp_path) == []
    assert server.requests[0].raw_path == "/mc/registries/31"
    assert server.header(0, "Accept") == ["application/octet-stream"]


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_the_download_cap_is_its_own_and_a_longer_body_leaves_nothing(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    body = payload(2**20)
    target = tmp_path / "export.bin"
    target.write_bytes(b"the previous export")
    # Far past max_response_bytes (a reply read into memory), within max_download_bytes.
    server.replies.append(streamed(body))
    async with open_client(
        name, KEY, server.base_url, max_response_bytes=1000, max_download_bytes=2**21
    ) as client:
        await client.registries.get.to_file(target, 31)
        assert target.read_bytes() == body
        target.write_bytes(b"the previous export")
        # Past max_download_bytes: refused, and the destination stays as it was.
        server.replies.append(streamed(body))
        smaller = client.with_options(max_download_bytes=BLOCK)
        with pytest.raises(ResponseTooLargeError) as caught:
            await smaller.registries.get.to_file(target, 31)
    assert caught.value.limit == BLOCK
    assert "max_download_bytes" in str(caught.value)
    assert target.read_bytes() == b"the previous export"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_without_max_download_bytes_the_reply_cap_applies(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    server.replies.append(streamed(payload(5000)))
    async with open_client(name, KEY, server.base_url, max_response_bytes=1000) as client:
        with pytest.raises(ResponseTooLargeError) as caught:
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
    assert caught.value.limit == 1000
    assert files(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_broken_body_leaves_nothing_and_a_retry_writes_it_afresh(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    body = payload(600_000)
    target = tmp_path / "export.bin"
    async with open_client(name, KEY, server.base_url, max_retries=0) as client:
        server.replies.append(streamed(body, cut_after=4 * BLOCK))
        with pytest.raises(APIConnectionError):
            await client.registries.get.to_file(target, 31)
        assert files(tmp_path) == []
        # With a retry: the second attempt's body replaces what the first one wrote.
        patient = client.with_options(max_retries=1)
        server.replies.extend([streamed(body, cut_after=4 * BLOCK), streamed(body)])
        await patient.registries.get.to_file(target, 31)
    assert target.read_bytes() == body
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_an_error_reply_raises_its_status_error_and_writes_nothing(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    server.replies.append(status(404, {"ErrorKey": "registry.not_found", "Message": "nope"}))
    async with open_client(name, KEY, server.base_url) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
    assert caught.value.error_key == "registry.not_found"
    assert files(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_failed_write_is_a_download_error_and_leaves_nothing(
    name: str, server: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class FullDisk:
        """The temporary file, on a disk that fills up after two blocks."""

        def __init__(self, file: IO[bytes]) -> None:
            self.file, self.written = file, 0

        def write(self, block: bytes) -> int:
            if self.written > 2 * BLOCK:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.written += len(block)
            return self.file.write(block)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.file, name)

    init = FileSink.__init__

    def on_full_disk(self: FileSink, file: IO[bytes], limit: int) -> None:
        init(self, FullDisk(file), limit)  # type: ignore[arg-type]

    monkeypatch.setattr(FileSink, "__init__", on_full_disk)
    server.replies.append(streamed(payload(2**20)))
    async with open_client(name, KEY, server.base_url) as client:
        with pytest.raises(DownloadError) as caught:
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
        assert "No space left on device" in str(caught.value)
        # The client goes on working after it.
        monkeypatch.setattr(FileSink, "__init__", init)
        server.replies.append(streamed(b"ok"))
        await client.registries.get.to_file(tmp_path / "x.bin", 31)
    assert len(server.requests) == 2  # a failed write is not retried
    assert (tmp_path / "x.bin").read_bytes() == b"ok"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_cancelling_a_download_leaves_nothing(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    server.replies.append(streamed(payload(2**20), hang_after=2 * BLOCK))
    target = tmp_path / "x.bin"
    async with open_client(name, KEY, server.base_url) as client:
        task = asyncio.create_task(client.registries.get.to_file(target, 31))
        for _ in range(200):  # until the first blocks are in the temporary file
            await asyncio.sleep(0.01)
            if part_size(tmp_path) > 0:
                break
        else:
            pytest.fail("the download never started")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert files(tmp_path) == []


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_compressed_body_is_written_decoded(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    body = payload(300_000)

    async def gzipped(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=gzip.compress(body),
            headers={"Content-Encoding": "gzip", "Content-Type": "application/octet-stream"},
        )

    server.replies.append(gzipped)
    async with open_client(name, KEY, server.base_url) as client:
        await client.registries.get.to_file(tmp_path / "x.bin", 31)
    assert (tmp_path / "x.bin").read_bytes() == body


async def test_the_body_is_never_held_in_memory_whole(
    server: LoopbackServer, tmp_path: Path
) -> None:
    size = 48 * 2**20
    block = payload(BLOCK)

    async def large(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(status=200)
        response.enable_chunked_encoding()
        await response.prepare(request)
        for _ in range(size // BLOCK):
            await response.write(block)
        await response.write_eof()
        return response

    server.replies.append(large)
    async with open_client("aiohttp", KEY, server.base_url, max_download_bytes=size) as client:
        tracemalloc.start()
        try:
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert (tmp_path / "x.bin").stat().st_size == size
    assert peak < 8 * 2**20, peak  # a sixth of the body, server and client together


async def test_bad_destinations_and_json_operations_are_refused_before_sending(
    server: LoopbackServer, tmp_path: Path
) -> None:
    async with open_client("aiohttp", KEY, server.base_url) as client:
        with pytest.raises(DownloadError, match="no such folder"):
            await client.registries.get.to_file(tmp_path / "missing" / "x.bin", 31)
        with pytest.raises(DownloadError, match="it is a folder"):
            await client.registries.get.to_file(tmp_path, 31)
        with pytest.raises(InvalidRequestError, match="must be a path"):
            await client.registries.get.to_file(42, 31)  # type: ignore[arg-type]
        with pytest.raises(InvalidRequestError, match="replies with JSON"):
            await client.shield.get_zone_by_pull_zone.to_file(tmp_path / "x.json", 42)
        with pytest.raises(InvalidRequestError):  # the arguments are checked as for a call
            await client.registries.get.to_file(tmp_path / "x.bin", "")
        for unnamable in ("a\0b.bin", "bad\ud800.bin"):  # raw ValueError, UnicodeEncodeError
            with pytest.raises(InvalidRequestError, match="the file system can name"):
                await client.registries.get.to_file(tmp_path / unnamable, 31)
    assert server.requests == []
    assert files(tmp_path) == []


async def test_a_destination_the_system_refuses_to_look_at_is_a_download_error(
    server: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name too long, or a folder it may not search, made `_target`'s checks raise a raw
    OSError (pathlib's `is_dir` passes on only "no such file"); now a DownloadError with
    what the system said, before anything is sent."""
    real_stat = os.stat
    locked = tmp_path / "locked"

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if str(path).startswith(str(locked)):  # (tests run as root: chmod would not stop it)
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    async with open_client("aiohttp", KEY, server.base_url) as client:
        for destination in (tmp_path / ("x" * 300), tmp_path / ("x" * 300) / "x.bin"):
            with pytest.raises(DownloadError, match="File name too long") as raised:
                await client.registries.get.to_file(destination, 31)
            assert raised.value.filename == str(destination)
        with pytest.raises(DownloadError, match="Permission denied"):
            await client.registries.get.to_file(locked / "x.bin", 31)
    assert server.requests == []
    assert files(tmp_path) == []


async def test_an_existing_file_it_may_not_write_is_left_as_it_was(
    server: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 0400 file was replaced (the temporary file was renamed over it), where
    `open(path, "wb")` is refused. Now a DownloadError before sending; the file stays."""
    real_access = os.access
    locked = tmp_path / "locked.bin"
    locked.write_bytes(b"old")
    locked.chmod(0o400)

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        if str(path) == str(locked) and mode & os.W_OK:  # (tests run as root: it may write)
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    async with open_client("aiohttp", KEY, server.base_url) as client:
        with pytest.raises(DownloadError, match="Permission denied") as raised:
            await client.registries.get.to_file(locked, 31)
    assert raised.value.filename == str(locked)
    assert server.requests == []
    assert files(tmp_path) == ["locked.bin"]
    assert locked.read_bytes() == b"old"
    assert stat.S_IMODE(locked.stat().st_mode) == 0o400


async def test_a_destination_ending_in_a_separator_names_a_folder(
    server: LoopbackServer, tmp_path: Path
) -> None:
    """A path "out/", with no folder `out`, was written as a file named `out` (`Path`
    drops the slash); `open("out/", "wb")` refuses it. Now a DownloadError before
    sending, as is an existing folder (with or without the slash)."""
    (tmp_path / "file.bin").write_bytes(b"old")
    async with open_client("aiohttp", KEY, server.base_url) as client:
        for given in ("newdir/", "newdir" + os.sep + ".", "file.bin/"):
            with pytest.raises(DownloadError, match="ends in a path separator") as raised:
                await client.registries.get.to_file(f"{tmp_path}{os.sep}{given}", 31)
            assert raised.value.filename == f"{tmp_path}{os.sep}{given}"
        for folder in (str(tmp_path), f"{tmp_path}{os.sep}"):
            with pytest.raises(DownloadError, match="it is a folder"):
                await client.registries.get.to_file(folder, 31)
    assert server.requests == []
    assert files(tmp_path) == ["file.bin"]
    assert (tmp_path / "file.bin").read_bytes() == b"old"


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_umasks(
    name: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """A 0600 file downloaded over became 0644 (the temporary file, created 0666 less
    the umask, was renamed over it), where `open(path, "wb")` keeps 0600. The temporary
    file now has the destination's mode before any of the body is in it."""
    modes_while_sent: list[int] = []

    def part_modes() -> list[int]:
        return [stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("*.part")]

    def reply(body: bytes):  # type: ignore[no-untyped-def]
        async def send(request: web.Request) -> web.Response:
            modes_while_sent.extend(part_modes())
            return web.Response(body=body, content_type="application/octet-stream")

        return send

    private, shared, new = tmp_path / "private.bin", tmp_path / "shared.bin", tmp_path / "new.bin"
    for path, mode in ((private, 0o600), (shared, 0o664)):
        path.write_bytes(b"old")
        path.chmod(mode)
    server.replies.extend([reply(b"secret"), reply(b"shared"), reply(b"new")])
    umask = os.umask(0o022)
    try:
        async with open_client(name, KEY, server.base_url) as client:
            for path in (private, shared, new):
                await client.registries.get.to_file(path, 31)
    finally:
        os.umask(umask)
    assert private.read_bytes() == b"secret"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664  # (0o664 less the umask is 0o644)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    assert modes_while_sent == [0o600, 0o664, 0o644]
    assert files(tmp_path) == ["new.bin", "private.bin", "shared.bin"]


async def test_a_name_of_254_bytes_is_written(server: LoopbackServer, tmp_path: Path) -> None:
    """The temporary file's name is cut to fit (it was 15 bytes past the 255 of a name)."""
    server.replies.append(streamed(b"body"))
    target = tmp_path / ("x" * 250 + ".bin")
    async with open_client("aiohttp", KEY, server.base_url) as client:
        await client.registries.get.to_file(target, 31)
    assert target.read_bytes() == b"body"
    assert files(tmp_path) == [target.name]


def test_download_error_is_in_the_sdk_tree_and_an_os_error() -> None:
    error = DownloadError("x.bin", "No space left on device")
    assert isinstance(error, EdgeDeliveryError)
    assert isinstance(error, OSError)
    assert str(error) == "cannot write the download to 'x.bin': No space left on device"


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "big"])
def test_max_download_bytes_must_be_a_positive_integer(value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_download_bytes"):
        EdgeDeliveryClient("k3y", "https://api.example.invalid", max_download_bytes=value)  # type: ignore[arg-type]
    client = EdgeDeliveryClient("k3y", "https://api.example.invalid")
    with pytest.raises(ConfigurationError, match="max_download_bytes"):
        client.with_options(max_download_bytes=value)  # type: ignore[arg-type]


def test_max_download_bytes_shows_in_the_repr_and_is_kept_by_copies() -> None:
    client = EdgeDeliveryClient("k3y", "https://api.example.invalid", max_download_bytes=2**31)
    assert "max_download_bytes=2147483648" in repr(client)
    assert "max_download_bytes=2147483648" in repr(client.with_options(max_retries=1))
    assert "max_download_bytes" not in repr(EdgeDeliveryClient("k3y", "https://x.invalid"))


async def test_a_link_is_written_through_and_stays_a_link(
    server: LoopbackServer, tmp_path: Path
) -> None:
    """A destination that is a symbolic link: the file it names gets the body, as
    `open(path, "wb")` would write it; the link is not replaced by a plain file. A
    dangling link into a missing folder is refused before sending."""
    (tmp_path / "exports").mkdir()
    real = tmp_path / "exports" / "2026.bin"
    real.write_bytes(b"old")
    link = tmp_path / "latest.bin"
    link.symlink_to(Path("exports") / "2026.bin")
    dangling = tmp_path / "dangling.bin"
    dangling.symlink_to(tmp_path / "gone" / "x.bin")
    server.replies.append(streamed(b"new body"))
    async with open_client("aiohttp", KEY, server.base_url) as client:
        reply = await client.registries.get.to_file(link, 31)
        with pytest.raises(DownloadError, match="links into no such folder"):
            await client.registries.get.to_file(dangling, 31)
    assert reply.parsed == link
    assert link.is_symlink()
    assert real.read_bytes() == b"new body"
    assert files(tmp_path) == ["dangling.bin", "exports", "latest.bin"]
    assert files(tmp_path / "exports") == ["2026.bin"]
    assert len(server.requests) == 1


@pytest.mark.parametrize("kind", ["httpx", "aiohttp"])
async def test_a_failed_write_through_a_callers_client_is_still_a_download_error(
    kind: str, server: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is the SDK's, not code of the caller's client (whose exceptions are a
    `HookError`): its failure stays a `DownloadError` over `http_client=` and `session=`."""
    from .test_callers_client_code import callers_client

    def full(self: FileSink, block: bytes) -> None:
        raise SinkFailed("No space left on device")

    monkeypatch.setattr(FileSink, "write", full)
    server.replies.append(streamed(payload(BLOCK)))
    async with callers_client(kind, {}, server.base_url) as client:
        with pytest.raises(DownloadError, match="No space left on device"):
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
    assert files(tmp_path) == []
