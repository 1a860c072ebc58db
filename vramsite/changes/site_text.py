"""What one build publishes, as a report reads it: every page's tables, prose and charts in every language,
and every file's bytes.

A table is read from the table objects the page showed, each cell as the text the page's Markdown twin
prints in its language; the prose from the twin outside the tables, sentence by sentence.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..layout import page_path
from ..publish.site import SiteBuild
from ..render.scope import MD, Scope
from ..render.services import BuildListener

MD_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\([^)\s]*\)")
LINE_MARK = re.compile(r"^\s*(?:[-*+]|\d+\.|#{1,6}|>)\s+")
"""A list item's bullet, a heading's hashes, a quote's >: not part of the sentence."""
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]\*\*))\s+(?=\S)|(?<=[。！？；])")
HTML_TAG = re.compile(r"<[^>]*>")
SHOWN_ATTRIBUTE = re.compile(r'\s(title|alt|aria-label)="([^"]*)"')
"""Attributes whose text a reader sees (a figure's derivation, an image's description)."""


@dataclass
class TableText:
    id: str
    caption: str
    columns: dict[str, str]
    """Column key -> heading."""
    rows: dict[str, tuple[str, str, dict[str, str]]]
    """Row key -> (label, the whole header cell, {column key: cell text})."""


@dataclass
class PageText:
    path: str
    """The page in one language: en/vram.html."""
    language: str
    """That language's tag: en, zh-CN."""
    title: str
    tables: dict[str, TableText] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)
    charts: dict[str, str] = field(default_factory=dict)
    """Chart name -> its SVG text in the page's language."""


@dataclass
class SiteText:
    """What one build publishes: every page in every language as text, and every file's bytes."""

    pages: dict[str, PageText]
    """Page path (en/vram.html) -> its text, each page's languages one after another."""
    files: dict[str, bytes]

    @staticmethod
    def empty() -> SiteText:
        return SiteText({}, {})


class ShownFigures(BuildListener):
    """Listens to a build: which tables and charts each page shows, in each language."""

    def __init__(self):
        self.page_tables: dict[str, dict[str, object]] = {}
        """Page id -> {table id: table}, over all its languages."""
        self.page_charts: dict[tuple[str, str], dict[str, str]] = {}
        """(page id, locale segment) -> {chart name: its SVG text, each drawing once}."""
        self._page: str | None = None
        self._locale = None

    def page_started(self, page, locale) -> None:
        self._page, self._locale = page.id, locale

    def page_finished(self, page, locale) -> None:
        self._page = self._locale = None

    def table_shown(self, table) -> None:
        if self._page is not None:
            self.page_tables.setdefault(self._page, {}).setdefault(table.id, table)

    def chart_shown(self, name: str, locale, svg: str) -> None:
        if self._page is not None and locale == self._locale:
            charts = self.page_charts.setdefault((self._page, locale.segment), {})
            if svg not in charts.get(name, ""):
                charts[name] = charts.get(name, "") + svg


def site_text(root: Path) -> SiteText:
    """Every page's tables and prose in every language, as its Markdown twin shows them, and every file."""
    build = SiteBuild(Path(root))
    shown = ShownFigures()
    build.events.add(shown)
    files = build.render()  # in this process: the listener hears every language
    pages: dict[str, PageText] = {}
    for page in build.pages:
        for locale in build.data.site.locales:
            path = page_path(locale.segment, page.id)
            twin = files[path + ".md"].decode("utf-8")
            scope = build.renderer.scope(page, locale, MD)
            tables = {table_id: _table_text(table, scope, scope.cell)
                      for table_id, table in shown.page_tables.get(page.id, {}).items()}
            pages[path] = PageText(path=path, language=locale.tag, title=_title(twin), tables=tables,
                                   sentences=_sentences(twin),
                                   charts=shown.page_charts.get((page.id, locale.segment), {}))
    return SiteText(pages, dict(files))


def _table_text(table, scope: Scope, cell) -> TableText:
    text = lambda piece: plain(str(scope.inline(piece)))  # noqa: E731
    columns = _keyed([(column.key, text(column.label)) for column in table.columns])
    keys = list(columns)
    rows = {}
    for key, row in _keyed([(row.key, row) for row in table.rows]).items():
        cells = {keys[index]: plain(str(cell(item))) for index, item in enumerate(row.cells) if index < len(keys)}
        rows[key] = (text(row.header.content), plain(str(cell(row.header))), cells)
    labels = [label for label, _, _ in rows.values()]
    for key, (label, header, cells) in rows.items():
        if labels.count(label) > 1 and cells:  # 13B twice (two methods): name the row by its first cell too
            rows[key] = (f"{label}, {next(iter(cells.values()))}", header, cells)
    return TableText(table.id, text(table.caption), columns, rows)


def _keyed(items: list[tuple[str, object]]) -> dict[str, object]:
    """Items by key; an empty or repeated key gets its position instead."""
    result: dict[str, object] = {}
    for index, (key, value) in enumerate(items):
        result[key if key and key not in result else f"#{index + 1}"] = value
    return result


def plain(markdown: str) -> str:
    """Markdown as a report quotes it: links reduced to their text, one line."""
    return " ".join(MD_LINK.sub(r"\1", markdown).split())


def _title(twin: str) -> str:
    first = twin.split("\n", 1)[0]
    return plain(first[2:]) if first.startswith("# ") else ""


def _sentences(twin: str) -> list[str]:
    """The twin's prose outside tables (and their bold captions), one sentence or list item each."""
    body = twin.split("\n", 1)[1] if twin.startswith("# ") else twin  # the title is compared apart
    blocks = [block.strip("\n") for block in re.split(r"\n\s*\n", body) if block.strip()]
    result = []
    for index, block in enumerate(blocks):
        lines = block.split("\n")
        if all(line.lstrip().startswith("|") for line in lines):
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ""
        if re.fullmatch(r"\*\*[^\n]*\*\*", block) and following.lstrip().startswith("|"):
            continue  # a table's caption
        for line in lines:
            result += [plain(part) for part in SENTENCE_END.split(LINE_MARK.sub("", line)) if part.strip()]
    return result


def visible_lines(content: bytes | None) -> list[str]:
    """An HTML file's text, line by line: its tags dropped, the titles and alt texts they show kept."""
    lines = (" ".join(html.unescape(HTML_TAG.sub(_shown_attributes, line)).split())
             for line in decoded(content).splitlines())
    return [line for line in lines if line]


def _shown_attributes(tag: re.Match) -> str:
    return " " + " ".join(value for _, value in SHOWN_ATTRIBUTE.findall(tag.group(0))) + " "


def decoded(content: bytes | None) -> str:
    return (content or b"").decode("utf-8", "replace")
