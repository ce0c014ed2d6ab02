"""Calling the generated endpoints of one operation on a pytest-httpx mock."""

from __future__ import annotations

import inspect
import re
import typing
from typing import Any

from edgedelivery_openapi import AuthenticatedClient, Client
from edgedelivery_openapi.types import Response

from ._document import JSON, Operation, media_examples

BASE_URL = "https://api.example.invalid"
KEY = "k3y-for-tests"
# An identifier that needs percent-encoding in a path segment, and its encoded form,
# written out here rather than computed with the function the generated code uses.
IDENTIFIER = "app 1/ä?#%"
IDENTIFIER_ENCODED = "app%201%2F%C3%A4%3F%23%25"
INT64 = 9007199254740993  # 2**53 + 1: not exactly representable as a float


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def path_arguments(operation: Operation) -> dict[str, Any]:
    """Keyword arguments for the path parameters, by the generated (snake_case) names."""
    found = {}
    for parameter in operation.parameters():
        kind = parameter["schema"]["type"]
        found[snake(parameter["name"])] = INT64 if kind == "integer" else IDENTIFIER
    return found


def expected_path(operation: Operation) -> str:
    path = operation.path
    for parameter in operation.parameters():
        kind = parameter["schema"]["type"]
        value = str(INT64) if kind == "integer" else IDENTIFIER_ENCODED
        path = path.replace("{" + parameter["name"] + "}", value)
    return path


def body_type(operation: Operation) -> Any:
    hints = typing.get_type_hints(operation.module().asyncio_detailed)
    return hints.get("body")


def request_example(operation: Operation) -> Any:
    """The first `application/json` request example, or None for operations without a body."""
    body = operation.op.get("requestBody")
    if body is None:
        return None
    return media_examples(body["content"][JSON])[0][1]


def status_for(key: str) -> int:
    """A concrete status for a response key of the document."""
    return {"2XX": 200, "default": 400}.get(key) or int(key)


def authenticated_client(**kwargs: Any) -> AuthenticatedClient:
    return AuthenticatedClient(
        base_url=BASE_URL, token=KEY, prefix="", auth_header_name="AccessKey", **kwargs
    )


def anonymous_client(**kwargs: Any) -> Client:
    return Client(base_url=BASE_URL, **kwargs)


async def call(
    operation: Operation, client: AuthenticatedClient | Client, body: Any = None
) -> Response[Any]:
    """Call `asyncio_detailed` of the operation with the example body (or `body`)."""
    module = operation.module()
    kwargs: dict[str, Any] = dict(path_arguments(operation))
    signature = inspect.signature(module.asyncio_detailed)
    if "body" in signature.parameters:
        if body is None:
            body = body_type(operation).from_dict(request_example(operation))
        kwargs["body"] = body
    async with client:
        response: Response[Any] = await module.asyncio_detailed(client=client, **kwargs)
    return response
