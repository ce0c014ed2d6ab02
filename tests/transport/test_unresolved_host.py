"""A host name that does not resolve gets a message that says so and names the host.

The calls run in a child process inside a network namespace of its own (`unshare -n`:
loopback only), so the system resolver fails at once and no DNS query leaves the
machine (the configured name server is not a loopback address). Creating a network
namespace needs root (CI runs as root); elsewhere the test says why it cannot run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .loopback import EVERY_TRANSPORT

HOST = "no-such-host.invalid"
NAMES = [str(getattr(item, "values", [item])[0]) for item in EVERY_TRANSPORT]

CHILD = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from transport.loopback import open_client
from edgedelivery_async import APIConnectionError, APITimeoutError

async def main(host, names):
    seen = {}
    for name in names:
        async with open_client(name, "edk-dns-1", "https://" + host, max_retries=0) as client:
            try:
                await client.request("GET", "/mc/registries/1")
            except APIConnectionError as error:
                seen[name] = [str(error), error.request_sent, isinstance(error, APITimeoutError)]
            else:
                seen[name] = None
    print(json.dumps(seen))

asyncio.run(main(sys.argv[2], sys.argv[3:]))
"""


def _namespaces_work() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    return subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _namespaces_work(), reason="needs `unshare -n` (root): no DNS off-host")
def test_an_unresolved_host_is_named_on_every_transport() -> None:
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", CHILD, str(tests), HOST, *NAMES],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    expected = (
        f"GET /mc/registries/1: could not connect to {HOST}:443: "
        f"the host name {HOST} could not be resolved"
    )
    assert seen == {name: [expected, False, False] for name in NAMES}
