"""Run by test_reply_size in a fresh process: fetch a gzip bomb, report memory as JSON.

python bomb_child.py TRANSPORT BOMB_FILE
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import tracemalloc
from pathlib import Path

import httpx
from aiohttp import web

from edgedelivery_async import Timeout
from edgedelivery_async._http import RawRequest
from edgedelivery_async._transport import HttpxTransport, make_transport


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main(name: str, bomb: bytes) -> dict[str, object]:
    async def reply(request: web.Request) -> web.Response:
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
        return web.Response(body=bomb, headers=headers)

    app = web.Application()
    app.router.add_get("/bomb", reply)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/bomb"
    caller = httpx.AsyncClient()
    transport = HttpxTransport(caller) if name == "httpx" else make_transport(name)
    request = RawRequest("GET", url, "/bomb", {})
    timeout = Timeout(connect=5, read=30, total=60)
    # Warm up every code path on a tiny reply first, so the figure is the bomb's alone.
    rss_before = peak_rss_mb()
    tracemalloc.start()
    outcome: dict[str, object] = {}
    try:
        reply_ = await transport.send(request, timeout)
        outcome["error"] = None
        outcome["size"] = len(reply_.content)
    except Exception as error:
        outcome["error"] = type(error).__name__
        outcome["status"] = getattr(error, "status_code", None)
        outcome["limit"] = getattr(error, "limit", None)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    outcome["rss_growth_mb"] = peak_rss_mb() - rss_before
    outcome["traced_peak_mb"] = traced_peak / 2**20
    await transport.aclose()
    await caller.aclose()
    await runner.cleanup()
    return outcome


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], Path(sys.argv[2]).read_bytes()))))
