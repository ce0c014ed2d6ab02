"""`python -m edgedelivery_async.testing serve`: its help, its seed file, what it prints."""

from __future__ import annotations

import asyncio
import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from edgedelivery_async.testing import FakeEdgeDelivery
from edgedelivery_async.testing.__main__ import build_fake, parser, startup_text
from edgedelivery_async.testing._seedfile import (
    EXAMPLE_SEED,
    SeedError,
    apply_seed,
    inventory,
    load_seed,
)

from ._blocks import blocks

CLI = [sys.executable, "-m", "edgedelivery_async.testing"]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


# ------------------------------------------------------------------------ --help


def test_serve_help_explains_every_option_and_the_seed_file() -> None:
    done = cli("serve", "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    serve = next(
        action.choices["serve"]
        for action in parser()._actions
        if isinstance(action.choices, dict) and "serve" in action.choices
    )
    for action in serve._actions:
        assert action.help, f"{action.option_strings} has no help text"
        for flag in action.option_strings:
            assert flag in text
    for member in ("pullZones", "hostnames", "shieldZones", "scripts", "apps", "templates"):
        assert f'"{member}"' in text
    assert '"registries"' in text
    assert "serving URL" in text  # says what it prints on start
    assert "cdn.example.com" in text  # and what it holds by default


def test_top_level_help_lists_the_commands() -> None:
    done = cli("--help")
    assert done.returncode == 0
    assert "serve" in done.stdout
    assert "example-seed" in done.stdout


# ------------------------------------------------------------------- seed files


def test_example_seed_prints_a_seed_file_that_round_trips() -> None:
    done = cli("example-seed")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == EXAMPLE_SEED
    fake = FakeEdgeDelivery("k")
    apply_seed(fake, load_seed(done.stdout))
    assert fake.hostnames(42) == {"cdn.example.com": False}


def test_a_seed_file_seeds_every_stateful_resource() -> None:
    fake = FakeEdgeDelivery("k")
    apply_seed(
        fake,
        {
            "pullZones": [
                {"id": 42, "hostnames": ["cdn.example.com", "www.example.com"]},
                {"hostnames": []},
            ],
            "shieldZones": [
                {"id": 9001, "pullZoneId": 42, "uploadScanning": True,
                 "config": {"wafEnabled": False}},
                {"pullZoneId": 43},
            ],
            "scripts": [{"id": 7}, {}],
            "apps": [
                {"id": "app-1", "templates": [
                    {"id": "tpl-6c1", "name": "api", "image": "nginx:1.27",
                     "environmentVariables": [{"name": "A", "value": "1"}]},
                    {"name": "worker", "image": "worker:2"},
                    {"id": "tpl-9", "name": "cron", "image": "cron:1"},
                ]},
                {},
            ],
            "registries": [
                {"id": 31, "displayName": "main", "hostName": "registry.example.com",
                 "userName": "ci", "password": "s3cret-pass", "isPublic": True},
                {},
            ],
        },
    )  # fmt: skip
    assert fake.hostnames(42) == {"cdn.example.com": False, "www.example.com": False}
    assert fake.hostnames(43) == {}
    assert fake.shield_zone(42)["shieldZoneId"] == 9001
    assert fake.shield_zone(42)["wafEnabled"] is False
    assert fake.state.upload_scanning[9001] is True
    assert fake.shield_zone_id_for(43) == 9002
    assert sorted(fake.state.scripts) == [7, 8]
    assert fake.environment("app-1", "tpl-6c1") == {"A": "1"}
    assert sorted(fake.state.apps["app-1"]) == ["tpl-2", "tpl-6c1", "tpl-9"]
    assert fake.template("app-1", "tpl-9")["id"] == "tpl-9"
    assert len(fake.state.apps) == 2  # app-1 and one with a generated id
    assert fake.registry(31)["hostName"] == "registry.example.com"
    assert fake.registry(31)["isPublic"] is True
    assert sorted(fake.state.registries) == [31, 32]


