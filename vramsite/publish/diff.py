"""`build.py diff REV`: what an edit changes in the published site, as Markdown.

The site's sources (data/, content/, templates/, locales/) are taken as they
were at git revision REV and as they are in the working tree, and both are
built with the code of the working tree. Every file the two builds publish is
compared, in every language:

* the table objects each page shows, matched by table id, row key and column
  key, each cell as the text the page's Markdown twin prints in its language:
  "13B · LoRA (27 GB): A40 $240 → RTX A6000 $290". A chart is drawn from a
  table's figures; its table's changes are its changes.
* the prose of each page's Markdown twin outside the tables, sentence by
  sentence: every sentence whose words changed, before → after.
* a page whose file changed while its tables and prose did not (a UI string,
  the menu): the lines that changed.
* every other file (downloads under data/, charts, sitemap.xml, llms.txt, the
  language chooser): what changed in it, record by record for the downloads.

Run on the repository's own site, the report also covers every site under
sites/ (each a folder with data/site.yaml), one section each. Such a site is
compared on its own sources: both builds lay it over the working tree's
templates/ and locales/, whose changes the first site's section shows.

The report is meant for a pull-request comment; "No figure changed." when
the two builds publish the same bytes.
"""

from __future__ import annotations

import csv
import difflib
import html
import io
import json
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import InputError
from ..layout import SOURCE_FOLDERS, SiteLayout, page_path
from ..render.scope import MD, Scope
from ..render.services import BuildListener
from .site import SiteBuild

NO_CHANGE = "No figure changed."
SITES_FOLDER = "sites"
"""Under the repository's top: the other sites a report on the repository's own site covers too."""
SHOWN_LINES = 10
"""At most this many changed lines or records per page or file; the rest are counted."""
LONG_LINE = 160
CONTEXT = 40
"""Characters of a long changed line shown either side of where it changed."""

MD_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\([^)\s]*\)")
LINE_MARK = re.compile(r"^\s*(?:[-*+]|\d+\.|#{1,6}|>)\s+")
"""A list item's bullet, a heading's hashes, a quote's >: not part of the sentence."""
LEAD_ENDS = (": ", "：")
"""What ends a cell's lead ("27 GB: ", "77 GB："), in English and in Chinese."""
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]\*\*))\s+(?=\S)|(?<=[。！？；])")
CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
WORD = re.compile(rf"\s+|[{CJK}]|[^\s{CJK}]+")
"""A sentence's words, spaces and, in Chinese (written without spaces), each character and punctuation mark."""
HTML_TAG = re.compile(r"<[^>]*>")
SHOWN_ATTRIBUTE = re.compile(r'\s(title|alt|aria-label)="([^"]*)"')
"""Attributes whose text a reader sees (a figure's derivation, an image's description)."""
SITEMAP_LOC = re.compile(r"<loc>([^<]*)</loc>")


class DiffError(Exception):
    """The comparison could not be made: not a git repository, an unknown revision, a base that does not build."""


# -- what a build shows ----------------------------------------------------------


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
            pages[path] = PageText(path, locale.tag, _title(twin), tables, _sentences(twin),
                                   shown.page_charts.get((page.id, locale.segment), {}))
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


# -- comparison ------------------------------------------------------------------


@dataclass
class Report:
    pages: list[tuple[PageText, list[str]]]
    """Per changed page, in each language: the report's lines about it."""
    files: list[str]
    """The lines about every other file that changed."""
    changed_files: int
    """How many files besides the pages changed."""

    def __bool__(self) -> bool:
        return bool(self.pages or self.files)


def compare(old: SiteText, new: SiteText) -> Report:
    page_files = {name for site in (old, new) for path in site.pages for name in (path, path + ".md")}
    others = [path for path in sorted(set(old.files) | set(new.files))
              if path not in page_files and old.files.get(path) != new.files.get(path)]
    return Report(_page_changes(old, new), _file_changes(old.files, new.files, others), len(others))


