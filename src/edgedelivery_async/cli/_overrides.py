"""Conveniences layered on generated commands: what the document cannot say.

Every command is generated from the document (`_commands`); an entry here, keyed by
operation id, only adds to or renames parts of one, so that today's command lines
keep working. None declares an operation, a path or a field. What each adds:

- `pull-zones set-force-ssl`: `--on/--off` for the `ForceSSL` field, and prints what
  was set (`{"pullZoneId", "hostname", "forceSSL"}`): the API answers with no body.
- `compute add-variable`: SCRIPT_ID is an integer id (see below); `--not-required` is
  accepted beside `--no-required`.
- `dns-zones add`: `--records-file FILE` (`-` for stdin), the records as a JSON array.
- `containers add-template`: `--file/-f` beside `--body`, and `-e/--env KEY=VALUE`
  (repeatable) for the environment variables.
- `containers set-env`: the variables as KEY=VALUE arguments, merged over `--file/-f`
  (a JSON object); an empty set, which removes every variable, only with `--clear`.
- `registries add`: prints `{"id": ...}` rather than the bare id.
- Integer ids: the document types the script, registry, pull zone (shield) and
  shield zone ids in paths as strings, because the reference does not say; the
  service's ids are integers, so these commands take positive integers (and refuse
  0, negative and non-numeric ids before sending).

Command names that differ from the method names (`add-variable`, `set-env`, `get`,
`upload-scanning`) are hints in the document itself: `x-cli-command`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from ._commands import Invocation, Param, PlainText
from ._output import read_json


@dataclass(frozen=True)
class Override:
    """What one generated command gets in addition (all optional)."""

    options: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # field -> decls
    option_help: Mapping[str, str] = field(default_factory=dict)  # field -> help
    integer_ids: frozenset[str] = frozenset()  # path parameters taken as positive integers
    body_options: tuple[str, ...] = ("--body",)
    body_help: str | None = None
    extra_arguments: tuple[Param, ...] = ()  # after the path arguments
    extra_options: tuple[Param, ...] = ()
    prepare: Callable[[Invocation], None] | None = None  # extras -> fields/body
    output: Callable[[Invocation, Any], Any] | None = None  # what is printed
    help: str | None = None  # a paragraph added to the command's help


def pairs(items: list[str] | None, option: str) -> dict[str, str]:
    """`KEY=VALUE` strings as a mapping (the value may contain `=`)."""
    found: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE", param_hint=option)
        found[name] = value
    return found


# ----------------------------------------------------------------- pull zones
def _force_ssl_output(call: Invocation, result: Any) -> Any:
    return {
        "pullZoneId": call.args[0],
        "hostname": call.kwargs.get("hostname"),
        "forceSSL": call.kwargs.get("force_ssl"),
    }


SET_FORCE_SSL = Override(
    options={"force_ssl": ("--on/--off",)},
    option_help={"force_ssl": "Force HTTPS on or off."},
    output=_force_ssl_output,
    help="Prints what was set: pullZoneId, hostname and forceSSL.",
)

# -------------------------------------------------------------------- compute
ADD_VARIABLE = Override(
    # " /--not-required": a declaration with nothing before the slash adds an off-name only
    options={"required": ("--required/--no-required", " /--not-required")},
    integer_ids=frozenset({"script_id"}),
)


# ------------------------------------------------------------------ dns zones
def _records_file(call: Invocation) -> None:
    path = call.extras.get("records_file")
    if path is None:
        return
    if "records" in call.fields:
        raise typer.BadParameter("cannot be combined with --records", param_hint="--records-file")
    records = read_json(path, "--records-file")
    if not isinstance(records, list):
        raise typer.BadParameter("must hold a JSON array of records", param_hint="--records-file")
    call.fields["records"] = records
    call.given["records"] = "--records-file"


ADD_DNS_ZONE = Override(
    extra_options=(
        Param(
            "records_file",
            Annotated[
                str | None,
                typer.Option(
                    "--records-file",
                    metavar="FILE",
                    help="The records as a JSON array, from a file (- for stdin).",
                    show_default=False,
                ),
            ],
        ),
    ),
    prepare=_records_file,
)


# ----------------------------------------------------------------- containers
def _template_env(call: Invocation) -> None:
    variables = pairs(call.extras.get("env"), "--env")
    if not variables:
        return
    if "environment_variables" in call.fields:
        raise typer.BadParameter(
            "cannot be combined with --environment-variables", param_hint="--env"
        )
    call.fields["environment_variables"] = variables
    call.given["environment_variables"] = "--env"


ADD_TEMPLATE = Override(
    body_options=("--body", "--file", "-f"),
    body_help="The whole template as a JSON object, from a file (- for stdin); "
    "instead of the field options.",
    extra_options=(
        Param(
            "env",
            Annotated[
                list[str] | None,
                typer.Option(
                    "--env",
                    "-e",
                    metavar="KEY=VALUE",
                    help="An environment variable (repeatable).",
                    show_default=False,
                ),
            ],
        ),
    ),
    prepare=_template_env,
)


def _set_env(call: Invocation) -> None:
    merged: dict[str, str] = {}
    if call.body_given:
        loaded = call.body
        if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
            raise typer.BadParameter(
                "must hold a JSON object of strings", param_hint=call.body_label
            )
        merged.update(loaded)
    merged.update(pairs(call.extras.get("variables"), "KEY=VALUE"))
    if not merged and not call.extras.get("clear"):
        raise typer.BadParameter(
            "no variables given; pass --clear to remove every variable", param_hint="KEY=VALUE"
        )
    call.body = merged
    call.body_given = True


SET_ENV = Override(
    body_options=("--body", "--file", "-f"),
    body_help='The variables as a JSON object {"NAME": "value"}, from a file (- for stdin); '
    "KEY=VALUE arguments win.",
    extra_arguments=(
        Param(
            "variables",
            Annotated[
                list[str] | None,
                typer.Argument(
                    metavar="KEY=VALUE...",
                    click_type=PlainText(),
                    help="The new variables.",
                    show_default=False,
                ),
            ],
        ),
    ),
    extra_options=(
        Param(
            "clear",
            Annotated[
                bool,
                typer.Option("--clear", help="Allow an empty set: remove every variable."),
            ],
            False,
        ),
    ),
    prepare=_set_env,
    help="The given set becomes the whole set: KEY=VALUE arguments, --file, or both.",
)

# ----------------------------------------------------------------- registries
ADD_REGISTRY = Override(
    output=lambda call, result: {"id": result},
    help='Prints {"id": ...}.',
)
GET_REGISTRY = Override(integer_ids=frozenset({"registry_id"}))

# --------------------------------------------------------------------- shield
GET_SHIELD_ZONE = Override(integer_ids=frozenset({"pull_zone_id"}))
GET_UPLOAD_SCANNING = Override(integer_ids=frozenset({"shield_zone_id"}))

OVERRIDES: dict[str, Override] = {
    "PullZonePublic_SetForceSSL": SET_FORCE_SSL,
    "ComputeScript_AddVariable": ADD_VARIABLE,
    "DnsZone_Add": ADD_DNS_ZONE,
    "ContainerTemplate_Add": ADD_TEMPLATE,
    "ContainerTemplate_SetEnvironmentVariables": SET_ENV,
    "ContainerRegistry_Add": ADD_REGISTRY,
    "ContainerRegistry_Get": GET_REGISTRY,
    "ShieldZone_GetByPullZone": GET_SHIELD_ZONE,
    "ShieldZone_GetUploadScanning": GET_UPLOAD_SCANNING,
}
