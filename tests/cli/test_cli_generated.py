"""The per-operation commands come from the document: every operation has one.

The lists here are read from the document (`_schema.operations()`) and from the
generated methods, so an operation added to the document is covered with no change
to this file: its command's help, its names, and a run against the fake with values
from the document's examples.
"""

from __future__ import annotations

import inspect
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from edgedelivery_openapi.resources import OPERATIONS

from edgedelivery_async import _schema
from edgedelivery_async._client import EdgeDeliveryClient
from edgedelivery_async.cli import _document
from edgedelivery_async.cli._app import app
from edgedelivery_async.cli._commands import generated_commands
from edgedelivery_async.cli._overrides import OVERRIDES
from edgedelivery_async.testing import FakeEdgeDelivery, _shapes
from edgedelivery_async.testing._document import Document
from edgedelivery_async.testing._samples import sample

from ._support import Served, plain
from .conftest import Run

OPERATION_IDS = sorted(_schema.operations())
PLACEHOLDER = re.compile(r"<[a-z][a-z ]*>|\{[A-Z_]+\}")  # <str>, <int range>, {PULL_ZONE_ID}


def command_of(operation_id: str) -> list[str]:
    """The group and command names of an operation, as the CLI spells them."""
    spec = _document.operations()[operation_id]
    return [spec.resource.replace("_", "-"), spec.command]


def method_of(operation_id: str) -> Callable[..., Any]:
    """The generated method (unbound, undecorated) of an operation."""
    resource, method = OPERATIONS[operation_id]
    resource_class = type(getattr(EdgeDeliveryClient("k", "https://x.example"), resource))
    endpoint = getattr(resource_class, method)
    wrapped: Callable[..., Any] = endpoint.__wrapped__
    return wrapped


def signature_names(operation_id: str) -> tuple[list[str], list[str], str | None]:
    """(path parameters, keyword parameters, whole-body parameter) of the generated method."""
    spec = _document.operations()[operation_id]
    parameters = list(inspect.signature(method_of(operation_id)).parameters.values())[1:]
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    body = spec.body_param if spec.body_param in positional else None
    path = [name for name in positional if name != body]
    keywords = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name != "extra_fields"]
    return path, keywords, body


@pytest.mark.parametrize("operation_id", OPERATION_IDS)
def test_the_cli_reads_the_names_the_generator_wrote(operation_id: str) -> None:
    spec = _document.operations()[operation_id]
    assert (spec.resource, spec.method) == OPERATIONS[operation_id]
    path, keywords, body = signature_names(operation_id)
    assert [item.python for item in spec.path_params] == path
    assert sorted(item.python for item in spec.inputs if item.kind != "path") == sorted(keywords)
    assert spec.body_param == body or (body is None and spec.body_param is None)
    assert [item.wire for item in spec.path_params] == [
        parameter.name for parameter in _schema.operations()[operation_id].path_params
    ]
    assert {item.wire for item in spec.query_params} == {
        parameter.name for parameter in _schema.operations()[operation_id].query_params
    }


@pytest.mark.parametrize("operation_id", OPERATION_IDS)
def test_every_operation_has_a_command_whose_help_lists_its_inputs(
    cli: Run, operation_id: str
) -> None:
    result = cli(*command_of(operation_id), "--help")
    assert result.code == 0, result.err
    text = plain(result.out)
    operation = _schema.operations()[operation_id]
    assert operation.operation_id in text
    path, keywords, body = signature_names(operation_id)
    for name in path:
        assert name.upper() in text, f"{name.upper()} is not in the help of {operation_id}"
    renamed = OVERRIDES.get(operation_id)
    for name in keywords:
        declared = renamed.options.get(name) if renamed is not None else None
        # The CLI's option of a Python name: its underscores as dashes, none at either end
        # (`async_` -> `--async`).
        default = "--" + name.strip("_").replace("_", "-")
        option = declared[0].split("/")[0] if declared else default
        assert re.search(rf"(^|\s|,){re.escape(option)}(\s|,|$)", text), (
            f"{option} is not in the help of {operation_id}"
        )
    if body is not None or operation.body_schema is not None:
        assert re.search(r"(^|\s|,)--body(\s|,|$)", text), f"no --body in {operation_id}"
    assert not PLACEHOLDER.search(text), PLACEHOLDER.findall(text)


def every_help_path(command: Any, path: list[str]) -> list[list[str]]:
    found = [path]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        found += every_help_path(sub, [*path, name])
    return found


