"""A price edited in prices.yaml reaches exactly the figures that depend on it (on the seed 000 data)."""

from __future__ import annotations

from vramsite.calc import Guide
from vramsite.load import load_site


def _cells(guide: Guide) -> dict:
    result = {}
    for model, method, found in guide.grid_cells():
        choice = found.choice
        result[(model.id, method.id)] = (choice.count, choice.gpu.id, choice.price.value) if choice else None
    return result


def _costs(guide: Guide) -> dict:
    return {
        gpu.id: (gpu.price.value, gpu.usd_per_gb.value, gpu.gbps_per_usd.value, gpu.hourly.value, gpu.weekly.value)
        for gpu in guide.gpus
    }


def test_a40_price_change_reaches_its_cells_and_its_cost_row_only(seed_000_copy, seed_000_guide):
    guide = seed_000_guide
    path = seed_000_copy / "data" / "prices.yaml"
    path.write_text(path.read_text().replace("{gpu: a40, usd: 240}", "{gpu: a40, usd: 260}"))
    changed = Guide(load_site(seed_000_copy))

    before, after = _cells(guide), _cells(changed)
    a40_cells = {key for key, cell in before.items() if cell and cell[1] == "a40"}
    assert a40_cells, "the A40 wins cells in the published grid"
    assert {key for key in before if before[key] != after[key]} == a40_cells
    for key in a40_cells:
        count, gpu, price = after[key]
        assert gpu == "a40" and price == before[key][2] * 260 / 240

    cost_before, cost_after = _costs(guide), _costs(changed)
    assert {gpu for gpu in cost_before if cost_before[gpu] != cost_after[gpu]} == {"a40"}
    assert all(b != a for b, a in zip(cost_before["a40"], cost_after["a40"]))


def test_a_price_cut_moves_a_cell_to_another_card(seed_000_copy, seed_000_guide):
    guide = seed_000_guide
    path = seed_000_copy / "data" / "prices.yaml"
    path.write_text(path.read_text().replace("{gpu: rtx-4090, usd: 390}", "{gpu: rtx-4090, usd: 200}"))
    changed = Guide(load_site(seed_000_copy))
    # 7B FP8 went to the L4 at $250; a $200 RTX 4090 (FP8, 24 GB) now wins it.
    assert guide.cell("7B", "infer-fp8").choice.gpu.id == "l4"
    assert changed.cell("7B", "infer-fp8").choice.gpu.id == "rtx-4090"
