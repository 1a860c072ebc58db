"""The commands that keep data/price_history.yaml: `prices import` adds its snapshot, `prices record` adds
prices.yaml's list after a hand edit; on copies of the two sites (sites/quick is the hourly one).

Each copy starts with the site's own history: one list, equal to its prices.yaml.
"""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from cli_support import ROOT, copy_sources, run_cli
from seed_sites import assemble_seed_site
from vramsite.errors import InputError
from vramsite.listings import command, history_file
from vramsite.listings.command import import_prices
from vramsite.listings.snapshot import median
from vramsite.load import load_site
from vramsite.load.price_history import current_snapshot
from vramsite.load.model import CardPrice

LISTINGS = ROOT / "tests" / "fixtures" / "listings"
QUICK = ROOT / "sites" / "quick"
PRICES = "data/prices.yaml"
HISTORY = "data/price_history.yaml"
QUICK_LIST = "2026-10-31 17:40 UTC"
"""The time of sites/quick's prices.yaml, and of the one list of its history."""
NOVEMBER_ENTRY = """\
  - at: "2026-11-30 09:00 UTC"
    snapshot: {source: Arrakis, gpus: 78, machines: 14}
    prices:
      - {gpu: rtx-4090, usd: 0.38, median: 0.38, listings: 1}
      - {gpu: rtx-3090, usd: 0.19, median: 0.20, listings: 2}
      - {gpu: l40s, usd: 0.470, median: 0.470, listings: 1}
      - {gpu: rtx-6000-ada, usd: 0.95, median: 0.95, listings: 1}
      - {gpu: rtx-a6000, usd: null, listings: 0}
      - {gpu: h100, usd: 1.60, median: 1.66, listings: 2}
      - {gpu: a100, usd: 1.250, median: 1.250, listings: 1}
      - {gpu: rtx-pro-6000, usd: 1.90, median: 1.9, listings: 1}
      - {gpu: h200, usd: null, listings: 0}
      - {gpu: b200, usd: 6.79, median: 6.79, listings: 1}
      - {gpu: b300, usd: 4.60, median: 4.60, listings: 1}
"""
"""tests/fixtures/listings/november.csv as a list: the lowest available price as prices.yaml writes it (1.90
stays 1.90), the median of the available listings with their decimals (rented-out ones left out: the RTX 4090's
0.35, the H200's only listing) and their count."""
UNSTAMPED_PRICES = {"rtx-4090": "0.41", "h100": "1.65"}
"""tests/fixtures/listings/unstamped.csv: one machine of each; every other card has no available listing."""


@pytest.fixture
def quick(tmp_path) -> Path:
    return copy_sources(tmp_path / "quick", QUICK)


@pytest.fixture
def main(tmp_path) -> Path:
    """The monthly site as it started keeping a history: seed 000's frozen prices (2026-09-01) and a history of
    that one list, made as `prices record` makes it; the live site's own lists move on with its editors."""
    site = assemble_seed_site(tmp_path / "main", "000")
    prices = text(site, PRICES)
    made, _ = history_file.with_entry(None, current_snapshot(load_site(site).pricing),
                                      history_file.schema_line_of(prices))
    (site / HISTORY).write_text(made, encoding="utf-8")
    return site


def text(site: Path, name: str = HISTORY) -> str:
    return (site / name).read_text(encoding="utf-8")


def state(site: Path) -> tuple:
    """The two files' bytes and times, and the data folder's names: what a refusal must leave as it was."""
    files = [site / PRICES, site / HISTORY]
    return (sorted(path.name for path in (site / "data").iterdir()),
            [(path.read_bytes(), path.stat().st_mtime_ns) if path.exists() else None for path in files])


def import_listing(site: Path, listing: str, *options: str) -> subprocess.CompletedProcess:
    return run_cli("prices", "import", str(LISTINGS / listing), "--site", str(site), *options)


def record(site: Path) -> subprocess.CompletedProcess:
    return run_cli("prices", "record", "--site", str(site))


def succeeded(run: subprocess.CompletedProcess) -> str:
    """The one-line summary a command that wrote printed (on stderr)."""
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert len(run.stderr.splitlines()) == 1, run.stderr
    return run.stderr.strip()


def refusal(run: subprocess.CompletedProcess) -> list[str]:
    """The problems a refused command printed, after checking it said nothing was written."""
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    *problems, last = run.stderr.splitlines()
    assert last == f"{len(problems)} problem{'s' if len(problems) != 1 else ''}; nothing was written."
    assert run.stdout == ""
    return problems


def times(site: Path) -> list[str]:
    return [snapshot.at for snapshot in load_site(site).price_history]