def test_no_help_shows_a_type_placeholder(cli: Run) -> None:
    paths = every_help_path(typer.main.get_command(app), [])
    assert ["shield", "dump"] in paths
    assert ["demo"] in paths
    for path in paths:
        result = cli(*path, "--help")
        assert result.code == 0, (path, result.err)
        found = PLACEHOLDER.findall(result.out)
        assert not found, f"{' '.join(path)} --help shows {found}"


def test_no_help_shows_the_documents_notes_for_maintainers(cli: Run) -> None:
    """The document's notes on where it departs from the API reference ("Status codes are
    not shown in the reference") and its citations of issues ("(issue 11)") were in the
    help of commands and options, as docstrings never had them."""
    document = json.dumps(_document.document())
    assert "the reference" in document  # (the notes are there to be left out)
    assert "issue 11" in document
    for path in every_help_path(typer.main.get_command(app), []):
        text = " ".join(plain(cli(*path, "--help").out).split())
        assert "the reference" not in text, path
        assert not re.search(r"\bissue \d", text), path


def test_on_off_reads_as_a_flag(cli: Run) -> None:
    text = plain(cli("pull-zones", "set-force-ssl", "--help").out)
    assert "--on --off Force HTTPS on or off." in text


def test_the_top_level_help_lists_every_exit_status(cli: Run) -> None:
    text = plain(cli("--help").out)
    for status in ("0", "1", "2", "130"):
        assert re.search(rf"• {status} ", text), f"exit status {status} is not listed"
    assert "--allow-insecure-http" in text


