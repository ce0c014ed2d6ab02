"""Web-application shield (shield area, read only)."""

from __future__ import annotations

from edgedelivery_openapi.models import ShieldZoneConfig, UploadScanningConfig

from .._endpoint import endpoint
from .._response import json_body, member, parse_model
from ._base import Resource


class Shield(Resource):
    """Shield zone configuration and upload scanning; no access key needed."""

    @endpoint
    async def get_zone_by_pull_zone(self, pull_zone_id: int | str) -> ShieldZoneConfig:
        """The shield zone configuration bound to a pull zone (unwrapped from `{data}`)."""
        raw = await self._send("ShieldZone_GetByPullZone", {"pullZoneId": pull_zone_id})
        body = json_body(raw)
        return parse_model(ShieldZoneConfig, raw, member(raw, body, "data"))

    @endpoint
    async def get_upload_scanning(self, shield_zone_id: int | str) -> UploadScanningConfig:
        """Whether upload scanning is enabled; `error.success: false` raises APIResultError."""
        raw = await self._send("ShieldZone_GetUploadScanning", {"shieldZoneId": shield_zone_id})
        body = json_body(raw)
        return parse_model(UploadScanningConfig, raw, member(raw, body, "data"))
