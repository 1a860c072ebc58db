"""Every table the site shows, also as data: data/<language>/<table id>.json and .csv, or, for a table
about one item of a catalogue that may hold thousands (a model), that item's one file with all its tables:
data/<language>/models/<id>.json, ``{"language": ..., "tables": [record, ...]}`` in table id order.

Built from the same ``Table`` objects the pages print, once per language:
captions, column labels, row headers, notes and words read as that language's
page reads them, while keys come from ``Column.key`` and ``Row.key`` and stay
the same in every language. A figure keeps its number twice: ``value``
rounded as the page shows it, ``exact`` the calculation's ``Decimal`` written
out in full, with its unit apart. A cell is one of three things:

    a figure       {"value": "8.28", "exact": "8.28125", "unit": "USD/GB/month"}
    a lookup       {"need_gb": "40", "need_gb_exact": "39.68…", "cards": 1, "gpu": "a40",
                    "price_usd": "240", "tight": false, "nodes": null}
    anything else  {"text": "HBM3 ECC"}

plus "flags" (tight, no, fits, ...) where the cell has any. In CSV each
table row is one line, headed by the keys (the same in every language); a
column ``k`` becomes ``k``, ``k_exact`` and ``k_unit`` (and ``k_text`` where
figures and words share it, ``k_flags`` where cells carry flags), a lookup
column ``k_need_gb``, ``k_need_gb_exact``, ``k_cards``, ``k_gpu``,
``k_price_usd``, ``k_tight`` and ``k_nodes``. Output is UTF-8 and the same
bytes for the same tables.

A spreadsheet opening a CSV runs a field that starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return as a formula. In CSV, text from the data
(a row's header, a cell's words) that starts so is written after an
apostrophe, which spreadsheets read as "this is text"; numbers are digits
and keep their sign. The JSON keeps every text as it is.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Hashable, Iterable
from decimal import Decimal

from ..calc.figure import Figure
from ..errors import InputError, Problem
from ..layout import download_path
from ..render.numbers import rounded
from ..tables.model import Cell, Fig, Table
from .json_text import dumps_indented

FORMATS = ("json", "csv")
LOOKUP_FIELDS = ("need_gb", "need_gb_exact", "cards", "gpu", "price_usd", "tight", "nodes")


def exact(value: Decimal) -> str:
    """A Decimal in full, as plain digits: 240 (also from 2.4E+2 or 240.00), 8.28125, 0.0000001, 0 (never -0).

    Written out digit by digit (never ``normalize``, which rounds to the context's precision).
    """
    text = format(Decimal(value), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def rounded_as_shown(figure: Figure, say, decimals: int | None = None) -> str:
    """The figure's number as the page prints it (rounded by the site's rule), in plain digits: 8.28, 5.40."""
    spec = say.fmt.spec(figure, decimals)
    text = format(rounded(figure.value, spec), "f")
    if spec.trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text[1:] if text.startswith("-") and Decimal(text) == 0 else text  # never -0


def lookup_record(found, say) -> dict:
    choice = found.choice
    return {
        "need_gb": rounded_as_shown(found.need, say),
        "need_gb_exact": exact(found.need.value),
        "cards": choice.count if choice else None,
        "gpu": choice.gpu.id if choice else None,
        "price_usd": exact(choice.price.value) if choice else None,
        "tight": bool(choice and choice.tight),
        "nodes": int(found.nodes.value) if found.nodes is not None else None,
    }


def cell_record(cell: Cell, say) -> dict:
    """One cell in ``say``'s language: figures rounded as shown and exact apart, words as the page reads them."""
    if cell.lookup is not None:
        return lookup_record(cell.lookup, say)
    if cell.value is not None:
        shown = cell.content if isinstance(cell.content, Fig) and cell.content.figure == cell.value else None
        record = {"value": rounded_as_shown(cell.value, say, shown.decimals if shown else None),
                  "exact": exact(cell.value.value), "unit": cell.value.unit}
    else:
        record = {"text": str(say(cell.content))}
    if cell.flags:
        record["flags"] = list(cell.flags)
    return record


def _check_keys(table: Table) -> None:
    for what, keys in (("column", [column.key for column in table.columns]), ("row", [row.key for row in table.rows])):
        if any(not key for key in keys) or len(set(keys)) != len(keys):
            raise InputError([Problem("vramsite/tables", None, table.id,
                                      f"every {what} of table {table.id!r} needs its own key for downloads")])


