"""DNS zones (core area)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from edgedelivery_openapi.models import DnsRecord

from .._endpoint import endpoint
from .._response import json_body
from ._base import Resource, present


class DnsZones(Resource):
    """DNS zones and their records."""

    @endpoint
    async def add(
        self,
        *,
        domain: str,
        records: Sequence[DnsRecord | Mapping[str, Any]] | None = None,
    ) -> Any:
        """Create a DNS zone with its initial records.

        The reference does not show the success body, so this returns what the server
        sent, parsed as JSON (None for an empty body), without assuming its shape.
        """
        raw = await self._send("DnsZone_Add", {}, present(Domain=domain, Records=records))
        return json_body(raw)
