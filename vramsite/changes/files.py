"""The files besides the pages (downloads, charts, sitemap.xml, llms.txt): what changed in each, record by
record for a table's downloads (a JSON file and its CSV twin together; an item's file of several tables, table
by table), address by address for the sitemap, line by line otherwise."""

from __future__ import annotations

import csv
import io
import json
import re

from .text_diff import capped, changed_lines, code

SITEMAP_LOC = re.compile(r"<loc>([^<]*)</loc>")


def file_changes(old: dict[str, bytes], new: dict[str, bytes], changed: list[str]) -> list[str]:
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
        return _set_lines(SITEMAP_LOC.findall(old), SITEMAP_LOC.findall(new)) or changed_lines(
            old.splitlines(), new.splitlines(), "  ")
    return changed_lines(old.splitlines(), new.splitlines(), "  ")


def _json_records(text: str) -> dict[str, dict[str, str]]:
    """A download's rows by key, each cell's fields as text ("cost.value"); its caption, columns and notes as
    `(table)`; in an item's file of several tables, each table's the same, keyed "<table id> <row key>"."""
    document = json.loads(text)
    if isinstance(document, dict) and isinstance(document.get("tables"), list):
        return {f"{table.get('id')} {key}": fields for table in document["tables"] if isinstance(table, dict)
                for key, fields in _table_records(table).items()}
    return _table_records(document)


def _table_records(document) -> dict[str, dict[str, str]]:
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
            lines.append(f"  - record added: {code(key)}")
        elif key not in new:
            lines.append(f"  - record removed: {code(key)}")
        else:
            names = [*new[key], *(name for name in old[key] if name not in new[key])]
            changes = [f"{name} {code(old[key].get(name, ''))} → {code(new[key].get(name, ''))}"
                       for name in names if old[key].get(name) != new[key].get(name)]
            if changes:
                lines.append(f"  - {code(key)}: " + "; ".join(changes))
    return capped(lines, "records", "  ")


def _set_lines(old: list[str], new: list[str]) -> list[str]:
    added = [f"  - added: {code(item)}" for item in new if item not in old]
    removed = [f"  - removed: {code(item)}" for item in old if item not in new]
    return capped(added + removed, "addresses", "  ")
