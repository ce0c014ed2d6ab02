"""`EDGEDELIVERY_LOG=debug` (or info, warning) logs the SDK's requests to stderr.

The log never contains the access key: the SDK logs method, path, status, timing
and retry decisions, never headers or bodies.
"""

from __future__ import annotations

import logging
import os

LOGGER_NAME = "edgedelivery_async"


def setup_from_environment() -> None:
    """Attach a stderr handler at the level named by EDGEDELIVERY_LOG, once."""
    level = os.environ.get("EDGEDELIVERY_LOG", "").strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        return
    logger = logging.getLogger(LOGGER_NAME)
    if not any(getattr(h, "_edgedelivery", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        handler._edgedelivery = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(level)
