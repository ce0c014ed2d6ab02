"""The fake's in-memory stores: what the nine operations read and change.

Records are kept in the shapes the API returns, so replies are plain copies. Nothing here
knows about HTTP; `_app` turns requests into calls on `State`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .._exceptions import ConfigurationError

#: Shield zones made by `State.seed_pull_zones` get the id `SEED_SHIELD_ZONE_OFFSET + pull zone id`.
SEED_SHIELD_ZONE_OFFSET = 100_000

_SLUG_RE = re.compile(r"[^a-z0-9]+")


class NotFound(LookupError):
    """The addressed resource does not exist."""


class Conflict(ValueError):
    """The request clashes with what is stored (a duplicate, an unknown hostname)."""

    def __init__(self, key: str, field: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.field = field
        self.message = message


def iso_z(moment: datetime) -> str:
    """ISO 8601 in UTC with a `Z`, to the second: `2026-11-01T08:30:00Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(slots=True)
class PullZone:
    """A pull zone: its hostnames and the Force SSL flag of each."""

    id: int
    force_ssl: dict[str, bool] = field(default_factory=dict)  # hostname as added -> flag

    def hostname(self, name: str) -> str | None:
        """The stored spelling of a hostname (hostnames compare case-insensitively)."""
        wanted = name.lower().rstrip(".")
        for stored in self.force_ssl:
            if stored.lower().rstrip(".") == wanted:
                return stored
        return None


@dataclass(slots=True)
class Registry:
    """A container registry; the password is held but never returned whole."""

    id: int
    display_name: str
    host_name: str
    user_name: str
    password: str = field(repr=False)
    is_public: bool
    created_at: datetime
    updated_at: datetime
    account_id: str = "acc-fake"
    user_id: str = "usr-fake"

    def record(self) -> dict[str, Any]:
        """The record as the API returns it: only the first and last password symbols."""
        shown = min(2, len(self.password) // 3)
        return {
            "id": self.id,
            "accountId": self.account_id,
            "userId": self.user_id,
            "namespaceId": f"ns-{self.id}",
            "displayName": self.display_name,
            "hostName": self.host_name,
            "userName": self.user_name,
            "firstPasswordSymbols": self.password[:shown],
            "lastPasswordSymbols": self.password[len(self.password) - shown :],
            "createdAt": iso_z(self.created_at),
            "isPublic": self.is_public,
            "lastUpdatedAt": iso_z(self.updated_at),
        }


def shield_config(shield_zone_id: int, pull_zone_id: int, **overrides: Any) -> dict[str, Any]:
    """A full shield zone configuration (every field of reference 2.7)."""
    config: dict[str, Any] = {
        "shieldZoneId": shield_zone_id,
        "pullZoneId": pull_zone_id,
        "learningMode": False,
        "learningModeUntil": "2026-01-01T00:00:00Z",
        "wafEnabled": True,
        "wafDisabledRules": [],
        "wafLogOnlyRules": [],
        "wafCustomRuleOrder": [],
        "wafRequestHeaderLoggingEnabled": False,
        "requestBodyLoggingEnabled": False,
        "wafRequestIgnoredHeaders": [],
        "wafRealtimeThreatIntelligenceEnabled": False,
        "wafProfileId": 1,
        "wafEngineConfig": [],
        "rateLimitRulesLimit": 10,
        "customWafRulesLimit": 25,
        "dDoSChallengeWindow": 1800,
        "whitelabelResponsePages": False,
    }
    unknown = set(overrides) - set(config) | set(overrides) & {"shieldZoneId", "pullZoneId"}
    if unknown:
        raise ConfigurationError(f"unknown shield zone fields: {', '.join(sorted(unknown))}")
    for name, value in overrides.items():
        if not _same_kind(value, config[name]):
            kind = type(config[name]).__name__
            raise ConfigurationError(f"shield zone field {name} is a {kind}, not {value!r}")
    config.update(copy.deepcopy(overrides))
    return config


def _same_kind(value: Any, default: Any) -> bool:
    """Whether an override has the default's JSON type (a bool is no int here)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    return isinstance(value, type(default))


class State:
    """Every store of the fake, with the operations' effects and the seeding helpers."""

    def __init__(self) -> None:
        self.pull_zones: dict[int, PullZone] = {}
        self.scripts: dict[int, list[dict[str, Any]]] = {}
        self.dns_zones: dict[int, dict[str, Any]] = {}
        self.apps: dict[str, dict[str, dict[str, Any]]] = {}  # app id -> template id -> template
        self.registries: dict[int, Registry] = {}
        self.shield_zones: dict[int, dict[str, Any]] = {}  # shield zone id -> configuration
        self.shield_by_pull_zone: dict[int, int] = {}
        self.upload_scanning: dict[int, bool] = {}
        self._counters: dict[str, int] = {}

    def next_id(self, kind: str) -> int:
        """1, 2, 3, ... per kind of resource."""
        self._counters[kind] = self._counters.get(kind, 0) + 1
        return self._counters[kind]

    def skip_ids(self, kind: str, last: int) -> None:
        """Have `next_id(kind)` go on after `last` (a seed that asks for a given id)."""
        self._counters[kind] = max(self._counters.get(kind, 0), last)

    # ------------------------------------------------------------------ seeding
    def add_pull_zone(self, id: int | None = None, hostnames: list[str] | None = None) -> int:
        """Add a pull zone (next free id by default) with hostnames, Force SSL off."""
        zone_id = id if id is not None else max(self.pull_zones, default=0) + 1
        if isinstance(zone_id, bool) or not isinstance(zone_id, int):
            raise ConfigurationError(f"a pull zone id is an integer, not {zone_id!r}")
        if zone_id in self.pull_zones:
            raise ConfigurationError(f"pull zone {zone_id} exists")
        if hostnames is not None:  # ("abc" made three one-letter hostnames)
            given = hostnames
            if isinstance(given, str | bytes) or not isinstance(given, Iterable):
                raise ConfigurationError(f"hostnames is a list of host names, not {given!r}")
            hostnames = list(given)  # (read once: a generator is spent by the check)
            if not all(isinstance(name, str) for name in hostnames):
                raise ConfigurationError(f"hostnames is a list of host names, not {hostnames!r}")
        names = hostnames if hostnames is not None else [f"pz{zone_id}.example.test"]
        self.pull_zones[zone_id] = PullZone(zone_id, {name: False for name in names})
        return zone_id

    def add_script(self, id: int | None = None) -> int:
        """Add a compute script without variables."""
        script_id = id if id is not None else max(self.scripts, default=0) + 1
        if script_id in self.scripts:
            raise ConfigurationError(f"script {script_id} exists")
        self.scripts[script_id] = []
        return script_id

    def add_app(self, id: str | None = None) -> str:
        """Add a container application without templates."""
        app_id = id if id is not None else f"app-{self.next_id('app')}"
        if app_id in self.apps:
            raise ConfigurationError(f"app {app_id!r} exists")
        self.apps[app_id] = {}
        return app_id

    def add_shield_zone(
        self,
        pull_zone_id: int,
        id: int | None = None,
        *,
        upload_scanning: bool = False,
        **config: Any,
    ) -> int:
        """Bind a shield zone to an existing pull zone; `config` overrides 2.7 fields."""
        if pull_zone_id not in self.pull_zones:
            raise ConfigurationError(f"no pull zone {pull_zone_id}")
        if pull_zone_id in self.shield_by_pull_zone:
            raise ConfigurationError(f"pull zone {pull_zone_id} already has a shield zone")
        zone_id = id if id is not None else max(self.shield_zones, default=0) + 1
        if zone_id in self.shield_zones:
            raise ConfigurationError(f"shield zone {zone_id} exists")
        self.shield_zones[zone_id] = shield_config(zone_id, pull_zone_id, **config)
        self.shield_by_pull_zone[pull_zone_id] = zone_id
        self.upload_scanning[zone_id] = upload_scanning
        return zone_id

    def add_registry(
        self,
        display_name: str = "registry",
        *,
        host_name: str = "registry.example.test",
        user_name: str = "deploy",
        password: str = "",
        is_public: bool = False,
        now: datetime | None = None,
    ) -> int:
        """Add a container registry; returns its integer id."""
        moment = now or datetime.now(UTC)
        registry_id = self.next_id("registry")
        self.registries[registry_id] = Registry(
            id=registry_id,
            display_name=display_name,
            host_name=host_name,
            user_name=user_name,
            password=password,
            is_public=is_public,
            created_at=moment,
            updated_at=moment,
        )
        return registry_id

    def seed_pull_zones(self, count: int) -> None:
        """Pull zones 1..count, each with `pz{id}.example.test` and shield zone offset+id."""
        for zone_id in range(1, count + 1):
            if zone_id not in self.pull_zones:
                self.add_pull_zone(zone_id)
            if zone_id not in self.shield_by_pull_zone:
                self.add_shield_zone(zone_id, SEED_SHIELD_ZONE_OFFSET + zone_id)

    # --------------------------------------------------------------- operations
    def set_force_ssl(self, pull_zone_id: int, hostname: str, force_ssl: bool) -> None:
        """Record Force SSL for one hostname of a pull zone."""
        zone = self.pull_zones.get(pull_zone_id)
        if zone is None:
            raise NotFound(f"no pull zone {pull_zone_id}")
        stored = zone.hostname(hostname)
        if stored is None:
            raise Conflict(
                "pullzone.hostname_not_found",
                "Hostname",
                "The hostname is not part of this pull zone.",
            )
        zone.force_ssl[stored] = force_ssl

    def add_variable(self, script_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """Add a variable to a script; the variable gets the next id."""
        variables = self.scripts.get(script_id)
        if variables is None:
            raise NotFound(f"no script {script_id}")
        variable = {
            "Id": self.next_id("variable"),
            "Name": body.get("Name", ""),
            "Required": body.get("Required", False),
            "DefaultValue": body.get("DefaultValue", ""),
        }
        variables.append(variable)
        return copy.deepcopy(variable)

    def add_dns_zone(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a DNS zone; a domain already used (case-insensitive) is refused."""
        domain = body.get("Domain", "")
        key = _domain_key(domain)
        if any(_domain_key(zone["Domain"]) == key for zone in self.dns_zones.values()):
            raise Conflict(
                "dnszone.domain_taken", "Domain", "A zone for this domain already exists."
            )
        zone_id = self.next_id("dns_zone")
        records = [
            {**copy.deepcopy(record), "Id": self.next_id("dns_record")}  # (the fake's id)
            for record in body.get("Records") or []  # null is accepted (issue 11)
        ]
        self.dns_zones[zone_id] = {"Id": zone_id, "Domain": domain, "Records": records}
        return copy.deepcopy(self.dns_zones[zone_id])

    def add_template(
        self, app_id: str, body: dict[str, Any], known_fields: set[str]
    ) -> dict[str, Any]:
        """Create a container template in an app: ids, package id, endpoint details."""
        templates = self.apps.get(app_id)
        if templates is None:
            raise NotFound(f"no app {app_id!r}")
        number = self.next_id("template")
        template_id = f"tpl-{number}"
        template: dict[str, Any] = {"id": template_id, "packageId": f"pkg-{number}"}
        for name, value in body.items():
            # A null member (accepted, issue 11) is not stored: the reply's fields are strings.
            if name in known_fields and name != "endpoints" and value is not None:
                template[name] = copy.deepcopy(value)
        template.setdefault("environmentVariables", [])
        slug = _SLUG_RE.sub("-", str(body.get("name", "")).lower()).strip("-") or "app"
        template["endpoints"] = [
            self._endpoint(item, f"{slug[:30]}-{number}") for item in body.get("endpoints") or []
        ]
        templates[template_id] = template
        return copy.deepcopy(template)

    def set_environment(
        self, app_id: str, template_id: str, variables: dict[str, str]
    ) -> dict[str, Any]:
        """Replace the whole set of environment variables (reference 4.4)."""
        template = self.apps.get(app_id, {}).get(template_id)
        if template is None:
            raise NotFound(f"no container {template_id!r} in app {app_id!r}")
        template["environmentVariables"] = [
            {"name": name, "value": value} for name, value in variables.items()
        ]
        return copy.deepcopy(template)

    def _endpoint(self, item: dict[str, Any], host_label: str) -> dict[str, Any]:
        number = self.next_id("endpoint")
        cdn = item.get("cdn") or {}
        endpoint: dict[str, Any] = {
            "id": f"ep-{number}",
            "displayName": item.get("displayName", f"endpoint-{number}"),
            "publicHost": f"{host_label}-{number}.edge.example.test",
            "isSslEnabled": cdn.get("isSslEnabled", False),
            "portMappings": copy.deepcopy(cdn.get("portMappings", [])),
            "stickySessions": {"enabled": False, "sessionHeaders": [], "cookieName": ""},
            "internalIpAddresses": [
                {"address": f"10.0.{number // 250 % 250}.{number % 250 + 2}", "region": "de"}
            ],
            "publicIpAddresses": [{"address": f"203.0.113.{number % 250 + 2}", "region": "de"}],
        }
        if cdn.get("pullZoneId") is not None:  # null is accepted (issue 11), and not echoed
            endpoint["pullZoneId"] = str(int(cdn["pullZoneId"]))  # a string in responses
        return endpoint

    def get_registry(self, registry_id: int) -> dict[str, Any]:
        """The registry record (password shown by its first and last symbols only)."""
        registry = self.registries.get(registry_id)
        if registry is None:
            raise NotFound(f"no registry {registry_id}")
        return registry.record()

    def shield_zone_of(self, pull_zone_id: int) -> dict[str, Any]:
        """The shield zone configuration bound to a pull zone."""
        zone_id = self.shield_by_pull_zone.get(pull_zone_id)
        if zone_id is None:
            raise NotFound(f"no shield zone for pull zone {pull_zone_id}")
        return copy.deepcopy(self.shield_zones[zone_id])

    def upload_scanning_of(self, shield_zone_id: int) -> dict[str, Any]:
        """Whether upload scanning is on for a shield zone."""
        if shield_zone_id not in self.shield_zones:
            raise NotFound(f"no shield zone {shield_zone_id}")
        return {"shieldZoneId": shield_zone_id, "isEnabled": self.upload_scanning[shield_zone_id]}


def _domain_key(domain: Any) -> str:
    return str(domain).lower().rstrip(".")
