"""`EdgeDeliveryClient`: the one object users create."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import re
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, Self, TypeVar

from edgedelivery_openapi.resources import OPERATIONS, Resources

from ._call import BoundEndpoint, Call, Resource, endpoint
from ._engine import CallOptions, Engine, as_given
from ._exceptions import ConfigurationError, InvalidRequestError
from ._hooks import Hooks
from ._http import DEFAULT_MAX_RESPONSE_BYTES, AccessKey, Transport, header_problem
from ._network import Verify, refuse_with_http_client
from ._rate_control import RateControl, RateController
from ._retry import RetryPolicy
from ._runtime import ClientRuntime
from ._schema import Problem
from ._shield import Shield
from ._telemetry import Telemetry
from ._timeouts import Timeout
from ._transport import HttpxTransport, check_limits, make_transport

if TYPE_CHECKING:
    import aiohttp
    import httpx

ACCESS_KEY_ENV = "EDGEDELIVERY_ACCESS_KEY"
BASE_URL_ENV = "EDGEDELIVERY_BASE_URL"


P = ParamSpec("P")
R = TypeVar("R")


def _options_checked(function: Callable[P, R]) -> Callable[P, R]:
    """`function` (the client's constructor or `with_options`), whose wrong arguments (an
    option it does not take, one given by position) are a ConfigurationError that names
    them and lists what it takes, not Python's TypeError."""
    signature = inspect.signature(function)
    takes = [name for name in signature.parameters if name != "self"]
    label = "EdgeDeliveryClient" if function.__name__ == "__init__" else function.__name__

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ConfigurationError(_wrong_options(label, takes, kwargs, exc)) from None
        return function(*args, **kwargs)

    return checked


def _wrong_options(label: str, takes: list[str], given: Mapping[str, Any], exc: Exception) -> str:
    """What is wrong with the arguments given to `label` (names only, never a value)."""
    listed = f"it takes {', '.join(takes)}"
    unknown = [name for name in given if name not in takes]
    if not unknown:  # (too many by position, or one given twice: Python's words, no values)
        return f"{label}: {exc}; {listed}"
    shown = ", ".join(repr(name) for name in unknown)
    message = f"{label} has no option{'s' if len(unknown) > 1 else ''} {shown}"
    renamed = {"with_options": "default_headers", "EdgeDeliveryClient": "headers"}[label]
    if renamed in unknown:  # the extra headers are `headers=` on a copy
        other = "headers" if renamed == "default_headers" else "default_headers"
        message += f" (the extra headers are {other}= here)"
    made = [n for n in unknown if n in _CONSTRUCTOR_ONLY and n != "default_headers"]
    if label == "with_options" and made:
        which = ", ".join(made)
        message += (
            f" ({which}: set when the client is made, EdgeDeliveryClient(...); its copies"
            " share its connection pool and settings)"
        )
    return f"{message}; {listed}"


class _Raw(Resource):
    """The escape hatch: any path of the API, through the same runtime."""

    @endpoint("")
    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Call[Any]:
        """Send `method path` (relative to the base URL) and return the parsed JSON body.

        Same auth, retries, timeouts and error tree as every operation; `params` become
        the query string (lists repeat the name), `json` the body. Nothing is checked
        against the document, so prefer the typed methods where they exist.
        """
        return Call(
            "",
            object,
            query=params if params is not None else {},
            headers=headers if headers is not None else {},
            body=json,
            method=method,
            raw_path=path,
        )


