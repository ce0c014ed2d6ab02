"""Asynchronous SDK for the Edge Delivery Management API."""

from ._bulk import BulkOutcome, BulkProgress, BulkResult, RateLimiter, collect, fan_out
from ._call import BoundEndpoint
from ._client import EdgeDeliveryClient
from ._exceptions import (
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
    EdgeDeliveryError,
    FieldError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from ._logging import setup_from_environment as _setup_logging
from ._response import APIResponse
from ._retry import RetryPolicy
from ._timeouts import Timeout
from ._version import __version__

_setup_logging()

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponse",
    "APIResponseValidationError",
    "APIResultError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "BoundEndpoint",
    "BulkOutcome",
    "BulkProgress",
    "BulkResult",
    "ConfigurationError",
    "ConflictError",
    "EdgeDeliveryClient",
    "EdgeDeliveryError",
    "FieldError",
    "InternalServerError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RateLimiter",
    "RetryPolicy",
    "Timeout",
    "UnprocessableEntityError",
    "__version__",
    "collect",
    "fan_out",
]
