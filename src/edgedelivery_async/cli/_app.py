"""The `edgedelivery` application: global options and the subcommand tree.

The per-operation commands are generated from the OpenAPI document (`_commands`);
`shield dump` and `demo` are written by hand. Building the tree reads the document
with `json` and imports none of the SDK's client, transport or validation modules (only
its small standard-library ones): a command imports what it needs when it runs,
so `edgedelivery --help` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from .._retry import MAX_RETRIES
from .._timeouts import LONGEST
from ._commands import CONTEXT_SETTINGS, Command, IntegerRange, NumberRange, build_groups
from ._demo import demo_command
from ._dump import dump_command
from ._options import Settings
from ._output import INTERRUPTED, ClosedStdout, forget_said, said, say

MOST_RETRIES = MAX_RETRIES  # --max-retries at most, as RetryPolicy

HELP = """The Edge Delivery Management API from the command line.

Results are JSON on stdout; errors go to stderr, after `error:`. Global options go
before the command.

Exit status:

- **0** ok
- **1** the API or the connection reported a failure (`shield dump`: some pull zones failed)
- **2** bad command line, input refused before sending, or missing settings
- **130** interrupted (Ctrl-C)
"""

app = typer.Typer(
    name="edgedelivery",
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,  # no tracebacks with local variables (the access key)
    context_settings=CONTEXT_SETTINGS,
)


def _version(value: bool) -> None:
    if value:
        from .._version import __version__

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
            click_type=NumberRange(0.001, int(LONGEST)),  # ASCII decimal, as every number
            help="Time allowed for each attempt (default 60 s).",
            show_default=False,
        ),
    ] = None,
    max_retries: Annotated[
        int | None,
        typer.Option(
            "--max-retries",
            metavar="N",
            click_type=IntegerRange(0, MOST_RETRIES),  # (10**21 retries never ended)
            help=(
                f"Retries after a retryable failure (default 2, at most {MOST_RETRIES}); "
                "429 replies are retried apart, up to the larger of N and 6."
            ),
            show_default=False,
        ),
    ] = None,
    allow_insecure_http: Annotated[
        bool,
        typer.Option(
            "--allow-insecure-http",
            help="Allow a plain http:// base URL that is not loopback (the access key "
            "is then sent unencrypted).",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The Edge Delivery Management API from the command line."""
    ctx.obj = Settings(
        access_key=access_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        allow_insecure_http=allow_insecure_http,
    )


#: Hand-written commands, by group: not operations of the document (their names are
#: reserved in `_document.HAND_WRITTEN_COMMANDS`, so no operation's command takes them).
HAND_WRITTEN = {"shield": {"dump": dump_command}}

for _name, _group in build_groups().items():
    for _command, _function in HAND_WRITTEN.get(_name, {}).items():
        _group.command(_command, cls=Command, context_settings=CONTEXT_SETTINGS)(_function)
    app.add_typer(_group, name=_name)
app.command("demo", cls=Command, context_settings=CONTEXT_SETTINGS)(demo_command)


GLOBAL_OPTIONS = ("--access-key", "--base-url", "--timeout", "--max-retries")  # take a value
GLOBAL_FLAGS = ("--allow-insecure-http",)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the application; returns its exit status instead of exiting."""
    args = list(argv) if argv is not None else sys.argv[1:]
    forget_said()
    closed = None
    if sys.stdout is None:  # `>&-`: what would be printed fails (not lost with status 0)
        closed = sys.stdout = ClosedStdout()
    try:
        app(args=args, prog_name="edgedelivery")
    except SystemExit as done:
        code = done.code
        if code is None:
            return 0
        if not isinstance(code, int):
            say(str(code))
            return 1
        if code == INTERRUPTED and not said("interrupted"):  # Ctrl-C that typer took, while
            say("interrupted")  # it parsed the command line or a command's module loaded
        if code == 2 and _misplaced_global_option(args):
            say(
                "hint: global options go before the command, e.g. "
                "edgedelivery --base-url URL shield dump --pull-zones 1-100"
            )
        return code
    except OSError as exc:  # help or usage text (typer's, through rich) that stdout refused
        say(f"error: cannot write stdout: {exc.strerror or exc}")
        return 1
    finally:
        if closed is not None and sys.stdout is closed:
            sys.stdout = None
    return 0


def _misplaced_global_option(args: list[str]) -> bool:
    """Whether a global option follows the command name (where typer does not accept it)."""
    rest = iter(args)
    for arg in rest:
        if arg in GLOBAL_OPTIONS:
            next(rest, None)  # its value
        elif not arg.startswith("-"):
            break  # the command
    return any(arg.split("=", 1)[0] in GLOBAL_OPTIONS + GLOBAL_FLAGS for arg in rest)
