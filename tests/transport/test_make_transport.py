"""Choosing a transport by name, and the limits every transport takes."""

from __future__ import annotations

import sys

import pytest

from edgedelivery_async import APIResponseValidationError, ConfigurationError
from edgedelivery_async._exceptions import ResponseTooLargeError
from edgedelivery_async._http import DEFAULT_MAX_RESPONSE_BYTES
from edgedelivery_async._transport import AiohttpTransport, HttpxTransport, make_transport

from .loopback import STACKS, needs_reqwest, needs_wreq


def test_aiohttp_is_the_default() -> None:
    transport = make_transport(max_connections=7)
    assert isinstance(transport, AiohttpTransport)
    assert transport.max_connections == 7
    assert transport.max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES == 64 * 1024 * 1024


@needs_reqwest
def test_reqwest_by_name() -> None:
    from edgedelivery_async._reqwest import ReqwestTransport

    transport = make_transport("reqwest", max_connections=3, max_response_bytes=1000)
    assert isinstance(transport, ReqwestTransport)
    assert (transport.max_connections, transport.max_response_bytes) == (3, 1000)


@needs_wreq
def test_wreq_by_name() -> None:
    from edgedelivery_async._wreq import WreqTransport

    transport = make_transport("wreq", max_connections=3, max_response_bytes=1000)
    assert isinstance(transport, WreqTransport)
    assert (transport.max_connections, transport.max_response_bytes) == (3, 1000)


def test_unknown_name() -> None:
    with pytest.raises(
        ConfigurationError, match=r"unknown transport 'curl'.*'aiohttp'.*'wreq'.*'reqwest'"
    ):
        make_transport("curl")


@pytest.mark.parametrize("name", [None, 5, ["wreq"], {"wreq": 1}])
def test_a_name_that_is_not_a_string(name: object) -> None:
    with pytest.raises(ConfigurationError, match="unknown transport"):
        make_transport(name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "library", "module", "extra"),
    [("wreq", "wreq", "_wreq", "speed"), ("reqwest", "pyreqwest", "_reqwest", "reqwest")],
)
def test_an_opt_in_transport_without_its_extra(
    monkeypatch: pytest.MonkeyPatch, name: str, library: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, library, None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, f"edgedelivery_async.{module}", raising=False)
    with pytest.raises(ConfigurationError) as info:
        make_transport(name)
    assert f"pip install 'edgedelivery-async[{extra}]'" in str(info.value)
    assert info.value.__cause__ is None


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "10", None])
@pytest.mark.parametrize("name", STACKS)
def test_limits_must_be_positive_integers(name: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_connections must be a positive integer"):
        make_transport(name, max_connections=value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_response_bytes must be a positive integer"):
        make_transport(name, max_response_bytes=value)  # type: ignore[arg-type]


async def test_httpx_transport_takes_a_cap() -> None:
    import httpx

    async with httpx.AsyncClient() as client:
        assert HttpxTransport(client, max_response_bytes=5).max_response_bytes == 5
        with pytest.raises(ConfigurationError):
            HttpxTransport(client, max_response_bytes=0)


def test_too_large_is_a_response_validation_error() -> None:
    assert issubclass(ResponseTooLargeError, APIResponseValidationError)


@needs_reqwest
async def test_reqwest_maps_a_url_its_parser_refuses_to_a_connection_error() -> None:
    """The client refuses such base URLs; this is the transport's own net under that
    (pyreqwest raised a raw ValueError from building the request). Nothing is sent."""
    from edgedelivery_async import APIConnectionError, Timeout
    from edgedelivery_async._http import RawRequest

    transport = make_transport("reqwest")
    try:
        request = RawRequest("GET", "https://999.1.1.1/mc/registries/1", "/mc/registries/1", {})
        with pytest.raises(APIConnectionError, match="the URL is refused") as info:
            await transport.send(request, Timeout(connect=1, read=1, total=2))
    finally:
        await transport.aclose()
    assert info.value.request_sent is False
