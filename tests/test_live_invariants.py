"""The live sites, whatever their data says today: properties that hold for any valid data.

No test here names an id, a price or a figure of data/ or sites/quick/data/;
those live in the seed tests, on frozen copies (tests/fixtures/).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import site_invariants
from cli_support import ROOT
from live_sites import live_build, live_trees
from site_invariants import CHECKS, Published
from vramsite.calc import Guide

SITES = {"main": ROOT, "quick": ROOT / "sites" / "quick"}
LIVE_NAMES = {"main": "default", "quick": "quick"}
"""Each site's name in live_sites."""


@pytest.fixture(scope="module", params=sorted(SITES))
def published(request) -> Published:
    build, files = live_build(LIVE_NAMES[request.param])
    return Published.parsed(SITES[request.param], build.guide, files, live_trees(LIVE_NAMES[request.param]))


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_live_site(published, check):
    check(published)


# -- the checks can fail: each catches the fault it is for ---------------------------------------


@pytest.fixture
def main_site() -> Published:
    """The live site rendered and parsed once per process (live_sites); each test breaks its own copy of the files
    and of the map of parsed pages (``Published.edit``)."""
    build, files = live_build("default")
    return Published.parsed(ROOT, build.guide, dict(files), dict(live_trees("default")))


def _fails(check, site: Published) -> bool:
    try:
        check(site)
    except AssertionError:
        return True
    return False


def test_a_missing_card_page_is_caught(main_site):
    page = next(path for path in main_site.files if "/gpus/" in path and path.endswith(".html")
                and not path.endswith("index.html"))
    main_site.remove(page)
    assert _fails(site_invariants.every_card_has_a_page_in_every_language, main_site)
    assert _fails(site_invariants.every_language_publishes_the_same_pages, main_site)


def test_a_twin_that_prints_another_figure_is_caught(main_site):
    twin = next(path for path in main_site.files if path.endswith("vram.html.md"))
    text = main_site.files[twin].decode("utf-8")
    lines = text.splitlines()
    row = next(line for above, line in zip(lines, lines[1:]) if above.startswith("|---") and re.search(r"\d", line))
    changed = re.sub(r"\d", lambda digit: str((int(digit[0]) + 1) % 10), row, count=1)
    main_site.edit(twin, text.replace(row, changed, 1).encode("utf-8"))
    assert _fails(site_invariants.html_and_twin_show_the_same_figures, main_site)


def test_a_page_left_out_of_the_sitemap_is_caught(main_site):
    sitemap = main_site.files["sitemap.xml"].decode("utf-8")
    first = re.search(r"<url>.*?</url>\s*", sitemap, re.S)[0]
    main_site.edit("sitemap.xml", sitemap.replace(first, "", 1).encode("utf-8"))
    assert _fails(site_invariants.sitemap_lists_every_page, main_site)


def test_a_cell_that_is_not_the_best_choice_is_caught(main_site):
    # A guide of its own: the live build's is shared by every test in this process (live_sites), and a market
    # changed on it gave other tests' answers this test's price.
    guide = main_site.guide = Guide(main_site.guide.data)
    cells = guide.grid_cells()  # chosen at the real prices
    chosen = {found.choice.gpu.id for _, _, found in cells if found.choice}
    loser = next(gpu for gpu in guide.data.gpus if gpu.id not in chosen and guide.data.pricing.usd.get(gpu.id))
    usd = {**guide.data.pricing.usd, loser.id: guide.data.pricing.usd[loser.id] / 1000}
    guide.market = replace(guide.market, pricing=replace(guide.data.pricing, usd=usd))
    assert _fails(site_invariants.every_lookup_choice_fits_and_ranks_first, main_site)


def test_a_derivation_that_restates_its_figure_is_caught(main_site):
    page = next(path for path in main_site.files if path.endswith("/vram.html"))
    text = main_site.files[page].decode("utf-8")
    main_site.edit(page, text.replace("</h1>", '</h1><p><span title="latent per token 70,272 bytes = 70,272 bytes">'
                                      "70,272 bytes</span></p>", 1).encode("utf-8"))
    assert _fails(site_invariants.no_derivation_restates_its_figure, main_site)


def test_markdown_a_raw_block_swallowed_is_caught(main_site):
    page = next(path for path in main_site.files if path.endswith("/vram.html"))
    text = main_site.files[page].decode("utf-8")
    main_site.edit(page, text.replace("</h1>", "</h1>\n<p>## Prices {#prices}</p>", 1).encode("utf-8"))
    assert _fails(site_invariants.no_markdown_is_left_as_text, main_site)


def test_a_twin_heading_run_on_from_its_paragraph_is_caught(main_site):
    twin = next(path for path in main_site.files if path.endswith("/vram.html.md"))
    text = main_site.files[twin].decode("utf-8")
    main_site.edit(twin, re.sub(r"\n\n+(## )", r"\n\1", text, count=1).encode("utf-8"))
    assert _fails(site_invariants.every_twin_heading_stands_after_a_blank_line, main_site)
    assert not _fails(site_invariants.every_twin_heading_stands_after_a_blank_line,
                      Published(main_site.root, main_site.guide, {twin: text.encode("utf-8")}))
