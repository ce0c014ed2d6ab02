"""The fake on loopback: the context manager, the CLI, and many concurrent requests."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys

import aiohttp
import httpx

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
