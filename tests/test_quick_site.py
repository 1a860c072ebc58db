"""The second site, sites/quick, built by the same engine: the README's command
writes it, and its pages hold together as the first site's do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from site_support import XHTML, parse_html, table_rows
from vramsite.cli import main
from vramsite.load import load_site
from vramsite.publish.site import SiteBuild

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "sites" / "quick"
LANGUAGES = ("zh-cn", "en")


@pytest.fixture(scope="module")
def data():
    return load_site(QUICK)


@pytest.fixture(scope="module")
def site():
    return SiteBuild(QUICK).render()


@pytest.fixture(scope="module")
def trees(site):
    return {path: parse_html(content) for path, content in site.items() if path.endswith(".html")}


def test_readme_documents_the_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"## A second site\n(.*?)(?=\n## |\Z)", readme, re.S)
    assert section and "python build.py --site sites/quick" in section.group(1)


def test_the_build_command_writes_every_page(tmp_path, data, capsys):
    out = tmp_path / "site"
    assert main(["build", "--site", str(QUICK), "--out", str(out)]) == 0
    assert "built" in capsys.readouterr().out
    pages = ["index", "vram", "gpus", *(f"gpus/{gpu.id}" for gpu in data.gpus)]
    for language in LANGUAGES:
        for page in pages:
            for suffix in (".html", ".html.md"):
                assert (out / language / f"{page}{suffix}").is_file(), f"{language}/{page}{suffix}"
    for name in ("index.html", "index.html.md", "sitemap.xml", "llms.txt", "assets/style.css", "assets/quick.css"):
        assert (out / name).is_file(), name


def test_both_languages_show_the_same_figures_in_both_tables(trees):
    for table_id in ("inference", "finetune"):
        numbers = {}
        for language in LANGUAGES:
            rows = table_rows(trees[f"{language}/vram.html"], table_id)
            numbers[language] = [sorted(re.findall(r"\d+(?:[,.]\d+)*", " ".join([header, *cells])))
                                 for header, cells in rows.items()]  # the same figures, in each language's order
        assert numbers["zh-cn"] == numbers["en"]


def test_unpriced_cards_say_so_and_are_never_priced(seed_003_built):
    build, site = seed_003_built
    data = build.data
    unpriced = [gpu for gpu in data.gpus if data.pricing.usd[gpu.id] is None]
    assert [gpu.id for gpu in unpriced] == ["rtx-6000-ada", "rtx-a6000", "a100"]
    catalogue = site["en/gpus.html.md"].decode()
    assert catalogue.count("price not published") == len(unpriced) + 1  # each row, and the note under the table
    for gpu in unpriced:
        page = site[f"en/gpus/{gpu.id}.html.md"].decode()
        assert "publishes no price" in page and "$" not in page.split("\n")[0]
        assert "未公布" not in page


def test_the_lookup_tables_carry_their_own_stylesheet(trees):
    for language in LANGUAGES:
        links = [e.get("href") for e in trees[f"{language}/vram.html"].iter(f"{XHTML}link")
                 if e.get("rel") == "stylesheet"]
        assert links == ["../assets/style.css", "../assets/calculator.css", "../assets/quick.css"]


def test_a_price_withdrawn_moves_every_cell_of_its_class(seed_003_copy):
    """usd: null keeps a card named in its class but hands the price to the next card of that size (seed 003 data)."""
    root = seed_003_copy
    prices = root / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    assert text.count("{gpu: rtx-3090, usd: 0.19}") == 1
    prices.write_text(text.replace("{gpu: rtx-3090, usd: 0.19}", "{gpu: rtx-3090, usd: null}"), encoding="utf-8")
    twin = SiteBuild(root).render()["zh-cn/vram.html.md"].decode()
    assert "RTX 3090 每 GPU 小时" not in twin and "$0.19" not in twin
    assert "19 GB：一块 [RTX 4090](gpus/rtx-4090.html.md) 或 [RTX 3090](gpus/rtx-3090.html.md)，RTX 4090 每 GPU 小时 $0.41 起" in twin
