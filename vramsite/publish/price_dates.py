"""`build.py check --base REV`: a warning when prices changed since REV but their date did not.

data/prices.yaml says when its prices were last checked (`updated:`, shown on
the pages). A price edited without that date makes the pages claim the old
check for the new figure. The file as it was at REV is read from git (as
`diff` reads a revision's sources) and compared with the working tree's.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError, Problem
from ..load.yaml_source import parse_yaml, read_yaml
from .revision import DiffError, file_at

PRICES = "data/prices.yaml"
BAD_BASE = 2
"""Exit status of `check --base REV` when REV cannot be read: the same as `diff`'s."""


def stale_date_warnings(site: Path, rev: str) -> list[Problem]:
    """One warning where a card's price differs from REV's while `updated:` is the same; none otherwise."""
    path = Path(site) / PRICES
    before = file_at(site, rev, PRICES)
    if before is None or not path.is_file():
        return []  # no prices at REV (or none now): nothing to compare
    try:
        old = parse_yaml(before.decode("utf-8"), f"{PRICES} at {rev}").value
    except (InputError, UnicodeDecodeError):
        return []  # REV's file does not read; the working tree's is what check answers for
    document = read_yaml(path, PRICES)
    new = document.value
    changed = changed_cards(_prices(old), _prices(new))
    if not changed or _field(old, "updated") != _field(new, "updated"):
        return []
    return [Problem(PRICES, document.line_of(("updated",)), "updated",
                    f"prices changed since {rev} ({', '.join(changed)}) but updated: is still "
                    f"{_field(new, 'updated')}")]


def changed_cards(old: dict[str, object], new: dict[str, object]) -> list[str]:
    """The cards whose price differs, was added or was removed: the new file's order, then the removed."""
    return [gpu for gpu in [*new, *(gpu for gpu in old if gpu not in new)] if old.get(gpu) != new.get(gpu)]


def _prices(document) -> dict[str, object]:
    """Card id -> price, from a prices file's `prices:` list (entries of another shape are left out)."""
    entries = document.get("prices") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return {}
    return {str(entry["gpu"]): entry.get("usd") for entry in entries if isinstance(entry, dict) and "gpu" in entry}


def _field(document, name: str):
    return document.get(name) if isinstance(document, dict) else None


def check_dates(site: Path, rev: str) -> int:
    """Print each warning (the check still passes); exit status 2 only when REV cannot be read."""
    try:
        warnings = stale_date_warnings(site, rev)
    except DiffError as error:
        print(f"check: --base {rev}: {error}", file=sys.stderr)
        return BAD_BASE
    for warning in warnings:
        print(warning, file=sys.stderr)
    return 0
