"""Card memory per card: what each card reports to the driver, against the size it is sold as."""

from __future__ import annotations

import shutil
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

import data_edits as edits
from cli_support import ROOT
from seed_sites import assemble_seed_site, seed_data_root
from test_facts import vram_facts
from vramsite.calc import card_memory
from vramsite.errors import InputError
from vramsite.load import load_site
from vramsite.load.assemble import plausible_report
from vramsite.render.numbers import quantize
from vramsite.load.model import ReportedMemory

H200_REPORTED_MIB = 143771  # nvidia-smi memory.total on one H200 sold as 141 GB (measured)


REPORTED_MIB = {"h200-sxm": H200_REPORTED_MIB, "h100-sxm": 81559, "l40s": 46068}
"""What these cards report to the driver: the figures data/gpus.yaml cites, as fixed test values."""


@pytest.fixture(scope="module")
def data():
    """The frozen seed data: the live data may drop or change any card."""
    return load_site(seed_data_root("000"))


def reporting(data, card_id: str):
    """The seed's card, with the figure its driver reports."""
    return replace(data.gpu(card_id), reported_memory=ReportedMemory(REPORTED_MIB[card_id], "nvidia-smi"))


def _gb_from_mib(mib: int) -> Decimal:
    return Decimal(mib) * 1024 * 1024 / Decimal(10) ** 9


def test_h200_offers_what_it_reports(data):
    h200 = reporting(data, "h200-sxm")
    usable = card_memory.usable_gb(h200)
    assert usable.value == _gb_from_mib(H200_REPORTED_MIB)
    assert round(usable.value, 1) == Decimal("150.8")
    assert usable.unit == "GB"


def test_h200_margin_against_its_sold_size(data):
    h200 = reporting(data, "h200-sxm")
    assert card_memory.margin(h200).value == _gb_from_mib(H200_REPORTED_MIB) - 141
    percent = card_memory.margin_percent(h200)
    assert percent.unit == "%"
    assert percent.value == (_gb_from_mib(H200_REPORTED_MIB) - 141) / 141 * 100
    assert Decimal("6.9") < percent.value < Decimal("7.0")


def test_reported_figure_beats_the_binary_rule(data):
    """An H100 SXM reports less than 80 × 2³⁰ bytes: the page must not print the binary figure for it."""
    h100 = reporting(data, "h100-sxm")
    assert card_memory.usable_gb(h100).value == _gb_from_mib(h100.reported_memory.mib)
    assert card_memory.usable_gb(h100) < card_memory.binary_gb(80)


def test_hbm_without_a_report_counts_as_binary_gb(data):
    card = replace(data.gpu("h200-sxm"), reported_memory=None)
    assert card_memory.usable_gb(card).value == Decimal(141) * 2 ** 30 / 10 ** 9
    assert card_memory.margin_percent(card).value == (Decimal(2) ** 30 / 10 ** 9 - 1) * 100


def test_gddr_with_ecc_and_no_report_claims_no_margin(data):
    card = data.gpu("a40")
    assert card.ecc and card.memory_type.startswith("GDDR") and card.reported_memory is None
    assert card_memory.usable_gb(card) is None
    assert card_memory.margin(card) is None
    assert card_memory.margin_percent(card) is None


def test_gddr_with_ecc_and_a_report_uses_it(data):
    """ECC takes capacity on GDDR: an L40S reports far less than 48 × 2³⁰ bytes."""
    l40s = reporting(data, "l40s")
    assert l40s.ecc
    margin = card_memory.margin_percent(l40s)
    assert margin.value == (_gb_from_mib(l40s.reported_memory.mib) - 48) / 48 * 100
    assert margin.value < Decimal(1)


def test_a_report_below_the_sold_size_gives_a_negative_margin(data):
    card = replace(data.gpu("a40"), reported_memory=ReportedMemory(44000, "a test"))
    assert card_memory.margin(card).value < 0


def test_every_report_in_the_live_data_names_its_source_and_fits_its_card():
    reported = [gpu for gpu in load_site(ROOT).gpus if gpu.reported_memory is not None]
    assert all(gpu.reported_memory.source.strip() for gpu in reported)
    assert all(plausible_report(gpu.memory_gb, gpu.reported_memory.mib) for gpu in reported)


# -- bad input -------------------------------------------------------------------------


def _load_with(tmp_path: Path, old: str, new: str):
    """The seed data, its H200 given its driver figure, then ``old`` replaced by ``new``."""
    shutil.copytree(seed_data_root("000") / "data", tmp_path / "data")
    path = tmp_path / "data" / "gpus.yaml"
    anchor = "  - id: h200-sxm\n"
    text = path.read_text(encoding="utf-8").replace(
        anchor, anchor + f"    reported_memory: {{mib: {H200_REPORTED_MIB}, source: nvidia-smi}}\n")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    with pytest.raises(InputError) as caught:
        load_site(tmp_path)
    return [str(problem) for problem in caught.value.problems], line


