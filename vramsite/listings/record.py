"""`build.py prices record --site SITE`: data/prices.yaml's list, as it stands, into data/price_history.yaml.

A price edited by hand reaches the history only this way: the history keeps
the lists it was given, and prices.yaml holds only the newest, so the next
edit or import would lose this one. The list is dated by prices.yaml's
``updated:`` and added as an import adds its snapshot (history_file.py):
after the last list, or in its place where that has the same time; where
the last list already is this one, nothing is written. A last list later
than ``updated:`` is refused: it keeps the site from loading, and adding
another would not mend it. Under the site's edit lock, written only if the
file is still the bytes read, and only once the site loads with it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, Problem
from ..importers.data_file import DataFile, read_data_file
from ..load import load_site
from ..load.price_history import current_snapshot
from ..load.yaml_source import parse_yaml, read_yaml
from ..publish.lock import editing_sources
from . import history_file
from .command import site_copy, replace_all
from .history_file import HISTORY_FILE
from .prices_file import PRICES_FILE


def record_prices(site: Path) -> str:
    """Record ``site``'s prices.yaml list in its history; return a one-line summary. InputError, writing
    nothing, on any problem."""
    site = Path(site)
    if not site.is_dir():  # before the lock, which would make the folder
        raise InputError([Problem(str(site), None, "", "no such folder: give the site's folder with --site")])
    with editing_sources(site):
        return _record_locked(site)


def _record_locked(site: Path) -> str:
    prices_path, history_path = site / PRICES_FILE, site / HISTORY_FILE
    prices = read_data_file(site, PRICES_FILE, str(prices_path))
    history = read_data_file(site, HISTORY_FILE, str(history_path))
    _refuse_a_later_list(prices, history)  # before loading: such a list keeps the site from loading
    data = load_site(site)
    entry = current_snapshot(data.pricing)
    past = history_file.read_history(history.text)
    if history_file.holds(past, entry):
        return f"{history_path}: its last list already is {PRICES_FILE}'s of {entry.at}; nothing written"
    new_history, done = history_file.with_entry(history.text, entry, history_file.schema_line_of(prices.text))
    _check_loads(site, new_history)
    replace_all(site, [(HISTORY_FILE, history, new_history)], "build.py prices record")
    count = len(history_file.lists_of(history_file.read_history(new_history)))
    priced = sum(1 for price in entry.cards.values() if price.usd is not None)
    return (f"{history_path}: {done}, {PRICES_FILE}'s list of {entry.at} ({priced} of {len(entry.cards)} cards "
            f"priced); {count} list{'s' if count != 1 else ''}")


def unrecorded_warning(site: Path) -> Problem | None:
    """For `build.py check`: where the site keeps a history whose last list is not prices.yaml's as it stands,
    a warning that the next change of prices would lose these (prices.yaml holds only the newest list)."""
    site = Path(site)
    if not (site / HISTORY_FILE).is_file():
        return None
    data = load_site(site)
    entry = current_snapshot(data.pricing)
    history = read_data_file(site, HISTORY_FILE, str(site / HISTORY_FILE))
    if history_file.holds(history_file.read_history(history.text), entry):
        return None
    line = read_yaml(site / PRICES_FILE, PRICES_FILE).line_of(("updated",))
    return Problem(PRICES_FILE, line, "updated",
                   f"its list of {entry.at} is not in {HISTORY_FILE} yet: run build.py prices record, or the next "
                   "change of prices leaves these out of the history")


def _refuse_a_later_list(prices: DataFile, history: DataFile) -> None:
    """InputError where the history's last list is later than prices.yaml's ``updated:``. Either file unreadable,
    or its date: nothing here, the site's loader says what is wrong."""
    try:
        updated = str(parse_yaml(prices.text, PRICES_FILE).value["updated"])
        problem = history_file.later_problem(
            history_file.read_history(history.text), updated, f"{PRICES_FILE}'s updated",
            f"set updated: to when the prices in {PRICES_FILE} were checked, or delete that list if it is wrong")
    except (InputError, ValueError, TypeError, KeyError, AttributeError):
        return
    if problem is not None:
        raise InputError([problem])


def _check_loads(site: Path, new_history: str) -> None:
    """The site must load with the new history, in a copy: a safeguard, as the entry is read back already."""
    with site_copy(site) as copy:
        (copy / HISTORY_FILE).write_bytes(new_history.encode("utf-8"))
        try:
            load_site(copy)
        except InputError as error:
            raise InputError([Problem(HISTORY_FILE, None, "", f"the recorded list would not load: {problem}")
                              for problem in error.problems]) from None
