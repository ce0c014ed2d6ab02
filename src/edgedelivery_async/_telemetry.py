"""What the engine tells a telemetry backend (`edgedelivery_async.otel` is one).

Nothing here imports a telemetry library: a client without telemetry pays one
`is None` test per call.
"""

from __future__ import annotations

import logging
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


class GuardedCall:
    """A backend's `CallTrace` whose faults never fail the call: the first is logged
    (a warning), and the record then stops. A span processor or exporter that raises
    is the telemetry's problem, not the request's."""

    __slots__ = ("_trace",)

    def __init__(self, telemetry: Telemetry, info: CallInfo) -> None:
        self._trace: CallTrace | None = None
        try:
            self._trace = telemetry.start_call(info)
        except Exception as error:
            _fault(error)

    def attempt_started(self, attempt: int) -> None:
        if self._trace is not None:
            try:
                self._trace.attempt_started(attempt)
            except Exception as error:
                self._trace = None
                _fault(error)

    def attempt_ended(self, status_code: int | None, error: BaseException | None) -> None:
        if self._trace is not None:
            try:
                self._trace.attempt_ended(status_code, error)
            except Exception as fault:
                self._trace = None
                _fault(fault)

    def end(self, status_code: int | None, error: BaseException | None, retries: int) -> None:
        if self._trace is not None:
            try:
                self._trace.end(status_code, error, retries)
            except Exception as fault:
                self._trace = None
                _fault(fault)


class GuardedBulk:
    """A backend's `BulkTrace` whose faults never fail the run (see `GuardedCall`)."""

    __slots__ = ("_trace",)

    def __init__(self, telemetry: Telemetry, name: str) -> None:
        self._trace: BulkTrace | None = None
        try:
            self._trace = telemetry.start_bulk(name)
        except Exception as error:
            _fault(error)

    def item(self, ok: bool) -> None:
        if self._trace is not None:
            try:
                self._trace.item(ok)
            except Exception as error:
                self._trace = None
                _fault(error)

    def end(self, error: BaseException | None) -> None:
        if self._trace is not None:
            try:
                self._trace.end(error)
            except Exception as fault:
                self._trace = None
                _fault(fault)


def _fault(error: Exception) -> None:
    logging.getLogger("edgedelivery_async").warning(
        "telemetry failed (%s: %s); this call or run is no longer recorded",
        type(error).__name__,
        error,
    )
