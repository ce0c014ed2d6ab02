"""The framework-free core of the fake: (method, raw path, headers, body) -> Reply.

Routing, authentication, path-parameter and body validation all come from the document;
the operations' effects live in `_state`. Adapters (`_httpx`, `_server`) only translate.
"""

from __future__ import annotations

import hmac
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from edgedelivery_async import _schema

from . import _replies as r
from ._replies import Reply
from ._routes import Match, NotAllowed, Route, deref, resolve
from ._state import Conflict, NotFound, State

_INTEGER_RE = re.compile(r"^-?[0-9]+$")
_MAX_ERRORS = 20


class _BadRequest(Exception):
    """A request the document rejects: carries field problems and the status to use."""

    def __init__(self, problems: list[_schema.Problem], status: int = 400, key: str = "") -> None:
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems
        self.status = status
        self.key = key or "request.invalid"


class FakeApp:
    """Answers requests for the nine operations of the document from a `State`."""

    def __init__(self, state: State, access_key: str) -> None:
        self.state = state
        self._access_key = access_key.encode()
        self._trace = 0
        self._handlers: dict[str, Callable[[Match, Any], Reply]] = {
            "PullZonePublic_SetForceSSL": self._set_force_ssl,
            "ComputeScript_AddVariable": self._add_variable,
            "DnsZone_Add": self._add_dns_zone,
            "ContainerTemplate_SetEnvironmentVariables": self._set_environment,
            "ContainerRegistry_Add": self._add_registry,
            "ContainerTemplate_Add": self._add_template,
            "ContainerRegistry_Get": self._get_registry,
            "ShieldZone_GetByPullZone": self._get_shield_zone,
            "ShieldZone_GetUploadScanning": self._get_upload_scanning,
        }
        missing = set(_schema.operations()) ^ set(self._handlers)
        if missing:
            raise RuntimeError(f"fake and document disagree on operations: {sorted(missing)}")

    def __repr__(self) -> str:
        return f"<FakeApp operations={len(self._handlers)}>"

    def handle(self, method: str, raw_path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one request; `headers` may use any case for names."""
        lowered = {name.lower(): value for name, value in headers.items()}
        return self.answer(
            method.upper(), raw_path, resolve(method.upper(), raw_path), lowered, body
        )

    def answer(
        self,
        method: str,
        raw_path: str,
        resolved: Match | NotAllowed | None,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Reply:
        """Answer a request already routed; `headers` names are lower case."""
        if resolved is None:
            return r.json_reply(404, r.problem(404, "No operation at this path.", _path(raw_path)))
        if isinstance(resolved, NotAllowed):
            allow = (("Allow", ", ".join(resolved.allowed)),)
            if method == "OPTIONS":
                return r.empty_reply(204, allow)
            detail = f"{method} is not allowed here."
            return r.json_reply(405, r.problem(405, detail, _path(raw_path)), allow)
        reply = self._operation(resolved, raw_path, headers, body)
        if method == "HEAD":
            return Reply(reply.status, reply.headers, b"")
        return reply

    def error(
        self,
        route: Route,
        status: int,
        message: str,
        raw_path: str,
        *,
        key: str = "request.failed",
        field: str | None = None,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> Reply:
        """An error reply in the operation's family; no body where the document declares none."""
        if not route.allows_body(status):
            return r.empty_reply(status, headers)
        if route.area == "core":
            return r.json_reply(status, r.api_error(key, field, message), headers)
        if route.operation_id == "ShieldZone_GetUploadScanning" and status == 404:
            wrapper = r.result_wrapper(None, success=False, message=message, key=key)
            return r.json_reply(status, wrapper, headers)
        if route.operation_id == "ShieldZone_GetByPullZone" and status == 404:
            return r.json_reply(
                status, r.object_result_error(status, "ShieldZoneResponse"), headers
            )
        return r.json_reply(status, r.problem(status, message, _path(raw_path)), headers)

    # ----------------------------------------------------------------- pipeline
    def _operation(
        self, match: Match, raw_path: str, headers: Mapping[str, str], body: bytes
    ) -> Reply:
        route = match.route
        if route.operation.requires_key and not self._authorized(headers.get("accesskey")):
            return self.error(
                route, 401, "Authorization failed: a valid AccessKey is required.", raw_path,
                key="authorization.failed", field="AccessKey",
            )  # fmt: skip
        try:
            params = self._path_params(match)
            payload = self._body(route, headers.get("content-type"), body)
        except _BadRequest as bad:
            return self._bad_request(route, bad, raw_path)
        try:
            return self._handlers[route.operation_id](Match(route, params), payload)
        except NotFound as missing:
            return self.error(route, 404, str(missing), raw_path, key="resource.not_found")
        except Conflict as conflict:
            return self.error(
                route, 400, conflict.message, raw_path, key=conflict.key, field=conflict.field
            )

    def _authorized(self, key: str | None) -> bool:
        return key is not None and hmac.compare_digest(key.encode(), self._access_key)

    def _path_params(self, match: Match) -> dict[str, Any]:
        values: dict[str, Any] = {}
        problems: list[_schema.Problem] = []
        for name, schema in match.route.operation.path_params:
            raw = match.params[name]
            value: Any = raw
            if schema.get("type") == "integer":
                if not _INTEGER_RE.match(raw):
                    problems.append(_schema.Problem(name, f"{raw!r} is not an integer"))
                    continue
                value = int(raw)
            found = _schema.validate(schema, value)
            problems += [_schema.Problem(name, p.message) for p in found]
            values[name] = value
        if problems:
            raise _BadRequest(problems, key="request.invalid_path")
        return values

    def _body(self, route: Route, content_type: str | None, body: bytes) -> Any:
        schema = route.operation.body_schema
        if schema is None:
            return None
        if not body.strip():
            raise _BadRequest([_schema.Problem("", "a request body is required")])
        if not route.accepts(content_type):
            status = 415 if route.declares(415) else 400
            accepted = ", ".join(route.media_types)
            message = f"media type {content_type or '(none)'!r} not accepted; use {accepted}"
            raise _BadRequest(
                [_schema.Problem("", message)], status, "request.unsupported_media_type"
            )
        try:
            payload = json.loads(body, parse_constant=_reject_constant, parse_float=_finite_float)
        except (ValueError, RecursionError) as exc:
            message = f"malformed JSON: {exc}"
            raise _BadRequest([_schema.Problem("", message)], key="request.malformed_json") from exc
        problems = _schema.validate(schema, payload)
        if problems:
            raise _BadRequest(problems[:_MAX_ERRORS])
        return payload

    def _bad_request(self, route: Route, bad: _BadRequest, raw_path: str) -> Reply:
        if route.area == "container" and bad.status == 400:
            self._trace += 1
            errors = [(p.field or "$", p.message) for p in bad.problems]
            body = r.validation_problem(_path(raw_path), errors, f"0HFAKE{self._trace:08X}")
            return r.json_reply(400, body)
        first = bad.problems[0]
        return self.error(
            route, bad.status, "; ".join(map(str, bad.problems)), raw_path,
            key=bad.key, field=first.field or None,
        )  # fmt: skip

    # --------------------------------------------------------------- operations
    def _set_force_ssl(self, match: Match, body: Any) -> Reply:
        self.state.set_force_ssl(match.params["id"], body["Hostname"], body["ForceSSL"])
        return r.empty_reply(204)

    def _add_variable(self, match: Match, body: Any) -> Reply:
        script_id = _numeric_id(match.params["id"], "script")
        return r.json_reply(200, self.state.add_variable(script_id, body))

    def _add_dns_zone(self, match: Match, body: Any) -> Reply:
        return r.json_reply(201, self.state.add_dns_zone(body))

    def _set_environment(self, match: Match, body: Any) -> Reply:
        template = self.state.set_environment(
            match.params["appId"], match.params["containerId"], body
        )
        return r.json_reply(200, template)

    def _add_registry(self, match: Match, body: Any) -> Reply:
        registry_id = self.state.add_registry(str(body.get("displayName", "")))
        return r.json_reply(200, {"id": registry_id, "error": ""})

    def _add_template(self, match: Match, body: Any) -> Reply:
        fields = set(deref(match.route.operation.body_schema or {}).get("properties", {}))
        return r.json_reply(201, self.state.add_template(match.params["appId"], body, fields))

    def _get_registry(self, match: Match, body: Any) -> Reply:
        registry_id = _numeric_id(match.params["registryId"], "registry")
        return r.json_reply(200, self.state.get_registry(registry_id))

    def _get_shield_zone(self, match: Match, body: Any) -> Reply:
        pull_zone_id = _numeric_id(match.params["pullZoneId"], "shield zone for pull zone")
        return r.json_reply(200, {"data": self.state.shield_zone_of(pull_zone_id)})

    def _get_upload_scanning(self, match: Match, body: Any) -> Reply:
        shield_zone_id = _numeric_id(match.params["shieldZoneId"], "shield zone")
        return r.json_reply(200, r.result_wrapper(self.state.upload_scanning_of(shield_zone_id)))


def _numeric_id(raw: str, what: str) -> int:
    """Ids of these resources are integers; any other identifier names nothing stored."""
    if not _INTEGER_RE.match(raw):
        raise NotFound(f"no {what} {raw!r}")
    return int(raw)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _path(raw_path: str) -> str:
    return raw_path.split("?", 1)[0]
