"""What holds for any site built from valid data, whatever the figures are.

Each check takes a ``Published`` site (its calculation and every file it
writes) and fails with the pages or cells that break it. tests/test_live_invariants.py
runs them on the live sites; tests/test_editing_recipes.py on a site after each
documented edit. None of them knows a particular id, price or figure.
"""

from __future__ import annotations

import json
import posixpath
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import yaml

from site_support import XHTML, markdown_table_rows, parse_html, table_rows, text_for_machines, text_of
from vramsite.calc import Guide
from vramsite.calc.cost import card_memory, order_price
from vramsite.calc.rules import allowed_counts, meets_rules
from vramsite.load import load_site

NUMBER = re.compile(r"\d+(?:[,.]\d+)*")
SITEMAP = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@dataclass
class Published:
    """A site's sources folder, its calculation and the files its build wrote."""

    root: Path
    guide: Guide
    files: dict[str, bytes]

    @classmethod
    def parsed(cls, root: Path, guide: Guide, files, trees) -> "Published":
        """Of a render whose pages are parsed already (``trees``, as ``trees`` would parse them)."""
        published = cls(root, guide, files)
        published.__dict__["trees"] = trees  # the cached_property's own slot
        return published

    @classmethod
    def written(cls, root: Path, out: Path) -> "Published":
        """As ``build.py build --site root --out out`` wrote it."""
        files = {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
                 if path.is_file() and not path.name.startswith(".")}
        return cls(root, Guide(load_site(root)), files)

    def edit(self, path: str, content: bytes) -> None:
        """``path`` holds ``content`` now; a page among the parsed ones is parsed again, alone."""
        self.files[path] = content
        if path.endswith(".html") and "trees" in self.__dict__:
            self.__dict__["trees"] = {**self.trees, path: parse_html(content)}

    def remove(self, path: str) -> None:
        del self.files[path]
        if "trees" in self.__dict__:
            self.__dict__["trees"] = {page: tree for page, tree in self.trees.items() if page != path}

    @property
    def segments(self) -> list[str]:
        return [locale.segment for locale in self.guide.data.site.locales]

    @cached_property
    def trees(self) -> dict:
        return {path: parse_html(content) for path, content in self.files.items() if path.endswith(".html")}

    def language_pages(self, segment: str) -> set[str]:
        """Page paths under one language folder, without the folder."""
        return {path[len(segment) + 1:] for path in self.files
                if path.startswith(segment + "/") and path.endswith(".html")}