def _page_changes(old: SiteText, new: SiteText) -> list[tuple[PageText, list[str]]]:
    """Per page (in the new site's order, then removed pages): the report's lines about it."""
    report = []
    for key in [*new.pages, *(key for key in old.pages if key not in new.pages)]:
        before, after = old.pages.get(key), new.pages.get(key)
        if before is None:
            report.append((after, [f"- new page, with {len(after.tables)} table{_s(after.tables)}"]))
            continue
        if after is None:
            report.append((before, ["- page removed"]))
            continue
        lines = _text_lines(before, after) or _layout_lines(key, old.files, new.files)
        if lines:
            report.append((after, lines))
    return report


def _text_lines(before: PageText, after: PageText) -> list[str]:
    """What changed in a page's tables, charts, prose and title."""
    lines = []
    for table_id in [*after.tables, *(t for t in before.tables if t not in after.tables)]:
        lines += _table_lines(before.tables.get(table_id), after.tables.get(table_id))
    lines += _chart_lines(before.charts, after.charts)
    prose = _prose_lines(before.sentences, after.sentences)
    if prose:
        lines += ["", "Prose:", "", *prose]
    if after.title != before.title:
        lines.insert(0, f"- title: {before.title} → {after.title}")
    return lines


def _layout_lines(path: str, old: dict[str, bytes], new: dict[str, bytes]) -> list[str]:
    """A page whose tables and prose are the same but whose files are not (a UI string, the menu): its changed lines."""
    twin = path + ".md"
    if old.get(twin) != new.get(twin):
        lines = _changed_lines(_text(old.get(twin)).splitlines(), _text(new.get(twin)).splitlines())
        return ["", "Other lines of the Markdown twin:", "", *lines]
    if old.get(path) != new.get(path):
        lines = _changed_lines(_visible_lines(old.get(path)), _visible_lines(new.get(path)))
        return ["", "HTML:", "", *(lines or ["- the markup changed, not the text"])]
    return []


def _table_lines(old: TableText | None, new: TableText | None) -> list[str]:
    if old is None:
        return ["", f"**{new.caption}** (`{new.id}`): new table, {len(new.rows)} row{_s(new.rows)}"]
    if new is None:
        return ["", f"**{old.caption}** (`{old.id}`): table removed"]
    lines = []
    for key, label in new.columns.items():
        if key not in old.columns:
            lines.append(f"- column added: {label}")
        elif old.columns[key] != label:
            lines.append(f"- column heading: {old.columns[key]} → {label}")
    for key, label in old.columns.items():
        if key not in new.columns:
            lines.append(f"- column removed: {label}")
    for key, (label, header, cells) in new.rows.items():
        if key not in old.rows:
            shown = " · ".join(f"{new.columns[column]} {text}" for column, text in cells.items())
            lines.append(f"- row added: {header}: {shown}")
            continue
        old_label, old_header, old_cells = old.rows[key]
        if old_header != header:
            lines.append(f"- {label} (row heading): {old_header} → {header}")
        for column, text in cells.items():
            if column in old_cells and old_cells[column] != text:
                lines.append(_change(f"{label} · {new.columns[column]}", old_cells[column], text))
    for key, (label, header, _cells) in old.rows.items():
        if key not in new.rows:
            lines.append(f"- row removed: {header}")
    if not lines and new.caption == old.caption:
        return []
    caption = new.caption if new.caption == old.caption else f"{old.caption} → {new.caption}"
    return ["", f"**{caption}** (`{new.id}`)", "", *lines]