@pytest.mark.parametrize("bad,expected", [
    ("mib: lots", "expected a whole number, got text 'lots'"),
    ("mib: 0", "must be at least 1"),
    ("mib: 143771.5", "expected a whole number"),
    ("mib: 141", "141 MiB does not fit a card sold as 141 GB"),
    ("mib: 141000000", "must be at most 4194304"),
    ("mib: 160000", "160000 MiB does not fit a card sold as 141 GB"),
])
def test_bad_reported_mib_is_refused_with_its_line(tmp_path, bad, expected):
    messages, line = _load_with(tmp_path, f"mib: {H200_REPORTED_MIB}", bad)
    assert len(messages) == 1
    assert messages[0].startswith(f"data/gpus.yaml:{line}: gpus[h200-sxm].reported_memory.mib: ")
    assert expected in messages[0]


def test_a_report_without_its_source_is_refused(tmp_path):
    old = f"reported_memory: {{mib: {H200_REPORTED_MIB}, source:"
    messages, line = _load_with(tmp_path, old, f"reported_memory: {{mib: {H200_REPORTED_MIB}, where:")
    assert any(m.startswith(f"data/gpus.yaml:{line}: gpus[h200-sxm].reported_memory") and "'source'" in m
               for m in messages)


# -- the main guide's margin sentence ------------------------------------------------------


def _formula_facts(root: Path):
    """The facts behind the guide's "Conventions" sentence, for the site at ``root``."""
    from vramsite.calc import Guide
    from vramsite.facts import FACTS
    from vramsite.load.pages import read_pages

    data = load_site(root)
    page = next(p for p in read_pages(root, data).value["pages"] if p["id"] == "vram")
    return data, FACTS[page["facts"]](Guide(data), page.get("params", {})).formula


def test_margin_sentence_figures_come_from_its_card():
    data, formula = _formula_facts(ROOT)
    card = formula.worked_offer.card.gpu
    assert formula.spec_memory.value == card.memory_gb
    assert formula.spec_usable == card_memory.usable_gb(card)
    assert formula.spec_margin == card_memory.margin_percent(card)


def test_margin_sentence_follows_a_report_for_its_card(tmp_path):
    assemble_seed_site(tmp_path, "000")
    _, formula = _formula_facts(tmp_path)
    card = formula.worked_offer.card.gpu
    path = tmp_path / "data" / "gpus.yaml"
    text = path.read_text(encoding="utf-8")
    anchor = f"  - id: {card.id}\n"
    assert text.count(anchor) == 1
    reported = 75000  # below the binary figure, as ECC on GDDR would leave it
    path.write_text(text.replace(anchor, anchor + f"    reported_memory: {{mib: {reported}, source: a test}}\n"),
                    encoding="utf-8")
    _, changed = _formula_facts(tmp_path)
    assert changed.spec_usable.value == _gb_from_mib(reported)
    assert changed.spec_margin.value == (_gb_from_mib(reported) - card.memory_gb) / card.memory_gb * 100


# -- the guide's conventions sentence speaks of one card, with that card's own memory -------------------


def _spec_card(site):
    return vram_facts(site).formula.spec_card.gpu


def _edit_card(site, card_id: str, **fields) -> None:
    document = edits.read(site, "gpus")
    entry = next(gpu for gpu in document["gpus"] if gpu["id"] == card_id)
    entry.update(fields)
    edits.write(site, "gpus", document)


def _conventions(markdown: str) -> str:
    start = markdown.index("Spec sheets")
    return markdown[start:markdown.index("\n", start)]


def test_a_card_with_a_driver_figure_is_quoted_with_it(tmp_path):
    site = edits.site_copy(tmp_path / "site")
    gpu = _spec_card(site)
    mib = int(gpu.memory_gb * 1024) - 700  # an HBM card reporting a little under its binary size
    _edit_card(site, gpu.id, reported_memory={"mib": mib, "source": "nvidia-smi on the card"})
    sentence = _conventions(edits.render_page(site, "vram")["en"])
    usable = quantize(Decimal(mib) * 2 ** 20 / Decimal(10) ** 9, 1)
    assert f"[{gpu.name}]" in sentence and f"reports {usable} GB in decimal GB to the driver" in sentence


def test_a_gddr_card_with_ecc_claims_no_margin(tmp_path):
    site = edits.site_copy(tmp_path / "site")
    gpu = _spec_card(site)
    _edit_card(site, gpu.id, memory_type="GDDR6", ecc=True)
    pages = edits.render_page(site, "vram")
    sentence = _conventions(pages["en"])
    assert "keeps ECC in its GDDR6" in sentence and f"[{gpu.name}]" in sentence
    assert "in hand" not in sentence
    assert "ECC 占用了它的 GDDR6" in pages["zh-cn"]
