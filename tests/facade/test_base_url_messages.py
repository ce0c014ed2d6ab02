"""Base URL errors repeat what was given, so the mistake can be seen; never the key.

Credentials, a query and a fragment in the given URL are not repeated either, and a key
given as the base URL (the two arguments swapped) is never shown.
"""

from __future__ import annotations

import traceback

import pytest

from edgedelivery_async import ConfigurationError, EdgeDeliveryClient

KEY = "edk-Swapped-5c1d7e9a"


ABSOLUTE = "base_url must be an absolute http:// or https:// URL, got "
NO_EXTRAS = "base_url must not carry credentials, a query or a fragment, got "


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("htps://api.example.com", ABSOLUTE + "'htps://api.example.com'"),
        ("api.example.com", ABSOLUTE + "'api.example.com'"),
        ("https://api.example.com:99999", "base_url 'https://api.example.com:99999' is not a "),
        # port 0 was taken for no port: the calls went to 443
        ("https://api.example.com:0", "base_url 'https://api.example.com:0' cannot be used: "),
        # hosts URL parsers read as IPv4 each their own way (a raw ValueError on reqwest,
        # "sent" on aiohttp, looked up by name on wreq), and an IPv6 zone id
        ("https://999.1.1.1", "base_url 'https://999.1.1.1' cannot be used: its host ends in"),
        ("https://1.2.3.4.5", "base_url 'https://1.2.3.4.5' cannot be used: its host ends in"),
        ("https://127.1", "base_url 'https://127.1' cannot be used: its host ends in a number"),
        ("https://[fe80::1%25eth0]", "base_url 'https://[fe80::1%25eth0]' cannot be used: a %"),
        ("https://user:pw-9f@api.example.com", NO_EXTRAS + "'https://***@api.example.com'"),
        ("https://api.example.com/?token=t-51", NO_EXTRAS + "'https://api.example.com/?...'"),
        ("https://api.exa mple.com", "base_url 'https://api.exa mple.com' cannot be used: "),
        # an empty query or fragment: every call went to "/v1?/pullzone/1", or to "/v1"
        ("https://api.example.com/v1?", NO_EXTRAS + "'https://api.example.com/v1?...'"),
        ("https://api.example.com/v1#", NO_EXTRAS + "'https://api.example.com/v1#...'"),
        ("https://@api.example.com", NO_EXTRAS + "'https://***@api.example.com'"),
        # a raw UnicodeEncodeError at the first call on three transports
        ("https://api.example.com/v1\ud800", "base_url 'https://api.example.com/v1\\ud800' "),
    ],
)
def test_the_message_repeats_what_was_given(given: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        EdgeDeliveryClient(KEY, given)
    assert str(info.value).startswith(message), str(info.value)
    assert "pw-9f" not in str(info.value)
    assert "t-51" not in str(info.value)


def test_a_long_value_is_shortened() -> None:
    with pytest.raises(ConfigurationError) as info:
        EdgeDeliveryClient(KEY, "x" * 500)
    assert str(info.value).endswith("got '" + "x" * 77 + "...'")


def test_swapped_arguments_never_show_the_key() -> None:
    with pytest.raises(ConfigurationError) as info:
        EdgeDeliveryClient("https://api.example.com", KEY)
    assert KEY not in str(info.value)
    assert "swapped" in str(info.value)
    # ... nor the chain: the first message (which held it) was the __context__
    assert KEY not in repr(info.value.__context__)
    assert KEY not in "".join(traceback.format_exception(info.value, chain=True))


@pytest.mark.parametrize("key", [KEY, "edk-" + "k" * 120])
def test_the_key_given_as_the_base_url_too_is_not_shown(key: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        EdgeDeliveryClient(key, key)
    assert key[:20] not in str(info.value)
    assert key[:20] not in repr(info.value.__context__)
    assert str(info.value).endswith("got '***'")


@pytest.mark.parametrize(
    "url",
    ["https://[::ffff:127.0.0.1]:8080", "https://[64:ff9b::192.0.2.1]", "https://192.0.2.1.",
     "https://api.example.com", "https://1e100.net"],
)  # fmt: skip
def test_hosts_that_only_look_numeric_are_accepted(url: str) -> None:
    """The check for hosts that end in a number read IPv6 literals with a dotted IPv4
    part, and a dotted quad with a trailing dot, as such hosts."""
    EdgeDeliveryClient(KEY, url)