async def test_resources_the_api_adds_later_do_not_take_seeded_ids() -> None:
    fake = FakeEdgeDelivery("k")
    apply_seed(
        fake,
        {"apps": [{"id": "app-1", "templates": [{"id": "tpl-3", "name": "a", "image": "i"}]}],
         "registries": [{"id": 31}]},
    )  # fmt: skip
    async with httpx.AsyncClient(transport=fake, base_url="https://fake.test") as http:
        auth = {"AccessKey": "k"}
        added = await http.post("/mc/registries", json={"displayName": "x"}, headers=auth)
        template = await http.post(
            "/mc/apps/app-1/containers", json={"name": "b", "image": "i"}, headers=auth
        )
    assert added.status_code == 200, added.text
    assert added.json()["id"] == 32
    assert template.json()["id"] == "tpl-4"
    assert fake.template("app-1", "tpl-3")["name"] == "a"


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ({"pullZone": []}, "seed: unknown member 'pullZone'"),
        ({"pullZones": {}}, "pullZones: expected a list"),
        ({"pullZones": [{"id": 0}]}, "pullZones[0].id: expected a positive integer"),
        ({"pullZones": [{"id": 1}, {"id": 1}]}, "pullZones[1]: pull zone 1 exists"),
        ({"pullZones": [{"hostnames": "a"}]}, "pullZones[0].hostnames: expected a list"),
        ({"shieldZones": [{"id": 5}]}, "shieldZones[0].pullZoneId: expected a positive integer"),
        ({"shieldZones": [{"pullZoneId": 9}]}, "shieldZones[0]: no pull zone 9"),
        (
            {"pullZones": [{"id": 1}], "shieldZones": [{"pullZoneId": 1, "config": {"waf": 1}}]},
            "shieldZones[0]: unknown shield zone fields: waf",
        ),
        ({"apps": [{"id": ""}]}, "apps[0].id: expected a non-empty string"),
        (
            {"apps": [{"id": "a", "templates": [{"name": "x"}]}]},
            "apps[0].templates[0]: (body): one of image or imageRegistryId",
        ),
        ({"registries": [{"isPublic": "yes"}]}, "registries[0]: a registry's is_public must be"),
        ({"registries": [{"id": 2}, {"id": 1}]}, "registries[1]: registry id 1 is below"),
    ],
)
def test_a_bad_seed_names_the_member(seed: dict[str, object], message: str) -> None:
    with pytest.raises(SeedError) as raised:
        apply_seed(FakeEdgeDelivery("k"), seed)
    assert str(raised.value).startswith(message), str(raised.value)


def test_a_seed_that_is_not_a_json_object_is_refused() -> None:
    with pytest.raises(SeedError, match=r"seed\.json: not valid JSON"):
        load_seed("{", "seed.json")
    with pytest.raises(SeedError, match="expected a JSON object"):
        load_seed("[]", "seed.json")


def test_serve_refuses_a_bad_seed_file_before_serving(tmp_path: Path) -> None:
    bad = tmp_path / "seed.json"
    bad.write_text('{"scripts": [{"id": "seven"}]}')
    done = cli("serve", "--port", "0", "--access-key", "k", "--seed-file", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"cannot seed the fake: {bad}: scripts[0].id: expected a positive integer"
    )
    missing = cli("serve", "--port", "0", "--access-key", "k", "--seed-file", "nope.json")
    assert missing.returncode == 2
    assert "cannot seed the fake: nope.json: No such file or directory" in missing.stderr
    both = cli("serve", "--access-key", "k", "--seed-file", "-", "--empty")
    assert both.returncode == 2
    assert "cannot be combined" in both.stderr


# --------------------------------------------------------- what it prints on start


def test_the_default_inventory_holds_every_id_the_readme_uses() -> None:
    fake = build_fake(parser().parse_args(["serve", "--access-key", "test-key"]))
    assert startup_text(fake, "http://127.0.0.1:8080").splitlines() == [
        "serving http://127.0.0.1:8080",
        "access key: test-key",
        "pull zones (1): 42 cdn.example.com",
        "shield zones (1): 9001 (pull zone 42)",
        "scripts (2): 5, 7",
        "apps (1): app-1 (templates: tpl-6c1)",
        "registries (1): 31 main",
        "use it with:",
        "  export EDGEDELIVERY_BASE_URL=http://127.0.0.1:8080 EDGEDELIVERY_ACCESS_KEY=test-key",
        "stop with Ctrl-C",
    ]


