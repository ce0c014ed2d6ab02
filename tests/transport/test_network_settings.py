"""`proxy=`, `trust_env=`, `verify=` and `session=`, against a real forward proxy and a
TLS server with its own CA, both started by the test on loopback (see `network`)."""

from __future__ import annotations

import asyncio
import gc
import logging
import ssl
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import httpx
import pytest

from edgedelivery_async import (
    APIConnectionError,
    APIStatusError,
    ConfigurationError,
    EdgeDeliveryClient,
)
from edgedelivery_async._engine import USER_AGENT
from edgedelivery_async._network import Proxy, redact
from edgedelivery_async._transport import make_transport

from .loopback import STACKS, LoopbackServer, closed_port, loopback_server
from .network import Certificates, ForwardProxy, forward_proxy, make_ca, tls_server

KEY = "edk-network-7c1f2a"
PASSWORD = "p@ss:w/rd"  # percent-encoded in the proxy URL
ENVIRONMENT = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture(params=STACKS)
def name(request: pytest.FixtureRequest) -> str:
    param: str = request.param
    return param


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    async with loopback_server() as loopback:
        yield loopback


@pytest.fixture
async def tls(certificates: Certificates) -> AsyncIterator[LoopbackServer]:
    async with tls_server(certificates) as loopback:
        yield loopback


@pytest.fixture
async def proxy() -> AsyncIterator[ForwardProxy]:
    async with forward_proxy(password=PASSWORD) as running:
        yield running


def client(name: str, base_url: str, **kwargs: Any) -> EdgeDeliveryClient:
    """A client on the named stack that does not retry (one attempt, one request)."""
    return EdgeDeliveryClient(KEY, base_url, transport=name, max_retries=0, **kwargs)


def shown(error: BaseException) -> str:
    """Everything an error shows: its message, repr and the text of its cause."""
    return f"{error} {error!r} {error.__cause__} {error.__cause__!r}"


def assert_no_password(text: str, password: str = PASSWORD) -> None:
    assert password not in text
    assert quote(password, safe="") not in text


# -- proxy= ------------------------------------------------------------------------------


async def test_http_target_through_the_proxy_with_credentials(
    name: str, server: LoopbackServer, proxy: ForwardProxy
) -> None:
    async with client(name, server.base_url, proxy=proxy.url_with_credentials()) as sdk:
        assert (await sdk.registries.get(31)).id == 31
        assert await sdk.registries.add(display_name="main") == 5

    assert proxy.refused == 0
    assert [(r.method, r.target) for r in proxy.requests] == [
        ("GET", f"{server.base_url}/mc/registries/31"),
        ("POST", f"{server.base_url}/mc/registries"),
    ]
    assert [r.method for r in server.requests] == ["GET", "POST"]
    assert server.header(0, "AccessKey") == [KEY]
    # A plain-http request is forwarded, so the proxy reads it; the key is in it only as
    # the AccessKey header, never in what authenticates to the proxy.
    for seen in proxy.requests:
        assert seen.header("AccessKey") == [KEY]
        assert KEY not in " ".join(seen.header("Proxy-Authorization"))
    assert proxy.relayed.count(KEY.encode()) == 2


async def test_https_target_through_a_connect_tunnel(
    name: str, tls: LoopbackServer, proxy: ForwardProxy, certificates: Certificates
) -> None:
    async with client(
        name,
        tls.base_url,
        proxy=proxy.url_with_credentials(),
        verify=certificates.ca,
        default_headers={"X-Trace": "trace-5e1"},
    ) as sdk:
        assert (await sdk.registries.get(31)).id == 31
        assert (await sdk.registries.get(32)).id == 31

    assert tls.header(0, "AccessKey") == [KEY]
    assert tls.header(1, "X-Trace") == ["trace-5e1"]
    address = tls.base_url.removeprefix("https://")
    assert {(r.method, r.target) for r in proxy.requests} == {("CONNECT", address)}
    # The proxy sees none of the request's headers: not on CONNECT, and not in the bytes
    # it relays (TLS, end to end with the server).
    for seen in proxy.requests:
        names = {header.lower() for header, _ in seen.headers}
        assert "accesskey" not in names
        assert "x-trace" not in names
        assert USER_AGENT not in seen.header("User-Agent")
    for secret in (KEY, "trace-5e1", USER_AGENT, "/mc/registries"):
        assert secret.encode() not in proxy.relayed


