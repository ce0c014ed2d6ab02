"""The global options every subcommand shares, and the client they configure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from .. import EdgeDeliveryClient


@dataclass(frozen=True, slots=True)
class Settings:
    """What the global options said; None leaves the client's own default (or env)."""

    access_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    timeout: float | None = None
    max_retries: int | None = None
    allow_insecure_http: bool = False

    def client(self) -> EdgeDeliveryClient:
        """A client from these settings (env fallbacks are the client's); exit 2 if unusable."""
        from .. import EdgeDeliveryClient, EdgeDeliveryError
        from ._output import fail

        try:
            return EdgeDeliveryClient(
                access_key=self.access_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                allow_insecure_http=self.allow_insecure_http,
            )
        except EdgeDeliveryError as error:
            fail(error)


def settings(ctx: typer.Context) -> Settings:
    """The settings the top-level callback stored (defaults when run without it)."""
    found = ctx.find_object(Settings)
    return found if found is not None else Settings()
