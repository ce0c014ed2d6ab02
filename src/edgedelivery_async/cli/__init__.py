"""The `edgedelivery` command line: one subcommand per operation, `shield dump`, `demo`.

Install it with the `cli` extra (`pip install 'edgedelivery-async[cli]'`); it needs
typer and rich, which the SDK itself does not. `main()` runs the command line; the
console script calls it through the top-level module `edgedelivery_async_cli`, which
imports this package inside its own Ctrl-C handling.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

INSTALL_HINT = (
    "The edgedelivery command needs typer and rich: pip install 'edgedelivery-async[cli]'"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`); returns the exit status.

    Ctrl-C before a command has its own handling (while the CLI starts, say) exits 130
    with one line on stderr, not a traceback.
    """
    try:
        try:
            import rich  # noqa: F401
            import typer  # noqa: F401
        except ImportError as exc:
            if sys.stderr is not None:
                print(f"{INSTALL_HINT} ({exc})", file=sys.stderr)
            return 2
        from ._app import run

        return run(argv)
    except KeyboardInterrupt:
        if sys.stderr is not None:  # (closed: print would write to stdout)
            print("interrupted", file=sys.stderr)
        return 130


__all__ = ["main"]
