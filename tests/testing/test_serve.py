"""The fake on loopback: the context manager, the CLI, and many concurrent requests."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys

import aiohttp
import httpx
import pytest

from edgedelivery_async.testing import FakeEdgeDelivery

CLI = [sys.executable, "-m", "edgedelivery_async.testing", "serve"]


async def test_serve_reports_the_real_port() -> None:
    fake = FakeEdgeDelivery("k", pull_zones=1)
    async with fake.serve(port=0) as url:
        assert url.startswith("http://127.0.0.1:")
        assert not url.endswith(":0")
        async with httpx.AsyncClient() as http:
            response = await http.get(f"{url}/shield/shield-zone/get-by-pullzone/1")
        assert response.status_code == 200
    async with httpx.AsyncClient() as http:
        try:
            await http.get(f"{url}/shield/shield-zone/get-by-pullzone/1")
        except httpx.ConnectError:
            pass  # stopped
        else:
            raise AssertionError("the server still answers after the context closed")


async def test_thousands_of_concurrent_keep_alive_requests() -> None:
    fake = FakeEdgeDelivery("k", pull_zones=1000)
    limit = asyncio.Semaphore(100)

    async def read(session: aiohttp.ClientSession, url: str, zone: int) -> int:
        async with limit, session.get(f"{url}/shield/shield-zone/get-by-pullzone/{zone}") as reply:
            data = await reply.json()
            assert data["data"]["pullZoneId"] == zone
            return reply.status

    async with fake.serve() as url:
        connector = aiohttp.TCPConnector(limit=100)
        async with aiohttp.ClientSession(connector=connector) as session:
            statuses = await asyncio.gather(
                *(read(session, url, zone % 1000 + 1) for zone in range(3000))
            )
    assert statuses == [200] * 3000


async def _first_line(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    return (await asyncio.wait_for(process.stdout.readline(), timeout=20)).decode().strip()


async def test_cli_serves_until_terminated() -> None:
    process = await asyncio.create_subprocess_exec(
        *CLI, "--host", "127.0.0.1", "--port", "0", "--access-key", "cli-key", "--pull-zones", "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        line = await _first_line(process)
        assert line.startswith("serving http://127.0.0.1:"), line
        url = line.removeprefix("serving ")
        async with httpx.AsyncClient(base_url=url) as http:
            shield = await http.get("/shield/shield-zone/get-by-pullzone/3")
            assert shield.json()["data"]["shieldZoneId"] == 100_003
            ssl = await http.post(
                "/pullzone/2/setForceSSL",
                json={"Hostname": "pz2.example.test", "ForceSSL": True},
                headers={"AccessKey": "cli-key"},
            )
            assert ssl.status_code == 204
            denied = await http.post("/dnszone", json={}, headers={"AccessKey": "other"})
            assert denied.status_code == 401
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=20)
    assert code == 0
    assert process.stderr is not None
    assert b"cli-key" not in await process.stderr.read()


async def test_cli_needs_an_access_key() -> None:
    process = await asyncio.create_subprocess_exec(
        *CLI, "--port", "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), timeout=20)
    assert process.returncode == 2
    assert b"--access-key" in err


async def test_cli_serves_on_when_nobody_reads_its_output() -> None:
    """The startup text into a pipe whose reader had gone ended the process with
    "cannot serve on ...: Broken pipe", blaming the address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        process = await asyncio.create_subprocess_exec(
            *CLI, "--host", "127.0.0.1", "--port", str(port), "--access-key", "k",
            stdout=write_end,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    finally:
        os.close(write_end)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            for _ in range(200):
                assert process.returncode is None, await process.stderr.read()  # type: ignore[union-attr]
                try:
                    reply = await http.get("/shield/shield-zone/get-by-pullzone/1")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            assert reply.status_code in (200, 404)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=20)
    assert process.stderr is not None
    stderr = await process.stderr.read()
    assert code == 0, stderr
    assert b"Broken pipe" not in stderr, stderr
    assert b"Traceback" not in stderr, stderr


async def _raw(url: str, request: bytes) -> bytes:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout=10)  # (it closes the connection)
    finally:
        writer.close()


async def test_a_request_aiohttp_cannot_parse_is_a_json_problem_and_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bad request line, a header past 8 KiB, hundreds of headers, a bad Content-Length
    or chunk size: each was aiohttp's text/plain 400 (quoting the request) and a traceback
    on stderr ("Error handling request from ..."); a bad gzip body logged one too."""
    secret = b"s3cret-" * 2000  # a header value aiohttp quoted back in its reply
    requests = [
        b"GARBAGE\r\n\r\n",
        b"FOO /mc/registries/1 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /mc/registries/1 HTTP/1.1\r\nHost: x\r\nAccessKey: " + secret + b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-%d: v\r\n" % i for i in range(300))
        + b"\r\n",
        b"POST /dnszone HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"POST /dnszone HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ]
    fake = FakeEdgeDelivery("k", pull_zones=1)
    caplog.set_level(logging.INFO)
    async with fake.serve() as url:
        for request in requests:
            reply = await _raw(url, request)
            head, _, body = reply.partition(b"\r\n\r\n")
            assert head.split(b" ", 2)[1] == b"400", reply[:200]
            assert b"content-type: application/json" in head.lower(), reply[:200]
            problem = json.loads(body)
            assert problem["status"] == 400, problem
            assert problem["detail"], problem
            assert b"s3cret" not in reply
        bad_gzip = (
            b"POST /dnszone HTTP/1.1\r\nHost: x\r\nAccessKey: k\r\nContent-Type: application/json"
            b"\r\nContent-Encoding: gzip\r\nContent-Length: 7\r\n\r\nnotgzip"
        )
        assert b" 400 " in (await _raw(url, bad_gzip)).split(b"\r\n", 1)[0]
        async with httpx.AsyncClient() as http:  # and it serves on
            assert (
                await http.get(f"{url}/shield/shield-zone/get-by-pullzone/1")
            ).status_code == 200
    assert [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.WARNING] == []