async def test_an_https_proxy(
    name: str, server: LoopbackServer, tls: LoopbackServer, certificates: Certificates
) -> None:
    """TLS to the proxy itself, checked with the same `verify=`."""
    async with forward_proxy(password=PASSWORD, tls=certificates.server_context()) as proxy:
        assert proxy.url.startswith("https://")
        settings = {"proxy": proxy.url_with_credentials(), "verify": str(certificates.ca)}
        async with client(name, tls.base_url, **settings) as sdk:
            await sdk.registries.get(31)
        async with client(name, server.base_url, **settings) as sdk:
            await sdk.registries.get(31)
    assert [r.method for r in proxy.requests] == ["CONNECT", "GET"]
    assert len(tls.requests) == len(server.requests) == 1


async def test_wrong_proxy_credentials_are_never_shown(
    name: str, server: LoopbackServer, tls: LoopbackServer, proxy: ForwardProxy,
    certificates: Certificates,
) -> None:  # fmt: skip
    wrong = "wr0ng@secret"
    url = proxy.url_with_credentials(password=wrong)
    async with client(name, tls.base_url, proxy=url, verify=certificates.ca) as sdk:
        with pytest.raises(APIConnectionError) as tunnel:
            await sdk.registries.get(31)
    assert "the proxy refused the tunnel" in str(tunnel.value)
    assert tunnel.value.request_sent is False
    assert_no_password(shown(tunnel.value), wrong)

    async with client(name, server.base_url, proxy=url) as sdk:
        with pytest.raises(APIStatusError) as forwarded:  # the proxy's own 407 reply
            await sdk.registries.get(31)
    assert forwarded.value.status_code == 407
    assert_no_password(shown(forwarded.value), wrong)
    assert proxy.refused == 2
    assert tls.requests == []
    assert server.requests == []


async def test_an_unreachable_proxy(name: str, server: LoopbackServer) -> None:
    url = f"http://sdk:{quote(PASSWORD, safe='')}@127.0.0.1:{closed_port()}"
    async with client(name, server.base_url, proxy=url) as sdk:
        with pytest.raises(APIConnectionError) as info:
            await sdk.registries.get(31)
    assert info.value.request_sent is False
    assert_no_password(shown(info.value))
    assert server.requests == []


def test_the_proxy_password_is_in_no_repr() -> None:
    proxy = Proxy.parse(f"http://sdk:{quote(PASSWORD, safe='')}@proxy.internal:3128")
    assert (proxy.username, proxy.password, proxy.url) == (
        "sdk",
        PASSWORD,
        "http://proxy.internal:3128",
    )
    assert repr(proxy) == "Proxy('http://***@proxy.internal:3128')"
    assert_no_password(repr(proxy) + str(proxy))
    sdk = EdgeDeliveryClient(KEY, "https://api.example.com", proxy=proxy.reveal())
    assert_no_password(repr(sdk) + repr(sdk._engine.transport))
    assert redact("url='https://u:pw@h:1/x'", ["pw"]) == "url='https://***@h:1/x'"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("socks5://u:hidden-pw@proxy:1080", "http:// or https:// URL, not socks5://"),
        ("proxy.internal:3128", "http:// or https:// URL, not no scheme"),
        ("http://", "has no host"),
        ("http://proxy:99999", "invalid port"),
        ("http://u:hidden-pw@proxy:3128/path", "scheme://"),
        ("http://proxy:3128?x=1", "scheme://"),
        ("http://prox y:3128", "without spaces"),
        ("http://u:raw/hidden-pw@proxy:3128", "invalid port ('http://***@proxy:3128')"),
        (3128, "must be a URL string"),
        (b"http://proxy:3128", "must be a URL string"),
        ("http://[::1:3128", "is not a URL"),  # a raw ValueError before
        ("http://u:hidden-pw@[fe80::1:3128", "is not a URL ('http://***@[fe80::1:3128')"),
    ],
)
def test_bad_proxy_values(value: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match="proxy") as info:
        EdgeDeliveryClient(KEY, "https://api.example.com", proxy=value)  # type: ignore[arg-type]
    assert message in str(info.value)
    assert "hidden-pw" not in str(info.value)


