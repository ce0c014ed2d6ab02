"""OpenTelemetry: spans and metrics per the HTTP client conventions, in-memory exporters."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from edgedelivery_async import DownloadError, HookError, Hooks, NotFoundError, collect
from edgedelivery_async._http import SinkFailed
from edgedelivery_async.otel import OpenTelemetry

from .conftest import KEY, SHIELD_CONFIG, Recorder, mock_client

OK = httpx.Response(200, json={"data": SHIELD_CONFIG})
TEMPLATE = "/shield/shield-zone/get-by-pullzone/{pullZoneId}"


class Otel:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.telemetry = OpenTelemetry(
            tracer_provider=tracer_provider,
            meter_provider=MeterProvider(metric_readers=[self.reader]),
        )

    def finished(self) -> list[Any]:
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found


@pytest.fixture
def otel() -> Otel:
    return Otel()


async def test_one_span_per_call_with_the_conventions_attributes(otel: Otel) -> None:
    async with mock_client(Recorder(OK), telemetry=otel.telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
    (span,) = otel.finished()
    assert span.name == f"GET {TEMPLATE}"
    assert span.kind is SpanKind.CLIENT
    assert span.attributes == {
        "http.request.method": "GET",
        "server.address": "api.edge.test",
        "server.port": 443,
        "url.template": TEMPLATE,
        "edgedelivery.operation_id": "ShieldZone_GetByPullZone",
        "http.response.status_code": 200,
    }
    (point,) = otel.points("http.client.request.duration")
    assert point.count == 1
    assert point.attributes["http.response.status_code"] == 200


async def test_retries_get_a_span_per_attempt(otel: Otel) -> None:
    recorder = Recorder(httpx.Response(503), httpx.Response(503), OK)
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
    spans = otel.finished()
    call = next(span for span in spans if span.parent is None)
    attempts = sorted(
        (span for span in spans if span.parent is not None),
        key=lambda span: span.attributes.get("http.request.resend_count", 0),
    )
    assert call.attributes["http.request.resend_count"] == 2
    assert [span.attributes.get("http.request.resend_count") for span in attempts] == [None, 1, 2]
    assert [span.attributes["http.response.status_code"] for span in attempts] == [503, 503, 200]
    assert [span.attributes.get("error.type") for span in attempts] == ["503", "503", None]
    assert all(span.parent.span_id == call.context.span_id for span in attempts)
    assert sum(point.count for point in otel.points("http.client.request.duration")) == 3


async def test_a_failed_call_sets_error_type(otel: Otel) -> None:
    async with mock_client(Recorder(httpx.Response(404)), telemetry=otel.telemetry) as client:
        with pytest.raises(NotFoundError):
            await client.registries.get(7)
    (span,) = otel.finished()
    assert span.attributes["error.type"] == "404"
    assert span.status.status_code is StatusCode.ERROR


async def test_connection_failures_name_the_error_class(otel: Otel) -> None:
    recorder = Recorder(httpx.ConnectError("refused"))
    async with mock_client(recorder, telemetry=otel.telemetry, max_retries=0) as client:
        with pytest.raises(Exception):  # noqa: B017, PT011 - the class is asserted below
            await client.registries.get(7)
    (span,) = otel.finished()
    assert span.attributes["error.type"] == "APIConnectionError"


async def test_a_bulk_run_is_a_span_with_counters(otel: Otel) -> None:
    recorder = Recorder(
        lambda request: OK if not request.url.path.endswith("/3") else httpx.Response(404)
    )
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        outcome = await collect(client.shield.get_zone_by_pull_zone.map([1, 2, 3]))
    assert len(outcome.values) == 2
    assert len(outcome.errors) == 1
    bulk = next(span for span in otel.finished() if span.name.startswith("edgedelivery.bulk"))
    assert bulk.name == "edgedelivery.bulk ShieldZone_GetByPullZone"
    assert bulk.attributes["edgedelivery.bulk.succeeded"] == 2
    assert bulk.attributes["edgedelivery.bulk.failed"] == 1
    counts = {
        point.attributes["edgedelivery.bulk.outcome"]: point.value
        for point in otel.points("edgedelivery.bulk.items")
    }
    assert counts == {"ok": 2, "error": 1}


async def test_a_bulk_span_starts_when_read_and_a_break_is_no_error(otel: Otel) -> None:
    """The span began when `.map()` was called (a run never read left one open), and a
    `break` ended it with status ERROR and error.type GeneratorExit."""
    async with mock_client(Recorder(OK), telemetry=otel.telemetry) as client:
        client.shield.get_zone_by_pull_zone.map([1, 2, 3])  # made, never read
        results = client.shield.get_zone_by_pull_zone.map([1, 2, 3])
        async for _ in results:
            break
        await results.aclose()
    (bulk,) = [span for span in otel.finished() if span.name.startswith("edgedelivery.bulk")]
    assert bulk.status.status_code is StatusCode.UNSET
    assert "error.type" not in bulk.attributes


async def test_the_key_is_in_no_attribute(otel: Otel) -> None:
    recorder = Recorder(httpx.Response(503), OK)
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
    for span in otel.finished():
        assert all(KEY not in str(value) for value in span.attributes.values())
    for point in otel.points("http.client.request.duration"):
        assert all(KEY not in str(value) for value in point.attributes.values())


def test_unused_otel_costs_no_import() -> None:
    code = (
        "import sys, edgedelivery_async\n"
        "from edgedelivery_async import EdgeDeliveryClient\n"
        "EdgeDeliveryClient('k', 'https://api.edge.test')\n"
        "names = ('opentelemetry', 'edgedelivery_async.otel')\n"
        "print(sorted(m for m in sys.modules if m.startswith(names)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Broken(Exception):
    pass


class RaisingProcessor(SimpleSpanProcessor):
    """A span processor that raises when a span starts, or when one ends."""

    def __init__(self, where: str) -> None:
        super().__init__(InMemorySpanExporter())
        self.where = where

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.where == "start":
            raise Broken("on_start")

    def on_end(self, span: Any) -> None:
        if self.where == "end":
            raise Broken("on_end")


@pytest.mark.parametrize("where", ["start", "end"])
async def test_a_span_processor_that_raises_fails_no_call(
    where: str, caplog: pytest.LogCaptureFixture
) -> None:
    """It was a raw RuntimeError (on_start) or KeyError (on_end) from a call that worked,
    and a failing end left the call's span attached to the caller's context."""
    from opentelemetry import trace

    provider = TracerProvider()
    provider.add_span_processor(RaisingProcessor(where))
    telemetry = OpenTelemetry(tracer_provider=provider, meter_provider=MeterProvider())
    before = trace.get_current_span()
    async with mock_client(Recorder(OK, OK), telemetry=telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
        outcome = await collect(client.shield.iter_zones_by_pull_zones([1]))
    assert outcome.errors == {}
    assert trace.get_current_span() is before
    assert "telemetry failed (Broken" in caplog.text


@pytest.mark.parametrize(
    "where", ["start_call", "attempt_started", "attempt_ended", "end", "start_bulk", "item"]
)
async def test_a_telemetry_backend_that_raises_fails_no_call(where: str) -> None:
    class Backend:
        def __getattr__(self, name: str) -> Any:
            def method(*args: Any) -> Any:
                if name == where:
                    raise Broken(name)
                return self

            return method

    async with mock_client(Recorder(OK, OK), telemetry=Backend()) as client:
        await client.shield.get_zone_by_pull_zone(42)
        outcome = await collect(client.shield.iter_zones_by_pull_zones([1]))
    assert outcome.errors == {}


class RaisingHistogram:
    def record(self, *args: Any, **kwargs: Any) -> None:
        raise Broken("record")


class MeterWithRaisingHistogram:
    """A meter provider whose duration histogram raises at every attempt."""

    def get_meter(self, *args: Any, **kwargs: Any) -> Any:
        return self

    def create_histogram(self, *args: Any, **kwargs: Any) -> RaisingHistogram:
        return RaisingHistogram()

    def create_counter(self, *args: Any, **kwargs: Any) -> Any:
        return MeterProvider().get_meter("unused").create_counter("unused")


class EndRaisesOnce(SimpleSpanProcessor):
    """Behind the exporting processor: the first span to end raises, the rest do not."""

    def __init__(self) -> None:
        super().__init__(InMemorySpanExporter())
        self.ends = 0

    def on_end(self, span: Any) -> None:
        self.ends += 1
        if self.ends == 1:
            raise Broken("on_end")


@pytest.mark.parametrize("fault", ["metric", "first span end"])
async def test_after_a_telemetry_fault_the_call_span_ends_and_the_context_is_restored(
    fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A fault before the call's end (the histogram's record, or a span processor's
    on_end when the retry gives the first attempt its span) stopped the record, which
    then never ended the call's span: it stayed the caller's current span, and every
    later span of the task was its child (never exported)."""
    from opentelemetry import trace

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    if fault == "metric":
        meters: Any = MeterWithRaisingHistogram()
    else:
        provider.add_span_processor(EndRaisesOnce())
        meters = MeterProvider()
    telemetry = OpenTelemetry(tracer_provider=provider, meter_provider=meters)
    app = provider.get_tracer("app")
    with app.start_as_current_span("outer") as outer:
        async with mock_client(Recorder(httpx.Response(503), OK), telemetry=telemetry) as client:
            await client.shield.get_zone_by_pull_zone(42)
        assert trace.get_current_span() is outer
        with app.start_as_current_span("next") as mine:
            assert mine.parent.span_id == outer.get_span_context().span_id
    assert "telemetry failed (Broken" in caplog.text
    outer_id = outer.get_span_context().span_id
    (call,) = [
        span
        for span in spans.get_finished_spans()
        if span.name.startswith("GET") and span.parent.span_id == outer_id
    ]
    assert call.attributes["http.response.status_code"] == 200
    assert call.attributes["http.request.resend_count"] == 1


