"""Seeding the fake from JSON (`serve --seed-file`), the example inventory, and what it holds.

A seed is a JSON object; every member is optional and every list item names its id:

    {
      "pullZones":   [{"id": 42, "hostnames": ["cdn.example.com"]}],
      "shieldZones": [{"id": 9001, "pullZoneId": 42, "uploadScanning": false,
                       "config": {"wafEnabled": true}}],
      "scripts":     [{"id": 7}],
      "apps":        [{"id": "app-1", "templates": [{"id": "tpl-6c1", "name": "api",
                                                     "image": "nginx:1.27"}]}],
      "registries":  [{"id": 31, "displayName": "main", "hostName": "registry.example.com",
                       "userName": "deploy", "password": "", "isPublic": false}]
    }

Ids may be left out (the next free one is taken). A shield zone's `config` overrides
members of the shield configuration; a template is a ContainerTemplate_Add request body
(checked against the document) plus an optional `id`. `apply_seed` uses the fake's
seeding methods; `inventory` describes what a fake holds in a few lines, however many
resources it has.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._fake import FakeEdgeDelivery
from ._state import SEED_SHIELD_ZONE_OFFSET

#: What `serve` holds unless given `--seed-file` or `--empty`: every id the README uses.
EXAMPLE_SEED: dict[str, Any] = {
    "pullZones": [{"id": 42, "hostnames": ["cdn.example.com"]}],
    "shieldZones": [{"id": 9001, "pullZoneId": 42}],
    "scripts": [{"id": 5}, {"id": 7}],
    "apps": [
        {
            "id": "app-1",
            "templates": [
                {
                    "id": "tpl-6c1",
                    "name": "api",
                    "image": "registry.example.com/team/api:1.4.2",
                    "environmentVariables": [{"name": "LOG_LEVEL", "value": "info"}],
                }
            ],
        }
    ],
    "registries": [{"id": 31, "displayName": "main", "hostName": "registry.example.com"}],
}

#: The format, as `serve --help` shows it.
SEED_FORMAT = """\
seed file (--seed-file, JSON; every member optional, ids optional):
  {"pullZones":   [{"id": 42, "hostnames": ["cdn.example.com"]}],
   "shieldZones": [{"id": 9001, "pullZoneId": 42, "uploadScanning": false,
                    "config": {"wafEnabled": true}}],
   "scripts":     [{"id": 7}],
   "apps":        [{"id": "app-1", "templates": [{"id": "tpl-6c1", "name": "api",
                                                  "image": "nginx:1.27"}]}],
   "registries":  [{"id": 31, "displayName": "main", "hostName": "registry.example.com",
                    "userName": "deploy", "password": "", "isPublic": false}]}
  A template is a ContainerTemplate_Add body plus its "id"; "config" overrides members
  of the shield configuration. `example-seed` prints the example inventory in this format."""

_TEMPLATE_ID = re.compile(r"tpl-([0-9]+)")
_TOP = ("pullZones", "shieldZones", "scripts", "apps", "registries")
_REGISTRY_FIELDS = {
    "displayName": "display_name",
    "hostName": "host_name",
    "userName": "user_name",
    "password": "password",
    "isPublic": "is_public",
}


class SeedError(ValueError):
    """A seed that does not follow the format; the message names the member."""


def load_seed(text: str, source: str = "seed") -> dict[str, Any]:
    """Parse a seed file's text; a `SeedError` names `source` and the problem."""
    try:
        seed = json.loads(text)
    except ValueError as exc:
        raise SeedError(f"{source}: not valid JSON: {exc}") from None
    if not isinstance(seed, dict):
        raise SeedError(f"{source}: expected a JSON object with {', '.join(_TOP)}")
    return seed