def _declared_pages(site: Published) -> list[dict]:
    return yaml.safe_load((site.root / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]


def _card_page_patterns(site: Published) -> list[str]:
    return [entry["id"] for entry in _declared_pages(site) if entry.get("each") == "card"]


# -- pages ---------------------------------------------------------------------------------


def every_card_has_a_page_in_every_language(site: Published) -> None:
    patterns = _card_page_patterns(site)
    assert patterns, "content/pages.yaml makes no page per card"
    missing = [f"{segment}/{pattern.replace('{card}', gpu.id)}{suffix}"
               for pattern in patterns for gpu in site.guide.data.gpus for segment in site.segments
               for suffix in (".html", ".html.md")
               if f"{segment}/{pattern.replace('{card}', gpu.id)}{suffix}" not in site.files]
    assert not missing, missing


def no_page_for_a_card_the_data_lacks(site: Published) -> None:
    ids = {gpu.id for gpu in site.guide.data.gpus}
    fixed = {entry["id"] + ".html" for entry in _declared_pages(site) if entry.get("each") != "card"}
    for pattern in _card_page_patterns(site):
        prefix, _, suffix = pattern.partition("{card}")
        for segment in site.segments:
            made = {page[len(prefix):-len(suffix + ".html")] for page in site.language_pages(segment)
                    if page.startswith(prefix) and page.endswith(suffix + ".html") and page not in fixed}
            made = {card for card in made if "/" not in card}
            assert made <= ids, (segment, sorted(made - ids))


def every_language_publishes_the_same_pages(site: Published) -> None:
    first, *others = site.segments
    for segment in others:
        assert site.language_pages(segment) == site.language_pages(first), (first, segment)


def every_page_has_its_twin(site: Published) -> None:
    missing = [path for path in site.files if path.endswith(".html") and path + ".md" not in site.files]
    assert not missing, missing


def sitemap_lists_every_page(site: Published) -> None:
    base_url = site.guide.data.site.base_url
    root = ET.fromstring(site.files["sitemap.xml"])
    listed = {loc.text[len(base_url) + 1:] for loc in root.iterfind("s:url/s:loc", SITEMAP)}
    pages = {f"{segment}/{page}" for segment in site.segments for page in site.language_pages(segment)}
    assert pages - listed == set(), sorted(pages - listed)
    assert {path for path in listed if path} <= set(site.files), sorted({p for p in listed if p} - set(site.files))


# -- the lookup -----------------------------------------------------------------------------


def _rank(site: Published, gpu, count: int, price) -> tuple:
    """The order sizing.yaml's selection rule puts configurations in (lower is better)."""
    if site.guide.data.lookup.selection == "smallest_fit":
        return (count, gpu.memory_gb, price)
    return (count > 1, price)


def _fitting_options(site: Published, need, method) -> list[tuple]:
    market = site.guide.market
    options = []
    for gpu in market.gpus:
        for count in allowed_counts(gpu, market.rules):
            price = order_price(gpu, count, market.pricing, market.discounts)
            if price is None or not meets_rules(gpu, count, method, market.rules):
                continue
            if need.value <= count * card_memory(gpu).value:
                options.append((gpu, count, price.value))
    return options


def every_lookup_choice_fits_and_ranks_first(site: Published) -> None:
    """Each cell's card holds the need, and no other configuration the rules allow ranks before it."""
    cells = site.guide.grid_cells()
    assert cells
    for model, method, found in cells:
        options = _fitting_options(site, found.need, method)
        where = (model.id, method.id)
        if found.choice is None:
            assert not options, (where, "nothing chosen, yet a configuration holds the need")
            continue
        choice = found.choice
        assert found.need.value <= choice.memory.value, (where, "the chosen configuration does not hold the need")
        assert meets_rules(choice.gpu, choice.count, method, site.guide.market.rules), where
        best = min(_rank(site, gpu, count, price) for gpu, count, price in options)
        assert _rank(site, choice.gpu, choice.count, choice.price.value) == best, (where, choice.gpu.id)


# -- tables ---------------------------------------------------------------------------------


def _figures(tree) -> dict[str, str]:
    """Table id -> caption text, for every table figure on a page."""
    return {figure.get("id")[len("table-"):]: text_of(figure.find(f"{XHTML}figcaption"))
            for figure in tree.iter(f"{XHTML}figure") if (figure.get("id") or "").startswith("table-")}


def _numbers(rows: dict[str, list[str]]) -> list[list[str]]:
    return [NUMBER.findall(" ".join([header, *cells])) for header, cells in rows.items()]


def _unlinked(markdown: str) -> str:
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)


def html_and_twin_show_the_same_figures(site: Published) -> None:
    """Every table of every page: the same rows with the same numbers in the HTML and its Markdown twin."""
    checked = 0
    for path, tree in site.trees.items():
        twin = _unlinked(site.files[path + ".md"].decode("utf-8"))
        for table_id, caption in _figures(tree).items():
            html = table_rows(tree, table_id)
            markdown = markdown_table_rows(twin, caption)
            assert _numbers(html) == _numbers(markdown), (path, table_id)
            checked += 1
    assert checked


def every_language_shows_the_same_figures(site: Published) -> None:
    """Each table, row by row, holds the same numbers in every language (in each language's word order)."""
    first, *others = site.segments
    for page in site.language_pages(first):
        tree = site.trees[f"{first}/{page}"]
        for table_id in _figures(tree):  # a date each language words its own way counts as the date it is
            expected = [sorted(row) for row in _numbers(table_rows(tree, table_id, text_for_machines))]
            for segment in others:
                shown = [sorted(row) for row in _numbers(table_rows(site.trees[f"{segment}/{page}"], table_id,
                                                                    text_for_machines))]
                assert shown == expected, (page, table_id, segment)


