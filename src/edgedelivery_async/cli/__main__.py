"""`python -m edgedelivery_async.cli`, the same as the `edgedelivery` console script."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
