"""Asynchronous SDK for the Edge Delivery Management API.

Importing the package loads only the exception tree; the client, its transport and
request validation load when first used (module `__getattr__`), so a process that
never sends pays nothing for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._exceptions import (
    AcceptedWithoutResultError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIResultError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    DownloadError,
    EdgeDeliveryError,
    FieldError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ResponseTooLargeError,
    UnprocessableEntityError,
)
from ._logging import setup_from_environment as _setup_logging
from ._version import __version__

if TYPE_CHECKING:
    from ._bulk import BulkOutcome, BulkProgress, BulkResult, RateLimiter, collect, fan_out
    from ._call import BoundEndpoint
    from ._client import EdgeDeliveryClient
    from ._hooks import HookError, Hooks, RequestEvent, ResponseEvent, RetryEvent
    from ._rate_control import RateControl, RateController, RetryBudget
    from ._response import APIResponse
    from ._retry import RetryPolicy
    from ._timeouts import Timeout

_LAZY = {
    "APIResponse": "._response",
    "BoundEndpoint": "._call",
    "HookError": "._hooks",
    "Hooks": "._hooks",
    "RequestEvent": "._hooks",
    "ResponseEvent": "._hooks",
    "RetryEvent": "._hooks",
    "BulkOutcome": "._bulk",
    "BulkProgress": "._bulk",
    "BulkResult": "._bulk",
    "EdgeDeliveryClient": "._client",
    "RateControl": "._rate_control",
    "RateController": "._rate_control",
    "RateLimiter": "._bulk",
    "RetryBudget": "._rate_control",
    "RetryPolicy": "._retry",
    "Timeout": "._timeouts",
    "collect": "._bulk",
    "fan_out": "._bulk",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


_setup_logging()

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponse",
    "APIResponseValidationError",
    "APIResultError",
    "APIStatusError",
    "APITimeoutError",
    "AcceptedWithoutResultError",
    "AuthenticationError",
    "BadRequestError",
    "BoundEndpoint",
    "BulkOutcome",
    "BulkProgress",
    "BulkResult",
    "ConfigurationError",
    "ConflictError",
    "DownloadError",
    "EdgeDeliveryClient",
    "EdgeDeliveryError",
    "FieldError",
    "HookError",
    "Hooks",
    "InternalServerError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateControl",
    "RateController",
    "RateLimitError",
    "RateLimiter",
    "RequestEvent",
    "ResponseEvent",
    "ResponseTooLargeError",
    "RetryBudget",
    "RetryEvent",
    "RetryPolicy",
    "Timeout",
    "UnprocessableEntityError",
    "__version__",
    "collect",
    "fan_out",
]
