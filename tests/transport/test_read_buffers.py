"""asyncio's 256 KiB read buffers stay off mmap once a client exists (glibc).

asyncio reads every reply into a fresh 256 KiB buffer and shrinks it; until glibc's
dynamic mmap threshold is raised, each such buffer is an mmap, an mremap and a munmap,
with page faults. `os.read` on a pipe allocates and shrinks its buffer the same way, so
the page faults of 2,000 such reads show which side of the threshold a process is on.

On CPython 3.11 and 3.12 importing the SDK leaves the threshold where it was, so there
the client's own `settle_read_buffers` is what this test sees; on 3.13 the import happens
to raise it already (which is exactly the luck the client no longer depends on).
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, os, resource

    def faults():
        r, w = os.pipe()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(2000):
            os.write(w, b"x" * 100)
            data = os.read(r, 256 * 1024)  # a 256 KiB buffer, shrunk to 100 bytes
            del data
        os.close(r)
        os.close(w)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    before = faults()
    from edgedelivery_async import EdgeDeliveryClient
    EdgeDeliveryClient("key", "http://127.0.0.1:9")  # the default (aiohttp) transport
    print(json.dumps({"before": before, "after": faults()}))
    """
)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc behaviour")
def test_a_client_keeps_read_buffers_off_mmap() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["before"] >= 1000  # a fresh interpreter: every read faulted in fresh pages
    assert found["after"] < 100
