#!/usr/bin/env python3
"""Build the site: `python build.py` (see `python build.py --help`)."""

from vramsite.cli import exit_now, main

if __name__ == "__main__":
    exit_now(main())