# -- trust_env= and the environment ------------------------------------------------------


@pytest.mark.parametrize("trust_env", [None, True])
async def test_proxy_variables_are_honoured(
    name: str,
    server: LoopbackServer,
    proxy: ForwardProxy,
    monkeypatch: pytest.MonkeyPatch,
    trust_env: bool | None,
) -> None:
    """HTTP_PROXY (with credentials) by default, as before, and with trust_env=True."""
    monkeypatch.setenv("HTTP_PROXY", proxy.url_with_credentials())
    async with client(name, server.base_url, trust_env=trust_env) as sdk:
        await sdk.registries.get(31)
    assert [r.method for r in proxy.requests] == ["GET"]
    assert proxy.refused == 0
    assert len(server.requests) == 1


async def test_no_proxy_bypass_under_trust_env(
    name: str, server: LoopbackServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url_with_credentials())
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    async with client(name, server.base_url, trust_env=True) as sdk:
        await sdk.registries.get(31)
    assert proxy.requests == []
    assert len(server.requests) == 1


async def test_https_proxy_variable_for_an_https_target(
    name: str,
    tls: LoopbackServer,
    proxy: ForwardProxy,
    certificates: Certificates,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url_with_credentials())
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")  # not for https
    async with client(name, tls.base_url, trust_env=True, verify=certificates.ca) as sdk:
        await sdk.registries.get(31)
    assert [r.method for r in proxy.requests] == ["CONNECT"]


async def test_trust_env_false_reads_no_proxy_variable(
    name: str, server: LoopbackServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url_with_credentials())
    async with client(name, server.base_url, trust_env=False) as sdk:
        await sdk.registries.get(31)
    assert proxy.requests == []
    assert len(server.requests) == 1