def line_of(site: Path, fragment: str) -> int:
    return next(number for number, line in enumerate(text(site).splitlines(), 1) if fragment in line)


def set_updated(site: Path, stamp: str) -> None:
    path = site / PRICES
    new, count = re.subn(r"^updated: .*$", f"updated: {stamp}", path.read_text(encoding="utf-8"), count=1,
                         flags=re.M)
    assert count == 1
    path.write_text(new, encoding="utf-8")


def replace_once(path: Path, old: str, new: str) -> None:
    content = path.read_text(encoding="utf-8")
    assert content.count(old) == 1, old
    path.write_text(content.replace(old, new), encoding="utf-8")


# -- the live sites start with one list each ----------------------------------------------------------


@pytest.mark.parametrize("site", [ROOT, QUICK], ids=["main", "quick"])
def test_each_site_s_history_ends_with_its_prices_as_recorded(site):
    """An editor who changes prices.yaml records its list (docs/editing.md): the live history's last list is it."""
    data = load_site(site)
    recorded = history_file.lists_of(history_file.read_history(text(site)))
    assert str(recorded[-1]["at"]) == data.pricing.updated
    latest = data.price_history[-1]
    assert latest.at == data.pricing.updated
    assert {gpu: price.usd for gpu, price in latest.cards.items()} == data.pricing.usd
    assert latest.snapshot == data.pricing.snapshot


# -- prices import ------------------------------------------------------------------------------------


def test_an_import_appends_its_snapshot_with_lowest_median_and_listings(quick):
    before = text(quick)
    summary = succeeded(import_listing(quick, "november.csv"))
    assert text(quick) == before + NOVEMBER_ENTRY  # the file's comments and its list kept, byte for byte
    assert summary == (f"{quick / PRICES}: written from 14 listings (78 GPUs on 14 machines; 9 of 11 cards "
                       f"priced), snapshot of 2026-11-30 09:00 UTC; {quick / HISTORY}: appended (2 lists)")
    data = load_site(quick)
    assert [snapshot.at for snapshot in data.price_history] == [QUICK_LIST, "2026-11-30 09:00 UTC"]
    latest = data.price_history[-1]  # the list dated as prices.yaml stands for it, with its medians and counts
    assert latest.cards["h100"] == CardPrice(Decimal("1.60"), Decimal("1.66"), 2)
    assert latest.cards["h200"] == CardPrice(None, None, 0)
    assert (latest.snapshot.gpus, latest.snapshot.machines) == (78, 14)


def test_the_report_covers_the_new_history(quick):
    report = import_listing(quick, "november.jsonl").stdout
    assert report.startswith("### What this change does to")
    assert text(quick).endswith(NOVEMBER_ENTRY)  # the same list from the JSON Lines export


def test_a_site_without_a_history_gets_one_with_its_header(quick):
    (quick / HISTORY).unlink()
    summary = succeeded(import_listing(quick, "november.csv"))
    assert summary.endswith(f"{quick / HISTORY}: created (1 list)")
    written = text(quick)
    assert written.startswith("# yaml-language-server: $schema=../../../vramsite/schemas/price_history.schema.json\n")
    assert "Prune by deleting old entries" in written and "build.py prices record" in written
    assert written.endswith("\nsnapshots:\n" + NOVEMBER_ENTRY)
    assert times(quick) == ["2026-11-30 09:00 UTC"]


def test_a_later_import_appends_a_second_list(quick):
    succeeded(import_listing(quick, "november.csv"))
    summary = succeeded(import_listing(quick, "unstamped.csv", "--at", "2026-12-01 06:30 UTC"))
    assert summary.endswith("appended (3 lists)")
    assert times(quick) == [QUICK_LIST, "2026-11-30 09:00 UTC", "2026-12-01 06:30 UTC"]
    assert NOVEMBER_ENTRY + '  - at: "2026-12-01 06:30 UTC"\n' in text(quick)
    latest = load_site(quick).price_history[-1]
    assert {gpu: price.usd for gpu, price in latest.cards.items() if price.usd is not None} == {
        gpu: Decimal(usd) for gpu, usd in UNSTAMPED_PRICES.items()}
    assert latest.cards["rtx-4090"] == CardPrice(Decimal("0.41"), Decimal("0.41"), 1)


