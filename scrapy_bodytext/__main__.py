"""``python -m scrapy_bodytext``: the same command line as ``scrapy-bodytext``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