def apply_seed(fake: FakeEdgeDelivery, seed: Mapping[str, Any]) -> None:
    """Add what `seed` describes to `fake`, in the order pull zones, shield zones, scripts,
    apps and templates, registries. Raises `SeedError` for a malformed or clashing item."""
    _known(seed, _TOP, "seed")
    for where, item in _items(seed, "pullZones"):
        _known(item, ("id", "hostnames"), where)
        hostnames = item.get("hostnames")
        if hostnames is not None and not _strings(hostnames):
            raise SeedError(f"{where}.hostnames: expected a list of hostnames")
        _seed(where, fake.add_pull_zone, _int_id(item, where), hostnames)
    for where, item in _items(seed, "shieldZones"):
        _known(item, ("id", "pullZoneId", "uploadScanning", "config"), where)
        pull_zone = _int_id(item, where, "pullZoneId", required=True)
        scanning = item.get("uploadScanning", False)
        config = item.get("config", {})
        if not isinstance(scanning, bool):
            raise SeedError(f"{where}.uploadScanning: expected true or false")
        if not isinstance(config, dict):
            raise SeedError(f"{where}.config: expected an object of shield configuration members")
        _seed(
            where,
            functools.partial(fake.add_shield_zone, upload_scanning=scanning, **config),
            pull_zone,
            _int_id(item, where),
        )
    for where, item in _items(seed, "scripts"):
        _known(item, ("id",), where)
        _seed(where, fake.add_script, _int_id(item, where))
    for where, item in _items(seed, "apps"):
        _known(item, ("id", "templates"), where)
        app_id = item.get("id")
        if app_id is not None and not (isinstance(app_id, str) and app_id):
            raise SeedError(f"{where}.id: expected a non-empty string")
        app = _seed(where, fake.add_app, app_id) if app_id else _new_app(fake)
        for inner, template in _items(item, "templates", where):
            _add_template(fake, app, template, inner)
    for where, item in _items(seed, "registries"):
        _known(item, ("id", *_REGISTRY_FIELDS), where)
        options = {_REGISTRY_FIELDS[k]: v for k, v in item.items() if k != "id"}
        for name, value in options.items():
            wanted = bool if name == "is_public" else str
            if not isinstance(value, wanted):
                raise SeedError(f"{where}: a registry's {name} must be a {wanted.__name__}")
        _add_registry(fake, _int_id(item, where), options, where)


def seed_fake(fake: FakeEdgeDelivery, seed: Mapping[str, Any] | None = None) -> FakeEdgeDelivery:
    """`fake` with `seed` (by default `EXAMPLE_SEED`, the README's ids) applied."""
    apply_seed(fake, EXAMPLE_SEED if seed is None else seed)
    return fake


def _new_app(fake: FakeEdgeDelivery) -> str:
    """An app with the next free `app-N` id (add_app's own choice may be taken by a seed)."""
    for _ in range(len(fake.state.apps) + 1):
        try:
            return fake.add_app()
        except ValueError:
            continue
    raise SeedError("no free app id")  # pragma: no cover - one of the tries is free


def _add_template(fake: FakeEdgeDelivery, app: str, item: Any, where: str) -> None:
    if not isinstance(item, dict):
        raise SeedError(f"{where}: expected an object (a ContainerTemplate_Add body)")
    body = {k: v for k, v in item.items() if k != "id"}
    wanted = item.get("id")
    if wanted is not None and not (isinstance(wanted, str) and wanted):
        raise SeedError(f"{where}.id: expected a non-empty string")
    templates = fake.state.apps[app]
    if wanted in templates:
        raise SeedError(f"{where}: template {wanted!r} exists in app {app!r}")
    made = _seed(where, fake.add_template, app, body or None)
    # add_template takes no id. Its ids are tpl-1, tpl-2, ...: one of that form is made
    # by moving the count on, so that templates the API adds later do not take it again.
    number = _template_number(wanted)
    if number is not None and (_template_number(made) or 0) < number:
        del templates[made]
        fake.state.skip_ids("template", number - 1)
        made = _seed(where, fake.add_template, app, body or None)
    if wanted is None or wanted == made:
        return
    if number is not None:
        del templates[made]
        raise SeedError(f"{where}: template id {wanted!r} is below the next free id {made!r}")
    template = templates.pop(made)
    template["id"] = wanted
    templates[wanted] = template


def _template_number(template_id: str | None) -> int | None:
    found = _TEMPLATE_ID.fullmatch(template_id or "")
    return int(found.group(1)) if found else None


def _add_registry(
    fake: FakeEdgeDelivery, wanted: int | None, options: dict[str, Any], where: str
) -> None:
    if wanted is not None and wanted in fake.state.registries:
        raise SeedError(f"{where}: registry {wanted} exists")
    made = fake.add_registry(**options)
    # add_registry takes no id: registry ids count up, so move the count on to the one
    # asked for, and later registries (from the API too) follow it.
    if wanted is not None and made < wanted:
        del fake.state.registries[made]
        fake.state.skip_ids("registry", wanted - 1)
        made = fake.add_registry(**options)
    if wanted is not None and made != wanted:
        del fake.state.registries[made]
        raise SeedError(f"{where}: registry id {wanted} is below the next free id {made}")


def _seed(where: str, add: Callable[..., Any], *args: Any) -> Any:
    try:
        return add(*args)
    except (ValueError, TypeError, KeyError) as exc:
        raise SeedError(f"{where}: {exc}") from None


