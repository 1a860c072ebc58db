"""Two builds' text compared: each page's tables (by table id, row key and column key), charts, prose and
title, a page's other lines where those did not change, and every other file."""

from __future__ import annotations

from dataclasses import dataclass

from .files import file_changes
from .site_text import PageText, SiteText, TableText, decoded, visible_lines
from .text_diff import changed_lines, common_prefix, highlight, paired_changes, plural

LEAD_ENDS = (": ", "：")
"""What ends a cell's lead ("27 GB: ", "77 GB："), in English and in Chinese."""


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
    return Report(_page_changes(old, new), file_changes(old.files, new.files, others), len(others))


def _page_changes(old: SiteText, new: SiteText) -> list[tuple[PageText, list[str]]]:
    """Per page (in the new site's order, then removed pages): the report's lines about it."""
    report = []
    for key in [*new.pages, *(key for key in old.pages if key not in new.pages)]:
        before, after = old.pages.get(key), new.pages.get(key)
        if before is None:
            report.append((after, [f"- new page, with {len(after.tables)} table{plural(after.tables)}"]))
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
        lines = changed_lines(decoded(old.get(twin)).splitlines(), decoded(new.get(twin)).splitlines())
        return ["", "Other lines of the Markdown twin:", "", *lines]
    if old.get(path) != new.get(path):
        lines = changed_lines(visible_lines(old.get(path)), visible_lines(new.get(path)))
        return ["", "HTML:", "", *(lines or ["- the markup changed, not the text"])]
    return []


def _table_lines(old: TableText | None, new: TableText | None) -> list[str]:
    if old is None:
        return ["", f"**{new.caption}** (`{new.id}`): new table, {len(new.rows)} row{plural(new.rows)}"]
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
    shared = len(common_prefix(before, after))
    for separator in LEAD_ENDS:
        cut = before.rfind(separator, 0, shared + len(separator) - 1)
        if 0 < cut and before[:cut] == after[:cut]:
            end = cut + len(separator)
            return f"- {label} ({before[:cut]}): {before[end:]} → {after[end:]}"
    return f"- {label}: {before} → {after}"


def _prose_lines(old: list[str], new: list[str]) -> list[str]:
    lines = []
    for before, after in paired_changes(old, new):
        if before is None:
            lines.append(f"- added: {after}")
        elif after is None:
            lines.append(f"- removed: {before}")
        else:
            was, now = highlight(before, after)
            lines.append(f"- {was}  \n  → {now}")
    return lines