def test_an_import_of_the_same_time_replaces_the_last_list_and_keeps_the_notes_after_it(quick):
    succeeded(import_listing(quick, "november.csv"))
    note = "# an editor's note after the last list\n"
    (quick / HISTORY).write_text(text(quick) + note, encoding="utf-8")
    before = text(quick)
    summary = succeeded(import_listing(quick, "unstamped.csv", "--at", "2026-11-30 09:00 UTC"))
    assert summary.endswith("replaced its last list (2 lists)")
    written = text(quick)
    assert written.startswith(before[:before.index(NOVEMBER_ENTRY)]) and written.endswith(note)
    assert NOVEMBER_ENTRY not in written
    assert times(quick) == [QUICK_LIST, "2026-11-30 09:00 UTC"]
    assert load_site(quick).price_history[-1].snapshot.machines == 2


def test_an_import_that_changes_no_price_writes_no_history(quick):
    before = state(quick)
    run = import_listing(quick, "today.csv")
    assert run.returncode == 0 and "already up to date" in run.stderr and "nothing written" in run.stderr
    assert state(quick) == before
    (quick / HISTORY).unlink()
    before = state(quick)
    assert import_listing(quick, "today.csv").returncode == 0
    assert state(quick) == before  # not even made


def test_a_history_in_flow_style_is_refused_and_nothing_is_written(quick):
    (quick / HISTORY).write_text("snapshots: []\n", encoding="utf-8")
    assert load_site(quick).price_history[-1].at == QUICK_LIST  # an empty history is a good one
    before = state(quick)
    assert refusal(import_listing(quick, "november.csv")) == [
        "data/price_history.yaml: a new list is added as text at the end of this file, and here it would not "
        "read as one more list: keep 'snapshots:' the file's only key, its lists as '  - at: ...' entries under "
        "it, not [...] (where it holds no list, delete the file: the command makes it again); then run the "
        "command again"]
    assert state(quick) == before


def test_an_import_older_than_the_last_list_is_refused(quick):
    succeeded(import_listing(quick, "november.csv"))
    before = state(quick)
    assert refusal(import_listing(quick, "today.csv")) == [
        f"data/price_history.yaml:{line_of(quick, '2026-11-30 09:00 UTC')}: snapshots[1].at: the last list, of "
        "2026-11-30 09:00 UTC, is later than this snapshot (2026-10-31 17:40 UTC), and the lists are kept oldest "
        "first: import a newer export, or delete that list if it is wrong"]
    assert state(quick) == before


def test_a_history_saved_while_the_import_ran_stops_both_writes(quick, monkeypatch):
    changes = command._changes
    saved = text(quick) + "# saved by an editor meanwhile\n"

    def editor_saves(*args, **kwargs):
        (quick / HISTORY).write_text(saved, encoding="utf-8")
        return changes(*args, **kwargs)

    monkeypatch.setattr(command, "_changes", editor_saves)
    prices = (quick / PRICES).read_bytes()
    with pytest.raises(InputError) as error:
        import_prices(quick, LISTINGS / "november.csv")
    assert [str(problem) for problem in error.value.problems] == [
        f"{quick / HISTORY}: changed on disk while the import ran (saved by an editor?); your change is kept and "
        "nothing was written: run the import again"]
    assert (quick / PRICES).read_bytes() == prices and text(quick) == saved


# -- prices record ------------------------------------------------------------------------------------


