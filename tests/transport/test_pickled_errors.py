"""The SDK's errors pickle, on every transport, so a process pool can send them back.

They did not: aiohttp's and the Rust libraries' header maps do not pickle, and the
errors' constructors take other arguments than their message, so unpickling failed.
"""

from __future__ import annotations

import pickle

import pytest

from edgedelivery_async import (
    APIConnectionError,
    ConfigurationError,
    DownloadError,
    EdgeDeliveryClient,
    InvalidRequestError,
    NotFoundError,
)

from .loopback import EVERY_TRANSPORT, LoopbackServer, closed_port, loopback_server, open_client
from .loopback import status as reply_with

KEY = "edk-pickle-1b2c3d"


@pytest.fixture
async def server() -> LoopbackServer:  # type: ignore[misc]
    async with loopback_server() as loopback:
        yield loopback


def round_trip(error: BaseException) -> BaseException:
    copy: BaseException = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    return copy


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_status_error_pickles(name: str, server: LoopbackServer) -> None:
    server.replies = [reply_with(404, {"Message": "no such registry"}, **{"X-Request-Id": "r-1"})]
    async with open_client(name, KEY, server.base_url, max_retries=0) as client:
        with pytest.raises(NotFoundError) as info:
            await client.registries.get(31)
    copy = round_trip(info.value)
    assert isinstance(copy, NotFoundError)
    assert (copy.status_code, copy.message, copy.body) == (404, "no such registry", info.value.body)
    assert copy.headers["x-request-id"] == "r-1"
    assert copy.response.status_code == 404


@pytest.mark.parametrize("name", EVERY_TRANSPORT)
async def test_a_connection_error_pickles(name: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    async with open_client(name, KEY, url, max_retries=0) as client:
        with pytest.raises(APIConnectionError) as info:
            await client.registries.get(31)
    copy = round_trip(info.value)
    assert isinstance(copy, APIConnectionError)
    assert copy.request_sent is info.value.request_sent is False


async def test_the_other_errors_pickle() -> None:
    with pytest.raises(ConfigurationError) as config:
        EdgeDeliveryClient(KEY, "ftp://nowhere")
    round_trip(config.value)
    async with EdgeDeliveryClient(KEY, "https://api.invalid") as client:
        with pytest.raises(InvalidRequestError) as invalid:
            await client.registries.get("")
    assert round_trip(invalid.value).errors == invalid.value.errors  # type: ignore[attr-defined]
    download = round_trip(DownloadError("/tmp/x", "disk full"))
    assert (download.filename, download.reason) == ("/tmp/x", "disk full")  # type: ignore[attr-defined]
