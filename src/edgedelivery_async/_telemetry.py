"""What the engine tells a telemetry backend (`edgedelivery_async.otel` is one).

Nothing here imports a telemetry library: a client without telemetry pays one
`is None` test per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class CallInfo:
    """One call as OpenTelemetry's HTTP client conventions describe it."""

    operation_id: str | None
    method: str
    url_template: str | None  # the document's path, e.g. /mc/registries/{registryId}
    server_address: str
    server_port: int


class CallTrace(Protocol):
    """The record of one call: its attempts, then its end."""

    def attempt_started(self, attempt: int) -> None: ...

    def attempt_ended(self, status_code: int | None, error: BaseException | None) -> None: ...

    def end(self, status_code: int | None, error: BaseException | None, retries: int) -> None: ...


class BulkTrace(Protocol):
    """The record of one bulk run."""

    def item(self, ok: bool) -> None: ...

    def end(self, error: BaseException | None) -> None: ...


class Telemetry(Protocol):
    """A telemetry backend: starts the record of a call or a bulk run."""

    def start_call(self, info: CallInfo) -> CallTrace: ...

    def start_bulk(self, name: str) -> BulkTrace: ...
