"""OpenTelemetry for the SDK (the `otel` extra): spans and metrics per the HTTP client
semantic conventions.

```python
from edgedelivery_async import EdgeDeliveryClient
from edgedelivery_async.otel import OpenTelemetry

client = EdgeDeliveryClient(..., telemetry=OpenTelemetry())
```

Each call is one CLIENT span named `{method} {url.template}` (e.g.
`GET /mc/registries/{registryId}`) with `http.request.method`, `url.template`,
`server.address`, `server.port`, `http.response.status_code`, `error.type`,
`http.request.resend_count` and `edgedelivery.operation_id`. When a call is retried
or redirected, each attempt also gets a child span (`http.request.resend_count`
counts both, as OpenTelemetry's conventions do). Every attempt is recorded in the
`http.client.request.duration` histogram. A bulk run (`.map`, `iter_*`) is a span
`edgedelivery.bulk {operation}` with the counter `edgedelivery.bulk.items` (attribute
`edgedelivery.bulk.outcome`: ok or error). The access key is never an attribute: it
is not in the URL template, the address or any header that is recorded.

Clients without `telemetry=` never import this module or OpenTelemetry.
"""

from __future__ import annotations

import time
from typing import Any

from opentelemetry import context, metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from ._telemetry import BulkTrace, CallInfo, CallTrace
from ._version import __version__

__all__ = ["OpenTelemetry"]

_SCOPE = "edgedelivery_async"
# The semantic conventions' advised boundaries for http.client.request.duration.
_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]


class OpenTelemetry:
    """The OpenTelemetry backend; providers default to the global ones."""

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self._tracer = trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(_SCOPE, __version__, meter_provider=meter_provider)
        self._duration = meter.create_histogram(
            "http.client.request.duration",
            unit="s",
            description="Duration of HTTP client requests.",
            explicit_bucket_boundaries_advisory=_BUCKETS,
        )
        self._items = meter.create_counter(
            "edgedelivery.bulk.items", unit="{item}", description="Items of bulk runs, by outcome."
        )

    def start_call(self, info: CallInfo) -> CallTrace:
        """Open the span of one call."""
        return _Call(self, info)

    def start_bulk(self, name: str) -> BulkTrace:
        """Open the span of one bulk run."""
        return _Bulk(self, name)

    def __repr__(self) -> str:
        return "OpenTelemetry()"


def _error_type(status_code: int | None, error: BaseException | None) -> str | None:
    if status_code is not None and status_code >= 400:
        return str(status_code)
    if error is not None:
        return type(error).__qualname__
    return None


class _Call:
    """One call: its span, its attempts' spans once a retry happens, the duration metric."""

    __slots__ = ("_attempt_span", "_attempts", "_backend", "_base", "_name", "_span", "_token")

    def __init__(self, backend: OpenTelemetry, info: CallInfo) -> None:
        self._backend = backend
        self._name = f"{info.method} {info.url_template}" if info.url_template else info.method
        self._base: dict[str, Any] = {
            "http.request.method": info.method,
            "server.address": info.server_address,
            "server.port": info.server_port,
        }
        if info.url_template:
            self._base["url.template"] = info.url_template
        attributes = dict(self._base)
        if info.operation_id:
            attributes["edgedelivery.operation_id"] = info.operation_id
        self._span = backend._tracer.start_span(
            self._name, kind=SpanKind.CLIENT, attributes=attributes
        )
        # Attempts before the first retry: (start ns, end ns, status, error type).
        self._attempts: list[tuple[int, int, int | None, str | None]] = []
        self._attempt_span: trace.Span | None = None
        # The span is the current one (the parent of the attempts' spans and of any the
        # transport makes) until `end`, which is always called once, in this task.
        self._token = context.attach(trace.set_span_in_context(self._span))

    def attempt_started(self, attempt: int) -> None:
        now = time.time_ns()
        if attempt == 0:
            self._attempts.append((now, now, None, None))
            return
        if attempt == 1:  # the first resend: the first attempt gets its span now
            earlier, self._attempts = self._attempts, []
            for start, end, status, error_type in earlier:
                span = self._attempt(0, start)
                _finish(span, status, error_type, end)
        self._attempt_span = self._attempt(attempt, now)

    def _attempt(self, number: int, start: int) -> trace.Span:
        attributes = dict(self._base)
        if number:
            attributes["http.request.resend_count"] = number
        return self._backend._tracer.start_span(
            self._name, kind=SpanKind.CLIENT, attributes=attributes, start_time=start
        )

    def attempt_ended(self, status_code: int | None, error: BaseException | None) -> None:
        now = time.time_ns()
        error_type = _error_type(status_code, error)
        span = self._attempt_span
        if span is not None:
            self._attempt_span = None  # (ended once, even if a span processor raises)
            started = span.start_time or now  # type: ignore[attr-defined]
            _finish(span, status_code, error_type, now)
        else:
            started = self._attempts[-1][0]
            self._attempts[-1] = (started, now, status_code, error_type)
        attributes = dict(self._base)
        if status_code is not None:
            attributes["http.response.status_code"] = status_code
        if error_type is not None:
            attributes["error.type"] = error_type
        self._backend._duration.record((now - started) / 1e9, attributes)

    def end(self, status_code: int | None, error: BaseException | None, retries: int) -> None:
        try:
            if retries:
                self._span.set_attribute("http.request.resend_count", retries)
            status = status_code if status_code is not None else getattr(error, "status_code", None)
            _finish(self._span, status, _error_type(status, error), None)
        finally:  # a span processor that raises leaves no span attached to the caller
            context.detach(self._token)


def _finish(span: trace.Span, status: int | None, error_type: str | None, end: int | None) -> None:
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    if error_type is not None:
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR))
    span.end(end_time=end)


class _Bulk:
    """One bulk run: a span and per-item counters."""

    __slots__ = ("_backend", "_failed", "_name", "_ok", "_span")

    def __init__(self, backend: OpenTelemetry, name: str) -> None:
        self._backend = backend
        self._name = name
        self._ok = self._failed = 0
        self._span = backend._tracer.start_span(
            f"edgedelivery.bulk {name}", attributes={"edgedelivery.operation_id": name}
        )

    def item(self, ok: bool) -> None:
        if ok:
            self._ok += 1
        else:
            self._failed += 1
        self._backend._items.add(
            1,
            {"edgedelivery.operation_id": self._name, "edgedelivery.bulk.outcome": _outcome(ok)},
        )

    def end(self, error: BaseException | None) -> None:
        self._span.set_attribute("edgedelivery.bulk.succeeded", self._ok)
        self._span.set_attribute("edgedelivery.bulk.failed", self._failed)
        if error is not None:
            self._span.set_attribute("error.type", type(error).__qualname__)
            self._span.set_status(Status(StatusCode.ERROR))
        self._span.end()


def _outcome(ok: bool) -> str:
    return "ok" if ok else "error"
