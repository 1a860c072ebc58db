#!/usr/bin/env python3
"""Build the site: `python build.py` (see `python build.py --help`)."""

import sys

from vramsite.cli import main

if __name__ == "__main__":
    sys.exit(main())
