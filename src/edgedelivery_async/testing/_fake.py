"""`FakeEdgeDelivery`: the stateful fake API, its seeding, read-back and fault controls."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hmac
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from .._exceptions import ConfigurationError
from .._http import check_access_key
from . import _shapes
from ._app import FakeApp, path_of
from ._document import Document
from ._faults import (
    DroppedConnection,
    FaultRates,
    Faults,
    InjectedStatus,
    ShapedReply,
    UnknownOperation,
    check_times,
)
from ._httpx import FakeTransport
from ._inputs import json_or_none
from ._rate_limit import RateLimit, TokenBuckets
from ._replies import Reply, json_reply, problem
from ._routes import Match, NotAllowed, Route, Router, default_router
from ._shapes import REDACTED, ReplyShape
from ._state import State


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake saw, for asserts.

    Neither the AccessKey value nor any password is kept: `json` has every member named
    `password` (any case), or declared `format: password`, replaced by `"<redacted>"`.
    `content` is the body of an operation whose body is text or binary (not JSON).
    """

    method: str
    path: str
    operation_id: str | None
    headers: dict[str, str] = field(repr=False)  # lower-case names; AccessKey redacted
    json: Any
    status: int | None  # None: the connection was dropped
    fault: str | None = None  # "status", "dropped" or "rate-limited" when injected
    shape: str | None = None  # the reply shape given by `reply_next`, if any
    content: bytes | None = field(default=None, repr=False)  # a text or binary body, as sent