def test_an_empty_fake_says_so() -> None:
    fake = build_fake(parser().parse_args(["serve", "--access-key", "k", "--empty"]))
    assert inventory(fake) == [
        "pull zones (0): none",
        "shield zones (0): none",
        "scripts (0): none",
        "apps (0): none",
        "registries (0): none",
    ]


def test_thousands_of_resources_take_a_line_each() -> None:
    fake = FakeEdgeDelivery("k", pull_zones=200_000)
    for zone in range(300_001, 300_041, 2):  # 20 pull zones that are not in a run
        fake.add_pull_zone(zone, hostnames=[f"site{zone}.example.com"])
        fake.add_shield_zone(zone, zone + 1)
    for number in range(30):
        fake.add_app(f"app-{number}")
    for _ in range(12):
        fake.add_template("app-0")
    lines = inventory(fake)
    assert all(len(line) < 400 for line in lines), lines
    assert lines[0].startswith("pull zones (200020): 1-200000 pz<id>.example.test, ")
    assert "... (13 more), 300039 site300039.example.com" in lines[0]
    assert lines[1].startswith("shield zones (200020): 100001-300000 (pull zones 1-200000), ")
    assert lines[3].startswith("apps (30): app-0 (templates: tpl-1, tpl-2, ")
    assert "tpl-7, ... (4 more), tpl-12)" in lines[3]


def _readme_serve_args() -> list[str]:
    """The options of the serve line in the README's "The fake from a shell"."""
    (block,) = [b for b in blocks("sh") if b.section == "The fake from a shell"]
    words = shlex.split(block.code, comments=True)
    assert words[:4] == ["python", "-m", "edgedelivery_async.testing", "serve"], words
    return words[3:]


def test_the_readme_shows_what_its_serve_line_prints() -> None:
    args = parser().parse_args(_readme_serve_args())
    shown = [b for b in blocks("") if b.code.startswith("serving http://127.0.0.1:8080\n")]
    assert len(shown) == 1
    assert startup_text(build_fake(args), "http://127.0.0.1:8080") == shown[0].code.rstrip("\n")


async def test_serve_prints_its_inventory_then_serves_it(tmp_path: Path) -> None:
    seed = tmp_path / "seed.json"
    seed.write_text(
        json.dumps(
            {
                "pullZones": [{"id": 3, "hostnames": ["a.example.com"]}],
                "apps": [{"id": "shop", "templates": [{"id": "web", "name": "w", "image": "i"}]}],
                "registries": [{"id": 5, "displayName": "ci"}],
            }
        )
    )
    process = await asyncio.create_subprocess_exec(
        *CLI, "serve", "--port", "0", "--access-key", "key with space", "--seed-file", str(seed),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    try:
        lines: list[str] = []
        while not lines or lines[-1] != "stop with Ctrl-C":
            raw = await asyncio.wait_for(process.stdout.readline(), 30)
            assert raw, lines
            lines.append(raw.decode().rstrip("\n"))
        url = lines[0].removeprefix("serving ")
        assert lines[1:7] == [
            "access key: key with space",
            "pull zones (1): 3 a.example.com",
            "shield zones (0): none",
            "scripts (0): none",
            "apps (1): shop (templates: web)",
            "registries (1): 5 ci",
        ]
        assert lines[8] == (
            f"  export EDGEDELIVERY_BASE_URL={url} EDGEDELIVERY_ACCESS_KEY='key with space'"
        )
        auth = {"AccessKey": "key with space"}
        async with httpx.AsyncClient(base_url=url, headers=auth) as http:
            env = await http.put("/mc/apps/shop/containers/web/env", json={"A": "1"})
            ssl = await http.post(
                "/pullzone/3/setForceSSL", json={"Hostname": "a.example.com", "ForceSSL": True}
            )
            registry = await http.get("/mc/registries/5")
        assert env.status_code == 200, env.text
        assert ssl.status_code == 204, ssl.text
        assert registry.json()["displayName"] == "ci"
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0