async def test_after_a_telemetry_fault_a_bulk_span_still_ends(otel: Otel) -> None:
    """The counter's add raised at the first item: the run's span was never ended."""

    class RaisingCounter:
        def add(self, *args: Any, **kwargs: Any) -> None:
            raise Broken("add")

    otel.telemetry._items = RaisingCounter()  # type: ignore[assignment]
    async with mock_client(Recorder(OK), telemetry=otel.telemetry) as client:
        outcome = await collect(client.shield.get_zone_by_pull_zone.map([1, 2]))
    assert len(outcome.values) == 2
    (bulk,) = [span for span in otel.finished() if span.name.startswith("edgedelivery.bulk")]
    assert bulk.status.status_code is StatusCode.UNSET


def call_and_attempts(otel: Otel) -> tuple[Any, list[Any]]:
    """The call's span and its attempts' spans, by resend count."""
    spans = otel.finished()
    (call,) = [span for span in spans if span.parent is None]
    attempts = sorted(
        (span for span in spans if span.parent is not None),
        key=lambda span: span.attributes.get("http.request.resend_count", 0),
    )
    assert all(span.parent.span_id == call.context.span_id for span in attempts)
    return call, attempts


async def test_a_retried_attempt_that_is_cancelled_ends_its_span(otel: Otel) -> None:
    """Cancelled during its second attempt, the call exported 2 spans of 3: the second
    attempt's span was never ended (nor its duration recorded), and the call's span had
    no resend count although one resend happened."""
    sent: list[httpx.Request] = []
    second = asyncio.Event()

    async def reply(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if len(sent) == 1:
            return httpx.Response(503)
        second.set()
        await asyncio.Event().wait()  # until cancelled
        raise AssertionError("not reached")

    async with mock_client(reply, telemetry=otel.telemetry) as client:
        task = asyncio.create_task(client.shield.get_zone_by_pull_zone(42))
        await second.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    call, attempts = call_and_attempts(otel)
    assert call.attributes["http.request.resend_count"] == 1
    assert call.attributes["error.type"] == "CancelledError"
    assert [span.attributes.get("http.request.resend_count") for span in attempts] == [None, 1]
    assert [span.attributes.get("error.type") for span in attempts] == ["503", "CancelledError"]
    assert attempts[1].status.status_code is StatusCode.ERROR
    assert "http.response.status_code" not in attempts[1].attributes
    assert sum(point.count for point in otel.points("http.client.request.duration")) == 2


async def test_a_retried_download_whose_write_fails_ends_its_attempt_span(
    otel: Otel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write of `to_file` that failed (disk full) on the second attempt left that
    attempt's span open, as a cancellation did."""
    from edgedelivery_async import _schema
    from edgedelivery_async._download import FileSink

    operation = "ContainerRegistry_Get"
    declared = _schema.operations()[operation]
    binary = dataclasses.replace(declared, reply="binary", accept="application/octet-stream")
    monkeypatch.setitem(_schema.operations(), operation, binary)

    def full_disk(self: FileSink, block: bytes) -> None:
        raise SinkFailed("No space left on device")

    monkeypatch.setattr(FileSink, "write", full_disk)
    recorder = Recorder(httpx.Response(503), httpx.Response(200, content=b"body"))
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        with pytest.raises(DownloadError):
            await client.registries.get.to_file(tmp_path / "x.bin", 31)
    call, attempts = call_and_attempts(otel)
    assert call.attributes["http.request.resend_count"] == 1
    assert call.attributes["error.type"] == "SinkFailed"
    assert [span.attributes.get("error.type") for span in attempts] == ["503", "SinkFailed"]
    assert sum(point.count for point in otel.points("http.client.request.duration")) == 2


async def test_a_hook_error_after_a_resend_keeps_the_resend_count(otel: Otel) -> None:
    """The call's span had no resend count: it was read from the error, which for a
    hook's error (or a cancellation) carries none."""

    def refuse(event: Any) -> None:
        if event.status_code == 200:
            raise Broken("on_response")

    recorder = Recorder(httpx.Response(503), OK)
    hooks = Hooks(on_response=refuse)
    async with mock_client(recorder, telemetry=otel.telemetry, hooks=hooks) as client:
        with pytest.raises(HookError):
            await client.shield.get_zone_by_pull_zone(42)
    call, attempts = call_and_attempts(otel)
    assert call.attributes["http.request.resend_count"] == 1
    assert call.attributes["error.type"] == "HookError"
    assert [span.attributes.get("http.response.status_code") for span in attempts] == [503, 200]


async def test_a_redirect_after_a_retry_gives_each_send_one_span(otel: Otel) -> None:
    """Each attempt numbered 1 gave the attempts before the first retry their spans
    again: a redirect followed after a retry exported the first attempt twice."""
    moved = httpx.Response(307, headers={"Location": "/shield/shield-zone/get-by-pullzone/43"})
    recorder = Recorder(httpx.Response(503), moved, OK)
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
    assert len(recorder.requests) == 3
    _, attempts = call_and_attempts(otel)
    assert [span.attributes.get("http.response.status_code") for span in attempts] == [
        503,
        307,
        200,
    ]
    assert [span.attributes.get("http.request.resend_count") for span in attempts] == [None, 1, 2]
    assert sum(point.count for point in otel.points("http.client.request.duration")) == 3


async def test_a_redirect_is_a_resend(otel: Otel) -> None:
    """OpenTelemetry's `http.request.resend_count` counts redirects as well as retries:
    a followed redirect is a second attempt with its own span, numbered 1."""
    moved = httpx.Response(307, headers={"Location": "/shield/shield-zone/get-by-pullzone/43"})
    recorder = Recorder(moved, OK)
    async with mock_client(recorder, telemetry=otel.telemetry) as client:
        await client.shield.get_zone_by_pull_zone(42)
    call, attempts = call_and_attempts(otel)
    assert call.attributes["http.request.resend_count"] == 1
    assert [span.attributes.get("http.response.status_code") for span in attempts] == [307, 200]
    assert [span.attributes.get("http.request.resend_count") for span in attempts] == [None, 1]