class FakeEdgeDelivery(httpx.AsyncBaseTransport):
    """An in-memory Edge Delivery API for tests: every operation of the document.

    The nine operations of the reference keep state; every other operation of the document
    answers from it (auth, parameter and body validation, then its example or a sample).
    Use it in-process (`httpx.AsyncClient(transport=fake)` or `fake.transport()`) or on
    loopback (`async with fake.serve() as url:`). Seed it with the `add_*` helpers, read
    state back with the accessors, inject faults with `set_faults`, `fail_next` and
    `drop_next`, and have an operation answer as the live service may (a failure in a 2xx
    body, 202 without a result, nulls, ...) with `reply_next`. Injected faults may use
    statuses the document does not declare.
    `document` serves another OpenAPI document (a mapping) instead of the shipped one.
    `request_log_limit` is how many requests `requests` keeps (None: all of them); a
    body over `MAX_RECORDED_BODY` bytes is recorded as a placeholder, not parsed.
    `rate_limit` limits each access key like a real API (a `RateLimit`, or a number of
    requests per second); `set_rate_limit` changes it during a run.
    """

    def __init__(
        self,
        access_key: str = "fake-access-key",
        *,
        seed: int | None = 0,
        pull_zones: int = 0,
        request_log_limit: int | None = 10_000,
        document: Mapping[str, Any] | None = None,
        rate_limit: RateLimit | float | None = None,
    ) -> None:
        check_access_key(access_key)  # (the SDK's own rule: one no client could send is refused)
        _check_count(pull_zones, "pull_zones", MAX_SEEDED)
        if request_log_limit is not None:
            _check_count(request_log_limit, "request_log_limit", None)
        self._buckets: TokenBuckets | None = None
        self._access_key = access_key
        self.state = State()
        self.router = default_router() if document is None else _router_for(document)
        self.app = FakeApp(self.state, access_key, self.router)
        self.faults = Faults(seed, self.router.operation_ids())
        self._log: deque[RecordedRequest] = deque(maxlen=request_log_limit)
        self._lock = threading.RLock()
        self.set_rate_limit(rate_limit)
        self._transport = FakeTransport(self)
        if pull_zones:
            self.seed_pull_zones(pull_zones)

    def __repr__(self) -> str:
        s = self.state
        return (
            f"<FakeEdgeDelivery pull_zones={len(s.pull_zones)} scripts={len(s.scripts)} "
            f"apps={len(s.apps)} registries={len(s.registries)} "
            f"shield_zones={len(s.shield_zones)} requests={len(self._log)}>"
        )

    @property
    def access_key(self) -> str:
        """The key the fake accepts in the `AccessKey` header."""
        return self._access_key

    # ------------------------------------------------------------------ seeding
    def add_pull_zone(self, id: int | None = None, hostnames: list[str] | None = None) -> int:
        """Add a pull zone; hostnames default to `[f"pz{id}.example.test"]`."""
        with self._lock:
            return self.state.add_pull_zone(id, hostnames)

    def add_script(self, id: int | None = None) -> int:
        """Add a compute script (next free integer id by default)."""
        if id is not None:
            _check_count(id, "a script id", None)
        with self._lock:
            return self.state.add_script(id)

    def add_app(self, id: str | None = None) -> str:
        """Add a container application (`app-N` by default)."""
        if id is not None and not (isinstance(id, str) and id):
            raise ConfigurationError(f"an app id is a non-empty string, not {id!r}")
        with self._lock:
            return self.state.add_app(id)

    def add_template(self, app_id: str, template: Mapping[str, Any] | None = None) -> str:
        """Add a container template as ContainerTemplate_Add would; returns its id.

        `template` is a request body (validated against the document); by default
        `{"name": "app", "image": "nginx:latest"}`.
        """
        if template is not None and not isinstance(template, Mapping):
            raise ConfigurationError(f"template is a ContainerTemplate_Add body, not {template!r}")
        if app_id not in self.state.apps:
            raise ConfigurationError(f"no app {app_id!r}: add it with add_app first")
        body = dict(template or {"name": "app", "image": "nginx:latest"})
        schema = self.router.route_for("ContainerTemplate_Add").operation.body_schema or {}
        problems = self.router.document.validate(schema, body)
        if problems:
            raise ConfigurationError("; ".join(map(str, problems)))
        properties = set(self.router.document.deref(schema).get("properties", {}))
        with self._lock:
            return str(self.state.add_template(app_id, body, properties)["id"])

    def add_shield_zone(
        self,
        pull_zone_id: int,
        id: int | None = None,
        *,
        upload_scanning: bool = False,
        **config: Any,
    ) -> int:
        """Bind a shield zone to a pull zone; keyword arguments override 2.7 fields."""
        _check_id(pull_zone_id, "a pull zone id")
        if id is not None:
            _check_id(id, "a shield zone id")
        if not isinstance(upload_scanning, bool):
            raise ConfigurationError(f"upload_scanning is a bool, not {upload_scanning!r}")
        with self._lock:
            return self.state.add_shield_zone(
                pull_zone_id, id, upload_scanning=upload_scanning, **config
            )

    def add_registry(
        self,
        display_name: str = "registry",
        *,
        host_name: str = "registry.example.test",
        user_name: str = "deploy",
        password: str = "",
        is_public: bool = False,
    ) -> int:
        """Add a container registry; returns its integer id."""
        texts = {"display_name": display_name, "host_name": host_name, "user_name": user_name}
        for name, value in {**texts, "password": password}.items():
            if not isinstance(value, str):
                raise ConfigurationError(f"{name} is a string, not {type(value).__name__}")
        if not isinstance(is_public, bool):
            raise ConfigurationError(f"is_public is a bool, not {is_public!r}")
        with self._lock:
            return self.state.add_registry(
                display_name,
                host_name=host_name,
                user_name=user_name,
                password=password,
                is_public=is_public,
            )

    def seed_pull_zones(self, count: int) -> None:
        """Pull zones 1..count, hostname `pz{id}.example.test`, shield zone `100000 + id`."""
        _check_count(count, "count", MAX_SEEDED)
        with self._lock:
            self.state.seed_pull_zones(count)

    def set_upload_scanning(self, shield_zone_id: int, enabled: bool) -> None:
        """Turn upload scanning on or off for a shield zone."""
        if not isinstance(enabled, bool):
            raise ConfigurationError(f"enabled is a bool, not {enabled!r}")
        with self._lock:
            _found(self.state.shield_zones, shield_zone_id, "shield zone")
            self.state.upload_scanning[shield_zone_id] = enabled

    # ---------------------------------------------------------------- read-back
    def force_ssl(self, pull_zone_id: int, hostname: str) -> bool:
        """The Force SSL flag of one hostname of a pull zone."""
        zone = _found(self.state.pull_zones, pull_zone_id, "pull zone")
        stored = zone.hostname(hostname) if isinstance(hostname, str) else None
        if stored is None:
            raise KeyError(f"pull zone {pull_zone_id} has no hostname {hostname!r}")
        return zone.force_ssl[stored]

    def hostnames(self, pull_zone_id: int) -> dict[str, bool]:
        """Every hostname of a pull zone with its Force SSL flag."""
        return dict(_found(self.state.pull_zones, pull_zone_id, "pull zone").force_ssl)

    def script_variables(self, script_id: int) -> list[dict[str, Any]]:
        """The variables of a script, in the order they were added."""
        return copy.deepcopy(_found(self.state.scripts, script_id, "script"))

    def dns_zones(self) -> list[dict[str, Any]]:
        """Every DNS zone as created (`Id`, `Domain`, `Records`)."""
        return copy.deepcopy(list(self.state.dns_zones.values()))

    def template(self, app_id: str, container_id: str) -> dict[str, Any]:
        """A container template as the API returns it."""
        templates = _found(self.state.apps, app_id, "app")
        return copy.deepcopy(_found(templates, container_id, "container template"))

    def templates(self, app_id: str) -> list[dict[str, Any]]:
        """Every container template of an app."""
        return copy.deepcopy(list(_found(self.state.apps, app_id, "app").values()))

    def environment(self, app_id: str, container_id: str) -> dict[str, str]:
        """A template's environment variables as a name -> value mapping (an item without
        a name is left out, one without a value reads as an empty string)."""
        template = _found(_found(self.state.apps, app_id, "app"), container_id, "container")
        variables = template.get("environmentVariables") or []
        return {
            item["name"]: item.get("value") or ""
            for item in variables
            if isinstance(item, dict) and isinstance(item.get("name"), str)
        }

    def registry(self, registry_id: int) -> dict[str, Any]:
        """A registry record as ContainerRegistry_Get returns it (no whole password)."""
        return _found(self.state.registries, registry_id, "registry").record()

    def has_registry_password(self, registry_id: int, password: str) -> bool:
        """Whether a registry holds this password (the fake never shows it whole)."""
        if not isinstance(password, str):
            raise ConfigurationError(f"password is a string, not {type(password).__name__}")
        stored = _found(self.state.registries, registry_id, "registry").password
        return hmac.compare_digest(stored.encode(), password.encode())

    def shield_zone(self, pull_zone_id: int) -> dict[str, Any]:
        """The shield zone configuration bound to a pull zone."""
        return copy.deepcopy(self.state.shield_zones[self.shield_zone_id_for(pull_zone_id)])

    def shield_zone_id_for(self, pull_zone_id: int) -> int:
        """The id of the shield zone bound to a pull zone."""
        return _found(self.state.shield_by_pull_zone, pull_zone_id, "shield zone for pull zone")

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests seen so far (the most recent `request_log_limit`), oldest first."""
        with self._lock:
            return list(self._log)

    def requests_for(self, operation_id: str) -> list[RecordedRequest]:
        """The recorded requests of one operation."""
        return [item for item in self.requests if item.operation_id == operation_id]

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self._log.clear()

    # ------------------------------------------------------------------- faults
    def set_faults(
        self,
        *,
        latency: float = 0.0,
        rate_429: float = 0.0,
        rate_500: float = 0.0,
        rate_503: float = 0.0,
        drop_rate: float = 0.0,
        retry_after: int | None = 1,
        operation_id: str | None = None,
    ) -> None:
        """Set latency and failure shares for all operations, or override one operationId."""
        rates = FaultRates(latency, rate_429, rate_500, rate_503, drop_rate, retry_after)
        with self._lock:
            self.faults.set_rates(rates, operation_id)

    def fail_next(
        self,
        operation_id: str | None = None,
        status: int = 503,
        times: int = 1,
        retry_after: int | None = None,
    ) -> None:
        """Answer the next `times` requests (of one operation, or any) with `status`."""
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            raise ConfigurationError(f"an injected status must be 4xx or 5xx, not {status!r}")
        if retry_after is not None and (
            isinstance(retry_after, bool) or not isinstance(retry_after, int) or retry_after < 0
        ):
            raise ConfigurationError(
                f"retry_after must be whole seconds (or None), not {retry_after!r}"
            )
        with self._lock:
            self.faults.queue(InjectedStatus(status, retry_after), operation_id, times)

    def drop_next(
        self, operation_id: str | None = None, times: int = 1, *, after_processing: bool = False
    ) -> None:
        """Drop the connection of the next `times` requests without a reply.

        With `after_processing` the request takes effect first (a lost reply).
        """
        with self._lock:
            self.faults.queue(DroppedConnection(after_processing), operation_id, times)

    def reply_next(self, operation_id: str, shape: ReplyShape, times: int = 1) -> None:
        """Give the next `times` requests of `operation_id` a reply shape.

        Shapes (each read from the document; one that does not apply raises ValueError):
        `"success"` (unchanged), `"failure-in-body"` (a 2xx whose body reports failure by
        the success schema's `x-sdk-result`), `"accepted"` (202 with the accepted-result
        example), `"nulls"` (every member null, objects nulled inside), `"unknown-enum"`
        (enum members given a value the document does not list), `"lowercase-timestamps"`
        (`date-time` members with lowercase `t` and `z`). The request is handled first:
        one the fake refuses (auth, validation, not found) is answered as usual and uses
        up the shape (the queue stays first in, first out), and a failure or accepted
        reply leaves the state unchanged. Queued with `fail_next` and
        `drop_next`, first in first out; `clear_faults` forgets it.
        """
        check_times(times)
        with self._lock:
            why = _shapes.refusal(self._route(operation_id), self.router.document, shape)
            if why is not None:
                raise ValueError(why)
            self.faults.queue(ShapedReply(shape), operation_id, times)

    def shapes_for(self, operation_id: str) -> tuple[ReplyShape, ...]:
        """The reply shapes `reply_next` accepts for an operation (read from the document)."""
        return _shapes.shapes_for(self._route(operation_id), self.router.document)

    def clear_faults(self) -> None:
        """No latency, no failure shares, nothing queued."""
        with self._lock:
            self.faults.clear()

    # --------------------------------------------------------------- rate limit
    def set_rate_limit(self, rate_limit: RateLimit | float | None) -> None:
        """Limit each key to a `RateLimit` (a number: that many per second), or None.

        A key keeps the tokens it has (at most the new burst): setting a limit again
        never hands out a fresh burst."""
        if rate_limit is None:
            buckets = None
        else:
            limit = rate_limit if isinstance(rate_limit, RateLimit) else RateLimit(rate_limit)
            buckets = TokenBuckets(limit)
        with self._lock:
            if buckets is not None and self._buckets is not None:
                buckets.carry_over(self._buckets)
            self._buckets = buckets

    @property
    def rate_limit(self) -> RateLimit | None:
        """The limit in force (None: unlimited)."""
        return self._buckets.limit if self._buckets is not None else None

    @property
    def rate_limited(self) -> int:
        """429 replies the rate limit has given since it was set."""
        return self._buckets.refused if self._buckets is not None else 0

    # ------------------------------------------------------------------ serving
    def handle(self, method: str, raw_path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one request synchronously, without faults and without recording it."""
        with self._lock:
            return self.app.handle(method, raw_path, headers, body)

    async def respond(
        self, method: str, raw_path: str, headers: Mapping[str, str], body: bytes | None
    ) -> Reply | DroppedConnection:
        """Answer one request with faults applied and record it; used by the adapters.

        `body` is None when the adapter could not read it: a 400 of the operation's
        family. A request with the AccessKey header twice is refused with 401 (which
        one would count?)."""
        method = method.upper()
        lowered = {name.lower(): value for name, value in headers.items()}
        resolved = self.router.resolve(method, raw_path)
        if isinstance(resolved, Match) and (body is None or _keys_given(headers) > 1):
            status, message = (
                (400, "The request body could not be read.")
                if body is None
                else (401, "The AccessKey header is given more than once.")
            )
            with self._lock:
                reply = self.app.error(
                    resolved.route, status, message, raw_path, key="fake.refused"
                )
            self._record(method, raw_path, resolved.route.operation_id, lowered, b"", status, None)
            return reply
        body = body or b""
        fault = None
        limited: tuple[tuple[str, str], ...] = ()
        if isinstance(resolved, Match) and self._buckets is not None:
            with self._lock:
                allowed, limited = self._buckets.take(lowered.get("accesskey", ""))
                if not allowed:
                    reply = self.app.error(
                        resolved.route, 429, "Rate limit exceeded.", raw_path,
                        key="fake.rate_limited", headers=limited,
                    )  # fmt: skip
            if not allowed:
                refused = resolved.route.operation_id
                self._record(method, raw_path, refused, lowered, body, 429, "rate-limited")
                return reply
        if isinstance(resolved, Match):
            with self._lock:
                decision = self.faults.decide(resolved.route.operation_id)
            if decision.latency:
                await asyncio.sleep(decision.latency)
            fault = decision.fault
        operation_id = resolved.route.operation_id if isinstance(resolved, Match) else None
        if isinstance(fault, DroppedConnection) and not fault.after_processing:
            self._record(method, raw_path, operation_id, lowered, body, None, "dropped")
            return fault
        shape = fault.shape if isinstance(fault, ShapedReply) else None
        with self._lock:
            if isinstance(fault, InjectedStatus) and isinstance(resolved, Match):
                extra = (
                    () if fault.retry_after is None else (("Retry-After", str(fault.retry_after)),)
                )
                reply = self.app.error(
                    resolved.route, fault.status, "Injected fault.", raw_path,
                    key="fake.injected_fault", headers=extra,
                )  # fmt: skip
            else:
                reply = self._answer(method, raw_path, resolved, lowered, body, shape)
        if isinstance(fault, DroppedConnection):
            self._record(method, raw_path, operation_id, lowered, body, None, "dropped")
            return fault
        self._record(
            method, raw_path, operation_id, lowered, body, reply.status,
            "status" if isinstance(fault, InjectedStatus) else None, shape,
        )  # fmt: skip
        if limited:
            reply = Reply(reply.status, (*reply.headers, *limited), reply.body)
        return reply

    def _answer(
        self,
        method: str,
        raw_path: str,
        resolved: Match | NotAllowed | None,
        headers: dict[str, str],
        body: bytes,
        shape: str | None,
    ) -> Reply:
        """The app's reply; a fault of the fake itself (state a test seeded oddly) is a
        500 in the operation's family, recorded as any reply, not an exception."""
        try:
            if shape is not None and isinstance(resolved, Match):
                return self.app.shaped(shape, method, raw_path, resolved, headers, body)
            return self.app.answer(method, raw_path, resolved, headers, body)
        except Exception as exc:  # (any fault of the fake's own becomes a 500)
            message = f"The fake failed: {type(exc).__name__}."
            if isinstance(resolved, Match):
                return self.app.error(resolved.route, 500, message, raw_path, key="fake.failed")
            return json_reply(500, problem(500, message, path_of(raw_path)))

    def transport(self) -> FakeTransport:
        """An httpx transport answering from this fake, for `httpx.AsyncClient(transport=...)`."""
        return self._transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The fake is itself an httpx transport (see `FakeTransport`)."""
        return await self._transport.handle_async_request(request)

    def serve(
        self, host: str = "127.0.0.1", port: int = 0
    ) -> contextlib.AbstractAsyncContextManager[str]:
        """`async with fake.serve() as url:` serves on loopback; port 0 picks a free port."""
        from ._server import serve

        if not (isinstance(host, str) and host):
            raise ConfigurationError(f"host is a host name or address, not {host!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ConfigurationError(f"port is a whole number from 0 to 65535, not {port!r}")
        return serve(self, host, port)

    def _record(
        self,
        method: str,
        raw_path: str,
        operation_id: str | None,
        headers: dict[str, str],
        body: bytes,
        status: int | None,
        fault: str | None,
        shape: str | None = None,
    ) -> None:
        shown = {k: (REDACTED if k == "accesskey" else v) for k, v in headers.items()}
        payload: Any = None
        content: bytes | None = None
        if len(body) > MAX_RECORDED_BODY:
            payload = f"<a body of {len(body):,} bytes, not kept>"
        elif operation_id is not None:  # (no path of the document: nothing reads the body)
            operation = self.router.route_for(operation_id).operation
            schema = operation.body_schema
            payload = _shapes.redact_passwords(self.router.document, schema, json_or_none(body))
            if operation.body_kind != "json":  # text or bytes: no members to redact
                content = body
        entry = RecordedRequest(
            method, raw_path, operation_id, shown, payload, status, fault, shape, content
        )
        with self._lock:
            self._log.append(entry)

    def _route(self, operation_id: str) -> Route:
        try:
            return self.router.route_for(operation_id)
        except (KeyError, TypeError):
            known = ", ".join(sorted(self.router.operation_ids()))
            message = f"unknown operation id {operation_id!r}; known: {known}"
            raise UnknownOperation(message) from None


_V = TypeVar("_V")

#: The most pull zones `pull_zones=` and `seed_pull_zones` make (as `serve`'s option).
MAX_SEEDED = 1_000_000
#: A request body longer than this is recorded as a placeholder: a log of 10,000
#: requests must not keep gigabytes of parsed JSON.
MAX_RECORDED_BODY = 1 << 20


def _check_count(value: object, name: str, most: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} is a whole number of 0 or more, not {value!r}")
    if most is not None and value > most:
        raise ConfigurationError(f"{name} is at most {most:,}, not {value:,}")


def _check_id(value: object, what: str) -> None:
    """An id the fake serves as the document's integer (a string or 1.5 was served as
    the id, and the next id drawn, max() + 1, was a TypeError)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{what} is a whole number of 1 or more, not {value!r}")


