"""`build.py prices import` and `build.py prices record`: their arguments and what they print."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..layout import ENGINE_ROOT


def add_prices_command(commands, site_option: Callable, debug_option: Callable) -> argparse.ArgumentParser:
    """Add `prices` (and its actions `import` and `record`) to the command line's ``commands``."""
    prices = commands.add_parser(
        "prices", help="import a marketplace's listing export into data/prices.yaml, or record its prices in "
                       "data/price_history.yaml",
        description="Work on the site's prices: import them from marketplace listings, and keep their history. "
                    "Editing guide: docs/editing.md.")
    actions = prices.add_subparsers(dest="action", required=True, metavar="{import,record}")
    command = actions.add_parser(
        "import", help="set each card's price to its lowest available listing, and the snapshot's time and counts",
        description="Read a listing export (CSV with a header row, or JSON Lines; machine_id, gpu, gpus, "
                    "usd_per_gpu_hour, optional region and available), write each card's lowest available price "
                    "per GPU-hour (null where none is available), the snapshot's time and its counts of GPUs and "
                    "machines into data/prices.yaml, keeping its comments and order; add the snapshot (each card's "
                    "lowest and median price and count of available listings) to data/price_history.yaml; and "
                    "print what that changes on the pages, as build.py diff does. On any bad row nothing is written.")
    command.add_argument("listings", type=Path, metavar="LISTINGS", help="the export: .csv, .jsonl or .ndjson "
                                                                         "(another name: told by its first line)")
    site_option(command)
    command.add_argument("--at", metavar="TIME", help='when the snapshot was taken, "YYYY-MM-DD HH:MM UTC" '
                                                      "(default: the time the export's first line gives)")
    debug_option(command, default=argparse.SUPPRESS)
    command.set_defaults(run=run_import)
    record = actions.add_parser(
        "record", help="add data/prices.yaml's prices, dated by its updated:, to data/price_history.yaml",
        description="After editing data/prices.yaml by hand (a price and its updated: date), add its list to "
                    "data/price_history.yaml, keeping the file's comments: after the last list, or in its place "
                    "where that has the same date. Writes nothing where the last list already is this one; "
                    "refuses where the last list is later than updated:.")
    site_option(record)
    debug_option(record, default=argparse.SUPPRESS)
    record.set_defaults(run=run_record)
    return prices


def run_import(args) -> int:
    from .command import import_prices

    label = None if args.site.resolve() == ENGINE_ROOT else args.site.as_posix()
    report, summary = import_prices(args.site, args.listings, args.at, label)
    print(report, end="")
    print(summary, file=sys.stderr)
    return 0


def run_record(args) -> int:
    from .record import record_prices

    print(record_prices(args.site), file=sys.stderr)
    return 0