def _chart_lines(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """A chart is drawn from the same figures as its tables: the table changes above are its changes."""
    lines = []
    for name in [*new, *(name for name in old if name not in new)]:
        if name not in old:
            lines.append(f"- new chart `{name}`")
        elif name not in new:
            lines.append(f"- chart `{name}` removed")
        elif old[name] != new[name]:
            lines.append(f"- chart `{name}` redrawn: it plots figures that changed (see the tables)")
    return ["", "Charts:", "", *lines] if lines else []


def _change(label: str, before: str, after: str) -> str:
    """'- 13B · LoRA (27 GB): A40 $240 → RTX A6000 $290': a shared lead ('27 GB: ') moves to the label."""
    shared = len(_common_prefix(before, after))
    for separator in LEAD_ENDS:
        cut = before.rfind(separator, 0, shared + len(separator) - 1)
        if 0 < cut and before[:cut] == after[:cut]:
            end = cut + len(separator)
            return f"- {label} ({before[:cut]}): {before[end:]} → {after[end:]}"
    return f"- {label}: {before} → {after}"


def _common_prefix(first: str, second: str) -> str:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return first[:length]


def _paired_changes(old: list[str], new: list[str]):
    """Each line that differs, as (before, after): before None for an added line, after None for a removed one."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        before, after = old[i1:i2], new[j1:j2]
        for index in range(max(len(before), len(after))):
            yield (before[index] if index < len(before) else None, after[index] if index < len(after) else None)


def _prose_lines(old: list[str], new: list[str]) -> list[str]:
    lines = []
    for before, after in _paired_changes(old, new):
        if before is None:
            lines.append(f"- added: {after}")
        elif after is None:
            lines.append(f"- removed: {before}")
        else:
            was, now = _highlight(before, after)
            lines.append(f"- {was}  \n  → {now}")
    return lines


def _highlight(before: str, after: str) -> tuple[str, str]:
    """Both sentences with the words that differ in bold (in Chinese, the characters that differ)."""
    old, new = WORD.findall(before.replace("**", "")), WORD.findall(after.replace("**", ""))
    marked_old, marked_new = [], []
    for op, i1, i2, j1, j2 in _word_changes(old, new):
        if op == "equal":
            marked_old += old[i1:i2]
            marked_new += new[j1:j2]
            continue
        if i2 > i1:
            marked_old.append(_bold("".join(old[i1:i2])))
        if j2 > j1:
            marked_new.append(_bold("".join(new[j1:j2])))
    return "".join(marked_old), "".join(marked_new)


def _word_changes(old: list[str], new: list[str]) -> list[tuple]:
    """difflib's opcodes, two changes apart by only a space made one: **RTX A6000**, not **RTX** **A6000**."""
    merged: list[tuple] = []
    for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if (op[0] != "equal" and len(merged) > 1 and merged[-1][0] == "equal" and merged[-2][0] != "equal"
                and all(word.isspace() for word in old[merged[-1][1]:merged[-1][2]])):
            first = merged[-2]
            merged[-2:] = [("replace", first[1], op[2], first[3], op[4])]
        else:
            merged.append(op)
    return merged


def _bold(text: str) -> str:
    """**text**, with spaces and punctuation around it left outside: **$240/month**, not **$240/month,**; (**A40**)."""
    stripped = text.strip()
    if not stripped:
        return text
    lead, trail = text[:text.index(stripped)], text[text.index(stripped) + len(stripped):]
    core = stripped.rstrip(".,;:!?/)）。，；：、！？")
    inner = core.lstrip("(（")
    if not inner:
        return text
    return f"{lead}{core[:len(core) - len(inner)]}**{inner}**{stripped[len(core):]}{trail}"


# -- the files besides the pages -----------------------------------------------------


def _file_changes(old: dict[str, bytes], new: dict[str, bytes], changed: list[str]) -> list[str]:
    """One entry per changed file (a download's JSON and CSV together), in path order."""
    lines = []
    partners = {_csv_partner(path) for path in changed}
    for path in changed:
        if path in partners:
            continue  # reported with its JSON twin
        partner = _csv_partner(path)
        names = [path, partner] if partner in changed else [path]
        lines += _file_lines(names, old.get(path), new.get(path))
    return lines


def _csv_partner(path: str) -> str | None:
    return path[:-5] + ".csv" if path.startswith("data/") and path.endswith(".json") else None


def _file_lines(names: list[str], before: bytes | None, after: bytes | None) -> list[str]:
    shown = ", ".join(f"`{name}`" for name in names)
    path = names[0]
    if before is None:
        return [f"- {shown}: new file"]
    if after is None:
        return [f"- {shown}: removed"]
    if path.endswith(".svg"):
        return [f"- {shown}: redrawn"]
    details = _details(path, before, after)
    if details is None:
        return [f"- {shown}: changed"]
    return [f"- {shown}:", *details] if details else [f"- {shown}: changed, the same records and lines"]


def _details(path: str, before: bytes, after: bytes) -> list[str] | None:
    """What changed inside a file, as nested list items; None for a file that is not text."""
    try:
        old, new = before.decode("utf-8"), after.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if path.startswith("data/") and path.endswith((".json", ".csv")):
        read = _json_records if path.endswith(".json") else _csv_records
        try:
            return _record_lines(read(old), read(new))
        except (ValueError, csv.Error):
            pass  # not a table's download after all: compared as lines
    if path == "sitemap.xml":
        return _set_lines(SITEMAP_LOC.findall(old), SITEMAP_LOC.findall(new)) or _changed_lines(
            old.splitlines(), new.splitlines(), "  ")
    return _changed_lines(old.splitlines(), new.splitlines(), "  ")


def _json_records(text: str) -> dict[str, dict[str, str]]:
    """A download's rows by key, each cell's fields as text ("cost.value"); its caption, columns and notes as `(table)`."""
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise ValueError("not a table")
    records = {"(table)": {name: _scalar(value) for name, value in document.items() if name != "rows"}}
    for index, row in enumerate(document["rows"]):
        fields = {"header": _scalar(row.get("header"))}
        for column, cell in (row.get("cells") or {}).items():
            items = cell.items() if isinstance(cell, dict) else [("", cell)]
            fields.update({f"{column}.{name}" if name else column: _scalar(value) for name, value in items})
        records[str(row.get("key") or f"#{index + 1}")] = fields
    return records


def _csv_records(text: str) -> dict[str, dict[str, str]]:
    """A download's CSV lines by their first field (the row key)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    records = {}
    for index, row in enumerate(reader):
        key = row[0] if row and row[0] else f"#{index + 1}"
        records[key] = dict(zip(header[1:], row[1:]))
    records["(columns)"] = {"columns": ", ".join(header)}
    return records


def _scalar(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _record_lines(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    for key in [*new, *(key for key in old if key not in new)]:
        if key not in old:
            lines.append(f"  - record added: {_code(key)}")
        elif key not in new:
            lines.append(f"  - record removed: {_code(key)}")
        else:
            names = [*new[key], *(name for name in old[key] if name not in new[key])]
            changes = [f"{name} {_code(old[key].get(name, ''))} → {_code(new[key].get(name, ''))}"
                       for name in names if old[key].get(name) != new[key].get(name)]
            if changes:
                lines.append(f"  - {_code(key)}: " + "; ".join(changes))
    return _capped(lines, "records", "  ")


def _set_lines(old: list[str], new: list[str]) -> list[str]:
    added = [f"  - added: {_code(item)}" for item in new if item not in old]
    removed = [f"  - removed: {_code(item)}" for item in old if item not in new]
    return _capped(added + removed, "addresses", "  ")


def _changed_lines(old: list[str], new: list[str], indent: str = "") -> list[str]:
    """Lines of text that differ, before → after, each quoted as code."""
    lines = []
    for before, after in _paired_changes(old, new):
        if before is None:
            lines.append(f"{indent}- added: {_code(after)}")
        elif after is None:
            lines.append(f"{indent}- removed: {_code(before)}")
        else:
            was, now = _excerpts(before, after)
            lines.append(f"{indent}- {_code(was)} → {_code(now)}")
    return _capped(lines, "lines", indent)


def _excerpts(before: str, after: str) -> tuple[str, str]:
    """Two long lines cut down to where they differ, with some context either side."""
    if len(before) <= LONG_LINE and len(after) <= LONG_LINE:
        return before, after
    start = len(_common_prefix(before, after))
    end = min(len(_common_prefix(before[::-1], after[::-1])), len(before) - start, len(after) - start)
    first, tail = max(0, start - CONTEXT), max(0, end - CONTEXT)

    def cut(text: str) -> str:
        return ("…" if first else "") + text[first:len(text) - tail] + ("…" if tail else "")

    return cut(before), cut(after)


def _visible_lines(content: bytes | None) -> list[str]:
    """An HTML file's text, line by line: its tags dropped, the titles and alt texts they show kept."""
    lines = (" ".join(html.unescape(HTML_TAG.sub(_shown_attributes, line)).split())
             for line in _text(content).splitlines())
    return [line for line in lines if line]


def _shown_attributes(tag: re.Match) -> str:
    return " " + " ".join(value for _, value in SHOWN_ATTRIBUTE.findall(tag.group(0))) + " "


def _text(content: bytes | None) -> str:
    return (content or b"").decode("utf-8", "replace")


def _code(text: str) -> str:
    """Text as inline code, shortened to one readable line; a backtick inside gets a longer fence."""
    text = " ".join(text.split())
    if len(text) > LONG_LINE:
        text = text[:LONG_LINE - 1] + "…"
    if not text:
        return "(empty)"
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _capped(lines: list[str], what: str, indent: str = "") -> list[str]:
    if len(lines) <= SHOWN_LINES:
        return lines
    return lines[:SHOWN_LINES] + [f"{indent}- … and {len(lines) - SHOWN_LINES} more changed {what}"]


def _s(items) -> str:
    return "" if len(items) == 1 else "s"


# -- the report --------------------------------------------------------------------


def format_report(report: Report, rev: str, site: str | None = None) -> str:
    """The Markdown of one site's changes; ``site`` names a site other than the repository's own."""
    if not report:
        return NO_CHANGE + "\n"
    changes = sum(1 for _, lines in report.pages for line in lines if _is_change(line))
    files = report.changed_files
    languages = list(dict.fromkeys(page.language for page, _ in report.pages))
    what = "the site" if site is None else f"`{site}`"
    summary = [f"{changes} change{'s' if changes != 1 else ''} on {len(report.pages)} page{_s(report.pages)}"
               + (f" in {' and '.join(languages)}" if languages else "")] if report.pages else []
    if files:
        summary.append(f"{files} other file{'s' if files != 1 else ''} changed")
    out = [f"### What this change does to {what} (compared with `{rev}`)", "", "; ".join(summary) + ".", ""]
    for page, lines in report.pages:
        out += [f"#### {page.title} · {page.language} (`{page.path}`)", ""]
        out += (lines[1:] if lines and lines[0] == "" else lines) + [""]
    if report.files:
        out += ["#### Other published files (downloads, charts, sitemap, llms.txt)", "", *report.files, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _is_change(line: str) -> bool:
    return line.startswith("- ") and not line.startswith("- … and ")


# -- the sources at a revision ------------------------------------------------------


def _git(args: list[str], cwd: Path, binary: bool = False):
    try:
        run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise DiffError("git is not installed") from None
    if run.returncode != 0:
        raise DiffError(run.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return run.stdout if binary else run.stdout.decode("utf-8").strip()


def repository_top(site: Path) -> Path:
    return Path(_git(["rev-parse", "--show-toplevel"], Path(site))).resolve()


def _revision(site: Path, rev: str) -> tuple[Path, PurePosixPath, str]:
    """The repository's top, the site's folder inside it, and the commit ``rev`` names."""
    site = Path(site).resolve()
    top = repository_top(site)
    prefix = PurePosixPath(site.relative_to(top).as_posix()) if site != top else PurePosixPath("")
    try:
        commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], site)
    except DiffError:
        raise DiffError(f"no commit {rev!r} in the repository at {top}") from None
    return top, prefix, commit


def _exists(site: Path, commit: str, path: PurePosixPath) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=site, capture_output=True).returncode == 0


