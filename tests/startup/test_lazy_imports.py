"""Reading through the default transport loads neither httpx nor jsonschema.

A fresh interpreter imports the client, reads a shield zone and a registry from a
loopback server and lists what got imported: httpx (about 0.1 s with its CLI) is only
for callers who bring an httpx client, jsonschema only for calls that send a body or
query parameters to validate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    BODY = {"data": {"shieldZoneId": 1, "pullZoneId": 2}}
    REGISTRY = {"id": 7, "displayName": "main"}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(BODY if "shield" in self.path else REGISTRY).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    from edgedelivery_async import EdgeDeliveryClient

    async def main():
        url = f"http://127.0.0.1:{server.server_address[1]}"
        async with EdgeDeliveryClient("key", url) as client:
            zone = await client.shield.get_zone_by_pull_zone(2)
            registry = await client.registries.get(7)
        return zone.shield_zone_id, registry.id

    read = asyncio.run(main())
    server.shutdown()
    heavy = sorted(name for name in ("httpx", "jsonschema", "rich", "click") if name in sys.modules)
    print(json.dumps({"read": read, "heavy": heavy}))
    """
)


def test_reading_loads_neither_httpx_nor_jsonschema() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["read"] == [1, 7]
    assert found["heavy"] == []
