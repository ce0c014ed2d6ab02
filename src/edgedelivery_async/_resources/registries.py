"""Container registries (container area)."""

from __future__ import annotations

from edgedelivery_openapi.models import ContainerRegistry

from .._endpoint import endpoint
from .._exceptions import APIResponseValidationError, APIResultError
from .._response import json_body, member, parse_model
from ._base import Resource


class Registries(Resource):
    """Container registries of the calling user."""

    @endpoint
    async def add(self, *, display_name: str) -> int:
        """Add a container registry; returns its id. A non-empty `error` raises APIResultError."""
        raw = await self._send("ContainerRegistry_Add", {}, {"displayName": display_name})
        body = json_body(raw)
        error = body.get("error") if isinstance(body, dict) else None
        if error:
            raise APIResultError(raw, body)
        registry_id = member(raw, body, "id")
        if isinstance(registry_id, bool) or not isinstance(registry_id, int):
            raise APIResponseValidationError(raw, body, message="the registry id is not an integer")
        return registry_id

    @endpoint
    async def get(self, registry_id: int | str) -> ContainerRegistry:
        """Get one registry. Only the first and last symbols of its password are returned."""
        raw = await self._send("ContainerRegistry_Get", {"registryId": registry_id})
        return parse_model(ContainerRegistry, raw, json_body(raw))
