"""What every resource shares: preparing and sending one operation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._http import RawResponse
from .._requests import prepare

if TYPE_CHECKING:
    from .._client import EdgeDeliveryClient


class Resource:
    """A group of operations of one API area."""

    def __init__(self, client: EdgeDeliveryClient) -> None:
        self._client = client

    async def _send(
        self, operation_id: str, path_values: Mapping[str, object], body: Any = None
    ) -> RawResponse:
        """Check the arguments, then send with the client's retries and timeouts."""
        op, path, content = prepare(operation_id, path_values, body)
        return await self._client._engine.request(
            op.method,
            path,
            body=content,
            requires_key=op.requires_key,
            options=self._client._options,
        )


def present(**fields: Any) -> dict[str, Any]:
    """The fields that were given (not None), for building request bodies."""
    return {name: value for name, value in fields.items() if value is not None}
