"""The shield resource with its bulk readers under their historical names."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable
from typing import TypeVar

from edgedelivery_openapi.models import ShieldZoneConfig, UploadScanningConfig
from edgedelivery_openapi.resources import Shield as GeneratedShield

from ._bulk import BulkProgress, BulkResult

K = TypeVar("K", int, str)


class Shield(GeneratedShield):
    """Shield zone configuration and upload scanning; no access key needed.

    `iter_*` are thin aliases of `.map` on the single reads, kept for existing callers.
    """

    def iter_zones_by_pull_zones(
        self,
        pull_zone_ids: Iterable[K] | AsyncIterable[K],
        *,
        concurrency: int = 100,
        rate_limit: float | None = None,
        progress: BulkProgress | None = None,
    ) -> AsyncGenerator[BulkResult[K, ShieldZoneConfig], None]:
        """`get_zone_by_pull_zone.map(...)`: the shield configuration of many pull zones."""
        return self.get_zone_by_pull_zone.map(
            pull_zone_ids, concurrency=concurrency, rate_limit=rate_limit, progress=progress
        )

    def iter_upload_scanning(
        self,
        shield_zone_ids: Iterable[K] | AsyncIterable[K],
        *,
        concurrency: int = 100,
        rate_limit: float | None = None,
        progress: BulkProgress | None = None,
    ) -> AsyncGenerator[BulkResult[K, UploadScanningConfig], None]:
        """`get_upload_scanning.map(...)`: the upload scanning state of many shield zones."""
        return self.get_upload_scanning.map(
            shield_zone_ids, concurrency=concurrency, rate_limit=rate_limit, progress=progress
        )
