"""The quick site (sites/quick) reproduces every figure of the quick VRAM page (seed 003).

It runs on the frozen copy of the data the page was made from
(tests/fixtures/seed_003/data) with the quick site's live content, templates
and translations.

Figures and both lookup tables are checked against tests/golden/seed_003.yaml;
where the seed breaks its own rules the golden file lists the published
value, the computed one and the reason, and the test holds the calculation to
the computed value. The rendered zh twin must then word each table cell the
way the seed does (links may take the engine's relative form).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from golden_support import check_cell, check_published, figure_id, load_golden
from site_support import markdown_table_rows, parse_html, table_rows
from vramsite.render.numbers import DisplaySpec, quantize, rounded

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT.parent / "shared" / "seeds" / "003_f5b987f3d2eb4ced.txt"
GOLDEN = load_golden("seed_003.yaml")
CAPTIONS = {
    "inference": {"zh-cn": "推理部署：所需显存与装得下的显卡", "en": "Serving: memory needed and the cards that hold it"},
    "finetune": {"zh-cn": "模型微调：所需显存（不含激活值）与装得下的显卡",
                 "en": "Fine-tuning: memory needed (no activations) and the cards that hold it"},
}


@pytest.fixture(scope="module")
def quick(seed_003_guide):
    return seed_003_guide


@pytest.fixture(scope="module")
def site(seed_003_built):
    return seed_003_built[1]


# -- figures -------------------------------------------------------------------

@pytest.mark.parametrize("entry", GOLDEN["figures"], ids=figure_id)
def test_published_figure(entry, quick):
    check_published(entry, quick)


# -- the two tables, cell by cell ------------------------------------------------

def _grid_entries():
    for table_id, rows in GOLDEN["grid"].items():
        for model_id, row in rows.items():
            for method_id, spec in row.items():
                yield pytest.param(table_id, model_id, method_id, spec, id=f"{table_id}-{model_id}-{method_id}")


def _cell_summary(lookup, memory: DisplaySpec) -> dict:
    """A cell as the page words it: the need as printed, the cards named, the choice and its price."""
    need = rounded(lookup.need.value, memory)
    if lookup.choice is None:
        return {"need": need, "machine": lookup.node_cards}
    choice = lookup.choice
    return {"need": need, "named": [gpu.id for gpu in lookup.same_class], "cards": choice.count,
            "gpu": choice.gpu.id, "price": quantize(choice.price.value, 2)}


@pytest.mark.parametrize("table_id,model_id,method_id,spec", list(_grid_entries()))
def test_table_cell(table_id, model_id, method_id, spec, quick):
    memory = DisplaySpec.from_data(quick.data.site.display["memory"])
    summary = _cell_summary(quick.cell(model_id, method_id), memory)
    check_cell(summary, spec)


def test_grid_covers_both_tables_and_every_cell(quick):
    listed = {(m, k) for rows in GOLDEN["grid"].values() for m, row in rows.items() for k in row}
    built = {(model.id, method.id) for model, method, _ in quick.grid_cells()}
    assert listed == built
    assert [list(row) for row in GOLDEN["grid"]["inference"].values()] == [["infer-16", "infer-8", "infer-4"]] * 5
    assert [list(row) for row in GOLDEN["grid"]["finetune"].values()] == [["qlora", "lora", "full"]] * 5


def test_cards_without_a_price_are_named_but_never_chosen(quick):
    unpriced = {gpu.id for gpu in quick.gpus if gpu.price is None}
    assert unpriced == {"rtx-6000-ada", "rtx-a6000", "a100"}
    named = set()
    for _, _, found in quick.grid_cells():
        if found.choice:
            assert found.choice.gpu.id not in unpriced
            named |= {gpu.id for gpu in found.same_class}
    assert unpriced <= named


# -- the rendered twin reads like the seed ---------------------------------------

def _need_text(spec: dict) -> str:
    return f"{Decimal(str(spec['need'])):,} GB"


def zh_cell(spec: dict, names: dict[str, str]) -> str:
    """A cell worded as seed 003 words it, with the engine's relative links."""
    need = _need_text(spec)
    if "machine" in spec:
        return f"{need}：多于一台 {spec['machine']} 卡机器"
    links = [f"[{names[card]}](gpus/{card}.html.md)" for card in spec["named"]]
    listed = links[0] if len(links) == 1 else "、".join(links[:-1]) + " 或 " + links[-1]
    price = f"${spec['price']}"
    if spec["cards"] > 1:
        return f"{need}：{spec['cards']} × {listed}，{spec['cards']} 块合计每小时 {price} 起"
    if len(links) > 1:
        return f"{need}：一块 {listed}，{names[spec['gpu']]} 每 GPU 小时 {price} 起"
    return f"{need}：一块 {listed}，每 GPU 小时 {price} 起"