class EdgeDeliveryClient(Resources):
    """Async client for the Edge Delivery Management API.

    `access_key` and `base_url` fall back to EDGEDELIVERY_ACCESS_KEY and
    EDGEDELIVERY_BASE_URL. Without `http_client` the client uses its own aiohttp
    connection pool (fast under concurrency); with one, it sends through that
    `httpx.AsyncClient` (tests inject `httpx.MockTransport` or pytest-httpx this way)
    and still adds its auth header, user agent, retries, timeouts and error mapping.
    Plain `http://` is refused except to loopback, unless `allow_insecure_http=True`.
    `transport` picks the SDK's own stack: "aiohttp" (the default), "wreq" (the `speed`
    extra: the least CPU per request, best under uvloop) or "reqwest" (the `reqwest`
    extra); each has the same guarantees (README, Performance). `max_response_bytes` caps
    a reply read into memory; `max_download_bytes` a body that `method.to_file(...)`
    writes to a file (default: `max_response_bytes`).

    Network settings of the SDK's own transports (README, Network settings): `proxy`
    (an http:// or https:// URL, credentials allowed); `trust_env` (None: HTTP(S)_PROXY
    and NO_PROXY are honoured, as always; True: also SSL_CERT_FILE/SSL_CERT_DIR; False:
    nothing from the environment); `verify` (True, a CA bundle path, or an
    `ssl.SSLContext`); `session`, an `aiohttp.ClientSession` of yours, used as given and
    left open by `aclose()`.
    """

    shield: Shield
    request: BoundEndpoint[..., Any]

    @_options_checked
    def __init__(
        self,
        access_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: Timeout | float | None = None,
        max_retries: int | None = None,
        retry: RetryPolicy | None = None,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        allow_insecure_http: bool = False,
        transport: str = "aiohttp",
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_download_bytes: int | None = None,
        hooks: Hooks | None = None,
        telemetry: Telemetry | None = None,
        proxy: str | None = None,
        trust_env: bool | None = None,
        verify: Verify = True,
        session: aiohttp.ClientSession | None = None,
        rate_control: RateControl | None = None,
    ) -> None:
        if not isinstance(allow_insecure_http, bool):
            raise ConfigurationError("allow_insecure_http must be True or False")
        key = access_key if access_key is not None else os.environ.get(ACCESS_KEY_ENV)
        url = base_url if base_url is not None else os.environ.get(BASE_URL_ENV, "")
        if isinstance(base_url, str) and not base_url.strip():  # (not "no base URL": one was)
            raise ConfigurationError("base_url is empty: pass the API's URL (or leave it out)")
        if http_client is not None and not _is_httpx_client(http_client):
            raise ConfigurationError("http_client must be an httpx.AsyncClient")
        pool = _DEFAULT_POOL if max_connections is None else max_connections
        check_limits(pool, max_response_bytes)
        if rate_control is not None and not isinstance(rate_control, RateControl):
            raise ConfigurationError("rate_control must be a RateControl(...) (or None)")
        stack: Transport
        if http_client is not None:
            refuse_with_http_client(
                proxy=proxy, trust_env=trust_env, verify=verify, session=session
            )
            if transport != "aiohttp" or max_connections is not None:
                which = "transport" if transport != "aiohttp" else "max_connections"
                raise ConfigurationError(
                    f"{which}= does not apply to your http_client=: set its limits on the"
                    " httpx.AsyncClient"
                )
            stack = HttpxTransport(http_client, max_response_bytes=max_response_bytes)
        else:
            stack = make_transport(
                transport,
                max_connections=pool,
                max_response_bytes=max_response_bytes,
                proxy=proxy,
                trust_env=trust_env,
                verify=verify,
                session=session,
            )
        try:
            engine = Engine(
                base_url=url,
                access_key=AccessKey(key) if key != "" and key is not None else None,
                transport=stack,
                allow_insecure_http=allow_insecure_http,
                rate_control=rate_control,
            )
        except ConfigurationError as exc:
            refused: ConfigurationError | None = _without_key(exc, key, url)
        else:
            refused = None
        if refused is not None:  # raised here, the message that held the key is no context
            raise refused
        engine.pool_fixed = max_connections is not None
        options = _options(
            CallOptions(),
            timeout=timeout,
            max_retries=max_retries,
            retry=retry,
            headers=default_headers,
            hooks=hooks,
            telemetry=telemetry,
            max_download_bytes=max_download_bytes,
        )
        self._setup(engine, options, owns_engine=True)

    def _setup(self, engine: Engine, options: CallOptions, *, owns_engine: bool) -> None:
        self._engine = engine
        self._options = options
        self._owns_engine = owns_engine
        runtime = ClientRuntime(engine, options)
        self._bind_resources(runtime)  # one attribute per tag of the document
        self.shield = Shield(runtime)  # the generated one, plus its bulk aliases
        self.request = _Raw(runtime).request

    def operation(self, operation_id: str) -> BoundEndpoint[..., Any]:
        """The method of an operation of the document, by its operationId.

        `await client.operation("ContainerRegistry_Get")(7)` is
        `await client.registries.get(7)`; `.with_response(...)` and `.map(...)` work too.
        """
        named = isinstance(operation_id, str)
        where = OPERATIONS.get(operation_id) if named else None
        if where is None:
            known = ", ".join(sorted(OPERATIONS))
            # (not str() of what is not a string: an int of 5,000 digits raises there)
            shown = operation_id if named else f"<{type(operation_id).__name__}>"
            raise InvalidRequestError(
                shown, [Problem("", f"it is not an operation id; known: {known}", "")]
            )
        resource, method = where
        bound: BoundEndpoint[..., Any] = getattr(getattr(self, resource), method)
        return bound

    async def call(self, operation_id: str, /, *args: Any, **kwargs: Any) -> Any:
        """Call an operation of the document by its operationId; see `operation`."""
        return await self.operation(operation_id)(*args, **kwargs)

    @property
    def base_url(self) -> str:
        """The base URL every path is appended to."""
        return self._engine.base_url

    @property
    def rate_controller(self) -> RateController:
        """The pace of this client's requests (shared by its copies): rate, limit, 429s."""
        return self._engine.rate

    @property
    def timeout(self) -> Timeout:
        """The timeouts of each attempt."""
        return self._options.timeout

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy."""
        return self._options.retry

    @_options_checked
    def with_options(
        self,
        *,
        timeout: Timeout | float | None = None,
        max_retries: int | None = None,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        hooks: Hooks | None = None,
        telemetry: Telemetry | None = None,
        max_download_bytes: int | None = None,
    ) -> EdgeDeliveryClient:
        """A client with other timeouts, retries or extra headers, sharing this connection pool.

        Closing the copy leaves the pool open; close the original when done.
        """
        copy = object.__new__(EdgeDeliveryClient)
        added = _check_headers(headers) if headers is not None else {}
        merged = {**self._options.headers, **added}
        options = _options(
            self._options,
            timeout=timeout,
            max_retries=max_retries,
            retry=retry,
            headers=merged,
            hooks=hooks,
            telemetry=telemetry,
            max_download_bytes=max_download_bytes,
        )
        copy._setup(self._engine, options, owns_engine=False)
        return copy

    async def aclose(self) -> None:
        """Close the connection pool (a caller's own `http_client` or `session` stays open)."""
        if self._owns_engine:
            await self._engine.transport.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        """The base URL, whether a key is set (never the key), and every option not at its
        default, so a `with_options` copy shows what it changed."""
        key = "'***'" if self._engine.access_key else "None"
        shown = [f"base_url={self.base_url!r}", f"access_key={key}"]
        options = self._options
        if options.timeout != _DEFAULTS.timeout:
            shown.append(f"timeout={options.timeout!r}")
        if options.retry != _DEFAULTS.retry:
            shown.append(f"retry={options.retry!r}")
        if options.headers:
            shown.append(f"headers={_shown_headers(options.headers)}")
        if options.hooks != _DEFAULTS.hooks:
            shown.append(f"hooks={_shown_hooks(options.hooks)}")
        if options.telemetry is not None:
            shown.append(f"telemetry={type(options.telemetry).__name__}()")
        if options.max_download_bytes is not None:
            shown.append(f"max_download_bytes={options.max_download_bytes}")
        if self._engine.rate.policy != RateControl():
            shown.append(f"rate_control={self._engine.rate.policy!r}")
        return f"EdgeDeliveryClient({', '.join(shown)})"


_DEFAULTS = CallOptions()
# The constructor's options that a `with_options` copy cannot change.
_CONSTRUCTOR_ONLY = frozenset(
    set(inspect.signature(EdgeDeliveryClient.__init__).parameters)
    - set(inspect.signature(EdgeDeliveryClient.with_options).parameters)
)
# Connections a pool opens unless `max_connections` says; a bulk run's concurrency
# raises it (a `max_connections` the caller set is kept as the most).
_DEFAULT_POOL = 100
# Header names whose values are credentials of some kind: shown as '***' in reprs.
_SECRET_HEADER = re.compile(r"auth|key|token|secret|password|cookie|session|signature", re.I)


def _shown_headers(headers: Mapping[str, str]) -> str:
    """The extra headers for a repr, with the values of credential-like ones masked."""
    return repr({n: "***" if _SECRET_HEADER.search(n) else v for n, v in headers.items()})


def _shown_hooks(hooks: Hooks) -> str:
    """The hooks by their functions' names (a function's repr holds an address)."""
    parts = []
    for kind in ("on_request", "on_response", "on_retry"):
        functions = getattr(hooks, kind)
        if functions:
            names = ", ".join(getattr(f, "__qualname__", type(f).__name__) for f in functions)
            parts.append(f"{kind}=[{names}]")
    return f"Hooks({', '.join(parts)})"


def _without_key(error: ConfigurationError, key: object, url: object) -> ConfigurationError:
    """`error`, without the access key where it was given as the base URL (swapped arguments).

    Base URL errors repeat what was given; never the key. When the key given is a URL,
    the base URL given is most likely the key: it is not repeated at all.
    """
    if not str(error).startswith("base_url "):  # not a message that repeats the base URL
        return error
    if isinstance(key, str) and key.lower().startswith(("http://", "https://")):
        return ConfigurationError(
            "base_url must be an absolute http:// or https:// URL, and the access key given "
            "is one: are the two swapped? EdgeDeliveryClient(access_key, base_url)"
        )
    if not (isinstance(key, str) and key and isinstance(url, str) and key in url):
        return error
    quoted = as_given(url.strip().rstrip("/"))  # as the message quotes it: maybe shortened
    cleaned = as_given(url.replace(key, "***").strip().rstrip("/"))
    return ConfigurationError(str(error).replace(quoted, cleaned).replace(key, "***"))


def _options(
    base: CallOptions,
    *,
    timeout: Timeout | float | None,
    max_retries: int | None,
    retry: RetryPolicy | None,
    headers: Mapping[str, str] | None,
    hooks: Hooks | None = None,
    telemetry: Telemetry | None = None,
    max_download_bytes: int | None = None,
) -> CallOptions:
    policy = retry if retry is not None else base.retry
    if not isinstance(policy, RetryPolicy):
        raise ConfigurationError("retry must be a RetryPolicy")
    if max_retries is not None:  # the 429 retries follow it again (0: none at all)
        policy = dataclasses.replace(policy, max_retries=max_retries, max_rate_limited_retries=None)
    if hooks is not None and not isinstance(hooks, Hooks):
        raise ConfigurationError("hooks must be a Hooks(on_request=..., ...)")
    if telemetry is not None and not callable(getattr(telemetry, "start_call", None)):
        raise ConfigurationError("telemetry must be a telemetry backend such as OpenTelemetry()")
    if max_download_bytes is not None:
        check_limits(1, max_download_bytes, name="max_download_bytes")
    return CallOptions(
        timeout=Timeout.of(timeout) if timeout is not None else base.timeout,
        retry=policy,
        headers=_check_headers(headers) if headers is not None else base.headers,
        hooks=hooks if hooks is not None else base.hooks,
        telemetry=telemetry if telemetry is not None else base.telemetry,
        max_download_bytes=(
            max_download_bytes if max_download_bytes is not None else base.max_download_bytes
        ),
    )


def _check_headers(headers: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(headers, Mapping):
        raise ConfigurationError("headers must be a mapping of strings")
    for name, value in headers.items():
        problem = header_problem(name, value)
        if problem is not None:
            raise ConfigurationError(problem)
    # their text, as checked: a str subclass's str() may say another (a line break, even)
    return {str.__str__(name): str.__str__(value) for name, value in headers.items()}


def _is_httpx_client(value: object) -> bool:
    """Whether `value` is an httpx.AsyncClient (httpx is imported only to ask)."""
    import httpx  # not at import time: a client on aiohttp never needs it

    return isinstance(value, httpx.AsyncClient)