def _shown_tables(site: Published) -> dict[str, int]:
    """Table id -> the number of rows every page showing it gives it (they must agree)."""
    counts: dict[str, int] = {}
    for path, tree in site.trees.items():
        for table_id in _figures(tree):
            rows = sum(1 for figure in tree.iter(f"{XHTML}figure") if figure.get("id") == f"table-{table_id}"
                       for row in figure.iter(f"{XHTML}tr") if row.find(f"{XHTML}td") is not None)
            assert counts.setdefault(table_id, rows) == rows, (path, table_id)
    return counts


def _download_links(site: Published) -> dict[tuple[str, str], list[str]]:
    """(language, table id) -> the site paths the table's download line links, as a reader follows them."""
    links: dict[tuple[str, str], list[str]] = {}
    for path, tree in site.trees.items():
        segment = path.split("/", 1)[0]
        for figure in tree.iter(f"{XHTML}figure"):
            table_id = (figure.get("id") or "").removeprefix("table-")
            line = next((p for p in figure.iter(f"{XHTML}p") if "table-download" in (p.get("class") or "")), None)
            if table_id == figure.get("id") or line is None:
                continue
            found = [posixpath.normpath(posixpath.join(posixpath.dirname(path), a.get("href")))
                     for a in line.iter(f"{XHTML}a")]
            assert links.setdefault((segment, table_id), found) == found, (path, table_id)
    return links


def download_record(files: dict[str, bytes], path: str, table_id: str) -> dict:
    """The table's record in the JSON at ``path``: the file itself, or its entry in an item's file of tables."""
    document = json.loads(files[path])
    if "tables" not in document:
        assert document["id"] == table_id, (path, table_id)
        return document
    found = [table for table in document["tables"] if table["id"] == table_id]
    assert len(found) == 1, (path, table_id)
    return found[0]


def every_table_has_a_row_per_entry_of_the_data(site: Published) -> None:
    """Model tables a row per model, card tables a row per card; each download the rows the page shows."""
    data = site.guide.data
    models, gpus = [model.id for model in data.models], {gpu.id for gpu in data.gpus}
    per_model = ("inference", "finetune", "lookup", "context", "fits-", "context-", "ceilings-")
    links = _download_links(site)
    for table_id, count in _shown_tables(site).items():
        record = download_record(site.files, links[("en", table_id)][0], table_id)
        keys = [row["key"] for row in record["rows"]]
        assert len(keys) == count, (table_id, "the download and the page differ in rows")
        if table_id in per_model[:4] or table_id.startswith(per_model[4:]):
            assert keys == models, table_id
        elif table_id == "catalogue":
            assert sorted(keys) == sorted(gpus), table_id
        elif table_id == "cost":
            priced = {gpu.id for gpu in data.gpus if data.pricing.usd.get(gpu.id) is not None}
            assert priced <= set(keys) <= gpus, table_id
        elif table_id.startswith("wins-"):
            won = site.guide.cells_won_by(table_id[len("wins-"):])
            assert keys == [f"{model.id}-{method.id}" for model, method, _ in won], table_id


def every_table_shown_has_its_downloads(site: Published) -> None:
    """Each table's download line, in each language, links files that are there: its own JSON and CSV, or
    the one JSON of the item it is about, which holds it in that language."""
    links = _download_links(site)
    tags = {locale.segment: locale.tag for locale in site.guide.data.site.locales}
    for table_id in _shown_tables(site):
        for segment, tag in tags.items():
            paths = links[(segment, table_id)]
            assert paths and all(path in site.files for path in paths), (segment, table_id, paths)
            if len(paths) == 1:
                assert paths[0].startswith(f"data/{segment}/") and paths[0].endswith(".json"), paths
                assert download_record(site.files, paths[0], table_id)["language"] == tag, (segment, table_id)
            else:
                assert paths == [f"data/{segment}/{table_id}.json", f"data/{segment}/{table_id}.csv"], paths


