"""Engine rules the second site (sites/quick) needed, tested apart from any site's data."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.calc import Guide
from vramsite.errors import UnknownId
from vramsite.load import load_site
from vramsite.load.model import LocaleConfig
from vramsite.render.format import Formatter
from vramsite.render.i18n import Catalog
from vramsite.render.numbers import DisplaySpec, format_number
from vramsite.tables.gpus import catalogue_table

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("value,shown", [
    ("19.2", "19"), ("9.6", "9.6"), ("4.8", "4.8"), ("9.96", "10"), ("9.94", "9.9"), ("283.5", "284"),
    ("1120", "1,120"), ("0.04", "0.0"),
])
def test_below_10_applies_to_what_reads_below_10(value, shown):
    assert format_number(Decimal(value), DisplaySpec(0, below_10=1), "en") == shown


def test_below_10_with_trim_drops_a_trailing_zero():
    assert format_number(Decimal(6), DisplaySpec(0, below_10=1, trim=True), "en") == "6"
    assert format_number(Decimal("4.5"), DisplaySpec(0, below_10=1, trim=True), "en") == "4.5"


def _formatter(gettext: str) -> Formatter:
    locale = LocaleConfig(gettext.lower().replace("_", "-"), gettext.replace("_", "-"), gettext)
    return Formatter(locale, {}, Catalog(locale, "", {}, set(), {}))


@pytest.mark.parametrize("items,joined", [
    (["A100", "H100"], "A100 或 H100"),
    (["[A100](a.md)", "[H100](h.md)"], "[A100](a.md) 或 [H100](h.md)"),
    (["[L40S](l.md)", "[RTX 6000 Ada](r.md)", "[RTX A6000](a.md)"], "[L40S](l.md)、[RTX 6000 Ada](r.md) 或 [RTX A6000](a.md)"),
    (["显卡甲", "显卡乙"], "显卡甲或显卡乙"),
])
def test_a_bare_connector_is_spaced_from_latin_names_links_included(items, joined):
    assert _formatter("zh_CN").names(items, "or") == joined


def test_the_catalogue_shows_the_columns_a_page_names():
    guide = Guide(load_site(ROOT))
    full = catalogue_table(guide)
    some = catalogue_table(guide, columns=["price", "memory_gb"])
    assert [column.key for column in some.columns] == ["memory_gb", "price"]  # the catalogue's order
    for whole, part in zip(full.rows, some.rows):
        assert part.cells == (whole.cells[0], whole.cells[6])
    with pytest.raises(UnknownId, match="catalogue column 'colour'"):
        catalogue_table(guide, columns=["colour"])
