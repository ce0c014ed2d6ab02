"""Observability: EDGEDELIVERY_LOG=debug logs one line per request and the retry decisions."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator

import httpx
import pytest

from edgedelivery_async import APIConnectionError, APIStatusError, RetryPolicy, _logging
from edgedelivery_async._logging import LOGGER_NAME, setup_from_environment

from .conftest import KEY, REGISTRY, Recorder, mock_client

OK = httpx.Response(200, json=REGISTRY)
ZERO_DELAY = RetryPolicy(initial_delay=0.0001, max_delay=0.0001, jitter=0.0)


@pytest.fixture
def sdk_logger() -> Iterator[logging.Logger]:
    """The SDK logger, restored afterwards."""
    logger = logging.getLogger(LOGGER_NAME)
    handlers, level = list(logger.handlers), logger.level
    yield logger
    logger.handlers[:] = handlers
    logger.setLevel(level)


@contextlib.contextmanager
def root_handlers(*handlers: logging.Handler) -> Iterator[None]:
    """The root logger with only these handlers (pytest's own taken off), restored after.
    Inside the test body: pytest adds its handlers to the root for each test phase."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    root.handlers[:] = list(handlers)
    try:
        yield
    finally:
        root.handlers[:] = saved
        root.setLevel(level)


def sdk_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME]


async def debug_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """One read of a client made with `EDGEDELIVERY_LOG=debug` set up."""
    monkeypatch.setenv("EDGEDELIVERY_LOG", "debug")
    setup_from_environment()
    async with mock_client(Recorder(OK)) as client:
        await client.registries.get(31)


@pytest.mark.parametrize("value", ["debug", "DEBUG", " Debug "])
def test_env_debug_attaches_one_handler(
    monkeypatch: pytest.MonkeyPatch, sdk_logger: logging.Logger, value: str
) -> None:
    monkeypatch.setenv("EDGEDELIVERY_LOG", value)
    setup_from_environment()
    setup_from_environment()

    ours = [h for h in sdk_logger.handlers if getattr(h, "_edgedelivery", False)]
    assert len(ours) == 1
    assert sdk_logger.level == logging.DEBUG


@pytest.mark.parametrize(("value", "level"), [("info", logging.INFO), ("warning", logging.WARNING)])
def test_env_other_levels(
    monkeypatch: pytest.MonkeyPatch, sdk_logger: logging.Logger, value: str, level: int
) -> None:
    monkeypatch.setenv("EDGEDELIVERY_LOG", value)
    setup_from_environment()
    assert sdk_logger.level == level


@pytest.mark.parametrize("value", [None, "", "verbose", "1"])
def test_env_unset_or_unknown_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, sdk_logger: logging.Logger, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv("EDGEDELIVERY_LOG", raising=False)
    else:
        monkeypatch.setenv("EDGEDELIVERY_LOG", value)
    before = (list(sdk_logger.handlers), sdk_logger.level)
    setup_from_environment()
    assert (list(sdk_logger.handlers), sdk_logger.level) == before