def file_at(site: Path, rev: str, name: str) -> bytes | None:
    """The bytes of the site's file ``name`` (data/prices.yaml) at ``rev``; None where it did not exist."""
    site = Path(site).resolve()
    _top, prefix, commit = _revision(site, rev)
    path = prefix / name
    return _git(["cat-file", "blob", f"{commit}:{path}"], site, binary=True) if _exists(site, commit, path) else None


def sources_at(site: Path, rev: str, into: Path) -> Path | None:
    """Extract the site's source folders as they were at ``rev`` under ``into``; return the site's folder there.

    None when the site had none of its sources at ``rev`` (it is new since).
    """
    site = Path(site).resolve()
    top, prefix, commit = _revision(site, rev)
    present = [str(prefix / name) for name in SOURCE_FOLDERS if _exists(site, commit, prefix / name)]
    if not present:
        return None
    into.mkdir(parents=True, exist_ok=True)
    archive = _git(["archive", "--format=tar", commit, "--", *present], top, binary=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        try:
            tar.extractall(into, filter="data")
        except TypeError:  # Python before 3.11.4: no filters; git archive holds plain files and folders
            tar.extractall(into)
        except tarfile.FilterError as error:  # a link out of the sources: refused, never followed
            raise DiffError(f"at {rev}, {error.tarinfo.name} is a link to {error.tarinfo.linkname!r}, outside the "
                            "site's folders; diff does not follow such links") from None
    root = into / prefix
    root.mkdir(parents=True, exist_ok=True)
    return root


def other_sites(top: Path) -> list[Path]:
    """The sites under the repository's sites/ folder: each folder there with a data/site.yaml."""
    folder = Path(top) / SITES_FOLDER
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if SiteLayout(path).site_file.is_file())


