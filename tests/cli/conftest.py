"""Fixtures of the command-line tests: a fake API on loopback, and the CLI in-process.

The fake serves from a background thread with its own event loop, so the CLI under test
runs exactly as installed: `main(argv)` calls `asyncio.run` and talks to the fake over
its default aiohttp transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from edgedelivery_async.cli import main
from edgedelivery_async.testing import FakeEdgeDelivery

from ._support import KEY, Result, Served, serve_in_thread

Run = Callable[..., Result]


@pytest.fixture
def served() -> Iterator[Served]:
    """A fresh fake on loopback (no data seeded)."""
    fake = FakeEdgeDelivery(KEY)
    with serve_in_thread(fake) as url:
        yield Served(fake, url)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """`cli(*args)` runs the real entry point in-process; returns code, stdout, stderr."""
    monkeypatch.delenv("EDGEDELIVERY_ACCESS_KEY", raising=False)
    monkeypatch.delenv("EDGEDELIVERY_BASE_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # rich usage-error panels: one message, one line
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