async def test_debug_lines_reach_stderr(
    monkeypatch: pytest.MonkeyPatch,
    sdk_logger: logging.Logger,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with root_handlers():  # no handler of the application's: the SDK's prints, once
        await debug_read(monkeypatch)

    err = capsys.readouterr().err
    assert len(re.findall(r"GET /mc/registries/31 -> 200", err)) == 1, err
    assert re.search(r"edgedelivery_async DEBUG GET /mc/registries/31 -> 200 in \d+\.\d ms", err)
    assert KEY not in err


async def test_a_line_is_printed_once_when_the_application_configures_logging(
    monkeypatch: pytest.MonkeyPatch,
    sdk_logger: logging.Logger,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With logging.basicConfig() the root's handler prints the SDK's records and the
    SDK's own handler stands back; the record still reaches the root."""
    with root_handlers():
        logging.basicConfig(format="root: %(name)s %(message)s")
        await debug_read(monkeypatch)

    err = capsys.readouterr().err
    assert len(re.findall(r"GET /mc/registries/31 -> 200", err)) == 1, err
    assert "root: edgedelivery_async GET /mc/registries/31 -> 200 in " in err


async def test_a_root_handler_above_the_records_level_leaves_them_to_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
    sdk_logger: logging.Logger,
    capsys: pytest.CaptureFixture[str],
) -> None:
    warnings_only = logging.StreamHandler()
    warnings_only.setLevel(logging.WARNING)
    with root_handlers(warnings_only):
        await debug_read(monkeypatch)

    err = capsys.readouterr().err
    assert len(re.findall(r"GET /mc/registries/31 -> 200", err)) == 1, err
    assert "edgedelivery_async DEBUG GET /mc/registries/31 -> 200 in " in err


async def test_caplog_sees_the_records_the_sdk_handler_leaves_to_it(
    monkeypatch: pytest.MonkeyPatch,
    sdk_logger: logging.Logger,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await debug_read(monkeypatch)

    assert [line[: len("GET /mc/registries/31 -> 200")] for line in sdk_lines(caplog)] == [
        "GET /mc/registries/31 -> 200"
    ]
    assert "GET /mc/registries/31" not in capsys.readouterr().err  # printed by pytest only


async def test_one_line_per_request(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    async with mock_client(Recorder(OK)) as client:
        await client.registries.get(31)
        await client.registries.get("a/b")

    lines = sdk_lines(caplog)
    assert len(lines) == 2
    assert re.fullmatch(r"GET /mc/registries/31 -> 200 in \d+\.\d ms", lines[0])
    assert lines[1].startswith("GET /mc/registries/a%2Fb -> 200 in ")


async def test_retry_decisions_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    recorder = Recorder(
        httpx.Response(503, headers={"Retry-After": "0"}),
        httpx.ConnectError("refused"),
        OK,
    )
    async with mock_client(recorder, retry=ZERO_DELAY) as client:
        await client.registries.get(31)

    first, second, third, fourth = sdk_lines(caplog)
    assert first.startswith("GET /mc/registries/31 -> 503 in ")
    assert second == "retrying GET /mc/registries/31 in 0.00 s after status 503 (retry 1 of 2)"
    assert (
        third == "retrying GET /mc/registries/31 in 0.00 s after APIConnectionError (retry 2 of 2)"
    )
    assert fourth.startswith("GET /mc/registries/31 -> 200 in ")


async def test_giving_up_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    recorder = Recorder(httpx.ReadTimeout("slow"), httpx.Response(400))
    async with mock_client(recorder) as client:
        with pytest.raises(APIConnectionError):
            await client.registries.add(display_name="main")
        with pytest.raises(APIStatusError):
            await client.registries.get(1)

    first, second = sdk_lines(caplog)
    assert first == (
        "POST /mc/registries failed: POST /mc/registries: timed out waiting for the reply "
        "from api.edge.test:443 (not retried)"
    )
    assert second.startswith("GET /mc/registries/1 -> 400 in ")


async def test_nothing_is_logged_below_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    async with mock_client(Recorder(httpx.Response(503), OK), retry=ZERO_DELAY) as client:
        await client.registries.get(31)
    assert sdk_lines(caplog) == []


class _RaisingHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        raise RuntimeError("a broken handler")


class _RaisingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        raise KeyError("a broken filter")


@pytest.mark.parametrize("broken", ["handler", "filter", "root handler"])
async def test_a_raising_handler_or_filter_fails_no_call(
    broken: str,
    sdk_logger: logging.Logger,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The application's logging is its own: a handler or filter that raises drops the
    SDK's record (said once on stderr) instead of failing a call that worked, retried
    or not."""
    monkeypatch.setattr(_logging, "_reported", False)  # (said once a process)
    sdk_logger.setLevel(logging.DEBUG)
    root = logging.getLogger()
    raising_handler = _RaisingHandler()
    raising_filter = _RaisingFilter()
    if broken == "handler":
        sdk_logger.addHandler(raising_handler)
    elif broken == "filter":
        sdk_logger.addFilter(raising_filter)
    else:
        root.addHandler(raising_handler)
    recorder = Recorder(httpx.Response(503, headers={"Retry-After": "0"}), OK)
    try:
        async with mock_client(recorder, retry=ZERO_DELAY) as client:
            first = await client.registries.get(31)  # logged three times: 503, retry, 200
            second = await client.registries.get(31)
    finally:
        sdk_logger.removeFilter(raising_filter)
        root.removeHandler(raising_handler)
    assert first is not None
    assert second is not None
    err = capsys.readouterr().err
    assert err.count("a logging handler or filter raised") == 1  # three records failed
    assert KEY not in err