# -------------------------------------------------------- runs against the fake
def example_body(operation_id: str) -> Any:
    """The request body example of an operation (its `example`, else its first `examples`,
    else, for a required body or one with required fields, the fake's sample of its schema)."""
    spec = _document.document()
    for item in spec["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or operation.get("operationId") != operation_id:
                continue
            body = _document.deref(operation.get("requestBody", {}))
            media = body.get("content", {}).get("application/json", {})
            if "example" in media:
                return media["example"]
            for example in media.get("examples", {}).values():
                return _document.deref(example)["value"]
            schema = _document.deref(media.get("schema", {})) if media else {}
            if media and (body.get("required") or schema.get("required")):
                return sample(schema, Document())  # no example: a sample of the schema
    return None


def path_value(item: _document.Input) -> str:
    """A path value for an operation the fake keeps no state for: its example, else 1."""
    if "example" in item.schema:
        return str(item.schema["example"])
    return "1"


def seed(fake: FakeEdgeDelivery, operation_id: str, body: Any) -> list[str] | None:
    """State for the stateful nine, and their path values; None for any other operation."""
    if operation_id == "PullZonePublic_SetForceSSL":
        fake.add_pull_zone(42, hostnames=[body["Hostname"]])
        return ["42"]
    if operation_id == "ComputeScript_AddVariable":
        return [str(fake.add_script(5))]
    if operation_id in ("DnsZone_Add", "ContainerRegistry_Add"):
        return []
    if operation_id == "ContainerTemplate_Add":
        return [fake.add_app("app-1")]
    if operation_id == "ContainerTemplate_SetEnvironmentVariables":
        app_id = fake.add_app("app-1")
        return [app_id, fake.add_template(app_id)]
    if operation_id == "ContainerRegistry_Get":
        return [str(fake.add_registry("main"))]
    if operation_id == "ShieldZone_GetByPullZone":
        fake.seed_pull_zones(1)
        return ["1"]
    if operation_id == "ShieldZone_GetUploadScanning":
        fake.seed_pull_zones(1)
        return [str(fake.shield_zone_id_for(1))]
    return None


def options_for(operation_id: str, body: dict[str, Any], kind: str = "field") -> list[str]:
    """The example body (or query values) as options, spelled as the command declares them."""
    command = generated_commands()[operation_id]
    by_wire = {bound.input.wire: bound for bound in command.bound if bound.input.kind == kind}
    args: list[str] = []
    for wire, value in body.items():
        bound = by_wire[wire]
        if isinstance(value, bool):
            on, _, off = bound.label.partition("/")
            args.append(on if value else off)
        elif bound.json_kind is not None:
            args += [bound.label.split("/")[0], json.dumps(value)]
        else:
            args += [bound.label.split("/")[0], str(value)]
    return args


RUNS = [
    (operation_id, how)
    for operation_id in OPERATION_IDS
    for how in (("options", "body") if example_body(operation_id) is not None else ("options",))
]


@pytest.mark.parametrize(("operation_id", "how"), RUNS)
def test_every_operation_runs_against_the_fake(
    cli: Run, served: Served, tmp_path: Path, operation_id: str, how: str
) -> None:
    spec = _document.operations()[operation_id]
    body = example_body(operation_id)
    path = seed(served.fake, operation_id, body)
    if path is None:
        path = [path_value(item) for item in spec.path_params]
    args = [*served.options, *command_of(operation_id), *path]
    query = {q.wire: sample(q.schema, Document()) for q in spec.query_params if q.required}
    args += options_for(operation_id, query, "query")
    if body is not None:
        if how == "options" and spec.fields and isinstance(body, dict):
            args += options_for(operation_id, body)
        else:
            file = tmp_path / "body.json"
            file.write_text(json.dumps(body))
            args += ["--body", str(file)]
    result = cli(*args)
    assert result.code == 0, result.err
    if _schema.operations()[operation_id].reply == "json":
        json.loads(result.out)  # the result, as JSON
    [sent] = served.fake.requests_for(operation_id)
    if body is not None:  # as the fake records it: passwords redacted
        document = served.fake.router.document
        schema = _schema.operations()[operation_id].body_schema
        assert sent.json == _shapes.redact_passwords(document, schema, body)


def test_an_option_shows_the_kind_of_its_value_not_its_name_again(cli: Run) -> None:
    """A field's name shown twice (the option and an upper-case metavar) pushes a long
    option's own name out of the help table, where rich cuts it short."""
    result = cli("pull-zones", "set-force-ssl", "--help")
    assert result.code == 0, result.err
    text = plain(result.out)
    assert re.search(r"--hostname\s+TEXT\b", text), text
    assert "HOSTNAME" not in text


def test_an_operation_never_takes_a_hand_written_commands_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `Demo` tag's group replaced `edgedelivery demo`, and `shield dump` replaced an
    operation's `dump` command, with no word of it: those now get "-api" after the name."""
    import copy

    from edgedelivery_async.cli import _app

    spec = copy.deepcopy(_document.document())
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    spec["paths"]["/demo"] = {
        "get": {"operationId": "Demo_List", "tags": ["Demo"], "responses": ok}
    }
    spec["paths"]["/shield/dump"] = {
        "get": {"operationId": "ShieldZone_Dump", "tags": ["Shield"], "responses": ok}
    }
    monkeypatch.setattr(_document, "document", lambda: spec)
    found = {group.name: group for group in _document.groups.__wrapped__()}
    assert "demo" not in found
    assert [op.command for op in found["demo-api"].operations] == ["list"]
    assert "dump-api" in [op.command for op in found["shield"].operations]
    assert "dump" not in [op.command for op in found["shield"].operations]
    hand_written = {name: frozenset(commands) for name, commands in _app.HAND_WRITTEN.items()}
    assert {"": frozenset({"demo"}), **hand_written} == _document.HAND_WRITTEN_COMMANDS


def test_every_option_of_a_command_has_a_name_of_its_own() -> None:
    """A query parameter `help` took --help, a field `Body` the --body FILE option, and
    fields `Cache` and `NoCache` both --no-cache: each now gets a name no other takes."""
    from edgedelivery_async.cli._commands import GeneratedCommand
    from edgedelivery_async.cli._document import Input, OperationSpec

    flag, text = {"type": "boolean"}, {"type": "string"}
    operation = OperationSpec(
        operation_id="Widget_AddNote",
        http_method="POST",
        path="/widgets/{id}/note",
        resource="widgets",
        method="add_note",
        command="add-note",
        summary="Add a note",
        description="",
        requires_key=True,
        query_params=(Input("query", "help", "help", flag, False),),
        fields=(
            Input("field", "Body", "body", text, True),
            Input("field", "Cache", "cache", flag, False),
            Input("field", "NoCache", "no_cache", flag, False),
        ),
        has_body=True,
    )
    command = GeneratedCommand.build(operation, None)
    labels = [bound.label for bound in command.bound]
    assert labels == [
        "--help-query/--no-help-query",
        "--body-field",
        "--cache/--no-cache",
        "--no-cache-field/--no-no-cache-field",
    ]
    infos = [param.annotation.__metadata__[0] for param in command.params]
    options = [  # (typer takes an Annotated option's first declaration as its "default")
        name
        for info in infos
        for name in (info.default, *info.param_decls)
        if isinstance(name, str) and name.startswith("-")
    ]
    spelled = [part for name in options for part in name.split("/")]
    assert len(spelled) == len(set(spelled)), spelled
    assert "--help" not in spelled
    assert "--body" in spelled  # the whole body, as on every command with one


Calls = list[tuple[str, list[Any], dict[str, Any]]]


def raw_commands(monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, Calls]:
    """The document with a binary body (`raw put-blob KEY`) and a text body (`raw
    put-note`), as an app whose commands record their calls instead of sending."""
    import copy

    from edgedelivery_async.cli import _commands

    spec = copy.deepcopy(_document.document())
    ok = {"204": {"description": "stored"}}
    blob = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
    note = {"text/plain": {"schema": {"type": "string"}}}
    key = [{"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}]
    spec["tags"].append({"name": "Raw"})
    spec["paths"]["/raw/blobs/{key}"] = {
        "put": {
            "operationId": "Raw_PutBlob",
            "tags": ["Raw"],
            "parameters": key,
            "requestBody": {"required": True, "content": blob},
            "responses": ok,
        }
    }
    spec["paths"]["/raw/notes"] = {
        "post": {
            "operationId": "Raw_PutNote",
            "tags": ["Raw"],
            "requestBody": {"content": note, "x-sdk-body": "text"},
            "responses": ok,
        }
    }
    monkeypatch.setattr(_document, "document", lambda: spec)
    (group,) = [group for group in _document.groups.__wrapped__() if group.name == "raw"]
    found = {op.operation_id: op for op in group.operations}
    put_blob, put_note = found["Raw_PutBlob"], found["Raw_PutNote"]
    assert (put_blob.body_kind, put_blob.body_param, put_blob.body_required) == (
        "binary",
        "body",
        True,
    )
    assert (put_note.body_kind, put_note.body_param, put_note.body_required) == (
        "text",
        "text",
        False,
    )

    calls: Calls = []
    monkeypatch.setattr(
        _commands,
        "call_operation",
        lambda ctx, operation_id, args, kwargs: calls.append((operation_id, args, kwargs)),
    )
    raw = typer.Typer()
    raw.add_typer(_commands.build_group(group, {}), name="raw")
    return raw, calls


def test_a_text_or_binary_body_is_given_as_a_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An operation whose body is `application/octet-stream` or `text/plain` had no way to
    give it (`missing 1 required positional argument: 'body'`): `--body FILE` (- for
    stdin) now passes the file's bytes, or its UTF-8 text, as the method's whole body."""
    from typer.testing import CliRunner

    raw, calls = raw_commands(monkeypatch)
    runner = CliRunner()
    data = bytes(range(256))
    (tmp_path / "blob").write_bytes(data)
    ran = runner.invoke(raw, ["raw", "put-blob", "k", "--body", str(tmp_path / "blob")])
    assert ran.exit_code == 0, ran.output
    assert calls.pop() == ("Raw_PutBlob", ["k", data], {})
    ran = runner.invoke(raw, ["raw", "put-blob", "k", "--body", "-"], input=data)
    assert ran.exit_code == 0, ran.output
    assert calls.pop() == ("Raw_PutBlob", ["k", data], {})
    ran = runner.invoke(raw, ["raw", "put-blob", "k"])
    assert ran.exit_code == 2, ran.output
    assert "--body" in ran.output, ran.output

    ran = runner.invoke(raw, ["raw", "put-note", "--body", "-"], input="é ok\n".encode())
    assert ran.exit_code == 0, ran.output
    assert calls.pop() == ("Raw_PutNote", ["é ok\n"], {})
    ran = runner.invoke(raw, ["raw", "put-note", "--body", "-"], input=b"\xff")
    assert ran.exit_code == 2, ran.output
    assert "utf-8" in ran.output, ran.output
    assert calls == []
    ran = runner.invoke(raw, ["raw", "put-note"])
    assert ran.exit_code == 0, ran.output
    assert calls.pop() == ("Raw_PutNote", [], {})


def test_a_text_or_binary_body_file_is_read_up_to_the_cap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A binary or text --body FILE was read whole, however big: now at most
    `_output.MAX_INPUT` bytes (the SDK's 64 MiB reply cap) are read, and a bigger file
    is a usage error (2) that names the cap; nothing is called."""
    from typer.testing import CliRunner

    from edgedelivery_async.cli import _output

    raw, calls = raw_commands(monkeypatch)
    monkeypatch.setattr(_output, "MAX_INPUT", 1000)
    read_sizes: list[int] = []

    class Counted(io.BufferedReader):  # how much of the file is read
        def read(self, size: int | None = -1, /) -> bytes:
            read_sizes.append(-1 if size is None else size)
            return super().read(size)

    real_open = open

    def counted_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(path, mode, *args, **kwargs)
        if mode == "rb" and str(path).startswith(str(tmp_path)):
            return Counted(handle.detach())
        return handle

    monkeypatch.setattr("builtins.open", counted_open)
    runner = CliRunner()
    (tmp_path / "fits").write_bytes(b"x" * 1000)
    (tmp_path / "big").write_bytes(b"x" * 100_000)
    ran = runner.invoke(raw, ["raw", "put-blob", "k", "--body", str(tmp_path / "fits")])
    assert ran.exit_code == 0, ran.output
    assert calls.pop() == ("Raw_PutBlob", ["k", b"x" * 1000], {})
    for command in (["put-blob", "k"], ["put-note"]):
        read_sizes.clear()
        ran = runner.invoke(raw, ["raw", *command, "--body", str(tmp_path / "big")])
        assert ran.exit_code == 2, ran.output
        assert "is over 1,000 bytes, the most the CLI reads" in plain(ran.output), ran.output
        assert read_sizes == [1001]  # not the 100,000 bytes
    ran = runner.invoke(raw, ["raw", "put-note", "--body", "-"], input=b"y" * 1001)
    assert ran.exit_code == 2, ran.output
    assert calls == []


def test_integer_and_number_options_are_ascii_decimal(monkeypatch: pytest.MonkeyPatch) -> None:
    """click's INT and FLOAT read what int() and float() read: `--count` in Arabic-Indic
    digits and `--count 1_0` sent 10, `--ratio nan` and `1e999` went on to the SDK, and a
    value of 5,000 digits was echoed whole in the error. Now an integer or number option
    is ASCII decimal and finite, as an id is (a usage error otherwise, nothing called),
    within the schema's bounds, and a long value is shown shortened."""
    from typer.testing import CliRunner

    from edgedelivery_async.cli import _commands
    from edgedelivery_async.cli._document import GroupSpec, Input, OperationSpec

    bounded = {"type": "integer", "minimum": 1, "maximum": 10}
    operation = OperationSpec(
        operation_id="Widget_List",
        http_method="GET",
        path="/widgets",
        resource="widgets",
        method="list",
        command="list",
        summary="List widgets",
        description="",
        requires_key=True,
        query_params=(
            Input("query", "count", "count", bounded, False),
            Input("query", "offset", "offset", {"type": "integer"}, False),
            Input("query", "ratio", "ratio", {"type": "number"}, False),
        ),
    )
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(
        _commands, "call_operation", lambda ctx, operation_id, args, kwargs: calls.append(kwargs)
    )
    widgets = typer.Typer()
    group = GroupSpec("widgets", "widgets", "Widgets", (operation,))
    widgets.add_typer(_commands.build_group(group, {}), name="widgets")
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        ran = runner.invoke(widgets, ["widgets", "list", *args], env={"COLUMNS": "200"})
        return ran.exit_code, plain(ran.output)

    for args, sent in [
        (["--count", "10", "--offset", "-3", "--ratio", "-.5e-3"], (10, -3, -0.0005)),
        (["--count", " +7 ", "--offset", "0" * 5000 + "12", "--ratio", "2"], (7, 12, 2.0)),
    ]:
        assert run(*args)[0] == 0
        assert calls.pop() == dict(zip(["count", "offset", "ratio"], sent, strict=True))
    for args, said in [
        (["--count", "\u0661\u0660"], "'\u0661\u0660' is not an integer (ASCII digits)"),
        (["--count", "\uff11"], "'\uff11' is not an integer"),
        (["--offset", "1_0"], "'1_0' is not an integer"),
        (["--offset", "1.5"], "'1.5' is not an integer"),
        (["--offset", "9" * 5000], f"'{'9' * 37}...' has more than 4,300 digits"),
        (["--count", "11"], "11 is not in the range 1<=x<=10"),
        (["--ratio", "nan"], "'nan' is not a number"),
        (["--ratio", "inf"], "'inf' is not a number"),
        (["--ratio", "1e999"], "'1e999' is beyond the range of a number"),
        (["--ratio", "\u0663.\u0665"], "'\u0663.\u0665' is not a number"),
    ]:
        code, output = run(*args)
        assert code == 2, output
        assert said in output, output
        assert len(output) < 1000
    assert calls == []
    assert "--count INTEGER [1<=x<=10]" in run("--help")[1]
