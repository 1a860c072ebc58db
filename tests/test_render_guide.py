"""The VRAM guide as readers get it: both languages, HTML and Markdown twin.

Rendered from the frozen seed 000 data with the live content and templates, so the
seed's figures can be looked for on the page whatever data/ holds today.
"""

from __future__ import annotations

import re

import pytest

from golden_support import load_golden
from site_support import heading_ids, markdown_table_rows, parse_html, table_rows, text_of

GOLDEN = load_golden("seed_000.yaml")
LANGUAGES = ("en", "zh-cn")
TIGHT = {"en": "tight", "zh-cn": "余量小"}
NODES = {"en": "{n} nodes", "zh-cn": "{n} 个节点"}
LOOKUP_CAPTION = {"en": "The cheapest card that fits", "zh-cn": "能装下的最便宜显卡"}


@pytest.fixture(scope="module")
def site(seed_000_built):
    return seed_000_built[1]


@pytest.fixture(scope="module")
def guide(seed_000_guide):
    return seed_000_guide


def _unlinked(markdown: str) -> str:
    """Markdown with [text](url) links reduced to their text."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)


def expected_cell(spec: dict, names: dict, language: str) -> list[str]:
    """The pieces a reader must see in a lookup cell, written out independently of the renderer."""
    spec = spec.get("computed", spec)
    pieces = [f"{spec['need']:,} GB"]
    if "nodes" in spec:
        return pieces + [NODES[language].format(n=spec["nodes"])]
    card = names[spec["gpu"]]
    pieces.append(f"{spec['cards']}× {card}" if spec["cards"] > 1 else card)
    pieces.append(f"${spec['price']:,}")
    if spec["tight"]:
        pieces.append(TIGHT[language])
    return pieces


@pytest.mark.parametrize("language", LANGUAGES)
def test_golden_grid_in_html_and_twin(site, guide, language):
    names = {gpu.id: gpu.name for gpu in guide.data.gpus}
    columns = [method.id for method in guide.columns]
    html_rows = table_rows(parse_html(site[f"{language}/vram.html"]), "lookup")
    md_rows = markdown_table_rows(_unlinked(site[f"{language}/vram.html.md"].decode()), LOOKUP_CAPTION[language])
    for model_id, row in GOLDEN["grid"].items():
        assert model_id in html_rows and model_id in md_rows
        for method_id, spec in row.items():
            index = columns.index(method_id)
            for piece in expected_cell(spec, names, language):
                assert piece in html_rows[model_id][index], (language, model_id, method_id, piece)
                assert piece in md_rows[model_id][index], (language, model_id, method_id, piece)
            if not spec.get("computed", spec).get("tight", False):
                assert TIGHT[language] not in html_rows[model_id][index]


@pytest.mark.parametrize("language", LANGUAGES)
def test_cost_table_rows(site, guide, language):
    rows = table_rows(parse_html(site[f"{language}/vram.html"]), "cost")
    published = {entry["expr"]: entry["published"] for entry in GOLDEN["figures"] if entry["where"] == "06 table"}
    for gpu in guide.gpus:
        row = next(cells for header, cells in rows.items() if header.startswith(gpu.name + " "))
        figure = {name: str(published[f'gpu("{gpu.id}").{name}']) for name in ("usd_per_gb", "gbps_per_usd", "hourly")}
        assert row[3] == "$" + figure["usd_per_gb"]
        assert row[4] == figure["gbps_per_usd"]
        assert row[5] == "$" + figure["hourly"]


def test_both_languages_have_the_same_sections_tables_and_figures(site):
    trees = {language: parse_html(site[f"{language}/vram.html"]) for language in LANGUAGES}
    assert heading_ids(trees["en"]) == heading_ids(trees["zh-cn"])
    tables = {language: [f.get("id") for f in tree.iter("{http://www.w3.org/1999/xhtml}figure")]
              for language, tree in trees.items()}
    assert tables["en"] == tables["zh-cn"] and len(tables["en"]) >= 6
    for table_id in tables["en"]:
        numbers = {language: _numbers(table_rows(trees[language], table_id.removeprefix("table-")))
                   for language in LANGUAGES}
        assert numbers["en"] == numbers["zh-cn"], table_id


def _numbers(rows: dict) -> list[str]:
    return [re.findall(r"\d+(?:[,.]\d+)*", " ".join([header, *cells])) for header, cells in rows.items()]


def test_every_figure_in_html_carries_its_derivation(site):
    tree = parse_html(site["en/vram.html"])
    spans = [span for span in tree.iter("{http://www.w3.org/1999/xhtml}span") if span.get("class") == "fig"]
    derived = [span for span in spans if span.get("title")]
    assert len(derived) > 100
    kv = next(span for span in derived if span.get("title", "").startswith("2 × 80 layers"))
    assert kv.get("title") == "2 × 80 layers × 8 KV heads × head dim 128 × 2 bytes × 8,192 tokens × batch 1 = 2.7 GB"
    total = next(span for span in derived if span.get("title", "").startswith("weights 70 GB + KV cache"))
    assert total.get("title") == "weights 70 GB + KV cache 2.7 GB + runtime overhead 2 GB = 75 GB"
    assert text_of(total) == "75 GB"


DOWNLOADS = re.compile(r"^(\.\./)*(data/[\w-]+/[\w.-]+\.(json|csv)|assets/charts/[\w.-]+\.svg)$")


def test_twin_links_point_at_twins_and_pages_at_pages(site):
    for language in LANGUAGES:
        twin = site[f"{language}/vram.html.md"].decode()
        targets = [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", twin) if not DOWNLOADS.match(t)]
        assert targets and all(target.endswith(".html.md") or target.startswith("http") for target in targets)
        html = site[f"{language}/vram.html"].decode()
        hrefs = [h for h in re.findall(r'<a href="([^"#]+)', html) if not DOWNLOADS.match(h)]
        assert hrefs and all(h.endswith(".html") or h.endswith(".md") or h.startswith("http") for h in hrefs)


@pytest.mark.parametrize("language,money,period", [("en", "$1,590/month", "September 1, 2026"),
                                                   ("zh-cn", "$1,590/月", "2026年9月1日")])
def test_locale_formats_money_and_dates(site, language, money, period):
    text = site[f"{language}/vram.html.md"].decode()
    assert money in text and period in text
    assert "US$" not in text


def test_rounding_is_half_up_on_the_page(site):
    text = site["en/vram.html"].decode()
    assert "$18.63" in text and "$1.38" in text and "$21.13" in text
    assert "$18.62" not in text and "$1.37" not in text
