"""Reading built pages the way a reader or a parser does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import html5lib

XHTML = "{http://www.w3.org/1999/xhtml}"
ROOT = Path(__file__).resolve().parent.parent
SITES = {"default": ROOT, "quick": ROOT / "sites" / "quick"}
"""Both sites the engine builds from this repository."""


def parse_html(content: bytes):
    """Parse strictly: any HTML5 parse error fails the caller."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True)
    return parser.parse(content)


def text_of(element) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def find_all(tree, tag: str):
    return tree.iter(f"{XHTML}{tag}")


def text_for_machines(element) -> str:
    """``text_of``, with each <time> read as its ``datetime``: the same in every language."""
    parts = [element.text or ""] if element.tag != f"{XHTML}time" else [element.get("datetime")]
    for child in element:
        parts.append(text_for_machines(child) if child.tag != f"{XHTML}time" else child.get("datetime"))
        parts.append(child.tail or "")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def table_rows(tree, table_id: str, text=text_of) -> dict[str, list[str]]:
    """Rows of the table inside figure#table-<id>: header text -> cell texts (each as ``text`` reads it)."""
    for figure in find_all(tree, "figure"):
        if figure.get("id") == f"table-{table_id}":
            rows = {}
            for row in figure.iter(f"{XHTML}tr"):
                header = row.find(f"{XHTML}th")
                cells = [text(cell) for cell in row.findall(f"{XHTML}td")]
                if cells:
                    rows[text(header)] = cells
            return rows
    raise AssertionError(f"no table {table_id!r}")


def markdown_table_rows(text: str, caption: str) -> dict[str, list[str]]:
    """Rows of the GFM table after the bold caption line: first cell -> other cells."""
    lines = text.split("\n")
    start = lines.index(f"**{caption}**")
    rows = {}
    for line in lines[start + 4:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows[cells[0]] = cells[1:]
    return rows


def heading_ids(tree) -> list[str]:
    return [h.get("id") for h in find_all(tree, "h2")]


def site_pages(files: dict[str, bytes], suffix: str = ".html") -> dict[str, bytes]:
    return {path: content for path, content in files.items() if path.endswith(suffix)}


def write_files(files: dict[str, bytes], out: Path) -> None:
    for path, content in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def table_download(files: dict[str, bytes], table_id: str, segment: str = "en") -> dict:
    """A table's record as a reader downloads it in ``segment``'s language: its own JSON, or its entry in the
    file of tables about the item it belongs to (data/<language>/<folder>/<item>.json)."""
    own = files.get(f"data/{segment}/{table_id}.json")
    if own is not None:
        return json.loads(own)
    found = [table for path, content in files.items()
             if path.startswith(f"data/{segment}/") and path.count("/") == 3 and path.endswith(".json")
             for table in json.loads(content).get("tables", ()) if table["id"] == table_id]
    if len(found) != 1:
        raise KeyError(f"{len(found)} downloads hold table {table_id!r} in {segment}")
    return found[0]