def table_record(table: Table, say) -> dict:
    """The table in ``say``'s language (an InlineRenderer in plain text): labels translated, keys as they are."""
    _check_keys(table)

    def text(piece) -> str:
        return str(say(piece))

    return {
        "id": table.id,
        "language": say.fmt.locale.tag,
        "caption": text(table.caption),
        "header": text(table.corner),
        "columns": [{"key": column.key, "label": text(column.label), "numeric": column.numeric}
                    for column in table.columns],
        "rows": [{"key": row.key, "header": text(row.header.content),
                  "cells": {column.key: cell_record(cell, say) for column, cell in zip(table.columns, row.cells)}}
                 for row in table.rows],
        "notes": [text(note) for note in table.notes],
    }


def table_json(table: Table, say, record: dict | None = None) -> bytes:
    record = record or table_record(table, say)
    return (dumps_indented(record, 2) + "\n").encode("utf-8")


def csv_fields(table: Table, record: dict) -> list[tuple[str, int, str]]:
    """(CSV header, column index, field of the cell's record) for every CSV column after key and header."""
    rows = record["rows"]
    fields = []
    for index, column in enumerate(table.columns):
        records = [row["cells"][column.key] for row in rows]
        if any(row.cells[index].lookup is not None for row in table.rows):
            fields += [(f"{column.key}_{name}", index, name) for name in LOOKUP_FIELDS]
            continue
        figures = any("value" in cell for cell in records)
        words = any("text" in cell for cell in records)
        if figures:
            fields += [(column.key, index, "value"), (f"{column.key}_exact", index, "exact"),
                       (f"{column.key}_unit", index, "unit")]
            if words:
                fields.append((f"{column.key}_text", index, "text"))
        else:
            fields.append((column.key, index, "text"))
        if any("flags" in cell for cell in records):
            fields.append((f"{column.key}_flags", index, "flags"))
    return fields


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER_FIELDS = {"value", "exact", *LOOKUP_FIELDS}
"""The fields of a cell's record that hold numbers (or a card id, a flag) rather than text from the data."""


def _csv_value(value, field: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(value)
    return str(value) if field in NUMBER_FIELDS else _csv_text(str(value))


def _csv_text(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


def table_csv(table: Table, say, record: dict | None = None) -> bytes:
    record = record or table_record(table, say)
    fields = csv_fields(table, record)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["key", "header", *(name for name, _, _ in fields)])
    for row in record["rows"]:
        cells = [row["cells"][table.columns[index].key] for _, index, _ in fields]
        writer.writerow([row["key"], _csv_text(row["header"]),
                         *(_csv_value(cell.get(field), field) for cell, (_, _, field) in zip(cells, fields))])
    return out.getvalue().encode("utf-8")


def table_files(table: Table, segment: str, say) -> dict[str, bytes | dict]:
    """The table's two files in one language (``say``: that language's InlineRenderer in plain text); a bundled
    table's record under its bundle's path instead, for ``download_files`` to join with the bundle's others."""
    record = table_record(table, say)
    if table.bundle is not None:
        return {table.bundle.path(segment): record}
    return {download_path(table.id, ext, segment): write(table, say, record)
            for ext, write in (("json", table_json), ("csv", table_csv))}


def made_files(make: Callable[[], Table | None], segment: str, say) -> dict[str, bytes | dict]:
    """``table_files`` of the table ``make`` gives; none for a table with nothing to show."""
    table = make()
    return {} if table is None else table_files(table, segment, say)


def bundle_json(records: dict[str, dict]) -> bytes:
    """One item's tables in one language (``records``: table id -> record), in table id order, on one line:
    half the bytes of the indented form, for a file written once per model and language."""
    tables = [records[table_id] for table_id in sorted(records)]
    document = {"language": tables[0]["language"], "tables": tables}
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def download_files(tables: Iterable[tuple[Hashable, Callable[[], Table | None]]], languages: dict,
                   written: dict | None = None) -> dict[str, bytes]:
    """data/<language>/<id>.json and .csv for each table in each language (``tables``: (key, a function giving
    the table, or None for one with nothing to show) pairs; ``languages``: URL segment -> InlineRenderer in plain
    text); two different tables with one id are a problem. ``written``: (key, segment) -> ``table_files`` of
    that table in that language, written elsewhere (by the worker that rendered the language), used as they
    are: the table is built here only where a language's files are missing."""
    written = written or {}
    files: dict[str, bytes] = {}
    bundles: dict[str, dict[str, dict]] = {}
    problems = []
    for key, make in tables:
        for segment, say in languages.items():
            made = written.get((key, segment))
            for path, content in (made if made is not None else made_files(make, segment, say)).items():
                held, slot = (bundles.setdefault(path, {}), content["id"]) if isinstance(content, dict) else (files, path)
                if held.get(slot, content) != content:
                    table_id = make().id
                    problems.append(Problem("vramsite/tables", None, table_id,
                                            f"two different tables have the id {table_id!r}; give each its own"))
                held[slot] = content
    if problems:
        raise InputError(sorted(set(problems), key=str))
    return {**files, **{path: bundle_json(records) for path, records in bundles.items()}}
