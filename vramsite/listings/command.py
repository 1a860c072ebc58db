"""`build.py prices import LISTINGS --site SITE [--at TIME]`: the whole import, and what it changes on the pages.

Every problem is gathered first (the site's data, the export's form, each
row's fields, names no card has, machines listed twice, the snapshot's
time, a price history that holds a later list) and reported together; then
data/prices.yaml is rewritten in memory and the snapshot added to
data/price_history.yaml (history_file.py), the site is built as it is and as
it would be with both, and only when the new one builds are the files
replaced, each in one step. All of it under the site's edit lock, and the
files only if they are still the bytes read (importers/data_file.py).
"""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..changes import NO_CHANGE, compare, format_report, site_text
from ..errors import InputError, Problem
from ..importers.data_file import DataFile, read_data_file
from ..layout import SOURCE_FOLDERS, SiteLayout
from ..load import load_site
from ..load.dates import parse_moment
from ..load.model import CardPrice, Period, PriceSnapshot, Pricing, SiteData
from ..load.model import Snapshot as Counts
from ..publish.lock import editing_sources
from . import history_file
from .cards import card_names
from .history_file import HISTORY_FILE
from .prices_file import PRICES_FILE, layout_problem, with_snapshot
from .read import Export, quoted, read_export
from .rows import Listing, parse_rows
from .snapshot import Snapshot, summarize

IMPORT_COPY = "prices-import"
"""The folder of the site's .cache where the site is built with the imported prices."""
BEFORE = "data/prices.yaml before this import"
"""What the change report compares with."""
FUTURE_TOLERANCE = timedelta(days=1)
"""How far after this machine's clock (UTC) a snapshot time is still taken: clocks drift, and an export may
be stamped in a time zone ahead of UTC by mistake; a later time is a typo, and would date the pages ahead."""
MAX_PROBLEMS = 200
"""Problems listed at most; a file bad throughout says so in one more line."""


def import_prices(site: Path, listings: Path, at: str | None = None, site_label: str | None = None) -> tuple[str, str]:
    """Import ``listings`` into ``site``'s prices; return the change report and a one-line summary of the write.

    Raises InputError, writing nothing, on any problem.
    """
    with _no_cycle_collection():
        return _import(Path(site), listings, at, site_label)


@contextmanager
def _no_cycle_collection():
    """An import keeps every row until it ends: the cycle collector would only walk them again and again
    (it doubles the time of reading 100,000 rows)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _import(site: Path, listings: Path, at: str | None, site_label: str | None) -> tuple[str, str]:
    if not site.is_dir():  # before the lock, which would make the folder
        raise InputError([Problem(str(site), None, "", "no such folder: give the site's folder with --site")])
    with editing_sources(site):
        return _import_locked(site, listings, at, site_label)


def _import_locked(site: Path, listings: Path, at: str | None, site_label: str | None) -> tuple[str, str]:
    prices_path, history_path = site / PRICES_FILE, site / HISTORY_FILE
    prices = read_data_file(site, PRICES_FILE, str(prices_path))  # first: what is replaced must be what was read
    history = read_data_file(site, HISTORY_FILE, str(history_path))
    data = load_site(site)  # the site as it is must load: its cards and prices are the starting point
    text = prices.text
    problems = _site_problems(data, text)
    names, found = card_names(site)
    problems += found
    export, rows, snapshot, found = read_snapshot(listings, names, [gpu.id for gpu in data.gpus])
    problems += found
    moment, found = snapshot_time(at, export)
    problems += found
    past = history_file.read_history(history.text)
    later = None if moment is None else history_file.later_problem(
        past, moment, "this snapshot", "import a newer export, or delete that list if it is wrong")
    problems += [later] if later else []
    if problems:
        raise InputError(_capped(problems))
    new_text = with_snapshot(text, data.pricing, snapshot, moment)
    if new_text == text:
        return f"{NO_CHANGE}\n", f"{prices_path}: already up to date with {_counts(rows, snapshot)}; nothing written"
    entry = history_entry(data.pricing, snapshot, moment)
    new_history, done = history_file.with_entry(history.text, entry, history_file.schema_line_of(text))
    report = _changes(site, {PRICES_FILE: new_text, HISTORY_FILE: new_history}, export.name, site_label)
    replace_all(site, [(PRICES_FILE, prices, new_text), (HISTORY_FILE, history, new_history)], "the import")
    return report, (f"{prices_path}: written from {_counts(rows, snapshot)}, snapshot of {moment}; "
                    f"{history_path}: {done} ({_lists(new_history)})")


def history_entry(pricing: Pricing, snapshot: Snapshot, at: str) -> PriceSnapshot:
    """The list the import adds to the history: each card of prices.yaml, in its order, at the price written
    there (a price equal to the one already written stays as written: 1.90, not 1.9), with its median and count
    of available listings; and the snapshot's source and counts."""
    cards = {}
    for gpu, old in pricing.usd.items():
        new = snapshot.lowest[gpu]
        cards[gpu] = CardPrice(old if old == new else new, snapshot.median[gpu], snapshot.listings[gpu])
    counts = Counts(pricing.snapshot.source, snapshot.gpus, snapshot.machines)
    return PriceSnapshot(at=at, cards=cards, snapshot=counts)


