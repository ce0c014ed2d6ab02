"""`EDGEDELIVERY_LOG=debug` (or info, warning, error) logs the SDK's requests to stderr.

The log never contains the access key: the SDK logs method, path, status, timing
and retry decisions, never headers or bodies. The SDK's records go through `SdkLog`,
so that a handler or filter of the application's that raises fails no call.
"""

from __future__ import annotations

import logging
import os
import sys

LOGGER_NAME = "edgedelivery_async"
LEVELS = ("debug", "info", "warning", "error")

_warned_about: set[str] = set()


class SdkLog:
    """The SDK's logger for its own records. A handler or filter of the application's
    that raises would turn a call that worked into its exception: the record is dropped
    instead, and the error reported once on stderr (as logging's own
    `Handler.handleError` reports a handler's)."""

    __slots__ = ("isEnabledFor", "logger")

    def __init__(self) -> None:
        self.logger = logging.getLogger(LOGGER_NAME)
        self.isEnabledFor = self.logger.isEnabledFor  # (no extra call on the hot path)

    def debug(self, msg: str, *args: object) -> None:
        self._emit(logging.DEBUG, msg, args, None)

    def warning(self, msg: str, *args: object, exc_info: BaseException | None = None) -> None:
        self._emit(logging.WARNING, msg, args, exc_info)

    def _emit(
        self, level: int, msg: str, args: tuple[object, ...], exc_info: BaseException | None
    ) -> None:
        logger = self.logger
        if not logger.isEnabledFor(level):
            return
        try:  # stacklevel: the record names the SDK's function that logged, not this one
            logger.log(level, msg, *args, exc_info=exc_info, stacklevel=3)
        except Exception as error:
            _report(error)


_reported = False


def _report(error: Exception) -> None:
    """A handler or filter raised: say so on stderr, once a process."""
    global _reported
    if _reported:
        return
    _reported = True
    try:
        print(
            f"edgedelivery_async: a logging handler or filter raised {type(error).__name__};"
            " the SDK's log records that fail so are dropped",
            file=sys.stderr,
        )
    except Exception:  # no stderr either: nothing more to do
        return


class _OnlyIfUnhandled(logging.Filter):
    """The SDK's stderr handler is a fallback, as `logging.lastResort` is: it passes a
    record only when no other handler on the way up from the record's logger (the
    application's root handler, pytest's `caplog`, one on the SDK's logger) would take
    it at this moment, going by the level each handler has. An application that
    configures logging (`logging.basicConfig()`) so sees each SDK line once, through its
    own handlers, and the records still propagate to them."""

    def __init__(self, handler: logging.Handler) -> None:
        super().__init__()
        self.handler = handler

    def filter(self, record: logging.LogRecord) -> bool:
        logger: logging.Logger | None = logging.getLogger(record.name)
        while logger is not None:
            for other in logger.handlers:
                if other is not self.handler and record.levelno >= other.level:
                    return False
            if not logger.propagate:
                break
            logger = logger.parent
        return True


def setup_from_environment() -> None:
    """Attach a stderr handler at the level named by EDGEDELIVERY_LOG, once.

    The handler writes only the records no other handler takes (`_OnlyIfUnhandled`),
    so a line is printed once whether or not the application configured logging.
    The level is matched in any case. Any other non-empty value leaves logging off and
    writes one warning to stderr that names the accepted values.
    """
    raw = os.environ.get("EDGEDELIVERY_LOG", "")
    level = raw.strip().lower()
    if not level:
        return
    if level not in LEVELS:
        if raw not in _warned_about:
            _warned_about.add(raw)
            print(
                f"edgedelivery_async: EDGEDELIVERY_LOG={raw!r} is not a log level, so SDK "
                f"logging stays off; use one of {', '.join(LEVELS)} (any case)",
                file=sys.stderr,
            )
        return
    logger = logging.getLogger(LOGGER_NAME)
    if not any(getattr(h, "_edgedelivery", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        handler.addFilter(_OnlyIfUnhandled(handler))
        handler._edgedelivery = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(level.upper())
