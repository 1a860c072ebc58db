"""The card declaration (vramsite/load/cards.py) and everything that must agree with it.

The loader, ``GpuView``, the catalogue and the card pages' specifications follow from the declaration
by code; what is written out by hand elsewhere (the ``Gpu`` record, the JSON Schema editors' tools
read, the header comment of data/gpus.yaml, the catalogs' labels) is held to it here, so that none
can drift from it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vramsite.calc import Guide
from vramsite.calc import figure as figure_kinds
from vramsite.calc.card_view import GpuView
from vramsite.errors import InputError, UnknownId
from vramsite.load import load_site
from vramsite.load.card_schema import SCHEMA_FILE, gpus_schema, schema_text
from vramsite.load.cards import CARD, FIELDS, FIGURE, ON_REQUEST, OWN, SHOWN, TEXT, WORDS, YES_NO, CardField
from vramsite.load.model import Gpu
from vramsite.tables.gpus import OWN_CELLS, catalogue_table, gpu_specs_table

ROOT = Path(__file__).resolve().parent.parent
SITES = {"main": ROOT, "quick": ROOT / "sites" / "quick"}
KINDS = {value for name, value in vars(figure_kinds).items() if name.isupper() and isinstance(value, str)}


def _msgids(path: Path) -> set[str]:
    return set(re.findall(r'^msgid "(.+)"$', path.read_text(encoding="utf-8"), re.M))


# -- the declaration is whole ------------------------------------------------------------------


def test_keys_are_unique_and_every_shown_entry_is_labelled():
    keys = [entry.key for entry in CARD]
    assert len(keys) == len(set(keys))
    views = [entry.view for entry in CARD if entry.view]
    assert len(views) == len(set(views))
    for entry in CARD:
        assert entry.catalogue in (None, SHOWN, ON_REQUEST), entry.key
        assert entry.cell in (FIGURE, TEXT, YES_NO, WORDS, OWN), entry.key
        if entry.catalogue or entry.page:
            assert entry.label, f"{entry.key} shows without a label"
        if entry.cell == OWN:
            assert entry.key in OWN_CELLS, f"{entry.key} has no cell function in tables/gpus.py"
        elif entry.catalogue or entry.page:
            assert entry.view, f"{entry.key} shows, but names no GpuView attribute to show"
        if entry.cell == WORDS:
            assert entry.words, entry.key


def test_figures_have_known_kinds():
    for entry in FIELDS:
        if entry.figure is not None:
            assert entry.figure.kind in KINDS, (entry.key, entry.figure.kind)
            assert entry.cell == FIGURE or not (entry.catalogue or entry.page), entry.key


def test_gpu_holds_every_declared_field():
    declared = {entry.key for entry in FIELDS if entry.on_gpu}
    held = {field.name for field in dataclasses.fields(Gpu)}
    assert held == declared, ("add or remove the field on Gpu in vramsite/load/model.py as load/cards.py declares it:"
                              f" only declared {sorted(declared - held)}, only on Gpu {sorted(held - declared)}")
    required = {entry.key for entry in FIELDS if entry.required and entry.on_gpu}
    without_default = {field.name for field in dataclasses.fields(Gpu)
                       if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING}
    assert without_default == required


def test_the_view_gives_every_declared_view(guide):
    for gpu in guide.gpus:
        for entry in CARD:
            if entry.view:
                getattr(gpu, entry.view)
    assert isinstance(vars(GpuView)["memory"], property)


# -- what is written out by hand agrees with it ------------------------------------------------


def test_the_schema_file_is_written_from_the_declaration():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), \
        "vramsite/schemas/gpus.schema.json differs from vramsite/load/cards.py: run python -m vramsite.load.card_schema"
    assert json.loads(schema_text()) == gpus_schema()


def test_the_schema_command_checks_and_writes(tmp_path):
    run = subprocess.run([sys.executable, "-m", "vramsite.load.card_schema", "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and not run.stderr, run.stderr


def test_the_schema_takes_exactly_the_declared_keys():
    item = gpus_schema()["properties"]["gpus"]["items"]
    assert list(item["properties"]) == [entry.key for entry in FIELDS]
    assert item["required"] == [entry.key for entry in FIELDS if entry.required]
    assert item["additionalProperties"] is False


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_gpus_yaml_header_names_the_declared_keys(site):
    """The comment at the top of data/gpus.yaml explains each field (the quick site's points to the main one)."""
    text = (SITES[site] / "data" / "gpus.yaml").read_text(encoding="utf-8")
    header = text[:text.index("\ngpus:")]
    if site != "main":
        assert "data/gpus.yaml" in header
        return
    named = re.findall(r"^#   ([a-z_0-9]+) {2,}\S", header, re.M)
    assert named == [entry.key for entry in FIELDS], "the header of data/gpus.yaml: one line per declared key, in order"


def test_every_label_is_in_every_catalog():
    labels = {label for entry in CARD for label in (entry.label, entry.label_hourly) if label}
    labels |= {f"{entry.words}{value}" for entry in FIELDS if entry.cell == WORDS for value in entry.schema["enum"]}
    for catalog in sorted((ROOT / "locales").glob("*/LC_MESSAGES/messages.po")):
        missing = labels - _msgids(catalog)
        assert not missing, f"{catalog.relative_to(ROOT)}: add {sorted(missing)}"


# -- where a field shows -----------------------------------------------------------------------


def test_the_catalogue_shows_the_shown_columns_in_order(guide):
    table = catalogue_table(guide)
    assert [column.key for column in table.columns] == [entry.key for entry in CARD if entry.catalogue == SHOWN]
    assert all(len(row.cells) == len(table.columns) for row in table.rows)


def test_a_column_on_request_shows_where_a_page_names_it(guide):
    on_request = [entry.key for entry in CARD if entry.catalogue == ON_REQUEST]
    assert on_request, "no column on request left to test"
    table = catalogue_table(guide, columns=["memory_gb", *on_request])
    assert [column.key for column in table.columns] == ["memory_gb", *on_request]
    with pytest.raises(UnknownId, match="catalogue column 'vendor'"):
        catalogue_table(guide, columns=["vendor"])  # a field not declared as a column


def test_the_card_page_shows_a_row_per_page_field_it_has(guide):
    for view in guide.gpus:
        table = gpu_specs_table(guide, view.id)
        expected = [entry.key for entry in CARD if entry.page
                    and (entry.cell == OWN or getattr(view, entry.view) is not None)]
        assert [row.key for row in table.rows] == expected
        assert [column.key for column in table.columns] == ["value"]
    with pytest.raises(UnknownId, match="specification 'price'"):
        gpu_specs_table(guide, guide.gpus[0].id, rows=["price"])


def test_a_card_without_an_optional_field_shows_a_dash_in_its_column(site_copy):
    text = (site_copy / "data" / "gpus.yaml").read_text(encoding="utf-8")
    first = re.search(r"^  - id: (\S+)\n", text, re.M)[1]
    line = re.search(r"^    launched: \d+\n", text, re.M)
    (site_copy / "data" / "gpus.yaml").write_text(text[:line.start()] + text[line.end():], encoding="utf-8")
    guide = Guide(load_site(site_copy))
    card = next(gpu for gpu in guide.data.gpus if gpu.launched is None)
    assert card.id == first
    row = next(row for row in catalogue_table(guide, columns=["launched"]).rows if row.key == card.id)
    assert row.cells[0].content.text == "—"
    assert "launched" not in [row.key for row in gpu_specs_table(guide, card.id).rows]


# -- bad values of declared fields: file, line, field ------------------------------------------


def _bounded(entry: CardField) -> bool:
    return "minimum" in entry.schema


BOUNDED = [entry.key for entry in FIELDS if _bounded(entry)]


@pytest.mark.parametrize("key", BOUNDED)
def test_a_value_below_a_declared_minimum_names_file_line_and_field(key, seed_000_copy):
    entry = next(entry for entry in FIELDS if entry.key == key)
    gpus = seed_000_copy / "data" / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    card = re.search(r"^  - id: (\S+)\n", text, re.M)
    found = re.compile(rf"^    {key}: .*$", re.M).search(text, card.end())
    low = entry.schema["minimum"] - 1
    gpus.write_text(text[:found.start()] + f"    {key}: {low}" + text[found.end():], encoding="utf-8")
    line = text[:found.start()].count("\n") + 1

    with pytest.raises(InputError) as caught:
        load_site(seed_000_copy)

    shown = [str(problem) for problem in caught.value.problems]
    expected = f"data/gpus.yaml:{line}: gpus[{card[1]}].{key}: must be at least {entry.schema['minimum']}"
    assert any(problem.startswith(expected) and f"got {low}" in problem for problem in shown), shown


@pytest.mark.parametrize("old,new,field,words", [
    ("    stack: rocm\n", "    stack: metal\n", "gpus[mi300x].stack", "metal"),
    ("    features: [fp8]\n", "    features: [fp8]\n    notes: {fr: une note}\n", "gpus[mi300x].notes.fr",
     "'fr' is not a language of the site"),
])
def test_a_bad_value_of_a_declared_field_names_file_line_and_field(old, new, field, words, seed_000_copy):
    gpus = seed_000_copy / "data" / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    at = text.index(old)
    gpus.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    line = text[:at].count("\n") + 1 + (new.count("\n") - old.count("\n"))

    with pytest.raises(InputError) as caught:
        load_site(seed_000_copy)

    shown = [str(problem) for problem in caught.value.problems]
    assert any(problem.startswith(f"data/gpus.yaml:{line}: {field}: ") and words in problem for problem in shown), shown
