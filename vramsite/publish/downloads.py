"""Every table the site shows, also as data: data/<table id>.json and .csv.

Built from the same ``Table`` objects the pages print, and language-neutral:
keys come from ``Column.key`` and ``Row.key``; values are the exact figures
of the calculation (a ``Decimal`` written out in full, never rounded), with
their unit apart. A cell is one of three things:

    a figure       {"value": "8.28125", "unit": "USD/GB/month"}
    a lookup       {"need_gb": "39.68…", "cards": 1, "gpu": "a40", "price_usd": "240",
                    "tight": false, "nodes": null}
    anything else  {"text": "HBM3 ECC"}   (UI strings as their English msgid; "link:nvlink" as "nvlink")

plus "flags" (tight, no, fits, ...) where the cell has any. In CSV each
table row is one line; a column ``k`` becomes ``k`` and ``k_unit`` (and
``k_text`` where figures and words share it, ``k_flags`` where cells carry
flags), a lookup column ``k_need_gb``, ``k_cards``, ``k_gpu``,
``k_price_usd``, ``k_tight`` and ``k_nodes``. Output is UTF-8 and the same
bytes for the same tables.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from decimal import Decimal

from ..calc.figure import Figure
from ..errors import InputError, Problem
from ..layout import download_path
from ..tables.model import Cell, Fig, Flag, Link, Msg, Names, Table, Text

FORMATS = ("json", "csv")
LOOKUP_FIELDS = ("need_gb", "cards", "gpu", "price_usd", "tight", "nodes")


def exact(value: Decimal) -> str:
    """A Decimal in full, as plain digits: 240 (also from 2.4E+2 or 240.00), 8.28125, 0.0000001, 0 (never -0).

    Written out digit by digit (never ``normalize``, which rounds to the context's precision).
    """
    text = format(Decimal(value), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def neutral_text(piece) -> str:
    """Inline pieces as language-neutral text: msgids untranslated, figures exact."""
    if piece is None:
        return ""
    if isinstance(piece, tuple):
        return "".join(neutral_text(part) for part in piece)
    if isinstance(piece, Text):
        return piece.text
    if isinstance(piece, Fig):
        return neutral_text(piece.figure)
    if isinstance(piece, Figure):
        return exact(piece.value) + (f" {piece.unit}" if piece.unit else "")
    if isinstance(piece, Link):
        return neutral_text(piece.content)
    if isinstance(piece, Flag):
        return piece.msgid
    if isinstance(piece, Names):
        return ", ".join(neutral_text(item) for item in piece.items)
    if isinstance(piece, Msg):
        if re.fullmatch(r"[a-z-]+:[\w.-]+", piece.msgid):  # "link:nvlink", "stack:cuda": an id
            return piece.msgid.partition(":")[2]
        args = dict(piece.args)
        return re.sub(r"\{(\w+)\}", lambda m: neutral_text(args[m.group(1)]) if m.group(1) in args else m.group(0),
                      piece.msgid)
    if isinstance(piece, str):
        return piece
    raise TypeError(f"cannot write {piece!r} as data")


def lookup_record(found) -> dict:
    choice = found.choice
    return {
        "need_gb": exact(found.need.value),
        "cards": choice.count if choice else None,
        "gpu": choice.gpu.id if choice else None,
        "price_usd": exact(choice.price.value) if choice else None,
        "tight": bool(choice and choice.tight),
        "nodes": int(found.nodes.value) if found.nodes is not None else None,
    }


def cell_record(cell: Cell) -> dict:
    if cell.lookup is not None:
        return lookup_record(cell.lookup)
    if cell.value is not None:
        record = {"value": exact(cell.value.value), "unit": cell.value.unit}
    else:
        record = {"text": neutral_text(cell.content)}
    if cell.flags:
        record["flags"] = list(cell.flags)
    return record


def _check_keys(table: Table) -> None:
    for what, keys in (("column", [column.key for column in table.columns]), ("row", [row.key for row in table.rows])):
        if any(not key for key in keys) or len(set(keys)) != len(keys):
            raise InputError([Problem("vramsite/tables", None, table.id,
                                      f"every {what} of table {table.id!r} needs its own key for downloads")])


def table_record(table: Table) -> dict:
    _check_keys(table)
    return {
        "id": table.id,
        "caption": neutral_text(table.caption),
        "header": neutral_text(table.corner),
        "columns": [{"key": column.key, "label": neutral_text(column.label), "numeric": column.numeric}
                    for column in table.columns],
        "rows": [{"key": row.key, "header": neutral_text(row.header.content),
                  "cells": {column.key: cell_record(cell) for column, cell in zip(table.columns, row.cells)}}
                 for row in table.rows],
        "notes": [neutral_text(note) for note in table.notes],
    }


def table_json(table: Table, record: dict | None = None) -> bytes:
    record = record or table_record(table)
    return (json.dumps(record, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def csv_fields(table: Table, record: dict | None = None) -> list[tuple[str, int, str]]:
    """(CSV header, column index, field of the cell's record) for every CSV column after key and header."""
    rows = (record or table_record(table))["rows"]
    fields = []
    for index, column in enumerate(table.columns):
        records = [row["cells"][column.key] for row in rows]
        if any(row.cells[index].lookup is not None for row in table.rows):
            fields += [(f"{column.key}_{name}", index, name) for name in LOOKUP_FIELDS]
            continue
        figures = any("value" in cell for cell in records)
        words = any("text" in cell for cell in records)
        if figures:
            fields += [(column.key, index, "value"), (f"{column.key}_unit", index, "unit")]
            if words:
                fields.append((f"{column.key}_text", index, "text"))
        else:
            fields.append((column.key, index, "text"))
        if any("flags" in cell for cell in records):
            fields.append((f"{column.key}_flags", index, "flags"))
    return fields


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


def table_csv(table: Table, record: dict | None = None) -> bytes:
    record = record or table_record(table)
    fields = csv_fields(table, record)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["key", "header", *(name for name, _, _ in fields)])
    for row in record["rows"]:
        cells = [row["cells"][table.columns[index].key] for _, index, _ in fields]
        writer.writerow([row["key"], row["header"],
                         *(_csv_value(cell.get(field)) for cell, (_, _, field) in zip(cells, fields))])
    return out.getvalue().encode("utf-8")


def download_files(tables: Iterable[Table]) -> dict[str, bytes]:
    """data/<id>.json and data/<id>.csv for each table; two different tables with one id are a problem."""
    files: dict[str, bytes] = {}
    problems = []
    for table in tables:
        record = table_record(table)
        for ext, write in (("json", table_json), ("csv", table_csv)):
            path, content = download_path(table.id, ext), write(table, record)
            if files.get(path, content) != content:
                problems.append(Problem("vramsite/tables", None, table.id,
                                        f"two different tables have the id {table.id!r}; give each its own"))
            files[path] = content
    if problems:
        raise InputError(sorted(set(problems), key=str))
    return files
