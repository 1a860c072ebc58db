"""The calculation reproduces every figure of the full VRAM guide (seed 000).

It runs on the frozen copy of the data the page was made from
(tests/fixtures/seed_000/data), so editors' changes to data/ never touch it.

Where the seed breaks its own rules, the golden file lists the published
value, the computed one and the reason; the test holds the calculation to the
computed value and checks the difference is still real.
"""

from __future__ import annotations


import pytest

from golden_support import check_cell, check_published, figure_id, load_golden
from vramsite.render.numbers import quantize

GOLDEN = load_golden("seed_000.yaml")


@pytest.mark.parametrize("entry", GOLDEN["figures"], ids=figure_id)
def test_published_figure(entry, seed_000_guide):
    check_published(entry, seed_000_guide)


def _grid_entries():
    for model_id, row in GOLDEN["grid"].items():
        for method_id, spec in row.items():
            yield pytest.param(model_id, method_id, spec, id=f"{model_id}-{method_id}")


def _cell_summary(lookup) -> dict:
    if lookup.choice is None:
        return {"need": quantize(lookup.need.value, 0), "nodes": lookup.nodes.value}
    choice = lookup.choice
    return {
        "need": quantize(lookup.need.value, 0),
        "cards": choice.count,
        "gpu": choice.gpu.id,
        "price": quantize(choice.price.value, 0),
        "tight": choice.tight,
    }


@pytest.mark.parametrize("model_id,method_id,spec", list(_grid_entries()))
def test_lookup_grid_cell(model_id, method_id, spec, seed_000_guide):
    summary = _cell_summary(seed_000_guide.cell(model_id, method_id))
    check_cell(summary, spec)


def test_grid_covers_every_cell(seed_000_guide):
    listed = {(m, k) for m, row in GOLDEN["grid"].items() for k in row}
    built = {(model.id, method.id) for model, method, _ in seed_000_guide.grid_cells()}
    assert listed == built
