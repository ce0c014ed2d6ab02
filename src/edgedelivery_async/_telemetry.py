"""What the engine tells a telemetry backend (`edgedelivery_async.otel` is one).

Nothing here imports a telemetry library: a client without telemetry pays one
`is None` test per call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ._logging import SdkLog

_log = SdkLog()


@dataclass(frozen=True, slots=True)
class CallInfo:
    """One call as OpenTelemetry's HTTP client conventions describe it."""

    operation_id: str | None
    method: str
    url_template: str | None  # the document's path, e.g. /mc/registries/{registryId}
    server_address: str
    server_port: int


class CallTrace(Protocol):
    """The record of one call: its attempts, then its end. An attempt's number counts
    the sends before it, retries and redirects alike (0 for the first)."""

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


class _Guarded:
    """A backend's record whose faults never fail the call or run: the first is logged
    (a warning), and the record then takes no more steps, except its end, which it is
    still given once so that it can close what it opened (end its span, give the caller
    back its context). A span processor or exporter that raises is the telemetry's
    problem, not the request's."""

    __slots__ = ("_record", "_recording")

    def __init__(self, start: Callable[[], Any]) -> None:
        self._recording = True  # False once a step failed: then only the end is given
        self._record: Any = self._guarded(start)  # the backend's CallTrace or BulkTrace
        if self._record is None:
            self._recording = False

    def _guarded(self, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except Exception as error:
            if self._recording:
                self._recording = False
                _log.warning(
                    "telemetry failed (%s: %s); the rest of this call or run is not recorded",
                    type(error).__name__,
                    error,
                )
            return None

    def _ended(self) -> Any:
        """The record, to be given its end: once, whatever failed before."""
        record, self._record = self._record, None
        return record


class GuardedCall(_Guarded):
    """A `CallTrace` of `telemetry` that never fails the call (see `_Guarded`).

    `resends` is the number of the last attempt started: the resends that happened,
    whatever ends the call (a cancellation or a hook's error carries no count)."""

    __slots__ = ("resends",)

    def __init__(self, telemetry: Telemetry, info: CallInfo) -> None:
        self.resends = 0
        super().__init__(lambda: telemetry.start_call(info))

    def attempt_started(self, attempt: int) -> None:
        self.resends = attempt
        if self._recording:
            self._guarded(lambda: self._record.attempt_started(attempt))

    def attempt_ended(self, status_code: int | None, error: BaseException | None) -> None:
        if self._recording:
            self._guarded(lambda: self._record.attempt_ended(status_code, error))

    def end(self, status_code: int | None, error: BaseException | None, retries: int) -> None:
        record = self._ended()
        if record is not None:
            self._guarded(lambda: record.end(status_code, error, retries))


class GuardedBulk(_Guarded):
    """A `BulkTrace` of `telemetry` that never fails the run (see `_Guarded`)."""

    __slots__ = ()

    def __init__(self, telemetry: Telemetry, name: str) -> None:
        super().__init__(lambda: telemetry.start_bulk(name))

    def item(self, ok: bool) -> None:
        if self._recording:
            self._guarded(lambda: self._record.item(ok))

    def end(self, error: BaseException | None) -> None:
        record = self._ended()
        if record is not None:
            self._guarded(lambda: record.end(error))