def _items(parent: Mapping[str, Any], name: str, where: str = "") -> Iterable[tuple[str, Any]]:
    items = parent.get(name, [])
    path = f"{where}.{name}" if where else name
    if not isinstance(items, list):
        raise SeedError(f"{path}: expected a list")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise SeedError(f"{path}[{index}]: expected an object")
        yield f"{path}[{index}]", item


def _known(item: Mapping[str, Any], names: Iterable[str], where: str) -> None:
    unknown = sorted(set(item) - set(names))
    if unknown:
        raise SeedError(f"{where}: unknown member {unknown[0]!r} (known: {', '.join(names)})")


def _int_id(
    item: Mapping[str, Any], where: str, name: str = "id", *, required: bool = False
) -> int | None:
    value = item.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SeedError(f"{where}.{name}: expected a positive integer")
    return value


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


# ------------------------------------------------------------------ what it holds


def inventory(fake: FakeEdgeDelivery, *, limit: int = 8) -> list[str]:
    """What `fake` holds, one line per kind of resource, at most `limit` entries a line.

    Runs of seeded pull zones (`pz<id>.example.test`) and of their shield zones
    (`100000 + id`) read as one range each, so thousands of them take one entry.
    """
    state = fake.state
    lines = [
        _line("pull zones", len(state.pull_zones), _pull_zones(fake), limit),
        _line("shield zones", len(state.shield_zones), _shield_zones(fake), limit),
        _line("scripts", len(state.scripts), _ranges(sorted(state.scripts)), limit),
        _line(
            "apps",
            len(state.apps),
            [f"{app} (templates: {_listed(list(t), limit)})" for app, t in state.apps.items()],
            limit,
        ),
        _line(
            "registries",
            len(state.registries),
            [f"{rid} {r.display_name}" for rid, r in sorted(state.registries.items())],
            limit,
        ),
    ]
    return lines


def _line(kind: str, count: int, entries: list[str], limit: int) -> str:
    return f"{kind} ({count}): {_listed(entries, limit) if entries else 'none'}"


def _listed(entries: list[str], limit: int) -> str:
    if not entries:
        return "none"
    if len(entries) <= limit:
        return ", ".join(entries)
    shown = entries[: limit - 1]
    hidden = len(entries) - len(shown) - 1
    return f"{', '.join(shown)}, ... ({hidden} more), {entries[-1]}"


def _runs(keys: Iterable[int], regular: Callable[[int], bool]) -> list[tuple[int, int] | int]:
    """Consecutive keys for which `regular` holds become (first, last); the others stay."""
    found: list[tuple[int, int] | int] = []
    for key in keys:
        last = found[-1] if found else None
        if regular(key) and isinstance(last, tuple) and last[1] == key - 1:
            found[-1] = (last[0], key)
        else:
            found.append((key, key) if regular(key) else key)
    return found


def _pull_zones(fake: FakeEdgeDelivery) -> list[str]:
    zones = fake.state.pull_zones

    def regular(zone: int) -> bool:
        return list(zones[zone].force_ssl) == [f"pz{zone}.example.test"]

    entries = []
    for run in _runs(sorted(zones), regular):
        if isinstance(run, tuple):
            first, last = run
            shown = f"{first}-{last} pz<id>" if last > first else f"{first} pz{first}"
            entries.append(f"{shown}.example.test")
        else:
            names = list(zones[run].force_ssl)
            entries.append(f"{run} {' '.join(names) if names else '(no hostnames)'}")
    return entries


def _shield_zones(fake: FakeEdgeDelivery) -> list[str]:
    by_shield = {shield: pull for pull, shield in fake.state.shield_by_pull_zone.items()}

    def regular(zone: int) -> bool:
        return by_shield[zone] == zone - SEED_SHIELD_ZONE_OFFSET

    entries = []
    for run in _runs(sorted(by_shield), regular):
        if isinstance(run, tuple) and run[1] > run[0]:
            first, last = run
            entries.append(
                f"{first}-{last} (pull zones {first - SEED_SHIELD_ZONE_OFFSET}-"
                f"{last - SEED_SHIELD_ZONE_OFFSET})"
            )
        else:
            zone = run[0] if isinstance(run, tuple) else run
            entries.append(f"{zone} (pull zone {by_shield[zone]})")
    return entries


def _ranges(keys: list[int]) -> list[str]:
    entries = []
    for run in _runs(keys, lambda _: True):
        first, last = run if isinstance(run, tuple) else (run, run)
        entries.append(f"{first}-{last}" if last > first else str(first))
    return entries