def test_record_after_a_hand_edit_appends_prices_yamls_list(main):
    replace_once(main / PRICES, "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    set_updated(main, "2026-10-01")
    before = text(main)
    summary = succeeded(record(main))
    assert summary == (f"{main / HISTORY}: appended, data/prices.yaml's list of 2026-10-01 (15 of 15 cards priced); "
                       "2 lists")
    added = text(main).removeprefix(before)
    assert added.startswith("  - at: 2026-10-01\n    prices:\n      - {gpu: mi300x, usd: 1590}\n")
    assert "      - {gpu: a40, usd: 300}\n" in added and added.count("\n") == 2 + 15
    data = load_site(main)
    assert [snapshot.at for snapshot in data.price_history] == ["2026-09-01", "2026-10-01"]
    assert [snapshot.cards["a40"].usd for snapshot in data.price_history] == [Decimal(240), Decimal(300)]


def test_check_warns_of_a_list_not_yet_recorded_and_passes(main):
    replace_once(main / PRICES, "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    set_updated(main, "2026-10-01")
    checked = run_cli("check", "--site", str(main))
    assert checked.returncode == 0, checked.stderr
    line = next(number for number, text_line in enumerate(text(main, PRICES).splitlines(), 1)
                if text_line.startswith("updated:"))
    assert checked.stderr.strip() == (
        f"warning: data/prices.yaml:{line}: updated: its list of 2026-10-01 is not in data/price_history.yaml yet: "
        "run build.py prices record, or the next change of prices leaves these out of the history")
    succeeded(record(main))
    again = run_cli("check", "--site", str(main))
    assert again.returncode == 0 and again.stderr == ""


def test_record_twice_writes_nothing_the_second_time(main):
    set_updated(main, "2026-10-01")
    succeeded(record(main))
    before = state(main)
    assert succeeded(record(main)) == (f"{main / HISTORY}: its last list already is data/prices.yaml's of "
                                       "2026-10-01; nothing written")
    assert state(main) == before


def test_record_of_a_price_edited_without_a_new_date_replaces_the_last_list(main):
    replace_once(main / PRICES, "{gpu: a40, usd: 240}", "{gpu: a40, usd: 250}")
    assert succeeded(record(main)).endswith("replaced its last list, data/prices.yaml's list of 2026-09-01 "
                                            "(15 of 15 cards priced); 1 list")
    assert "{gpu: a40, usd: 250}" in text(main) and "{gpu: a40, usd: 240}" not in text(main)
    assert load_site(main).price_history[-1].cards["a40"].usd == Decimal(250)


def test_record_is_refused_where_the_last_list_is_later_than_updated(main):
    set_updated(main, "2026-08-01")
    before = state(main)
    assert refusal(record(main)) == [
        f"data/price_history.yaml:{line_of(main, '- at: 2026-09-01')}: snapshots[0].at: the last list, of "
        "2026-09-01, is later than data/prices.yaml's updated (2026-08-01), and the lists are kept oldest first: "
        "set updated: to when the prices in data/prices.yaml were checked, or delete that list if it is wrong"]
    assert state(main) == before


def test_record_without_a_history_makes_the_file(main):
    (main / HISTORY).unlink()
    assert succeeded(record(main)).endswith("created, data/prices.yaml's list of 2026-09-01 (15 of 15 cards "
                                            "priced); 1 list")
    written = text(main)
    assert written.startswith("# yaml-language-server: $schema=../vramsite/schemas/price_history.schema.json\n")
    assert "\nsnapshots:\n  - at: 2026-09-01\n    prices:\n      - {gpu: mi300x, usd: 1590}\n" in written
    assert times(main) == ["2026-09-01"]


def test_record_after_an_import_keeps_the_imports_list_with_its_medians(quick):
    succeeded(import_listing(quick, "november.csv"))
    before = state(quick)
    assert succeeded(record(quick)).endswith("its last list already is data/prices.yaml's of "
                                             "2026-11-30 09:00 UTC; nothing written")
    assert state(quick) == before


def test_record_on_the_hourly_site_keeps_the_snapshots_counts(quick):
    replace_once(quick / PRICES, "{gpu: h100, usd: 1.65}", "{gpu: h100, usd: 1.70}")
    set_updated(quick, '"2026-11-02 08:15 UTC"')
    succeeded(record(quick))
    assert text(quick).endswith('  - at: "2026-11-02 08:15 UTC"\n'
                                "    snapshot: {source: Arrakis, gpus: 687, machines: 200}\n"
                                "    prices:\n"
                                "      - {gpu: rtx-4090, usd: 0.41}\n"
                                "      - {gpu: rtx-3090, usd: 0.19}\n"
                                "      - {gpu: l40s, usd: 0.44}\n"
                                "      - {gpu: rtx-6000-ada, usd: null}\n"
                                "      - {gpu: rtx-a6000, usd: null}\n"
                                "      - {gpu: h100, usd: 1.70}\n"
                                "      - {gpu: a100, usd: null}\n"
                                "      - {gpu: rtx-pro-6000, usd: 1.90}\n"
                                "      - {gpu: h200, usd: 4.03}\n"
                                "      - {gpu: b200, usd: 6.79}\n"
                                "      - {gpu: b300, usd: 4.60}\n")
    assert times(quick) == [QUICK_LIST, "2026-11-02 08:15 UTC"]


def test_the_prices_command_lists_record():
    run = run_cli("prices", "--help")
    assert run.returncode == 0 and "record" in run.stdout, run.stderr
    run = run_cli("prices", "record", "--help")
    assert run.returncode == 0 and "--site" in run.stdout and "data/price_history.yaml" in run.stdout


# -- the median ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("prices, expected", [
    ([], None),
    (["1.60"], "1.60"),
    (["1.72", "1.60"], "1.66"),
    (["0.41", "0.42"], "0.415"),  # exact: the mean of the middle two, not rounded
    (["3", "1", "2"], "2"),
    (["0.00000001", "0.00000002"], "0.000000015"),
])
def test_the_median_is_exact(prices, expected):
    found = median([Decimal(price) for price in prices])
    assert (found is None and expected is None) or (found == Decimal(expected) and format(found, "f") == expected)
