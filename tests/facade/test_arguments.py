"""Property: any argument, of any type, to any method of the document, the client
constructor or the bulk helpers gives a result or an SDK error; a refused call sends nothing.

The methods and their parameters come from the document (`OPERATIONS`) and the
generated signatures, never from a hand list.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from typing import Any

import httpx
import pytest
from edgedelivery_openapi.resources import OPERATIONS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedelivery_async import (
    BulkProgress,
    ConfigurationError,
    EdgeDeliveryClient,
    EdgeDeliveryError,
    InvalidRequestError,
    collect,
)

from .conftest import BASE, KEY, Recorder, mock_client


class EvilInt(int):
    """An int whose str() would climb out of the path."""

    def __str__(self) -> str:
        return "../../x"

    __repr__ = __str__


class Opaque:
    """A value no JSON encoder knows."""


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.just(EvilInt(7)),
    st.just("\ud800"),
    st.builds(Opaque),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers()), inner, max_size=3),
    ),
    max_leaves=6,
)

METHODS = sorted(OPERATIONS.items())


def parameters(client: EdgeDeliveryClient, operation_id: str) -> list[inspect.Parameter]:
    resource, method = OPERATIONS[operation_id]
    cls = type(getattr(client, resource))
    return list(inspect.signature(getattr(cls, method)).parameters.values())[1:]


@pytest.mark.parametrize(("operation_id", "where"), METHODS, ids=[m[0] for m in METHODS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_arguments_give_a_result_or_an_sdk_error(
    operation_id: str, where: tuple[str, str], data: st.DataObject
) -> None:
    async def scenario() -> None:
        recorder = Recorder(httpx.Response(200, json={}))
        async with mock_client(recorder, max_retries=0) as client:
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            for parameter in parameters(client, operation_id):
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
                    if parameter.default is inspect.Parameter.empty or data.draw(st.booleans()):
                        kwargs[parameter.name] = data.draw(values)
                else:
                    args.append(data.draw(values))
            try:
                await client.operation(operation_id)(*args, **kwargs)
            except InvalidRequestError:
                assert recorder.requests == [], "a refused call sent a request"
            except EdgeDeliveryError:
                pass
            for request in recorder.requests:
                assert "/../" not in request.url.raw_path.decode()
                assert b"../../x" not in request.url.raw_path

    asyncio.run(scenario())


async def test_an_int_subclass_is_encoded_by_its_value() -> None:
    recorder = Recorder(httpx.Response(200, json={"id": 7}))
    async with mock_client(recorder) as client:
        await client.registries.get(EvilInt(7))
    assert recorder.requests[0].url.raw_path == b"/mc/registries/7"


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": "fast"},
        {"timeout": -1},
        {"timeout": math.nan},
        {"max_retries": -1},
        {"max_retries": "2"},
        {"max_retries": True},
        {"retry": 3},
        {"default_headers": {"X": 1}},
        {"default_headers": ["X"]},
        {"http_client": object()},
        {"max_connections": 0},
        {"max_connections": 2.5},
        {"allow_insecure_http": "yes"},
    ],
    ids=lambda options: next(iter(options)),
)
def test_bad_client_options_are_configuration_errors(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, BASE, **options)


@pytest.mark.parametrize("access_key", [7, b"key", " ", "line\nbreak"])
def test_bad_access_keys_are_configuration_errors(access_key: Any) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(access_key, BASE)


@pytest.mark.parametrize("base_url", [7, "ftp://x", "https://", "https://a b"])
def test_bad_base_urls_are_configuration_errors(base_url: Any) -> None:
    with pytest.raises(ConfigurationError):
        EdgeDeliveryClient(KEY, base_url)


@pytest.mark.parametrize(
    "options",
    [
        {"concurrency": 0},
        {"concurrency": "10"},
        {"concurrency": True},
        {"rate_limit": -1},
        {"rate_limit": "fast"},
        {"progress": "yes"},
        {"progress": print},
    ],
    ids=lambda options: f"{next(iter(options))}={next(iter(options.values()))!r}",
)
async def test_bad_bulk_options_are_sdk_errors(options: dict[str, Any]) -> None:
    recorder = Recorder(httpx.Response(200, json={"data": {}}))
    async with mock_client(recorder) as client:
        with pytest.raises((InvalidRequestError, ConfigurationError)):
            await collect(client.shield.get_zone_by_pull_zone.map([1, 2], **options))


async def test_map_passes_the_other_arguments_to_every_call() -> None:
    """`.map` took only the key: an operation with other required arguments failed for
    every key, and a keyword it does not know was a raw TypeError."""
    recorder = Recorder(httpx.Response(204))
    async with mock_client(recorder) as client:
        bulk = client.pull_zones.set_force_ssl.map([1, 2], hostname="a.example", force_ssl=True)
        outcome = await collect(bulk)
    assert sorted(outcome.values) == [1, 2]
    assert not outcome.errors
    assert sorted(r.url.path for r in recorder.requests) == [
        "/pullzone/1/setForceSSL",
        "/pullzone/2/setForceSSL",
    ]
    assert {r.content for r in recorder.requests} == {b'{"Hostname":"a.example","ForceSSL":true}'}


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({}, "missing a required (keyword-only )?argument: 'hostname'"),  # (3.12's words)
        ({"nope": 1}, "hostname|nope"),
    ],
)
async def test_map_refuses_arguments_the_method_cannot_take_before_any_call(
    arguments: dict[str, Any], said: str
) -> None:
    recorder = Recorder(httpx.Response(204))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError, match=said):
            client.pull_zones.set_force_ssl.map([1, 2], **arguments)
        with pytest.raises(InvalidRequestError, match="'nope'"):
            client.registries.get.map([1], nope=1)
    assert recorder.requests == []
    assert recorder.requests == []


async def test_bulk_progress_must_be_a_progress_object() -> None:
    async with mock_client(Recorder(httpx.Response(200, json={"data": {}}))) as client:
        outcome = await collect(
            client.shield.iter_zones_by_pull_zones([1], progress=BulkProgress())
        )
    assert set(outcome.values) == {1}


async def test_a_problem_with_the_call_itself_is_not_labelled_as_the_body() -> None:
    """An unknown operation id, a wrong argument, `iterate` of an operation that is not
    paginated and `to_file` of a JSON reply said "(body): ...", and the raw request's
    `iterate` named no operation at all."""
    recorder = Recorder(httpx.Response(200, json={}))
    async with mock_client(recorder) as client:
        refusals = [
            lambda: client.call("Nope_Op", 1),
            lambda: client.registries.get(1, foo=2),  # type: ignore[call-arg]
            lambda: anext(client.request.iterate("GET", "/x")),
            lambda: client.registries.get.to_file("unused", 1),
        ]
        for refusal in refusals:
            with pytest.raises(InvalidRequestError) as refused:
                await refusal()
            assert "(body)" not in str(refused.value)
            assert not str(refused.value).startswith(":")
    assert recorder.requests == []
