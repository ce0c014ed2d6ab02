"""Calls the SDK does not wrap: `client.request`, `client.operation`, `client.call`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from edgedelivery_async import InvalidRequestError, NotFoundError, models

from .conftest import KEY, REGISTRY, SHIELD_CONFIG, Recorder, mock_client


async def test_request_sends_a_path_with_params_json_and_headers() -> None:
    recorder = Recorder(httpx.Response(200, json={"Id": 42}))
    async with mock_client(recorder) as client:
        body = await client.request(
            "post",
            "/pullzone/42/purge",
            params={"async": True, "tag": ["a b", "c/d"], "limit": 5},
            json={"Urls": ["https://cdn.example.com/x"]},
            headers={"X-Team": "edge"},
        )
    assert body == {"Id": 42}
    sent = recorder.requests[0]
    assert sent.method == "POST"
    assert sent.url.raw_path == b"/pullzone/42/purge?async=true&tag=a%20b&tag=c%2Fd&limit=5"
    assert sent.headers["AccessKey"] == KEY
    assert sent.headers["X-Team"] == "edge"
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.content == b'{"Urls":["https://cdn.example.com/x"]}'


async def test_request_with_response_and_the_error_tree() -> None:
    recorder = Recorder(httpx.Response(503), httpx.Response(200, json={"ok": True}))
    async with mock_client(recorder) as client:
        reply = await client.request.with_response("GET", "/statistics")
        assert reply.parsed == {"ok": True}
        assert reply.retries_taken == 1  # GET is retried like every operation
        recorder.replies[:] = [httpx.Response(404, json={"Message": "no such zone"})]
        with pytest.raises(NotFoundError, match="no such zone"):
            await client.request("GET", "/pullzone/7")


@pytest.mark.parametrize(
    ("path", "options"),
    [
        ("https://elsewhere.test/x", {}),
        ("//elsewhere.test/x", {}),
        ("relative", {}),
        ("/a/../b", {}),
        # a dot percent-encoded is a dot to a server (RFC 3986): sent as written before
        ("/a/%2e%2e/b", {}),
        ("/a/.%2E/b", {}),
        ("/a/%2e/b", {}),
        ("/a", {"params": {"q": float("nan")}}),  # sent as q=nan before
        ("/a", {"params": {"q": [1.0, float("-inf")]}}),
        ("/a?b=1", {}),
        ("/a\nb", {}),
        ("/a", {"params": {"x": object()}}),
        ("/a", {"params": ["x"]}),
        ("/a", {"json": {"x": float("nan")}}),
        ("/a", {"headers": {"X": "line\nbreak"}}),
        # raw UnicodeEncodeError and ValueError before
        ("/a", {"params": {"q": "\ud800"}}),
        ("/a", {"params": {"\ud800": "x"}}),
        ("/a", {"params": {"page": 10**5000}}),
        ("/a", {"headers": {"X Y": "1"}}),
        ("/a", {"headers": {"Content-Length": "5"}}),
    ],
)
async def test_request_refuses_what_could_leave_the_api(path: str, options: dict[str, Any]) -> None:
    recorder = Recorder(httpx.Response(200, json={}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError) as info:
            await client.request("GET", path, **options)
    assert recorder.requests == []
    str(info.value).encode()  # a lone surrogate given is shown escaped: the message is writable


@pytest.mark.parametrize("method", ["GÉT", "G T", "", 7])
async def test_request_refuses_what_is_no_http_method(method: Any) -> None:
    recorder = Recorder(httpx.Response(200, json={}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError, match="not an HTTP method"):
            await client.request(method, "/a")
    assert recorder.requests == []


async def test_operation_and_call_by_operation_id() -> None:
    recorder = Recorder(httpx.Response(200, json=REGISTRY))
    async with mock_client(recorder) as client:
        registry = await client.call("ContainerRegistry_Get", 31)
        reply = await client.operation("ContainerRegistry_Get").with_response(31)
        assert client.operation("ContainerRegistry_Get").operation_id == "ContainerRegistry_Get"
    assert isinstance(registry, models.ContainerRegistry)
    assert reply.parsed.id == registry.id
    assert [request.url.path for request in recorder.requests] == ["/mc/registries/31"] * 2


async def test_unknown_operation_ids_and_wrong_arguments_are_invalid_requests() -> None:
    recorder = Recorder(httpx.Response(200, json={"data": SHIELD_CONFIG}))
    async with mock_client(recorder) as client:
        with pytest.raises(InvalidRequestError, match="not an operation id"):
            client.operation("NoSuchOperation")
        with pytest.raises(InvalidRequestError):
            await client.call("ShieldZone_GetByPullZone")  # the path parameter is missing
        with pytest.raises(InvalidRequestError):
            await client.call("ShieldZone_GetByPullZone", 1, no_such_argument=2)
    assert recorder.requests == []


class _Says(str):
    """A str subclass whose str() says otherwise than its text (a line break here)."""

    def __str__(self) -> str:
        return "x\r\nEvil: 1"


async def test_headers_and_query_values_are_sent_as_their_text() -> None:
    """Checked by their text but sent as str() said: a header value of a str subclass put
    a line break in the request, a (str, Enum) member went out as its name."""
    import enum

    class Zone(str, enum.Enum):  # noqa: UP042 (not StrEnum: its str() is its value)
        MAIN = "zone-main"

    recorder = Recorder(httpx.Response(200, json={}))
    async with mock_client(recorder, default_headers={"X-Default": _Says("d")}) as client:
        await client.request(
            "GET", "/a", params={"q": _Says("q")}, headers={"X-Zone": Zone.MAIN, "X-A": _Says("a")}
        )
    (request,) = recorder.requests
    assert request.headers["X-Zone"] == "zone-main"
    assert request.headers["X-A"] == "a"
    assert request.headers["X-Default"] == "d"
    assert request.url.query == b"q=q"
