"""Every operation subcommand through the real entry point, against the fake on loopback."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from edgedelivery_async.testing import SEED_SHIELD_ZONE_OFFSET

from ._support import KEY, Served, plain
from .conftest import Run


def test_set_force_ssl_on_and_off(cli: Run, served: Served) -> None:
    served.fake.add_pull_zone(42, hostnames=["cdn.example.com"])
    on = cli(
        *served.options,
        "pull-zones",
        "set-force-ssl",
        "42",
        "--hostname",
        "cdn.example.com",
        "--on",
    )
    assert on.code == 0, on.err
    assert on.json() == {"pullZoneId": 42, "hostname": "cdn.example.com", "forceSSL": True}
    assert served.fake.force_ssl(42, "cdn.example.com") is True
    off = cli(
        *served.options,
        "pull-zones",
        "set-force-ssl",
        "42",
        "--hostname",
        "cdn.example.com",
        "--off",
    )
    assert off.code == 0, off.err
    assert served.fake.force_ssl(42, "cdn.example.com") is False


def test_set_force_ssl_needs_on_or_off(cli: Run, served: Served) -> None:
    result = cli(*served.options, "pull-zones", "set-force-ssl", "42", "--hostname", "a.example")
    assert result.code == 2
    assert "--on" in plain(result.err)
    assert served.fake.requests == []


def test_api_error_exits_1_with_the_sdks_message(cli: Run, served: Served) -> None:
    result = cli(
        *served.options, "pull-zones", "set-force-ssl", "7", "--hostname", "x.example", "--on"
    )
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith("error: POST /pullzone/7/setForceSSL -> 404 Not Found")


def test_add_variable(cli: Run, served: Served) -> None:
    served.fake.add_script(5)
    result = cli(
        *served.options,
        "compute",
        "add-variable",
        "5",
        "--name",
        "API_URL",
        "--required",
        "--default-value",
        "https://x.example",
    )
    assert result.code == 0, result.err
    body = result.json()
    assert body["Name"] == "API_URL"
    assert body["Required"] is True
    assert body["DefaultValue"] == "https://x.example"
    assert isinstance(body["Id"], int)
    assert served.fake.script_variables(5) == [body]


def test_add_variable_sends_only_what_was_given(cli: Run, served: Served) -> None:
    served.fake.add_script(5)
    result = cli(*served.options, "compute", "add-variable", "5", "--name", "LOG_LEVEL")
    assert result.code == 0, result.err
    assert served.fake.requests_for("ComputeScript_AddVariable")[-1].json == {"Name": "LOG_LEVEL"}


def test_dns_zone_with_records_file(cli: Run, served: Served, tmp_path: Path) -> None:
    records = [{"Name": "www", "Value": "192.0.2.1", "Ttl": 300}]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    result = cli(
        *served.options, "dns-zones", "add", "--domain", "example.com", "--records-file", str(path)
    )
    assert result.code == 0, result.err
    [zone] = served.fake.dns_zones()
    assert zone["Domain"] == "example.com"
    assert [r["Value"] for r in zone["Records"]] == ["192.0.2.1"]
    assert result.json() == zone or result.json() is None


def test_dns_zone_records_from_stdin(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _stdin('[{"Name": "@", "Value": "192.0.2.9"}]'))
    result = cli(
        *served.options, "dns-zones", "add", "--domain", "example.org", "--records-file", "-"
    )
    assert result.code == 0, result.err
    assert served.fake.dns_zones()[0]["Records"][0]["Value"] == "192.0.2.9"


def test_dns_zone_conflict_is_an_api_error(cli: Run, served: Served) -> None:
    assert cli(*served.options, "dns-zones", "add", "--domain", "example.com").code == 0
    again = cli(*served.options, "dns-zones", "add", "--domain", "EXAMPLE.com")
    assert again.code == 1
    assert "error: POST /dnszone" in again.err


def test_records_file_must_be_a_json_array(cli: Run, served: Served, tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    path.write_text("{not json")
    bad_json = cli(
        *served.options, "dns-zones", "add", "--domain", "a.example", "--records-file", str(path)
    )
    assert bad_json.code == 2
    assert "is not valid JSON" in plain(bad_json.err)
    path.write_text('{"Name": "www"}')
    not_array = cli(
        *served.options, "dns-zones", "add", "--domain", "a.example", "--records-file", str(path)
    )
    assert not_array.code == 2
    assert "JSON array" in plain(not_array.err)
    missing = cli(
        *served.options,
        "dns-zones",
        "add",
        "--domain",
        "a.example",
        "--records-file",
        str(tmp_path / "nope"),
    )
    assert missing.code == 2
    assert served.fake.requests == []


def test_add_template_from_file(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.add_app("app-1")
    template = {
        "name": "api",
        "image": "nginx:1.27",
        "environmentVariables": [{"name": "LOG_LEVEL", "value": "info"}],
    }
    path = tmp_path / "template.json"
    path.write_text(json.dumps(template))
    result = cli(*served.options, "containers", "add-template", "app-1", "--file", str(path))
    assert result.code == 0, result.err
    body = result.json()
    assert body["name"] == "api"
    assert served.fake.environment("app-1", body["id"]) == {"LOG_LEVEL": "info"}


def test_add_template_from_flags(cli: Run, served: Served) -> None:
    served.fake.add_app("app-1")
    result = cli(
        *served.options,
        "containers",
        "add-template",
        "app-1",
        "--name",
        "web",
        "--image",
        "nginx:1.27",
        "--env",
        "A=1",
        "-e",
        "B=two=2",
    )
    assert result.code == 0, result.err
    template_id = result.json()["id"]
    assert served.fake.environment("app-1", template_id) == {"A": "1", "B": "two=2"}


def test_add_template_invalid_input_exits_2_without_sending(cli: Run, served: Served) -> None:
    served.fake.add_app("app-1")
    no_name = cli(*served.options, "containers", "add-template", "app-1", "--image", "nginx")
    assert no_name.code == 2
    assert no_name.err.startswith("error: ContainerTemplate_Add: invalid request, nothing was sent")
    bad_pair = cli(
        *served.options, "containers", "add-template", "app-1", "--name", "x", "--env", "NOEQUALS"
    )
    assert bad_pair.code == 2
    assert "is not KEY=VALUE" in plain(bad_pair.err)
    assert served.fake.requests == []


def test_add_template_file_and_flags_exclude_each_other(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"name": "a", "image": "b"}')
    result = cli(
        *served.options, "containers", "add-template", "app-1", "--file", str(path), "--name", "x"
    )
    assert result.code == 2
    assert "cannot be combined" in plain(result.err)


def test_set_env_replaces_the_whole_set(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.add_app("app-1")
    template_id = served.fake.add_template(
        "app-1",
        {"name": "api", "image": "nginx", "environmentVariables": [{"name": "OLD", "value": "x"}]},
    )
    path = tmp_path / "env.json"
    path.write_text('{"FROM_FILE": "f", "BOTH": "file"}')
    result = cli(
        *served.options,
        "containers",
        "set-env",
        "app-1",
        template_id,
        "BOTH=arg",
        "EMPTY=",
        "--file",
        str(path),
    )
    assert result.code == 0, result.err
    assert served.fake.environment("app-1", template_id) == {
        "FROM_FILE": "f",
        "BOTH": "arg",
        "EMPTY": "",
    }
    assert {v["name"] for v in result.json()["environmentVariables"]} == {
        "FROM_FILE",
        "BOTH",
        "EMPTY",
    }


def test_set_env_empty_needs_clear(cli: Run, served: Served) -> None:
    served.fake.add_app("app-1")
    template_id = served.fake.add_template("app-1")
    refused = cli(*served.options, "containers", "set-env", "app-1", template_id)
    assert refused.code == 2
    assert "--clear" in plain(refused.err)
    cleared = cli(*served.options, "containers", "set-env", "app-1", template_id, "--clear")
    assert cleared.code == 0, cleared.err
    assert served.fake.environment("app-1", template_id) == {}


def test_set_env_unknown_container_is_404(cli: Run, served: Served) -> None:
    served.fake.add_app("app-1")
    result = cli(*served.options, "containers", "set-env", "app-1", "tpl-404", "A=1")
    assert result.code == 1
    assert "404" in result.err


def test_registry_add_then_get(cli: Run, served: Served) -> None:
    added = cli(*served.options, "registries", "add", "--display-name", "main")
    assert added.code == 0, added.err
    registry_id = added.json()["id"]
    assert isinstance(registry_id, int)
    got = cli(*served.options, "registries", "get", str(registry_id))
    assert got.code == 0, got.err
    assert got.json()["displayName"] == "main"
    assert got.json()["id"] == registry_id


def test_registry_get_missing(cli: Run, served: Served) -> None:
    result = cli(*served.options, "registries", "get", "999")
    assert result.code == 1
    assert "404" in result.err


def test_shield_get_and_upload_scanning_need_no_key(cli: Run, served: Served) -> None:
    served.fake.seed_pull_zones(3)
    served.fake.set_upload_scanning(SEED_SHIELD_ZONE_OFFSET + 2, True)
    got = cli("--base-url", served.url, "shield", "get", "2")
    assert got.code == 0, got.err
    assert got.json()["pullZoneId"] == 2
    assert got.json()["shieldZoneId"] == SEED_SHIELD_ZONE_OFFSET + 2
    scanning = cli(
        "--base-url", served.url, "shield", "upload-scanning", str(SEED_SHIELD_ZONE_OFFSET + 2)
    )
    assert scanning.code == 0, scanning.err
    assert scanning.json() == {"shieldZoneId": SEED_SHIELD_ZONE_OFFSET + 2, "isEnabled": True}


def test_environment_variables_configure_the_client(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEDELIVERY_BASE_URL", served.url)
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", KEY)
    result = cli("registries", "add", "--display-name", "from-env")
    assert result.code == 0, result.err


def test_missing_base_url_is_a_usage_error(cli: Run) -> None:
    result = cli("--access-key", KEY, "registries", "get", "1")
    assert result.code == 2
    assert "no base URL" in result.err
    assert "--base-url" in result.err


def test_missing_key_is_a_usage_error(cli: Run, served: Served) -> None:
    result = cli("--base-url", served.url, "registries", "get", "1")
    assert result.code == 2
    assert "needs an access key: pass --access-key or set EDGEDELIVERY_ACCESS_KEY" in result.err
    assert "--base-url" not in result.err  # it was given
    assert served.fake.requests == []


def test_an_unusable_base_url_is_repeated_and_not_asked_for_again(cli: Run) -> None:
    result = cli(
        "--base-url", "htps://api.example.com", "--access-key", KEY, "registries", "get", "1"
    )
    assert result.code == 2
    assert (
        "error: base_url must be an absolute http:// or https:// URL, got 'htps://api.example.com'"
        in result.err
    )
    assert "pass --base-url" not in result.err  # it was given
    assert "hint: the base URL is the global option --base-url, else EDGEDELIVERY_BASE_URL" in (
        result.err
    )
    assert KEY not in result.err


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--access-key", f" {KEY}\n"], "access_key must be printable ASCII (no line breaks)"),
        (["--access-key", f"{KEY} "], "access_key must not begin or end with a space"),
    ],
)
def test_an_unusable_access_key_says_where_it_came_from(
    cli: Run, monkeypatch: pytest.MonkeyPatch, given: list[str], said: str
) -> None:
    """The SDK's message names its argument (`access_key must not begin or end with a
    space`): the command line now says which option and variable set it, never the key."""
    result = cli("--base-url", "http://127.0.0.1:9", *given, "registries", "get", "1")
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", f"{KEY}\t")
    from_env = cli("--base-url", "http://127.0.0.1:9", "registries", "get", "1")
    for ran in (result, from_env):
        assert ran.code == 2
        assert "hint: the access key is the global option --access-key, else " in ran.err
        assert KEY not in ran.out + ran.err
    assert f"error: {said}" in result.err


def test_a_missing_base_url_says_what_to_pass(cli: Run) -> None:
    result = cli("--access-key", KEY, "registries", "get", "1")
    assert "no base URL: pass --base-url or set EDGEDELIVERY_BASE_URL" in result.err
    assert "base_url=" not in result.err


def test_wrong_key_is_401_and_never_printed(cli: Run, served: Served) -> None:
    wrong = "wrong-Secret-a1b2c3d4"
    result = cli("--base-url", served.url, "--access-key", wrong, "registries", "get", "1")
    assert result.code == 1
    assert "401" in result.err
    assert wrong not in result.out + result.err


def closed_port() -> int:
    """A loopback port nothing listens on."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_key_given_as_an_id_is_in_no_message_or_log(
    cli: Run, served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    """The key pasted where an id goes: a 404's message masked it, but the debug log
    (`PUT /mc/apps/app-1/containers/<key>/env -> 404`, the retry lines) and a failed
    connection's message (`error: PUT /mc/apps/...<key>...: could not connect`) had it."""
    caplog.set_level(logging.DEBUG, logger="edgedelivery_async")
    served.fake.add_app("app-1")
    args = ["containers", "set-env", "app-1", KEY, "A=1"]
    not_found = cli(*served.options, *args)
    unreachable = cli(
        "--base-url", f"http://127.0.0.1:{closed_port()}", "--access-key", KEY,
        "--max-retries", "1", *args,
    )  # fmt: skip
    assert (not_found.code, unreachable.code) == (1, 1)
    assert "404" in not_found.err
    assert "could not connect" in unreachable.err
    assert "retrying PUT /mc/apps/app-1/containers/***/env" in caplog.text
    for said in (not_found.out, not_found.err, unreachable.err, caplog.text):
        assert "/containers/***/env" in said or said == ""
        assert KEY not in said


def test_help_never_shows_the_key(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGEDELIVERY_ACCESS_KEY", KEY)
    for args in (["--help"], ["shield", "dump", "--help"], ["registries", "add", "--help"]):
        result = cli(*args)
        assert result.code == 0
        assert KEY not in result.out + result.err
        assert "Usage" in result.out


def test_timeout_and_retries_options(cli: Run, served: Served) -> None:
    served.fake.seed_pull_zones(1)
    served.fake.fail_next("ShieldZone_GetByPullZone", status=503, times=1)
    no_retry = cli("--base-url", served.url, "--max-retries", "0", "shield", "get", "1")
    assert no_retry.code == 1
    assert "503" in no_retry.err
    served.fake.fail_next("ShieldZone_GetByPullZone", status=503, times=1, retry_after=0)
    retried = cli("--base-url", served.url, "--timeout", "5", "shield", "get", "1")
    assert retried.code == 0, retried.err


@pytest.mark.parametrize("count", ["101", "1000000000000000000000", "-1"])
def test_max_retries_out_of_range_is_a_usage_error(cli: Run, count: str) -> None:
    result = cli("--base-url", "http://127.0.0.1:9", "--max-retries", count, "shield", "get", "1")
    assert result.code == 2
    assert "--max-retries" in result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--timeout", "nan", "shield", "get", "1"], "'--timeout': 'nan' is not a number"),
        (["--timeout", "1e10", "shield", "get", "1"], "is not in the range 0.001<=x<=1000000000"),
        (["--max-retries", "\u0663", "shield", "get", "1"], "'--max-retries': '\u0663' is not an"),
        (["shield", "dump", "-p", "1", "-c", "\u0661\u0660"], "'-c': '\u0661\u0660' is not an"),
        (["shield", "dump", "-p", "1", "--rate-limit", "1_0"], "'--rate-limit': '1_0' is not a"),
        (["demo", "-p", "\uff15"], "'-p': '\uff15' is not an integer"),
        (["demo", "--latency", "inf"], "'--latency': 'inf' is not a number"),
    ],
    ids=["timeout-nan", "timeout-big", "retries", "concurrency", "rate-limit", "demo-p", "latency"],
)
def test_the_hand_written_numeric_options_are_ascii_decimal(
    cli: Run, args: list[str], said: str
) -> None:
    """As the generated commands' options are (`_commands.number_type`): `--max-retries`
    and `-c` in Arabic-Indic digits ran with 3 and 10, `--rate-limit 1_0` with 10, and
    `--timeout nan` or `1e10` reached the SDK, whose refusal named Python's `timeout`
    ("timeout must be a Timeout or a number of seconds ...")."""
    result = cli("--base-url", "http://127.0.0.1:9", *args)
    assert result.code == 2, result.err
    assert said in plain(result.err)
    assert "a Timeout" not in result.err


def test_no_command_shows_help(cli: Run) -> None:
    result = cli()
    assert result.code in (0, 2)
    assert "shield" in result.out + result.err


def test_version(cli: Run) -> None:
    from edgedelivery_async import __version__

    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"edgedelivery {__version__}"


def _stdin(text: str) -> object:
    import io

    return io.StringIO(text)


def test_global_option_after_the_command_gets_a_hint(cli: Run) -> None:
    result = cli("shield", "get", "1", "--base-url", "https://x.example")
    assert result.code == 2
    assert "hint: global options go before the command" in result.err
    ok_usage = cli("--base-url", "https://x.example", "shield", "get", "not-a-number")
    assert ok_usage.code == 2
    assert "hint:" not in ok_usage.err


# ------------------------------------------------- ids, settings, generated inputs
@pytest.mark.parametrize("bad_id", ["0", "-5", "00"])
@pytest.mark.parametrize(
    "command",
    [
        ["pull-zones", "set-force-ssl", "{id}", "--hostname", "h.example", "--on"],
        ["compute", "add-variable", "{id}", "--name", "X"],
        ["registries", "get", "{id}"],
        ["shield", "get", "{id}"],
        ["shield", "upload-scanning", "{id}"],
    ],
    ids=lambda command: " ".join(command[:2]),
)
def test_non_positive_ids_are_refused_before_sending(
    cli: Run, served: Served, command: list[str], bad_id: str
) -> None:
    args = [bad_id if part == "{id}" else part for part in command]
    result = cli(*served.options, *args)
    assert result.code == 2, result.err
    assert "ids are positive integers" in plain(result.err)
    assert served.fake.requests == []


@pytest.mark.parametrize("bad_id", ["-31", "-12345"])
def test_a_negative_id_is_named_whole(cli: Run, served: Served, bad_id: str) -> None:
    # click names only "-3" of "-31" as the unknown option
    result = cli(*served.options, "registries", "get", bad_id)
    assert result.code == 2, result.err
    assert f"{bad_id} is not an id" in plain(result.err)
    assert served.fake.requests == []


def test_plain_http_refusal_names_the_cli_option(cli: Run) -> None:
    result = cli(
        "--base-url", "http://api.example.net", "--access-key", KEY, "registries", "get", "1"
    )
    assert result.code == 2
    assert "refusing to send the access key over plain http://" in result.err
    assert "--allow-insecure-http" in result.err
    assert "allow_insecure_http" not in result.err
    assert "hint: use an https:// base URL, or pass the global option --allow-insecure-http" in (
        result.err
    )


def test_allow_insecure_http_reaches_the_client(cli: Run) -> None:
    result = cli(
        "--allow-insecure-http",
        "--base-url",
        "http://192.0.2.1:9",
        "--access-key",
        KEY,
        "--timeout",
        "0.3",
        "--max-retries",
        "0",
        "registries",
        "get",
        "1",
    )
    assert result.code == 1  # sent (and failed to connect): not refused
    assert "refusing" not in result.err


def test_allow_insecure_http_after_the_command_gets_the_hint(cli: Run) -> None:
    result = cli("registries", "get", "1", "--allow-insecure-http")
    assert result.code == 2
    assert "hint: global options go before the command" in result.err


def test_not_required_is_still_accepted(cli: Run, served: Served) -> None:
    served.fake.add_script(5)
    for flag in ("--not-required", "--no-required"):
        result = cli(*served.options, "compute", "add-variable", "5", "--name", "A", flag)
        assert result.code == 0, result.err
        assert served.fake.requests_for("ComputeScript_AddVariable")[-1].json == {
            "Name": "A",
            "Required": False,
        }


def test_body_file_gives_the_fields(cli: Run, served: Served, tmp_path: Path) -> None:
    served.fake.add_pull_zone(42, hostnames=["cdn.example.com"])
    path = tmp_path / "body.json"
    path.write_text('{"Hostname": "cdn.example.com", "ForceSSL": true}')
    result = cli(*served.options, "pull-zones", "set-force-ssl", "42", "--body", str(path))
    assert result.code == 0, result.err
    assert result.json() == {"pullZoneId": 42, "hostname": "cdn.example.com", "forceSSL": True}
    assert served.fake.force_ssl(42, "cdn.example.com") is True


def test_a_missing_flag_pair_is_named_whole(cli: Run, served: Served) -> None:
    result = cli(*served.options, "pull-zones", "set-force-ssl", "42", "--hostname", "h.example")
    assert result.code == 2
    assert "Missing option '--on/--off'" in plain(result.err)
    assert served.fake.requests == []


@pytest.mark.parametrize(
    ("body", "extra", "message"),
    [
        ('{"Hostname": "a.example", "ForceSSL": true}', ["--hostname", "b"], "cannot be combined"),
        ('{"Hostname": "a.example", "ForceSSL": true, "X": 1}', [], "unknown member(s) X"),
        ('["not", "an", "object"]', [], "must hold a JSON object"),
        ('{"Hostname": "a.example"}', [], "--body: has no ForceSSL, which the body requires"),
        ("{}", [], "--body: has no Hostname, ForceSSL, which the body requires"),
    ],
)
def test_body_file_mistakes_are_usage_errors(
    cli: Run, served: Served, tmp_path: Path, body: str, extra: list[str], message: str
) -> None:
    path = tmp_path / "body.json"
    path.write_text(body)
    result = cli(*served.options, "pull-zones", "set-force-ssl", "42", "--body", str(path), *extra)
    assert result.code == 2
    assert message in plain(result.err)
    assert "Missing option" not in result.err  # (an option the file cannot be combined with)
    assert served.fake.requests == []


def test_json_options_are_parsed_and_checked(cli: Run, served: Served) -> None:
    records = '[{"Name": "www", "Value": "192.0.2.1"}]'
    ok = cli(*served.options, "dns-zones", "add", "--domain", "a.example", "--records", records)
    assert ok.code == 0, ok.err
    assert served.fake.dns_zones()[0]["Records"][0]["Value"] == "192.0.2.1"
    for bad, message in (("[{", "is not valid JSON"), ('{"a": 1}', "must be a JSON array")):
        result = cli(*served.options, "dns-zones", "add", "--domain", "b.example", "--records", bad)
        assert result.code == 2
        assert message in plain(result.err)


def test_bad_json_text_is_not_echoed(cli: Run, served: Served) -> None:
    # a registry password in text that does not parse stays out of the message
    given = '{"userName": "u", "password": "hunter2-Secret"'
    result = cli(
        *served.options,
        "registries",
        "add",
        "--display-name",
        "x",
        "--password-credentials",
        given,
    )
    assert result.code == 2
    assert "is not valid JSON" in plain(result.err)
    assert "hunter2" not in result.err
    assert served.fake.requests == []


def test_an_integral_float_in_json_is_refused_before_sending(cli: Run, served: Served) -> None:
    records = '[{"Ttl": 1.0, "PullZoneId": 9.2e18}]'  # went out as "Ttl":1.0
    result = cli(*served.options, "dns-zones", "add", "--domain", "f.example", "--records", records)
    assert result.code == 2
    assert "Records[0].Ttl: 1.0 is not of type 'integer'" in plain(result.err)
    assert "Records[0].PullZoneId" in plain(result.err)
    assert served.fake.requests == []


def test_null_is_taken_where_the_document_allows_it(cli: Run, served: Served) -> None:
    # DnsZoneCreate.Records is `nullable: true`
    result = cli(*served.options, "dns-zones", "add", "--domain", "n.example", "--records", "null")
    assert result.code == 0, result.err
    assert served.fake.requests[-1].json == {"Domain": "n.example", "Records": None}


def test_enum_options_are_choices(cli: Run, served: Served) -> None:
    result = cli(*served.options, "registries", "add", "--display-name", "x", "--type", "nope")
    assert result.code == 2
    assert "'nope' is not one of 'dockerHub'," in plain(result.err)
    assert served.fake.requests == []


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("\u0664\u0662", "is not an id"),  # Arabic-Indic digits: read as 42
        ("\uff15", "is not an id"),  # a fullwidth digit five
        ("9" * 4301, "beyond the 64-bit id range"),  # int() raised ValueError: a traceback
    ],
    ids=["arabic-indic", "fullwidth", "4301 digits"],
)
def test_an_id_is_ascii_digits_of_64_bits(
    cli: Run, served: Served, given: str, message: str
) -> None:
    result = cli(*served.options, "registries", "get", given)
    assert result.code == 2, result.err
    assert message in plain(result.err)
    assert "Traceback" not in result.err
    assert served.fake.requests == []


def test_a_json_file_with_a_byte_order_mark_is_read(
    cli: Run, served: Served, tmp_path: Path
) -> None:
    """A --body or --records-file that a Windows editor saved (UTF-8 with a byte-order
    mark) was refused: "is not valid JSON: Unexpected UTF-8 BOM", where an ids file's
    mark is skipped."""
    body, records = tmp_path / "body.json", tmp_path / "records.json"
    body.write_text('\ufeff{"Name": "API_URL"}', encoding="utf-8")
    records.write_text('\ufeff[{"Name": "www", "Value": "192.0.2.1"}]', "utf-8")
    served.fake.add_script(5)
    added = cli(*served.options, "compute", "add-variable", "5", "--body", str(body))
    zone = cli(*served.options, "dns-zones", "add", "--domain", "x.example", "--records-file",
               str(records))  # fmt: skip
    assert (added.code, zone.code) == (0, 0), added.err + zone.err
    assert added.json()["Name"] == "API_URL"
    assert zone.json()["Records"][0]["Value"] == "192.0.2.1"


def test_a_json_option_nested_too_deep_is_a_usage_error(cli: Run, served: Served) -> None:
    """It was a RecursionError traceback (--body already said so)."""
    deep = "[" * 2000 + "]" * 2000
    result = cli(*served.options, "dns-zones", "add", "--domain", "x.example", "--records", deep)
    assert result.code == 2, result.err
    assert "nested too deeply" in plain(result.err)
    assert served.fake.requests == []


def test_a_json_file_option_from_a_closed_stdin_is_a_usage_error(
    cli: Run, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was AttributeError: 'NoneType' object has no attribute 'read'."""
    monkeypatch.setattr("sys.stdin", None)
    result = cli(*served.options, "compute", "add-variable", "5", "--body", "-")
    assert result.code == 2, result.err
    assert "stdin is closed" in plain(result.err)


def test_a_json_file_option_is_utf_8_and_bounded(
    cli: Run, served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undecodable bytes from stdin went out as lone surrogates; a device read for ever."""
    import io

    from edgedelivery_async.cli import _output

    class Bytes(io.StringIO):
        buffer = io.BytesIO(b'{"Name": "caf\xff"}')

    monkeypatch.setattr("sys.stdin", Bytes())
    bad = cli(*served.options, "compute", "add-variable", "5", "--body", "-")
    assert bad.code == 2, bad.err
    assert "cannot read" in plain(bad.err)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 1001)
    monkeypatch.setattr(_output, "MAX_INPUT", 1000)
    too_big = cli(*served.options, "compute", "add-variable", "5", "--body", str(big))
    assert too_big.code == 2, too_big.err
    assert "is over 1,000 bytes" in plain(too_big.err)
    assert served.fake.requests == []


def test_a_field_with_a_lone_surrogate_is_refused_before_sending(cli: Run, served: Served) -> None:
    """An argument's undecodable bytes (a lone surrogate) went out in the JSON body,
    while the same bytes in a path parameter were refused."""
    result = cli(*served.options, "compute", "add-variable", "5", "--name", "caf\udcff")
    assert result.code == 2, result.err
    assert "lone surrogates" in plain(result.err)
    assert served.fake.requests == []
