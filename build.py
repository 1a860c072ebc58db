#!/usr/bin/env python3
"""Build the site: `python build.py` (see `python build.py --help`)."""

from vramsite.cli import run

if __name__ == "__main__":
    run()