MARKDOWN_LEFT = re.compile(r"^#{1,6} |\{#[\w-]+\}|^\|[-:| ]+\|$")
"""Markdown that reached a page as text: a heading's hashes, a heading id, a table's rule."""


def _text_lines(tree):
    """Each line of text a reader sees on a page (scripts and styles left out), stripped."""
    for element in tree.iter():
        pieces = [] if element.tag in (f"{XHTML}script", f"{XHTML}style") else [element.text]
        pieces.append(element.tail)  # the text after an element belongs to its parent
        for piece in pieces:
            yield from (line.strip() for line in (piece or "").splitlines())


def no_markdown_is_left_as_text(site: Published) -> None:
    """Every page reads as rendered text: a block of raw HTML that a template ends without a blank line
    swallows the Markdown after it."""
    left = [f"{path}: {line[:80]}" for path, tree in site.trees.items() for line in _text_lines(tree)
            if MARKDOWN_LEFT.search(line)]
    assert not left, left[:10]


TWIN_LINK = re.compile(r"\]\(([^)\s]*)#([\w-]+)\)")


def every_twin_anchor_is_a_heading_of_its_target(site: Published) -> None:
    """A twin's link to a place in a page (``vram.html.md#measured``, ``#faq``) lands on a heading that holds
    that ``{#id}`` in the twin it names."""
    missing = []
    for path, content in site.files.items():
        if not path.endswith(".html.md"):
            continue
        for target, anchor in TWIN_LINK.findall(content.decode("utf-8")):
            named = posixpath.normpath(posixpath.join(posixpath.dirname(path), target)) if target else path
            if named in site.files and f"{{#{anchor}}}" not in site.files[named].decode("utf-8"):
                missing.append(f"{path}: {target}#{anchor}")
    assert not missing, missing[:10]


HEADING = re.compile(r"#{1,6} ")
FENCE = "```"


def every_twin_heading_stands_after_a_blank_line(site: Published) -> None:
    """In a twin, each heading begins a block of its own: a template tag that ends a sentence swallows the line
    break after it (``trim_blocks``), and the heading then runs on from the paragraph in the source a reader of
    the Markdown sees."""
    joined = []
    for path, content in site.files.items():
        if not path.endswith(".md"):
            continue
        in_code, before = False, ""
        for line in content.decode("utf-8").splitlines():
            in_code ^= line.startswith(FENCE)
            if not in_code and HEADING.match(line) and before.strip():
                joined.append(f"{path}: {before[-40:]!r} then {line[:40]!r}")
            before = line
    assert not joined, joined[:10]


OPERATORS = ("×", "+", "−", "÷", "⌈", "⌊", "^", "the smaller of", "the larger of", "较小者", "较大者")


def no_derivation_restates_its_figure(site: Published) -> None:
    """A figure's derivation says how it was made, never only what it is: "latent per token 70,272 bytes =
    70,272 bytes" (a sum whose other terms were zero)."""
    restated = []
    for path, tree in site.trees.items():
        for element in tree.iter():
            left, _, right = (element.get("title") or "").rpartition(" = ")
            if right and left.endswith(right) and not any(operator in left for operator in OPERATORS):
                restated.append(f"{path}: {element.get('title')}")
    assert not restated, restated[:10]


CHECKS = [
    every_card_has_a_page_in_every_language,
    no_page_for_a_card_the_data_lacks,
    every_language_publishes_the_same_pages,
    every_page_has_its_twin,
    sitemap_lists_every_page,
    every_lookup_choice_fits_and_ranks_first,
    html_and_twin_show_the_same_figures,
    every_language_shows_the_same_figures,
    every_table_has_a_row_per_entry_of_the_data,
    every_table_shown_has_its_downloads,
    no_markdown_is_left_as_text,
    no_derivation_restates_its_figure,
    every_twin_anchor_is_a_heading_of_its_target,
    every_twin_heading_stands_after_a_blank_line,
]


def check_all(site: Published) -> None:
    """Every invariant; the failures of all of them at once."""
    failures = []
    for check in CHECKS:
        try:
            check(site)
        except AssertionError as error:
            failures.append(f"{check.__name__}: {error}")
    assert not failures, "\n".join(failures)