async def test_an_explicit_proxy_replaces_the_environment(
    name: str, server: LoopbackServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with client(name, server.base_url, proxy=proxy.url_with_credentials()) as sdk:
        await sdk.registries.get(31)
    assert [r.method for r in proxy.requests] == ["GET"]


@pytest.mark.parametrize("value", ["socks5://u:hidden-pw@proxy:1080", "http://[::1:3128"])
def test_a_malformed_proxy_variable_is_refused_when_the_client_is_made(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", value)
    with pytest.raises(ConfigurationError, match="HTTPS_PROXY from the environment") as info:
        client(name, "https://api.example.com")
    assert "hidden-pw" not in str(info.value)
    client(name, "https://api.example.com", trust_env=False)  # not read at all


@pytest.mark.parametrize("value", ["yes", 1, 0])
def test_trust_env_must_be_a_bool_or_none(value: object) -> None:
    with pytest.raises(ConfigurationError, match="trust_env must be True, False or None"):
        EdgeDeliveryClient(KEY, "https://api.example.com", trust_env=value)  # type: ignore[arg-type]


# -- verify= and the CA variables --------------------------------------------------------


async def test_an_unknown_ca_fails_with_a_certificate_error(name: str, tls: LoopbackServer) -> None:
    async with client(name, tls.base_url) as sdk:
        with pytest.raises(APIConnectionError) as info:
            await sdk.registries.get(31)
    assert "TLS certificate verification failed" in str(info.value)
    problem = {
        "aiohttp": "unable to get local issuer certificate",
        "wreq": "CERTIFICATE_VERIFY_FAILED",  # BoringSSL's words
    }.get(name, "UnknownIssuer")  # rustls's
    assert problem in str(info.value)
    assert info.value.request_sent is False
    assert tls.requests == []


@pytest.mark.parametrize("form", [str, Path])
async def test_verify_with_a_ca_bundle_path(
    name: str, tls: LoopbackServer, certificates: Certificates, form: type
) -> None:
    async with client(name, tls.base_url, verify=form(certificates.ca)) as sdk:
        assert (await sdk.registries.get(31)).id == 31
    assert tls.header(0, "AccessKey") == [KEY]


async def test_verify_with_an_ssl_context(tls: LoopbackServer, certificates: Certificates) -> None:
    async with client("aiohttp", tls.base_url, verify=certificates.client_context()) as sdk:
        assert (await sdk.registries.get(31)).id == 31


@pytest.mark.parametrize("name", STACKS[1:])
def test_the_rust_transports_refuse_an_ssl_context(name: str, certificates: Certificates) -> None:
    with pytest.raises(ConfigurationError, match=r"cannot use an ssl\.SSLContext"):
        client(name, "https://api.example.com", verify=certificates.client_context())


async def test_trust_env_reads_ssl_cert_file(
    name: str, tls: LoopbackServer, certificates: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates.ca))
    async with client(name, tls.base_url, trust_env=True) as sdk:
        assert (await sdk.registries.get(31)).id == 31


async def test_trust_env_reads_ssl_cert_dir(
    name: str,
    tls: LoopbackServer,
    certificates: Certificates,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    (tmp_path / "test-ca.pem").write_bytes(certificates.ca.read_bytes())
    rehash = ["openssl", "rehash", str(tmp_path)]
    await asyncio.to_thread(subprocess.run, rehash, check=True, capture_output=True)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    async with client(name, tls.base_url, trust_env=True) as sdk:
        assert (await sdk.registries.get(31)).id == 31


async def test_without_trust_env_the_sdk_does_not_read_ssl_cert_file(
    tls: LoopbackServer, certificates: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiohttp's context was built at import; the SDK reads the variable only when asked."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates.ca))
    async with client("aiohttp", tls.base_url) as sdk:
        with pytest.raises(APIConnectionError, match="TLS certificate verification failed"):
            await sdk.registries.get(31)


async def test_an_explicit_verify_wins_over_ssl_cert_file(
    tls: LoopbackServer, certificates: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/bundle.pem")
    async with client("aiohttp", tls.base_url, trust_env=True, verify=certificates.ca) as sdk:
        await sdk.registries.get(31)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("SSL_CERT_FILE", "/nonexistent/bundle.pem", "no such file"),
        ("SSL_CERT_DIR", "/nonexistent/certs", "no such directory"),
    ],
)
def test_trust_env_refuses_missing_ca_locations(
    name: str, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError, match=f"{variable}=.*trust_env=True.*{message}"):
        client(name, "https://api.example.com", trust_env=True)
    client(name, "https://api.example.com")  # not read without trust_env=True


async def test_an_unverifying_context_is_allowed_but_logged_once(
    tls: LoopbackServer, caplog: pytest.LogCaptureFixture
) -> None:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with caplog.at_level(logging.WARNING, logger="edgedelivery_async"):
        async with client("aiohttp", tls.base_url, verify=context) as sdk:
            await sdk.registries.get(31)
            await sdk.registries.get(31)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "does not check certificates" in warnings[0].getMessage()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (False, "verify=False is refused"),
        (None, "verify must be True"),
        (1, "verify must be True"),
        (b"/etc/ssl/certs/ca-certificates.crt", "verify must be True"),
        ("/nonexistent/bundle.pem", "no such CA bundle file"),
        ("", "verify= must be a path"),
    ],
)
def test_bad_verify_values(name: str, value: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        client(name, "https://api.example.com", verify=value)


def test_a_file_that_is_not_a_ca_bundle(name: str, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.pem"
    bundle.write_text("not a certificate\n")
    with pytest.raises(ConfigurationError, match=r"verify=.*bundle\.pem"):
        client(name, "https://api.example.com", verify=bundle)


# -- session= ----------------------------------------------------------------------------


async def test_a_callers_session_is_used_and_left_open(server: LoopbackServer) -> None:
    async with aiohttp.ClientSession(headers={"X-From-Session": "yes"}) as session:
        sdk = EdgeDeliveryClient(KEY, server.base_url, session=session)
        assert (await sdk.registries.get(31)).id == 31
        await sdk.aclose()
        assert not session.closed
        async with EdgeDeliveryClient(KEY, server.base_url, session=session) as again:
            await again.registries.get(31)
        assert not session.closed
        async with session.get(f"{server.base_url}/still-open") as reply:
            assert reply.status == 200
    assert server.header(0, "X-From-Session") == ["yes"]
    assert server.header(0, "AccessKey") == [KEY]
    assert len(server.requests) == 3


async def test_the_sessions_own_proxy_applies(server: LoopbackServer, proxy: ForwardProxy) -> None:
    async with (
        aiohttp.ClientSession(proxy=proxy.url_with_credentials()) as session,
        EdgeDeliveryClient(KEY, server.base_url, session=session) as sdk,
    ):
        await sdk.registries.get(31)
    assert [r.method for r in proxy.requests] == ["GET"]


async def test_a_session_that_raises_for_status_still_gives_sdk_errors(
    server: LoopbackServer,
) -> None:
    from .loopback import status

    server.replies = [status(404, {"title": "Not Found"})]
    async with aiohttp.ClientSession(raise_for_status=True) as session:
        sdk = EdgeDeliveryClient(KEY, server.base_url, session=session, max_retries=0)
        with pytest.raises(APIStatusError) as info:
            await sdk.registries.get(31)
    assert info.value.status_code == 404


async def test_a_closed_session_is_refused(server: LoopbackServer) -> None:
    session = aiohttp.ClientSession()
    sdk = EdgeDeliveryClient(KEY, server.base_url, session=session)
    await session.close()
    with pytest.raises(ConfigurationError, match=r"session= .*is closed"):
        await sdk.registries.get(31)
    with pytest.raises(ConfigurationError, match="session= is closed"):
        EdgeDeliveryClient(KEY, server.base_url, session=session)
    assert server.requests == []


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"transport": "reqwest"}, "cannot go with transport='reqwest'"),
        ({"transport": "wreq"}, "cannot go with transport='wreq'"),
        ({"proxy": "http://proxy:3128"}, "proxy= cannot apply"),
        ({"verify": "/etc/hosts"}, "verify= cannot apply"),
        ({"trust_env": True}, "trust_env= cannot apply"),
    ],
)
async def test_session_conflicts(
    session: aiohttp.ClientSession, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        EdgeDeliveryClient(KEY, "https://api.example.com", session=session, **settings)


async def test_session_and_http_client_conflict(session: aiohttp.ClientSession) -> None:
    async with httpx.AsyncClient() as http_client:
        with pytest.raises(ConfigurationError, match=r"either http_client= .* or session="):
            EdgeDeliveryClient(KEY, "https://x.example", session=session, http_client=http_client)
        for settings in ({"proxy": "http://p:1"}, {"verify": "/etc/hosts"}, {"trust_env": True}):
            with pytest.raises(ConfigurationError, match="does not apply to your http_client="):
                EdgeDeliveryClient(KEY, "https://x.example", http_client=http_client, **settings)


def test_a_session_must_be_an_aiohttp_session() -> None:
    with pytest.raises(ConfigurationError, match=r"session must be an aiohttp\.ClientSession"):
        EdgeDeliveryClient(KEY, "https://x.example", session=object())  # type: ignore[arg-type]


def test_make_transport_checks_the_same_settings() -> None:
    with pytest.raises(ConfigurationError, match="verify=False is refused"):
        make_transport(verify=False)


@pytest.fixture(autouse=True)
def _no_stray_warnings(recwarn: pytest.WarningsRecorder) -> Iterator[None]:
    # Garbage of earlier tests is collected first, so its warnings are not charged here.
    gc.collect()
    recwarn.clear()
    yield
    gc.collect()
    leaked = [w for w in recwarn if issubclass(w.category, ResourceWarning)]
    assert not leaked, [str(w.message) for w in leaked]