def _found(store: Mapping[Any, _V], key: Any, what: str) -> _V:
    """`store[key]`, or a KeyError that says what was not found."""
    try:
        return store[key]
    except (KeyError, TypeError):  # (TypeError: an unhashable key)
        raise KeyError(f"no {what} {key!r}") from None


def _router_for(document: object) -> Router:
    """A router for a caller's document; a ConfigurationError for one the fake cannot serve."""
    if not isinstance(document, Mapping):
        raise ConfigurationError(f"document is an OpenAPI document (a mapping), not {document!r}")
    try:
        given = Document(document)
        given.check_refs()  # (a cycle of $refs, or one to nothing, failed a request later)
        for path_item in given.spec.get("paths", {}).values():
            given.inline(path_item)  # (a recursive schema: its requests raised ValueError)
        router = Router(given)  # (reads every operation: a fault shows here)
    except ConfigurationError:
        raise
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        message = f"cannot serve this document: {type(exc).__name__}: {exc}"
        raise ConfigurationError(message) from None
    return router


def _keys_given(headers: Mapping[str, str]) -> int:
    """How many AccessKey fields a request has (multidict's or httpx's headers, or a dict)."""
    getall = getattr(headers, "getall", None)
    if callable(getall):
        return len(getall("AccessKey", ()))
    get_list = getattr(headers, "get_list", None)
    if callable(get_list):
        return len(get_list("AccessKey"))
    return sum(1 for name in headers if name.lower() == "accesskey")
