"""`EDGEDELIVERY_LOG=debug` (or info, warning, error) logs the SDK's requests to stderr.

The log never contains the access key: the SDK logs method, path, status, timing
and retry decisions, never headers or bodies.
"""

from __future__ import annotations

import logging
import os
import sys

LOGGER_NAME = "edgedelivery_async"
LEVELS = ("debug", "info", "warning", "error")

_warned_about: set[str] = set()


def setup_from_environment() -> None:
    """Attach a stderr handler at the level named by EDGEDELIVERY_LOG, once.

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
        handler._edgedelivery = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(level.upper())
