"""The request loop shared by a client and its `with_options` copies.

It owns what every call has in common: the base URL, the access key, the
transport, headers, the retry loop, same-origin redirects, the rate controller that
paces every call of the client to the key's limit (`_rate_control`), and one debug log
line per attempt.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import platform
import string
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from . import _hooks
from ._exceptions import APIConnectionError, ConfigurationError, InvalidRequestError, status_error
from ._hooks import Hooks, RequestEvent, ResponseEvent, RetryEvent
from ._http import (
    DEFAULT_PORTS,
    AccessKey,
    BodySink,
    RawRequest,
    RawResponse,
    Transport,
    header_problem,
    origin,
)
from ._logging import SdkLog
from ._rate_control import RateControl, RateController
from ._retry import RetryPolicy
from ._telemetry import CallInfo, CallTrace, GuardedCall, Telemetry
from ._timeouts import Timeout
from ._version import __version__

log = SdkLog()

USER_AGENT = f"edgedelivery-async/{__version__} (python {platform.python_version()})"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ACCEPT_JSON = {"User-Agent": USER_AGENT, "Accept": "application/json"}
_SEND_JSON = {**_ACCEPT_JSON, "Content-Type": "application/json"}
_MAX_REDIRECTS = 5
# The longest URL every transport sends: hyper (wreq, reqwest) refuses a URI of more than
# 65,534 bytes and httpx one of more than 65,536; aiohttp sends any.
LONGEST_URL = 65_534
# What a followed Location may hold: RFC 3986's characters. Parsers read anything else
# (a backslash, a control character, a space) their own ways: WHATWG's, which the Rust
# transports follow, takes "\" for "/", so "http://other\@api/" named the API to
# urllib and another host (sent the key) to them.
_URI_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")


@dataclass(frozen=True, slots=True)
class CallOptions:
    """Per-client settings that `with_options` may change."""

    timeout: Timeout = field(default_factory=Timeout)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    headers: Mapping[str, str] = field(default_factory=dict)
    hooks: Hooks = field(default_factory=Hooks)
    telemetry: Telemetry | None = None
    max_download_bytes: int | None = None  # `to_file`'s cap; None: max_response_bytes


class Engine:
    """Sends requests for one base URL with one key over one transport."""

    def __init__(
        self,
        *,
        base_url: str,
        access_key: AccessKey | None,
        transport: Transport,
        allow_insecure_http: bool,
        rate_control: RateControl | None = None,
    ) -> None:
        self.base_url = check_base_url(base_url, allow_insecure_http=allow_insecure_http)
        self.access_key = access_key
        self.transport = transport
        self.pool_fixed = False  # the caller set max_connections: bulk runs keep to it
        self.rate = RateController(rate_control if rate_control is not None else RateControl())
        self._origin = origin(self.base_url)

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None,
        requires_key: bool,
        options: CallOptions,
        operation_id: str | None = None,
        template: str | None = None,
        accept: str | None = None,
        content_type: str | None = None,
        sink: BodySink | None = None,
    ) -> Awaitable[RawResponse]:
        """Send with retries; await it for a 2xx reply, or it raises the SDK's error for it.

        `operation_id` and `template` (the document's path) name the call for hooks and
        telemetry; `accept` and `content_type`, the media types the operation declares
        (JSON when None); `sink`, where a 2xx body goes instead of memory (`to_file`).
        (Not a coroutine itself: one coroutine fewer per call on the bulk path.)
        """
        if requires_key and self.access_key is None:
            raise ConfigurationError(
                f"{method} {path} needs an access key: pass access_key= "
                "or set EDGEDELIVERY_ACCESS_KEY (an empty key counts as none)"
            )
        if len(self.base_url) + len(path) > LONGEST_URL:  # (the path is encoded: ASCII)
            raise _too_long(method, operation_id, len(self.base_url), len(path))
        request = RawRequest(
            method,
            self.base_url + path,
            path,
            self._headers(options, body, accept, content_type),
            body,
            self.access_key,  # the transport turns it into the header at its edge
            sink,
        )
        if options.telemetry is None:
            return self._attempts(request, options, operation_id, None)
        scheme, host, port = self._origin
        info = CallInfo(operation_id, method, template, host, port or _PORTS.get(scheme, 443))
        return self._traced(request, options, operation_id, options.telemetry, info)

    async def _traced(
        self,
        request: RawRequest,
        options: CallOptions,
        operation_id: str | None,
        telemetry: Telemetry,
        info: CallInfo,
    ) -> RawResponse:
        """The retry loop inside an OpenTelemetry span.

        The record starts here, in the task that runs the call, and always ends here:
        the backend makes its span the current one and gives the context back at its end.
        """
        trace = GuardedCall(telemetry, info)
        try:
            reply = await self._attempts(request, options, operation_id, trace)
        except BaseException as error:
            trace.end(getattr(error, "status_code", None), error, trace.resends)
            raise
        trace.end(reply.status, None, trace.resends)
        return reply

    async def _attempts(
        self,
        request: RawRequest,
        options: CallOptions,
        operation_id: str | None,
        trace: CallTrace | None,
    ) -> RawResponse:
        """The retry loop: paced attempts, same-origin redirects, retry waits and budget."""
        method, hooks, rate = request.method, options.hooks, self.rate
        retries = redirects = refusals = 0  # refusals: retries of 429s, counted apart
        rate.calls += 1  # (its share of the retry budget)
        while True:
            turn = rate.admit()
            if turn is not None:
                await turn
            event = None
            if hooks.on_request or hooks.on_response or hooks.on_retry:
                try:
                    event = await self._request_hooks(request, hooks, operation_id, retries)
                except BaseException:
                    rate.landed()  # admitted, never sent
                    raise
            if trace is not None:  # (a redirect is a resend too, as OpenTelemetry counts)
                trace.attempt_started(retries + redirects)
            sent_at = time.monotonic()
            try:
                reply = await self.transport.send(request, options.timeout)
            except APIConnectionError as error:
                rate.landed(sent_at)
                error.retries_taken = retries
                if trace is not None:
                    trace.attempt_ended(None, error)
                delay = (
                    options.retry.delay(retries - refusals)
                    if options.retry.retryable_error(method, error)
                    else None
                )
                if delay is not None and not rate.allow_retry():
                    _log_budget_spent(request)
                    delay = None
                _log_failure(request, error, delay, retries, options.retry)
                if delay is None:
                    raise
                retries += 1
                if event is not None and hooks.on_retry:
                    await _hooks.run(hooks.on_retry, RetryEvent(event, retries, delay, error))
                await asyncio.sleep(delay)
                continue
            except BaseException as error:  # cancelled, a failed write to the sink, ...
                rate.landed(sent_at)
                if trace is not None:
                    trace.attempt_ended(None, error)
                raise
            reply.retries_taken = retries
            try:
                rate.observe(reply.status, reply.headers, sent_at)  # a 429 cuts the pace ...
            finally:
                rate.landed(sent_at)  # ... before this request's place passes to a waiter
            if trace is not None:
                trace.attempt_ended(reply.status, None)
            if event is not None and hooks.on_response:
                headers = reply.headers  # (masked: a server may echo the key)
                if request.access_key is not None:
                    headers = request.access_key.masked_headers(headers)
                response = ResponseEvent(event, reply.status, headers, reply.elapsed)
                await _hooks.run(hooks.on_response, response)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "%s %s -> %s in %.1f ms",
                    method,
                    request.shown_path,
                    reply.status,
                    reply.elapsed * 1000,
                )
            if 200 <= reply.status < 300:
                return reply
            unfollowed = None  # why a redirect was not followed
            if reply.status in _REDIRECTS:
                if redirects < _MAX_REDIRECTS:
                    target, unfollowed = self._redirect_target(request, reply)
                    if target is not None:
                        redirects += 1
                        request.url, request.path = target, _path_of(target)
                        continue
                else:
                    unfollowed = (
                        f"not followed: the SDK follows at most {_MAX_REDIRECTS} redirects in a row"
                    )
            delay = None
            if options.retry.retryable_status(method, reply.status):
                if reply.status == 429:
                    delay = options.retry.delay(refusals, reply.retry_after(), rate_limited=True)
                    refusals += delay is not None
                else:
                    delay = options.retry.delay(retries - refusals, reply.retry_after())
                if delay is not None and not rate.allow_retry():
                    _log_budget_spent(request)
                    delay = None
            if delay is None:
                if request.access_key is not None:
                    request.access_key.scrub(reply)
                raise status_error(reply, _error_body(reply), advice=unfollowed)
            log.debug(
                "retrying %s %s in %.2f s after status %s (retry %d of %d)",
                method,
                request.shown_path,
                delay,
                reply.status,
                retries + 1,
                options.retry.max_retries,
            )
            retries += 1
            if event is not None and hooks.on_retry:
                await _hooks.run(hooks.on_retry, RetryEvent(event, retries, delay, reply.status))
            await asyncio.sleep(delay)

    async def _request_hooks(
        self,
        request: RawRequest,
        hooks: Hooks,
        operation_id: str | None,
        attempt: int,
    ) -> RequestEvent:
        """Run the request hooks; the headers they leave are the attempt's headers.

        The URL never holds the key: a redirect to a URL holding it is not followed
        (`_redirect_target`).
        """
        headers = dict(request.headers)
        event = RequestEvent(operation_id, request.method, request.url, headers, attempt)
        if hooks.on_request:
            await _hooks.run(hooks.on_request, event)
            request.headers = _hook_headers(event.headers)
        return event

    def _headers(
        self,
        options: CallOptions,
        body: bytes | None,
        accept: str | None = None,
        content_type: str | None = None,
    ) -> dict[str, str]:
        """The caller's headers, then the SDK's own, which replace any in another case.

        The access key is not among them: it travels as `RawRequest.access_key`, and
        the transport adds the `AccessKey` header at its edge; a caller's header of that
        name is dropped then, so the key the client was given is the only one sent.
        """
        own = _SEND_JSON if body is not None else _ACCEPT_JSON
        if accept is not None and accept != "application/json":  # what the operation declares
            own = {**own, "Accept": accept}
        if content_type is not None and body is not None:  # what the operation declares
            own = {**own, "Content-Type": content_type}
        if not options.headers:  # the common case: nothing of the caller's to merge
            return own  # shared: request headers are replaced, never changed in place
        owned = {name.lower() for name in own}
        if self.access_key is not None:
            owned.add("accesskey")
        headers = {k: v for k, v in options.headers.items() if k.lower() not in owned}
        headers.update(own)
        return headers

    def _redirect_target(
        self, request: RawRequest, reply: RawResponse
    ) -> tuple[str | None, str | None]:
        """A same-origin redirect that keeps the request's meaning, else None and why not
        (for the error's message: the target's origin at most, never its path or query)."""
        location = reply.headers.get("location")
        if not location:
            return None, "not followed: the reply has no Location"
        if request.method != "GET" and reply.status not in (307, 308):
            return None, (
                f"not followed: a {request.method} is redirected only by 307 or 308,"
                f" which keep its method and body"
            )
        location = _as_uri(location)
        try:
            target = "" if location is None else urljoin(request.url, location)
            elsewhere = origin(target) if target else self._origin
        except ValueError:  # an unreadable Location (bad IPv6 literal or port)
            target = ""
            elsewhere = self._origin
        if not target or "@" in urlsplit(target).netloc:
            why = "its Location holds credentials" if target else "its Location is no URI"
            log.warning(
                "not following a redirect of %s %s: %s", request.method, request.shown_path, why
            )
            return None, f"not followed: {why}"
        if elsewhere != self._origin:
            scheme, host, port = elsewhere
            ours = self._origin
            what = "host" if host != ours[1] else "scheme" if scheme != ours[0] else "port"
            host = f"[{host}]" if ":" in host else host
            written = port is not None and port != DEFAULT_PORTS.get(scheme)
            where = f"{scheme}://{host}" + (f":{port}" if written else "")
            if request.access_key is not None:  # (a server may put it anywhere)
                where = request.access_key.masked_text(where)
            log.warning(
                "not following a redirect of %s %s to another %s (%s)",
                request.method,
                request.shown_path,
                what,
                where,
            )
            return None, (
                f"not followed: it points to another {what} ({where}); the SDK follows"
                " redirects only within the API's origin, so the access key is not sent"
                " elsewhere"
            )
        if request.access_key is not None and request.access_key.masked_text(target) != target:
            # The key in a URL would go where URLs go: the server's and proxies' access
            # logs, the caller's own client's hooks, the libraries' errors and frames.
            why = "its Location holds the access key"
            log.warning(
                "not following a redirect of %s %s: %s", request.method, request.shown_path, why
            )
            return None, f"not followed: {why}"
        return target, None


def _as_uri(location: str) -> str | None:
    """A Location as an RFC 3986 URI reference, its non-ASCII text percent-encoded as
    UTF-8 (as browsers do); None when it holds other characters outside RFC 3986."""
    if not location.isascii():
        location = "".join(
            c if c.isascii() else quote(c, encoding="utf-8", errors="surrogateescape")
            for c in location
        )
    return location if _URI_CHARACTERS.issuperset(location) else None


def check_base_url(base_url: str, *, allow_insecure_http: bool) -> str:
    """A usable base URL without a trailing slash; plain http only to loopback or on opt-in."""
    if not isinstance(base_url, str):  # (not its repr: an int of 5,000 digits raises there)
        kind = type(base_url).__name__
        raise ConfigurationError(f"base_url must be a str URL, not a {kind}")
    if not base_url.strip():
        raise ConfigurationError("no base URL: pass base_url= or set EDGEDELIVERY_BASE_URL")
    base_url = base_url.strip().rstrip("/")
    given = as_given(base_url)
    try:
        parts = urlsplit(base_url)
        host = parts.hostname
        port = parts.port  # (raises ValueError for a bad port)
    except ValueError as exc:
        raise ConfigurationError(f"base_url {given} is not a valid URL: {exc}") from None
    if port == 0:  # (the libraries took it for no port at all: the scheme's default)
        raise ConfigurationError(f"base_url {given} cannot be used: port 0 is no port")
    if parts.scheme not in ("http", "https") or not host:
        raise ConfigurationError(
            f"base_url must be an absolute http:// or https:// URL, got {given}"
        )
    if "@" in parts.netloc or "?" in base_url or "#" in base_url:  # (even an empty one:
        # "https://api/v1?" sent every call as "/v1?/pullzone/1", "#" sent none of it)
        raise ConfigurationError(
            f"base_url must not carry credentials, a query or a fragment, got {given}"
        )
    if any(not (char.isprintable() and not char.isspace()) for char in host):
        raise ConfigurationError(
            f"base_url {given} cannot be used: its host has spaces or control chars"
        )
    unusable = _unusable(base_url, host)
    if unusable:
        raise ConfigurationError(f"base_url {given} cannot be used: {unusable}")
    if parts.scheme == "http" and not allow_insecure_http and not _is_loopback(host):
        raise ConfigurationError(
            f"refusing to send the access key over plain http:// to {host} (not loopback); "
            "use https:// or pass allow_insecure_http=True"
        )
    return base_url


def as_given(base_url: str) -> str:
    """The base URL quoted for a message: credentials, query and fragment left out.

    A password, or a token in the query, stays out of messages; so does a long value
    (an access key given as the base URL by mistake is shortened, and redacted by the
    client).
    """
    shown = base_url
    if "@" in shown:  # anything before the last @ may be credentials
        start = shown.find("://") + 3 if "://" in shown else 0
        shown = shown[:start] + "***@" + shown.rsplit("@", 1)[1]
    for mark in "?#":
        if mark in shown:
            shown = shown.split(mark, 1)[0] + mark + "..."
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return repr(shown)


def _unusable(base_url: str, host: str) -> str | None:
    """Why aiohttp (IDNA 2003) or httpx (IDNA 2008, control characters) would refuse it.

    Checked here without importing httpx, which a client that reads through aiohttp
    never needs (it costs 0.1 s of start-up).
    """
    if any(char <= " " or char == "\x7f" for char in base_url):
        return "it contains spaces or control characters"
    if "%" in host:  # (aiohttp, httpx and wreq looked it up by name; reqwest refused it)
        return "a % in its host (an IPv6 zone id, a percent-escape) cannot be used"
    if ":" not in host and _ends_in_a_number(host) and not _is_ipv4(host.removesuffix(".")):
        # URL parsers read such a host as an IPv4 address, each its own way: yarl and
        # pyreqwest refuse "999.1.1.1" or "127.1", httpx some, wreq looks them up
        return "its host ends in a number but is not an IPv4 address like 192.0.2.1"
    try:
        base_url.encode()
    except UnicodeEncodeError:  # (a non-UTF-8 EDGEDELIVERY_BASE_URL decodes to these)
        return "it contains a lone surrogate, not text"
    try:
        if ":" not in host:  # not an IPv6 literal
            host.encode("idna").decode("idna")
            if not host.isascii() or "xn--" in host.lower():
                import idna  # yarl's and httpx's own IDNA 2008 library

                idna.encode(host, uts46=True)
    except UnicodeError as exc:  # idna.IDNAError is a UnicodeError
        return str(exc)
    return None


def _ends_in_a_number(host: str) -> bool:
    """WHATWG's test for a host to be read as IPv4: its last label is a number."""
    labels = host.split(".")
    if len(labels) > 1 and not labels[-1]:
        labels.pop()
    last = labels[-1]
    if last.isascii() and last.isdigit():
        return True
    return last[:2].lower() == "0x" and all(c in string.hexdigits for c in last[2:])


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_PORTS = {"http": 80, "https": 443}


def _too_long(method: str, operation_id: str | None, base: int, path: int) -> InvalidRequestError:
    """The error for a URL no transport but aiohttp would send (neither the base URL nor
    the path is quoted: it is what is too long)."""
    from ._schema import Problem

    message = (
        f"the URL would be {base + path:,} characters long ({base:,} of the base URL,"
        f" {path:,} of the path and query), more than the {LONGEST_URL:,} every transport"
        " sends"
    )
    return InvalidRequestError(operation_id or method, [Problem("", message, "")])


def _hook_headers(headers: Any) -> dict[str, str]:
    """The headers a request hook left: strings only, never an AccessKey of its own."""
    if not isinstance(headers, dict):
        raise _hooks.HookError("a request hook replaced event.headers with a non-dict")
    clean: dict[str, str] = {}
    for name, value in headers.items():
        problem = header_problem(name, value)
        if problem is not None:
            raise _hooks.HookError(f"a request hook set a header that cannot be sent: {problem}")
        if name.lower() != "accesskey":  # (their text, as checked: see _client._check_headers)
            clean[str.__str__(name)] = str.__str__(value)
    return clean


def _log_budget_spent(request: RawRequest) -> None:
    """No retry: the client's retry budget is spent (the error is raised instead)."""
    log.debug("not retrying %s %s: the retry budget is spent", request.method, request.shown_path)


def _path_of(url: str) -> str:
    return urlsplit(url).path or "/"


def _error_body(reply: RawResponse) -> Any:
    """The body of an error reply: JSON when it parses, else text, else None."""
    if not reply.content:
        return None
    try:
        return reply.json()
    except (ValueError, RecursionError):
        return reply.content.decode("utf-8", errors="replace")


def _log_failure(
    request: RawRequest,
    error: APIConnectionError,
    delay: float | None,
    retries: int,
    retry: RetryPolicy,
) -> None:
    if not log.isEnabledFor(logging.DEBUG):
        return
    if delay is None:
        log.debug("%s %s failed: %s (not retried)", request.method, request.shown_path, error)
    else:
        log.debug(
            "retrying %s %s in %.2f s after %s (retry %d of %d)",
            request.method,
            request.shown_path,
            delay,
            type(error).__name__,
            retries + 1,
            retry.max_retries,
        )
