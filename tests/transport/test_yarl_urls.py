"""The aiohttp transport's URLs: an origin parsed once, the path set on it, must be the
URL that parsing the whole string gives (`yarl_url`), for every URL the SDK may send;
a string yarl refuses is refused the same way (`ValueError`, which the transport turns
into `APIConnectionError`; the SDK's own URLs never reach yarl's other errors)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from yarl import URL

from edgedelivery_async._urls import yarl_url

_SEGMENT = st.text(alphabet=st.sampled_from("abcXYZ019-._~!$&'()*+,;=:@%2F20E282AC"), max_size=12)
_HOSTS = st.sampled_from(
    ["api.example.com", "127.0.0.1", "[::1]", "h", "xn--bcher-kva.example", "user@h"]
)
_PORTS = st.sampled_from(["", ":80", ":443", ":8080", ":65535"])
_TAILS = st.sampled_from(["", "?", "?a=1&b=%20", "#", "#f", "?q#f"])


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https"]))
    path = "/".join(draw(st.lists(_SEGMENT, max_size=5)))
    slash = draw(st.sampled_from(["/", "//", ""])) if path else draw(st.sampled_from(["/", ""]))
    return f"{scheme}://{draw(_HOSTS)}{draw(_PORTS)}{slash}{path}{draw(_TAILS)}"


def _view(make: Callable[[], URL]) -> object:
    """What aiohttp reads of a URL (yarl parses some parts lazily), or the refusal."""
    parts = ("scheme", "raw_authority", "raw_host", "port", "raw_path", "raw_query_string")
    try:
        url = make()
        return str(url), [getattr(url, part) for part in (*parts, "raw_fragment")], url
    except Exception as error:  # (yarl's own IndexError for "http://[::1]@?", say)
        return type(error)


def _same(url: str, origins: dict[str, URL]) -> None:
    assert _view(lambda: yarl_url(url, origins)) == _view(lambda: URL(url, encoded=True)), url


@settings(max_examples=400, deadline=None)
@given(st.lists(urls(), min_size=1, max_size=40))
def test_the_url_is_the_one_parsing_the_whole_string_gives(given_urls: list[str]) -> None:
    origins: dict[str, URL] = {}  # shared, as the transport's is: parsed origins are reused
    for url in given_urls + given_urls:
        _same(url, origins)
    assert len(origins) <= 16  # redirects to ever more hosts start the cache afresh


def test_an_origin_is_parsed_once() -> None:
    origins: dict[str, URL] = {}
    first = yarl_url("https://api.example.com/pullzone/1", origins)
    second = yarl_url("https://api.example.com/pullzone/2", origins)
    assert list(origins) == ["https://api.example.com"]
    assert (first.raw_path, second.raw_path) == ("/pullzone/1", "/pullzone/2")


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/a\tb",  # yarl drops tabs and line breaks
        "https://api.example.com/a\r\nb",
        "/rel/http://b/c",  # no origin: "://" in the path
        "rel:x/http://b/c",
    ],
)
def test_what_is_not_an_origin_and_a_path_is_parsed_whole(url: str) -> None:
    origins: dict[str, URL] = {}
    _same(url, origins)
    _same(url, origins)
