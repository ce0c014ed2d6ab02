"""Network settings of the SDK's own transports: `proxy=`, `trust_env=`, `verify=`, `session=`.

Everything is checked when the client is created, so a bad value is a
`ConfigurationError` before anything is sent. What is read from the environment, when:

- proxies (`trust_env` None, the default, or True): `HTTPS_PROXY` for https targets,
  `HTTP_PROXY` for http ones (lowercase forms win), bypassed per `NO_PROXY`, looked up
  once per origin on its first request (`_transport.ProxyTable`). `trust_env=False`
  reads none of them; an explicit `proxy=` replaces them all.
- CA bundle (`trust_env=True` only): `SSL_CERT_FILE` and `SSL_CERT_DIR`, once, when the
  client is created, unless `verify=` names a bundle or a context.

Proxy credentials live in one `Proxy` object whose repr hides them; every message the
SDK writes about a proxy, and the text of every library error it keeps, is passed
through `redact`.
"""

from __future__ import annotations

import os
import re
import ssl
import urllib.request
from base64 import b64encode
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeAlias
from urllib.parse import quote, unquote, urlsplit

from ._exceptions import ConfigurationError
from ._logging import SdkLog

if TYPE_CHECKING:
    from collections.abc import Iterable

    import aiohttp
    from wreq import CertStore

log = SdkLog()

Verify: TypeAlias = "bool | str | os.PathLike[str] | ssl.SSLContext"

