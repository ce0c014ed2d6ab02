"""Pull zones (core area)."""

from __future__ import annotations

from .._endpoint import endpoint
from ._base import Resource


class PullZones(Resource):
    """Delivery configuration of pull zones."""

    @endpoint
    async def set_force_ssl(self, pull_zone_id: int, *, hostname: str, force_ssl: bool) -> None:
        """Turn forced HTTPS on or off for one hostname of a pull zone (204, no body)."""
        await self._send(
            "PullZonePublic_SetForceSSL",
            {"id": pull_zone_id},
            {"Hostname": hostname, "ForceSSL": force_ssl},
        )
