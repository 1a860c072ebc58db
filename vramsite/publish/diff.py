"""`build.py diff REV`: what an edit changes on the published pages, as Markdown.

The site's sources (data/, content/, templates/, locales/) are taken as they
were at git revision REV and as they are in the working tree, and both are
built with the code of the working tree. Two things are then compared:

* the table objects each page shows, matched by table id, row key and column
  key, each cell as the text the Markdown twin prints in English (or, where a
  site has no English, its first language): "13B · LoRA (27 GB): A40 $240 →
  RTX A6000 $290". A chart is drawn from a table's figures; its table's
  changes are its changes.
* the prose of each page's Markdown twin outside the tables, sentence by
  sentence: every sentence whose words changed, before → after.

The report is meant for a pull-request comment; "No figure changed." when
the two builds show the same text.
"""

from __future__ import annotations

import difflib
import io
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import InputError
from ..render.scope import MD, Scope
from .site import SiteBuild

SOURCES = ("data", "content", "templates", "locales")
NO_CHANGE = "No figure changed."

MD_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\([^)\s]*\)")
LINE_MARK = re.compile(r"^\s*(?:[-*+]|\d+\.|#{1,6}|>)\s+")
"""A list item's bullet, a heading's hashes, a quote's >: not part of the sentence."""
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]\*\*))\s+(?=\S)|(?<=[。！？；])")


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
    """The page in the reported language: en/vram.html."""
    title: str
    tables: dict[str, TableText] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)
    charts: dict[str, str] = field(default_factory=dict)
    """Chart name -> its SVG text in the reported language."""


class _RecordingBuild(SiteBuild):
    """A SiteBuild that notes which tables and charts each page shows."""

    def __init__(self, root: Path):
        super().__init__(root)
        self.locale = reported_locale(self.data.site.locales)
        self.page_tables: dict[str, dict[str, object]] = {}
        self.page_charts: dict[str, dict[str, str]] = {}
        self._page: str | None = None
        self._page_locale = None

    def render_page(self, page, locale):
        self._page, self._page_locale = page.id, locale
        try:
            return super().render_page(page, locale)
        finally:
            self._page = self._page_locale = None

    def chart(self, name: str, locale, *args, **kwargs):
        svg = super().chart(name, locale, *args, **kwargs)
        if self._page is not None and locale == self.locale == self._page_locale:
            charts = self.page_charts.setdefault(self._page, {})
            if svg not in charts.get(name, ""):
                charts[name] = charts.get(name, "") + svg
        return svg

    def table(self, name: str, **options):
        table = super().table(name, **options)
        if table is not None and self._page is not None:
            self.page_tables.setdefault(self._page, {}).setdefault(table.id, table)
        return table


def reported_locale(locales):
    """English where the site has it, else its first language."""
    for locale in locales:
        if locale.tag.lower() == "en" or locale.tag.lower().startswith("en-"):
            return locale
    return locales[0]


def site_text(root: Path) -> dict[str, PageText]:
    """Every page's tables and prose, in one language, as the Markdown twin shows them."""
    build = _RecordingBuild(Path(root))
    files = build.render()
    locale = build.locale
    pages: dict[str, PageText] = {}
    for page in build.pages:
        path = f"{locale.segment}/{page.id}.html"
        twin = files[path + ".md"].decode("utf-8")
        scope = Scope(build, locale, MD, path, page.params, build.guide.gpu(page.card) if page.card else None)
        tables = {table_id: _table_text(table, scope, scope.cell)
                  for table_id, table in build.page_tables.get(page.id, {}).items()}
        pages[page.id] = PageText(path, _title(twin), tables, _sentences(twin), build.page_charts.get(page.id, {}))
    return pages


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


def compare(old: dict[str, PageText], new: dict[str, PageText]) -> list[tuple[PageText, list[str]]]:
    """Per page (in the new site's order, then removed pages): the report's lines about it."""
    report = []
    for key in [*new, *(key for key in old if key not in new)]:
        before, after = old.get(key), new.get(key)
        if before is None:
            report.append((after, [f"- new page, with {len(after.tables)} table{_s(after.tables)}"]))
            continue
        if after is None:
            report.append((before, ["- page removed"]))
            continue
        lines = []
        for table_id in [*after.tables, *(t for t in before.tables if t not in after.tables)]:
            lines += _table_lines(before.tables.get(table_id), after.tables.get(table_id))
        lines += _chart_lines(before.charts, after.charts)
        prose = _prose_lines(before.sentences, after.sentences)
        if prose:
            lines += ["", "Prose:", "", *prose]
        if after.title != before.title:
            lines.insert(0, f"- title: {before.title} → {after.title}")
        if lines:
            report.append((after, lines))
    return report


