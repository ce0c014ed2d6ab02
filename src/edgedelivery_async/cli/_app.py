"""The `edgedelivery` application: global options and the subcommand tree."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from .._version import __version__
from . import _operations as ops
from ._demo import demo_command
from ._dump import dump_command
from ._options import Settings

app = typer.Typer(
    name="edgedelivery",
    help="The Edge Delivery Management API from the command line. "
    "Results are JSON on stdout; errors go to stderr with a non-zero exit status "
    "(1 API error, 2 bad input).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,  # no tracebacks with local variables (the access key)
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"edgedelivery {__version__}")
        raise typer.Exit()


@app.callback()
def global_options(
    ctx: typer.Context,
    access_key: Annotated[
        str | None,
        typer.Option(
            "--access-key",
            metavar="KEY",
            help="API access key. Default: $EDGEDELIVERY_ACCESS_KEY (prefer the variable: "
            "command lines are visible to other local users).",
            show_default=False,
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="API base URL. Default: $EDGEDELIVERY_BASE_URL.",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            min=0.001,
            help="Time allowed for each attempt (default 60 s).",
            show_default=False,
        ),
    ] = None,
    max_retries: Annotated[
        int | None,
        typer.Option(
            "--max-retries",
            metavar="N",
            min=0,
            help="Retries after a retryable failure (default 2).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The Edge Delivery Management API from the command line."""
    ctx.obj = Settings(
        access_key=access_key, base_url=base_url, timeout=timeout, max_retries=max_retries
    )


app.add_typer(ops.pull_zones, name="pull-zones")
app.add_typer(ops.compute, name="compute")
app.add_typer(ops.dns_zones, name="dns-zones")
app.add_typer(ops.containers, name="containers")
app.add_typer(ops.registries, name="registries")
ops.shield.command("dump")(dump_command)
app.add_typer(ops.shield, name="shield")
app.command("demo")(demo_command)


GLOBAL_OPTIONS = ("--access-key", "--base-url", "--timeout", "--max-retries")


def run(argv: Sequence[str] | None = None) -> int:
    """Run the application; returns its exit status instead of exiting."""
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        app(args=args, prog_name="edgedelivery")
    except SystemExit as done:
        code = done.code
        if code is None:
            return 0
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            return 1
        if code == 2 and _misplaced_global_option(args):
            print(
                "hint: global options go before the command, e.g. "
                "edgedelivery --base-url URL shield dump --pull-zones 1-100",
                file=sys.stderr,
            )
        return code
    return 0


def _misplaced_global_option(args: list[str]) -> bool:
    """Whether a global option follows the command name (where typer does not accept it)."""
    rest = iter(args)
    for arg in rest:
        if arg in GLOBAL_OPTIONS:
            next(rest, None)  # its value
        elif not arg.startswith("-"):
            break  # the command
    return any(arg.split("=", 1)[0] in GLOBAL_OPTIONS for arg in rest)