def replace_all(site: Path, files: list[tuple[str, DataFile, str]], command: str) -> None:
    """Write each data file (its path in the site, as read, its new text), once none of them changed on disk
    since it was read: an editor's save to the second stops both, rather than leaving the first written."""
    for relative, file, new_text in files:
        if read_data_file(site, relative, file.name).original != file.original:
            file.replace(new_text, command)  # refuses, naming the file and what to do; nothing is written
    for _relative, file, new_text in files:
        file.replace(new_text, command)


def _lists(history_text: str) -> str:
    count = len(history_file.lists_of(history_file.read_history(history_text)))
    return f"{count} list{'s' if count != 1 else ''}"


def read_snapshot(listings: Path, names: dict[str, str],
                  card_ids: list[str]) -> tuple[Export, list[Listing], Snapshot, list[Problem]]:
    """The export read, each row checked, and summed up per card; with every problem found on the way."""
    with _no_cycle_collection():
        export, problems = read_export(listings, str(listings))
        rows, found = parse_rows(export)
        snapshot, more = summarize(rows, names, card_ids, export.name)
    return export, rows, snapshot, problems + found + more


def _site_problems(data: SiteData, text: str) -> list[Problem]:
    """What keeps this site's prices from being imported from hourly listings."""
    problems = []
    if data.pricing.period != Period.HOUR:
        problems.append(Problem(PRICES_FILE, None, "period",
                                f"the site prices by the {data.pricing.period}; listings give prices per GPU-hour"))
    if data.pricing.snapshot is None:
        problems.append(Problem(PRICES_FILE, None, "snapshot",
                                "missing: add snapshot: {source: <the marketplace>, gpus: 0, machines: 0}; "
                                "an import fills in the counts"))
    layout = layout_problem(text)
    return problems + ([layout] if layout else [])


def snapshot_time(at: str | None, export: Export) -> tuple[str | None, list[Problem]]:
    """When the snapshot was taken, as prices.yaml's ``updated:`` writes it: --at, else the file's own time."""
    if at is not None:
        text, where, line, field = at, "--at", None, ""
    elif export.snapshot_at is not None:
        (text, line), where, field = export.snapshot_at, export.name, "snapshot_at"
    else:
        return None, [Problem(export.name, None, "", "no snapshot time: give --at \"YYYY-MM-DD HH:MM UTC\", or "
                                                     "write it in the file's first line (see docs/editing.md)")]
    try:
        moment = parse_moment(text) if text.isascii() else None  # another script's digits are no date here
    except ValueError as error:
        if str(error).startswith("is not a real"):  # the right form, but no such day or hour
            return None, [Problem(where, line, field, f"{quoted(text)} {error}")]
        moment = None
    if not isinstance(moment, datetime):
        return None, [Problem(where, line, field, f"{quoted(text)} is not a snapshot time: write YYYY-MM-DD HH:MM UTC "
                                                  "(a snapshot is dated to the minute)")]
    latest = datetime.now(timezone.utc).replace(tzinfo=None) + FUTURE_TOLERANCE
    if moment > latest:
        return None, [Problem(where, line, field, f"{quoted(text)} is in the future (later than now and a day's "
                                                  f"leeway, {latest:%Y-%m-%d %H:%M} UTC): a typo?")]
    return f"{moment:%Y-%m-%d %H:%M} UTC", []


def _capped(problems: list[Problem]) -> list[Problem]:
    ordered = InputError(problems).problems
    if len(ordered) <= MAX_PROBLEMS:
        return ordered
    rest = ordered[MAX_PROBLEMS]
    return ordered[:MAX_PROBLEMS] + [Problem(rest.file, rest.line, "", f"and {len(ordered) - MAX_PROBLEMS} more "
                                                                       "problems from here on, not listed")]


def _counts(rows: list, snapshot: Snapshot) -> str:
    priced = sum(1 for price in snapshot.lowest.values() if price is not None)
    return (f"{len(rows)} listings ({snapshot.gpus} GPUs on {snapshot.machines} machines; "
            f"{priced} of {len(snapshot.lowest)} cards priced)")


def _changes(site: Path, new_files: dict[str, str], listings: str, site_label: str | None) -> str:
    """The `build.py diff` report of the site as it is against the site with ``new_files`` (data file -> its
    new text)."""
    before = site_text(site)
    with site_copy(site) as copy:
        for relative, new_text in new_files.items():
            (copy / relative).write_bytes(new_text.encode("utf-8"))
        try:
            after = site_text(copy)
        except InputError as error:  # a safeguard: every bound the loader checks is checked above
            raise InputError([Problem(listings, None, "", f"the imported snapshot would not build: {problem}")
                              for problem in error.problems]) from None
    return format_report(compare(before, after), BEFORE, site_label)


@contextmanager
def site_copy(site: Path) -> Iterator[Path]:
    """A copy of the site's sources in its own .cache (IMPORT_COPY), removed afterwards. A killed import
    leaves it there, in an ignored folder of the site rather than in the system's temporary folder, and the
    next import clears it first; the edit lock keeps two imports out of one copy."""
    copy = SiteLayout(site).cache / IMPORT_COPY
    _remove(copy)
    try:
        for folder in SOURCE_FOLDERS:
            if (site / folder).is_dir():
                shutil.copytree(site / folder, copy / folder)
        yield copy
    finally:
        _remove(copy)


def _remove(folder: Path) -> None:
    if folder.is_symlink():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
