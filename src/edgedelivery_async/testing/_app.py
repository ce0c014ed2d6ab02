"""The framework-free core of the fake: (method, raw path, headers, body) -> Reply.

Routing, authentication, parameter (path, query, header, cookie) and body validation all
come from the document; the operations' effects live in `_state`. Every operation of the
document is served: those with a stateful handler below change and read the state, every
other one answers from the document (its example, else a sample; see `_samples`). Adapters
(`_httpx`, `_server`) only translate.
"""

from __future__ import annotations

import copy
import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any

from . import _inputs, _shapes
from . import _replies as r
from ._inputs import BadRequest
from ._replies import Reply
from ._routes import Match, NotAllowed, Route, Router, default_router
from ._samples import success_reply
from ._state import Conflict, NotFound, State

Handler = Callable[["FakeApp", Match, Any], Reply]


class FakeApp:
    """Answers requests for every operation of a document; some of them from a `State`."""

    def __init__(self, state: State, access_key: str, router: Router | None = None) -> None:
        self.state = state
        self.router = router or default_router()
        self.document = self.router.document
        self._access_key = access_key.encode()
        self._trace = 0
        self._documented: dict[str, Reply] = {}  # operationId -> its reply from the document

    def __repr__(self) -> str:
        stateful = sum(1 for op in self.router.operation_ids() if op in HANDLERS)
        return f"<FakeApp operations={len(self.router.routes)} stateful={stateful}>"

    def handle(self, method: str, raw_path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one request; `headers` may use any case for names."""
        lowered = {name.lower(): value for name, value in headers.items()}
        return self.answer(
            method.upper(), raw_path, self.router.resolve(method.upper(), raw_path), lowered, body
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
            return r.json_reply(
                404, r.problem(404, "No operation at this path.", path_of(raw_path))
            )
        if isinstance(resolved, NotAllowed):
            allow = (("Allow", ", ".join(resolved.allowed)),)
            if method == "OPTIONS":
                return r.empty_reply(204, allow)
            detail = f"{method} is not allowed here."
            return r.json_reply(405, r.problem(405, detail, path_of(raw_path)), allow)
        reply = self._operation(resolved, raw_path, headers, body)
        if method == "HEAD":
            return Reply(reply.status, reply.headers, b"")
        return reply

    def shaped(
        self,
        shape: str,
        method: str,
        raw_path: str,
        match: Match,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Reply:
        """Answer a routed request, then give a success reply `shape` (see `_shapes`).

        A refused request (auth, validation, not found) is answered as usual. A shaped
        reply that reports a failure or carries no result (`failure-in-body`, `accepted`)
        leaves the state as it was: the request did not take effect.
        """
        saved = None if method in ("GET", "HEAD") else copy.deepcopy(self.state.__dict__)
        reply = self.answer("GET" if method == "HEAD" else method, raw_path, match, headers, body)
        if 200 <= reply.status < 300:
            reply = _shapes.reshape(shape, match.route, self.document, reply)
            if saved is not None and _shapes.reports_failure(match.route, self.document, reply):
                self.state.__dict__.update(saved)
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
        return r.json_reply(status, r.problem(status, message, path_of(raw_path)), headers)

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
            params = _inputs.path_params(match, self.document)
            query = _inputs.query_params(route, raw_path, self.document)
            given = _inputs.header_params(route, headers, self.document)
            cookies = _inputs.cookie_params(route, headers.get("cookie"), self.document)
            payload = _inputs.json_body(route, headers.get("content-type"), body, self.document)
        except BadRequest as bad:
            return self._bad_request(route, bad, raw_path)
        handler = HANDLERS.get(route.operation_id)
        if handler is None:
            reply = self._from_document(route)
            rule = route.operation.pagination
            return reply if rule is None else _one_page(reply, rule, query)
        try:
            return handler(self, Match(route, {**cookies, **given, **query, **params}), payload)
        except NotFound as missing:
            return self.error(route, 404, str(missing), raw_path, key="resource.not_found")
        except Conflict as conflict:
            return self.error(
                route, 400, conflict.message, raw_path, key=conflict.key, field=conflict.field
            )

    def _from_document(self, route: Route) -> Reply:
        reply = self._documented.get(route.operation_id)
        if reply is None:
            reply = self._documented[route.operation_id] = success_reply(route, self.document)
        return reply

    def _authorized(self, key: str | None) -> bool:
        if key is None:
            return False
        try:
            given = key.encode()
        except UnicodeEncodeError:  # bytes that were not UTF-8: not the key (a 401)
            return False
        return hmac.compare_digest(given, self._access_key)

    def _bad_request(self, route: Route, bad: BadRequest, raw_path: str) -> Reply:
        if route.area == "container" and bad.status == 400:
            self._trace += 1
            errors = [(p.field or "$", p.message) for p in bad.problems]
            body = r.validation_problem(path_of(raw_path), errors, f"0HFAKE{self._trace:08X}")
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
        credentials = body.get("passwordCredentials") or {}
        registry_id = self.state.add_registry(
            str(body.get("displayName", "")),
            user_name=str(credentials.get("userName") or ""),
            password=str(credentials.get("password") or ""),
        )
        return r.json_reply(200, {"id": registry_id, "error": "", "status": "saved"})

    def _add_template(self, match: Match, body: Any) -> Reply:
        schema = self.document.deref(match.route.operation.body_schema or {})
        fields = set(schema.get("properties", {}))
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


#: The stateful operations, by operationId. An operation of the document without an entry
#: here answers from the document; an entry whose operation the document lacks is unused.
HANDLERS: dict[str, Handler] = {
    "PullZonePublic_SetForceSSL": FakeApp._set_force_ssl,
    "ComputeScript_AddVariable": FakeApp._add_variable,
    "DnsZone_Add": FakeApp._add_dns_zone,
    "ContainerTemplate_SetEnvironmentVariables": FakeApp._set_environment,
    "ContainerRegistry_Add": FakeApp._add_registry,
    "ContainerTemplate_Add": FakeApp._add_template,
    "ContainerRegistry_Get": FakeApp._get_registry,
    "ShieldZone_GetByPullZone": FakeApp._get_shield_zone,
    "ShieldZone_GetUploadScanning": FakeApp._get_upload_scanning,
}


def _numeric_id(raw: str, what: str) -> int:
    """Ids of these resources are integers; any other identifier names nothing stored."""
    if not _inputs.is_integer(raw):
        raise NotFound(f"no {what} {raw!r}")
    return int(raw)


def _one_page(reply: Reply, rule: Mapping[str, Any], query: Mapping[str, Any]) -> Reply:
    """A paginated operation's documented reply, as a list that is one page long.

    The first page holds the documented items and every later page none; the "more"
    member, when declared, says false. So `iterate()` reads the items once and ends, as
    against a server that honours the page number.
    """
    try:
        body = json.loads(reply.body)
    except ValueError:
        return reply
    items = rule.get("items")
    if not isinstance(body, dict) or not isinstance(body.get(items), list):
        return reply
    first = rule.get("first", 1)
    page = query.get(str(rule.get("page")), first)
    if isinstance(page, int) and page > first:
        body[items] = []
    if rule.get("has-more"):
        body[rule["has-more"]] = False
    return r.json_reply(reply.status, body)


def path_of(raw_path: str) -> str:
    """The path of a request target, without its query."""
    return raw_path.split("?", 1)[0]