def _table_lines(old: TableText | None, new: TableText | None) -> list[str]:
    if old is None:
        return ["", f"**{new.caption}** (`{new.id}`): new table, {len(new.rows)} row{_s(new.rows)}"]
    if new is None:
        return ["", f"**{old.caption}** (`{old.id}`): table removed"]
    lines = []
    for key, label in new.columns.items():
        if key not in old.columns:
            lines.append(f"- column added: {label}")
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
    cut = before.rfind(": ", 0, len(_common_prefix(before, after)) + 1)
    if 0 < cut and before[:cut] == after[:cut]:
        label, before, after = f"{label} ({before[:cut]})", before[cut + 2:], after[cut + 2:]
    return f"- {label}: {before} → {after}"


def _common_prefix(first: str, second: str) -> str:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return first[:length]


def _prose_lines(old: list[str], new: list[str]) -> list[str]:
    lines = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        before, after = old[i1:i2], new[j1:j2]
        for index in range(max(len(before), len(after))):
            if index < len(before) and index < len(after):
                was, now = _highlight(before[index], after[index])
                lines.append(f"- {was}  \n  → {now}")
            elif index < len(before):
                lines.append(f"- removed: {before[index]}")
            else:
                lines.append(f"- added: {after[index]}")
    return lines


def _highlight(before: str, after: str) -> tuple[str, str]:
    """Both sentences with the words that differ in bold."""
    old, new = before.replace("**", "").split(" "), after.replace("**", "").split(" ")
    marked_old, marked_new = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            marked_old += old[i1:i2]
            marked_new += new[j1:j2]
            continue
        if i2 > i1:
            marked_old.append(_bold(" ".join(old[i1:i2])))
        if j2 > j1:
            marked_new.append(_bold(" ".join(new[j1:j2])))
    return " ".join(marked_old), " ".join(marked_new)


def _bold(text: str) -> str:
    """**text**, with punctuation around it left outside: **$240/month**, not **$240/month,**; (**A40**)."""
    core = text.rstrip(".,;:!?)）。，")
    inner = core.lstrip("(（")
    return f"{core[:len(core) - len(inner)]}**{inner}**{text[len(core):]}" if inner else text


def _s(items) -> str:
    return "" if len(items) == 1 else "s"


def format_report(report: list[tuple[PageText, list[str]]], rev: str) -> str:
    if not report:
        return NO_CHANGE + "\n"
    changes = sum(1 for _, lines in report for line in lines if line.startswith("- "))
    out = [f"### What this change does to the site (compared with `{rev}`)", "",
           f"{changes} change{'s' if changes != 1 else ''} on {len(report)} page{_s(report)}; "
           "text of one language, every language shows the same figures.", ""]
    for page, lines in report:
        out += [f"#### {page.title} (`{page.path}`)", ""]
        body = lines[1:] if lines and lines[0] == "" else lines
        out += body + [""]
    return "\n".join(out).rstrip("\n") + "\n"


# -- the sources at a revision ------------------------------------------------------


def _git(args: list[str], cwd: Path, binary: bool = False):
    try:
        run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise DiffError("git is not installed") from None
    if run.returncode != 0:
        raise DiffError(run.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return run.stdout if binary else run.stdout.decode("utf-8").strip()


def sources_at(site: Path, rev: str, into: Path) -> Path:
    """Extract the site's source folders as they were at ``rev`` under ``into``; return the site's folder there."""
    site = Path(site).resolve()
    top = Path(_git(["rev-parse", "--show-toplevel"], site))
    prefix = PurePosixPath(site.relative_to(top.resolve()).as_posix()) if site != top.resolve() else PurePosixPath("")
    commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], site)
    present = [str(prefix / name) for name in SOURCES
               if subprocess.run(["git", "cat-file", "-e", f"{commit}:{prefix / name}"],
                                 cwd=site, capture_output=True).returncode == 0]
    into.mkdir(parents=True, exist_ok=True)
    if present:
        archive = _git(["archive", "--format=tar", commit, "--", *present], top, binary=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            try:
                tar.extractall(into, filter="data")
            except TypeError:  # Python before 3.11.4: no filters; git archive holds plain files and folders
                tar.extractall(into)
    root = into / prefix
    root.mkdir(parents=True, exist_ok=True)
    return root


def diff_report(site: Path, rev: str) -> str:
    """The Markdown report of ``build.py diff REV``."""
    new = site_text(Path(site))  # problems of the working tree: InputError, reported as by build
    with tempfile.TemporaryDirectory(prefix="vramsite-diff-") as folder:
        old_root = sources_at(Path(site), rev, Path(folder))
        try:
            old = site_text(old_root)
        except InputError as error:
            first = error.problems[0]
            raise DiffError(f"the site at {rev} does not build with this code ({len(error.problems)} problem"
                            f"{_s(error.problems)}; the first: {first})") from None
    return format_report(compare(old, new), rev)
