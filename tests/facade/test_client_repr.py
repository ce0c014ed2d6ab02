"""A client's repr shows its base URL, whether a key is set, and every option not at its
default, so `with_options` copies can be told apart. Never the key, nor a credential-like
header's value."""

from __future__ import annotations

import pytest

from edgedelivery_async import EdgeDeliveryClient, Hooks, RetryPolicy, Timeout

KEY = "edk-Repr-Canary-4b7e1d"
BASE = "https://api.example.com"
PLAIN = f"EdgeDeliveryClient(base_url='{BASE}', access_key='***')"


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> EdgeDeliveryClient:
    """A client from both environment variables, as in the issue."""
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", KEY)
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", BASE)
    return EdgeDeliveryClient()


def log_request(event: object) -> None:
    """A hook, named in the repr."""


def test_the_client(client: EdgeDeliveryClient) -> None:
    assert repr(client) == PLAIN


def test_a_copy_shows_what_it_changed(client: EdgeDeliveryClient) -> None:
    copy = client.with_options(timeout=5, max_retries=0)
    assert repr(copy) == (
        f"EdgeDeliveryClient(base_url='{BASE}', access_key='***', "
        f"timeout={Timeout.of(5)!r}, retry={RetryPolicy(max_retries=0)!r})"
    )
    assert repr(copy) != repr(client)


def test_a_tagged_copy_shows_its_headers(client: EdgeDeliveryClient) -> None:
    tagged = client.with_options(headers={"X-Team": "edge"})
    assert repr(tagged) == f"{PLAIN[:-1]}, headers={{'X-Team': 'edge'}})"
    assert repr(tagged.with_options(headers={"X-Team": "core"})) != repr(tagged)


def test_credential_like_header_values_are_masked(client: EdgeDeliveryClient) -> None:
    copy = client.with_options(headers={"X-Api-Token": "tok-9a2f", "X-Team": "edge"})
    assert "tok-9a2f" not in repr(copy)
    assert "'X-Api-Token': '***'" in repr(copy)


def test_hooks_are_named_without_addresses(client: EdgeDeliveryClient) -> None:
    copy = client.with_options(hooks=Hooks(on_request=[log_request]))
    assert repr(copy) == f"{PLAIN[:-1]}, hooks=Hooks(on_request=[log_request]))"
    assert " at 0x" not in repr(copy)


def test_options_given_to_the_client_show_too() -> None:
    client = EdgeDeliveryClient(KEY, BASE, timeout=Timeout(read=10), default_headers={"X-A": "1"})
    assert repr(client) == (
        f"EdgeDeliveryClient(base_url='{BASE}', access_key='***', "
        f"timeout={Timeout(read=10)!r}, headers={{'X-A': '1'}})"
    )


def test_never_the_key(client: EdgeDeliveryClient) -> None:
    for each in (client, client.with_options(timeout=1), client.with_options(headers={"X": "y"})):
        assert KEY not in repr(each)
        assert KEY not in str(each)


def test_a_rate_control_not_at_its_default_is_shown() -> None:
    from edgedelivery_async import RateControl

    plain = EdgeDeliveryClient("k", "https://api.test")
    assert "rate_control" not in repr(plain)
    capped = EdgeDeliveryClient("k", "https://api.test", rate_control=RateControl(max_rate=180))
    assert "rate_control=RateControl(adaptive=True, max_rate=180" in repr(capped)
    assert "rate_control=RateControl(" in repr(capped.with_options(timeout=3))
