"""`python -m edgedelivery_async.cli`, the same as the `edgedelivery` console script
(but Python imports the SDK package before this runs, so a Ctrl-C in that moment is
Python's traceback; `python -m edgedelivery_async_cli` handles it as the script does)."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
