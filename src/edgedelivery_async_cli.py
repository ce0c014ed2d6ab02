"""The `edgedelivery` console script's entry point (`edgedelivery_async_cli:main`).

It lives outside the `edgedelivery_async` package: the script generated for an entry
point inside it imports the package (its exception tree, the logging setup) before any
of the CLI's code runs, so a Ctrl-C then printed a traceback. Here the import happens
inside `main`, and Ctrl-C while it loads exits 130 with one line, as everywhere else in
the CLI (`edgedelivery_async.cli.main` handles the rest of the start-up and the run).
"""

from __future__ import annotations

import sys

INTERRUPTED = 130  # the CLI's status for Ctrl-C (edgedelivery_async.cli._output.INTERRUPTED)


def main() -> int:
    """Load the command line and run it with `sys.argv[1:]`; returns the exit status."""
    try:
        from edgedelivery_async.cli import main as run
    except KeyboardInterrupt:
        if sys.stderr is not None:  # (closed: print would write to stdout)
            print("interrupted", file=sys.stderr)
        return INTERRUPTED
    return run()


__all__ = ["main"]

if __name__ == "__main__":  # `python -m edgedelivery_async_cli`
    sys.exit(main())