CA_FILE_ENV = "SSL_CERT_FILE"
CA_DIR_ENV = "SSL_CERT_DIR"
_SCHEMES = ("http", "https")
_USERINFO = re.compile(r"(?<=://)[^/@\s'\"]+@")
_PEM_CERTIFICATE = re.compile(
    rb"-----BEGIN CERTIFICATE-----\r?\n.+?\r?\n-----END CERTIFICATE-----", re.S
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without URL credentials (`scheme://user:pass@` becomes `scheme://***@`)
    and without any of `secrets`."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return _USERINFO.sub("***@", text)


def _without_userinfo(url: str) -> str:
    """A URL as typed, with anything before its last `@` replaced, to quote in messages."""
    if "@" not in url:
        return url
    start = url.find("://") + 3 if "://" in url else 0
    return url[:start] + "***@" + url.rsplit("@", 1)[1]


class Proxy:
    """A checked http:// or https:// proxy URL; its credentials stay out of reprs."""

    __slots__ = ("_full", "password", "url", "username")

    def __init__(self, url: str, username: str | None, password: str | None) -> None:
        self.url = url  # scheme://host[:port], no credentials
        self.username = username
        self.password = password
        if username is None:
            self._full = url
        else:
            scheme, address = url.split("://", 1)
            userinfo = quote(username, safe="") + ":" + quote(password or "", safe="")
            self._full = f"{scheme}://{userinfo}@{address}"

    @classmethod
    def parse(cls, value: object, *, what: str = "proxy", lenient: bool = False) -> Proxy:
        """Check a proxy URL; `lenient` (environment values) reads `host:port` as http://."""
        if not isinstance(value, str):
            _refuse(f"{what} must be a URL string such as 'http://proxy.internal:3128'")
        text = value.strip()
        if lenient and "://" not in text:
            text = "http://" + text
        shown = _without_userinfo(text)
        if not text.isascii() or not text.isprintable() or " " in text:
            _refuse(f"{what} must be a URL of printable ASCII without spaces")
        try:
            parts = urlsplit(text)
        except ValueError:  # "Invalid IPv6 URL": an unclosed "[" in the host
            _refuse(f"{what} is not a URL ({shown!r})")
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            kind = f"{scheme}://" if "://" in text and scheme else "no scheme"
            _refuse(f"{what} must be an http:// or https:// URL, not {kind} ({shown!r})")
        try:
            port = parts.port  # a ValueError when not a number in 0-65535
        except ValueError:
            port = 0
        if port == 0:
            _refuse(f"{what} has an invalid port ({shown!r})")
        host = parts.hostname
        if not host:
            _refuse(f"{what} has no host ({shown!r})")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            _refuse(f"{what} must be scheme://[user:password@]host[:port] only ({shown!r})")
        address = parts.netloc.rpartition("@")[2].lower()
        username = password = None
        if "@" in parts.netloc:
            username = unquote(parts.username or "")
            password = unquote(parts.password or "")
        return cls(f"{scheme}://{address}", username, password)

    def reveal(self) -> str:
        """The URL with its credentials, for the HTTP library's proxy argument only."""
        return self._full

    def secrets(self) -> tuple[str, ...]:
        """What must never be shown: the password in its plain, encoded and Basic forms."""
        if not self.password:
            return ()
        basic = b64encode(f"{self.username}:{self.password}".encode()).decode()
        return (self.password, quote(self.password, safe=""), basic)

    def __repr__(self) -> str:
        return f"Proxy({redact(self._full)!r})"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class Trust:
    """What TLS certificates to trust: the default store, a bundle, or a caller's context."""

    context: ssl.SSLContext | None = None  # the caller's own
    cafile: str | None = None  # verify=<path>, or SSL_CERT_FILE under trust_env=True
    capath: str | None = None  # SSL_CERT_DIR under trust_env=True
    source: str = "verify"  # what to name in messages

    @property
    def is_default(self) -> bool:
        return self.context is None and self.cafile is None and self.capath is None

    def for_aiohttp(self) -> ssl.SSLContext | bool:
        """aiohttp's `ssl=`: True (its verifying context, built once at import) or a context."""
        if self.context is not None:
            return self.context
        if self.is_default:
            return True
        try:
            return ssl.create_default_context(cafile=self.cafile, capath=self.capath)
        except (OSError, ssl.SSLError, ValueError) as exc:
            _refuse(f"{self.source}: not a usable CA bundle ({type(exc).__name__}: {exc})")

    def for_reqwest(self) -> list[bytes]:
        """PEM certificates to add to the system's roots (rustls cannot use an SSLContext)."""
        if self.context is not None:
            _refuse(
                "transport='reqwest' cannot use an ssl.SSLContext (it verifies with rustls): "
                "pass verify= the path of a CA bundle, or use the default transport"
            )
        files = [Path(self.cafile)] if self.cafile else []
        if self.capath:
            files += sorted(p for p in Path(self.capath).iterdir() if p.is_file())
        found: list[bytes] = []
        for path in files:
            try:
                found += _PEM_CERTIFICATE.findall(path.read_bytes())
            except OSError as exc:
                _refuse(f"{self.source}: cannot read {str(path)!r} ({exc.strerror})")
        if files and not found:
            _refuse(f"{self.source}: no PEM certificate found")
        return found

    def for_wreq(self) -> bool | CertStore:
        """wreq's `tls_verify`: True (wreq's built-in roots), or with `verify=` a store of
        the system's default certificate paths plus the bundle's certificates."""
        if self.context is not None:
            _refuse(
                "transport='wreq' cannot use an ssl.SSLContext (it verifies with BoringSSL): "
                "pass verify= the path of a CA bundle, or use the default transport"
            )
        roots = self.for_reqwest() if self.cafile or self.capath else []
        if not roots:
            return True
        from wreq import CertStore

        return CertStore(pem_certs=[root.decode("ascii") for root in roots], default_paths=True)


@dataclass(frozen=True, slots=True)
class NetworkSettings:
    """Checked `proxy=`, `trust_env=` and `verify=` of one client."""

    proxy: Proxy | None = None
    trust_env: bool | None = None
    trust: Trust = Trust()

    @property
    def proxies_from_env(self) -> bool:
        """Whether HTTP(S)_PROXY/NO_PROXY are read (not with trust_env=False or a proxy=)."""
        return self.proxy is None and self.trust_env is not False

    def secrets(self) -> tuple[str, ...]:
        return () if self.proxy is None else self.proxy.secrets()


DEFAULT = NetworkSettings()


def network_settings(
    *, proxy: object = None, trust_env: object = None, verify: object = True
) -> NetworkSettings:
    """Check the three settings; raise `ConfigurationError` for any bad value."""
    if proxy is None and trust_env is None and verify is True:
        return DEFAULT
    if trust_env is not None and not isinstance(trust_env, bool):
        _refuse("trust_env must be True, False or None")
    checked = Proxy.parse(proxy) if proxy is not None else None
    trust = _trust(verify)
    if trust.is_default and trust_env is True:
        trust = _trust_from_env()
    return NetworkSettings(checked, trust_env, trust)


def check_session(
    session: object,
    *,
    transport: str,
    proxy: object,
    trust_env: object,
    verify: object,
) -> aiohttp.ClientSession:
    """The caller's session, if it can be used as given with these settings."""
    import aiohttp

    if not isinstance(session, aiohttp.ClientSession):
        _refuse("session must be an aiohttp.ClientSession")
    if transport != "aiohttp":
        _refuse(
            f"session= is an aiohttp.ClientSession, so it cannot go with transport={transport!r}"
        )
    given = [
        name
        for name, value, default in (
            ("proxy=", proxy, None),
            ("trust_env=", trust_env, None),
            ("verify=", verify, True),
        )
        if value is not default
    ]
    if given:
        _refuse(
            f"session= is used as given, so {', '.join(given)} cannot apply to it: "
            "set proxies and TLS on the session (or its connector) instead"
        )
    if session.closed:
        _refuse("session= is closed")
    if not getattr(session, "auto_decompress", True):
        _refuse("session= must decompress replies (aiohttp's default, auto_decompress=True)")
    return session


def refuse_with_http_client(
    *, proxy: object, trust_env: object, verify: object, session: object
) -> None:
    """`http_client=` brings its own stack: the SDK's network settings cannot apply to it."""
    if session is not None:
        _refuse("pass either http_client= (httpx) or session= (aiohttp), not both")
    for name, value, default in (
        ("proxy", proxy, None),
        ("trust_env", trust_env, None),
        ("verify", verify, True),
    ):
        if value is not default:
            _refuse(f"{name}= does not apply to your http_client=: set it on the httpx.AsyncClient")


def env_proxies() -> dict[str, Proxy]:
    """The http and https proxies the environment names now, checked.

    Raises `ConfigurationError` naming the variable when one is not a usable proxy URL.
    """
    found = urllib.request.getproxies()
    return {
        scheme: Proxy.parse(
            found[scheme], what=f"{scheme.upper()}_PROXY from the environment", lenient=True
        )
        for scheme in _SCHEMES
        if found.get(scheme)
    }


def _trust(verify: object) -> Trust:
    if verify is True:
        return Trust()
    if verify is False:
        _refuse(
            "verify=False is refused: pass verify= the path of the CA bundle that signed the "
            "server's certificate (or an ssl.SSLContext you configured yourself)"
        )
    if isinstance(verify, ssl.SSLContext):
        if verify.verify_mode == ssl.CERT_NONE or not verify.check_hostname:
            log.warning(
                "verify= is an ssl.SSLContext that does not check certificates or host names "
                "(verify_mode=%s, check_hostname=%s): anyone on the path can read and change "
                "this client's requests, its access key included",
                verify.verify_mode.name,
                verify.check_hostname,
            )
        return Trust(context=verify)
    if isinstance(verify, str | os.PathLike):
        path = os.fspath(verify)
        if not isinstance(path, str) or not path:
            _refuse("verify= must be a path given as str or os.PathLike[str]")
        if not os.path.isfile(path):
            _refuse(f"verify={path!r}: no such CA bundle file")
        return Trust(cafile=path, source=f"verify={path!r}")
    _refuse("verify must be True, the path of a CA bundle, or an ssl.SSLContext")


def _trust_from_env() -> Trust:
    """`SSL_CERT_FILE`/`SSL_CERT_DIR`, read now, for trust_env=True."""
    cafile = os.environ.get(CA_FILE_ENV) or None
    capath = os.environ.get(CA_DIR_ENV) or None
    if cafile is not None and not os.path.isfile(cafile):
        _refuse(f"{CA_FILE_ENV}={cafile!r} (read because trust_env=True): no such file")
    if capath is not None and not os.path.isdir(capath):
        _refuse(f"{CA_DIR_ENV}={capath!r} (read because trust_env=True): no such directory")
    names = " and ".join(
        f"{name}={value!r}"
        for name, value in ((CA_FILE_ENV, cafile), (CA_DIR_ENV, capath))
        if value is not None
    )
    return Trust(cafile=cafile, capath=capath, source=names or "verify")


def _refuse(message: str) -> NoReturn:
    raise ConfigurationError(message)
