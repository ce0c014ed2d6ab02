"""Helpers of the command-line tests: a fake API served from a thread, results, env."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from edgedelivery_async.testing import FakeEdgeDelivery

KEY = "cli-test-Secret-4b8e1d"


@contextmanager
def serve_in_thread(fake: FakeEdgeDelivery) -> Iterator[str]:
    """Serve `fake` on 127.0.0.1 from a thread with its own loop; yields its base URL."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    found: dict[str, Any] = {}

    async def serve() -> None:
        found["stop"] = asyncio.Event()
        async with fake.serve() as url:
            found["url"] = url
            ready.set()
            await found["stop"].wait()

    def target() -> None:
        try:
            loop.run_until_complete(serve())
        except BaseException as exc:  # reported to the caller below
            found["error"] = exc
            ready.set()

    thread = threading.Thread(target=target, name="fake-edgedelivery", daemon=True)
    thread.start()
    assert ready.wait(10), "the fake did not start"
    if "error" in found:
        raise found["error"]
    try:
        yield found["url"]
    finally:
        loop.call_soon_threadsafe(found["stop"].set)
        thread.join(10)
        loop.close()


@dataclass
class Served:
    """A fake and the URL it is served on."""

    fake: FakeEdgeDelivery
    url: str

    @property
    def options(self) -> list[str]:
        """The global options that point the CLI at this fake."""
        return ["--base-url", self.url, "--access-key", self.fake.access_key]


@dataclass
class Result:
    """What one CLI run returned and printed."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def lines(self) -> list[Any]:
        return [json.loads(line) for line in self.out.splitlines()]


def plain(text: str) -> str:
    """Rich panel text as one line: box characters dropped, whitespace collapsed."""
    for char in "│╭╮╰╯─":
        text = text.replace(char, " ")
    return " ".join(text.split())


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess: no real credentials, wide plain output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEDELIVERY_")}
    env.update(COLUMNS="200", NO_COLOR="1", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env
