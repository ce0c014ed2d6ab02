"""An `https://` base URL pointed at a plain-HTTP server says so, on every transport.

aiohttp said "Operation not permitted" (the OS's words for errno 1, which was OpenSSL's
code), pyreqwest said nothing after the host. The calls run in a child process: pyreqwest
aborts at the interpreter's exit after such a handshake, which is not the SDK's to mend.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .loopback import EVERY_TRANSPORT

NAMES = [str(getattr(item, "values", [item])[0]) for item in EVERY_TRANSPORT]

CHILD = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from transport.loopback import open_client
from edgedelivery_async import APIConnectionError

async def plain_http(reader, writer):
    await reader.read(1024)
    writer.write(b"HTTP/1.1 400 Bad Request\\r\\nContent-Length: 0\\r\\n\\r\\n")
    await writer.drain()
    writer.close()

async def main(names):
    server = await asyncio.start_server(plain_http, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    seen = {}
    url = f"https://127.0.0.1:{port}"
    for name in names:
        async with open_client(name, "edk-tls-1", url, max_retries=0) as client:
            try:
                await client.request("GET", "/mc/registries/1")
            except APIConnectionError as error:
                seen[name] = [str(error), error.request_sent]
            else:
                seen[name] = None
    server.close()
    print(json.dumps(seen), flush=True)

asyncio.run(main(sys.argv[2:]))
"""


def test_https_to_a_plain_http_server_is_named_on_every_transport() -> None:
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tests), *NAMES],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    seen = json.loads(lines[-1])
    expected = (
        "GET /mc/registries/1: could not connect to 127.0.0.1:{}: the server did not answer"
        " in TLS (is it a plain http:// server?)"
    )
    for name in NAMES:
        assert seen[name] is not None, name
        message, sent = seen[name]
        port = message.split("127.0.0.1:", 1)[1].split(":", 1)[0]
        assert message == expected.format(port), (name, message)
        assert sent is False, name