def en_cell(spec: dict, names: dict[str, str]) -> str:
    need = _need_text(spec)
    if "machine" in spec:
        return f"{need}: more than one {spec['machine']}-card machine"
    links = [f"[{names[card]}](gpus/{card}.html.md)" for card in spec["named"]]
    if len(links) <= 2:
        listed = " or ".join(links)
    else:
        listed = ", ".join(links[:-1]) + ", or " + links[-1]
    price = f"${spec['price']}"
    if spec["cards"] > 1:
        return f"{need}: {spec['cards']} × {listed}, from {price} an hour for the set of {spec['cards']}"
    if len(links) > 1:
        return f"{need}: one {listed}; the {names[spec['gpu']]} from {price} per GPU-hour"
    return f"{need}: one {listed}, from {price} per GPU-hour"


WORDING = {"zh-cn": zh_cell, "en": en_cell}


def _unlinked(text: str) -> str:
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


@pytest.mark.parametrize("language", WORDING)
@pytest.mark.parametrize("table_id", GOLDEN["grid"])
def test_twin_and_html_word_every_cell(site, quick, language, table_id):
    names = {gpu.id: gpu.name for gpu in quick.data.gpus}
    md_rows = markdown_table_rows(site[f"{language}/vram.html.md"].decode(), CAPTIONS[table_id][language])
    html_rows = table_rows(parse_html(site[f"{language}/vram.html"]), table_id)
    for model_id, row in GOLDEN["grid"][table_id].items():
        model = quick.model(model_id)
        header = (f"{model.name}（{model.examples[0]}）" if language == "zh-cn"
                  else f"{model.name} ({model.examples[0]})")
        assert header in md_rows and f"{model.name} {model.examples[0]}" in html_rows
        for index, spec in enumerate(row.values()):
            wanted = WORDING[language](spec.get("computed", spec), names)
            assert md_rows[header][index] == wanted
            separator = "：" if language == "zh-cn" else ": "
            assert html_rows[f"{model.name} {model.examples[0]}"][index] == _unlinked(wanted).replace(separator, " ", 1)


def _seed_rows() -> dict[str, dict[str, list[str]]]:
    """The seed's two tables: section heading -> row header -> cells, links made relative as the engine writes them."""
    text = SEED.read_text(encoding="utf-8").replace("](/zh-cn/", "](")
    tables, heading = {}, None
    for line in text.split("\n"):
        if line.startswith("## "):
            heading = line[3:].strip()
        elif line.startswith("| ") and not line.startswith("| 模型规模") and heading:
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            # The site writes the row header's parentheses full-width, as Chinese text does; the seed has ASCII.
            header = cells[0].replace(" (", "（").replace(")", "）")
            tables.setdefault(heading, {})[header] = cells[1:]
    return tables


SEED_SECTIONS = {"inference": "推理部署", "finetune": "模型微调"}


@pytest.mark.skipif(not SEED.is_file(), reason="the seeds folder (../shared/seeds) is not beside the repository")
@pytest.mark.parametrize("table_id", GOLDEN["grid"])
def test_zh_twin_rows_read_like_the_seed(site, table_id):
    seed = _seed_rows()[SEED_SECTIONS[table_id]]
    built = markdown_table_rows(site["zh-cn/vram.html.md"].decode(), CAPTIONS[table_id]["zh-cn"])
    assert list(built) == list(seed)
    differences = 0
    for (header, seed_cells), spec_row in zip(seed.items(), GOLDEN["grid"][table_id].values()):
        for seed_cell, built_cell, spec in zip(seed_cells, built[header], spec_row.values()):
            if "computed" in spec:  # a listed difference: the page's cell, not ours
                assert built_cell != seed_cell
                differences += 1
            else:
                assert built_cell == seed_cell
    assert differences == sum("computed" in spec for row in GOLDEN["grid"][table_id].values() for spec in row.values())


@pytest.mark.skipif(not SEED.is_file(), reason="the seeds folder (../shared/seeds) is not beside the repository")
def test_seed_cells_match_the_golden_published_wording(quick):
    """The golden grid's published entries say what the seed prints, differences included."""
    names = {gpu.id: gpu.name for gpu in quick.data.gpus}
    seeds = _seed_rows()
    for table_id, rows in GOLDEN["grid"].items():
        seed = seeds[SEED_SECTIONS[table_id]]
        for (header, seed_cells), row in zip(seed.items(), rows.values()):
            for seed_cell, spec in zip(seed_cells, row.values()):
                assert zh_cell(spec.get("published", spec), names) == seed_cell


def test_twin_prose_shows_the_faq_and_snapshot_figures(site):
    zh = site["zh-cn/vram.html.md"].decode()
    en = site["en/vram.html.md"].decode()
    for piece in ("2026年10月31日 17:40 UTC", "200 台机器", "687 块 GPU", "$1.65", "$0.41", "约 6 GB", "1,120 GB",
                  "arXiv:1910.02054", "arXiv:2305.14314", "48 GB", "65B", "多于一台 8 卡机器"):
        assert piece in zh, piece
    for piece in ("October 31, 2026, 17:40 UTC", "687 GPUs on 200 machines", "$1.65", "$0.41", "about 6 GB",
                  "1,120 GB", "arXiv:1910.02054", "arXiv:2305.14314", "48 GB", "65B", "more than one 8-card machine"):
        assert piece in en, piece