def site_report(site: Path, rev: str, name: str | None = None) -> str:
    """One site's section of the report, or "" when it publishes the same bytes as at ``rev``."""
    try:
        new = site_text(Path(site))  # problems of the working tree: InputError, reported as by build
    except InputError as error:
        if name is None:
            raise
        raise InputError([_in_folder(problem, name) for problem in error.problems]) from None
    with tempfile.TemporaryDirectory(prefix="vramsite-diff-") as folder:
        old_root = sources_at(Path(site), rev, Path(folder))
        try:
            old = site_text(old_root) if old_root is not None else SiteText.empty()
        except InputError as error:
            first = _in_folder(error.problems[0], name) if name else error.problems[0]
            raise DiffError(f"the site{f' {name}' if name else ''} at {rev} does not build with this code "
                            f"({len(error.problems)} problem{_s(error.problems)}; the first: {first})") from None
    report = compare(old, new)
    return format_report(report, rev, name) if report else ""


def _in_folder(problem, name: str):
    """A problem of a site under sites/, its file named from the repository's top."""
    return type(problem)(f"{name}/{problem.file}", problem.line, problem.field, problem.message)


def diff_report(site: Path, rev: str) -> str:
    """The Markdown report of ``build.py diff REV``: the site, and with the repository's own site every site under sites/."""
    site = Path(site)
    sections = [site_report(site, rev)]
    if repository_top(site) == site.resolve():
        sections += [site_report(other, rev, other.relative_to(site).as_posix()) for other in other_sites(site)]
    sections = [section for section in sections if section]
    return "\n".join(sections) if sections else NO_CHANGE + "\n"
