"""Web-application shield (shield area, read only)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from typing import TypeVar

from edgedelivery_openapi.models import ShieldZoneConfig, UploadScanningConfig

from .._bulk import BulkProgress, BulkResult, fan_out
from .._endpoint import endpoint
from .._response import json_body, member, parse_model
from ._base import Resource

K = TypeVar("K", int, str)
V = TypeVar("V")


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

    def iter_zones_by_pull_zones(
        self,
        pull_zone_ids: Iterable[K] | AsyncIterable[K],
        *,
        concurrency: int = 100,
        rate_limit: float | None = None,
        progress: BulkProgress | None = None,
    ) -> AsyncGenerator[BulkResult[K, ShieldZoneConfig], None]:
        """Read the shield configuration of many pull zones; results stream as they finish.

        Every id yields one `BulkResult` (key = the pull zone id). See `fan_out`.
        """
        return self._fan_out(
            self.get_zone_by_pull_zone, pull_zone_ids, concurrency, rate_limit, progress
        )

    def iter_upload_scanning(
        self,
        shield_zone_ids: Iterable[K] | AsyncIterable[K],
        *,
        concurrency: int = 100,
        rate_limit: float | None = None,
        progress: BulkProgress | None = None,
    ) -> AsyncGenerator[BulkResult[K, UploadScanningConfig], None]:
        """Read the upload scanning state of many shield zones; see `iter_zones_by_pull_zones`."""
        return self._fan_out(
            self.get_upload_scanning, shield_zone_ids, concurrency, rate_limit, progress
        )

    def _fan_out(
        self,
        call: Callable[[K], Awaitable[V]],
        keys: Iterable[K] | AsyncIterable[K],
        concurrency: int,
        rate_limit: float | None,
        progress: BulkProgress | None,
    ) -> AsyncGenerator[BulkResult[K, V], None]:
        self._client._engine.transport.reserve_connections(concurrency)
        return fan_out(
            call, keys, concurrency=concurrency, rate_limit=rate_limit, progress=progress
        )
