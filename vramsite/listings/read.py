"""A listing export as rows of text, each with its line: CSV with a header row, or JSON Lines.

The format is told by the file's extension (.csv; .jsonl or .ndjson), else
by its first character that is not a space or a comment: "{" opens JSON
Lines. Either may say when the snapshot was taken: CSV in a first line
``# snapshot: 2026-11-30 09:00 UTC``, JSON Lines in a first line holding only
``{"snapshot_at": "2026-11-30 09:00 UTC"}``.

Nothing here knows what a field means (rows.py does): a row is its columns'
text, None where JSON gave null.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, Problem
from ..load.source_read import read_regular_file
from ..importers.json_file import DuplicateKey, unique_object
from ..load.text import decode_utf8

COLUMNS = ("machine_id", "gpu", "gpus", "usd_per_gpu_hour", "region", "available")
REQUIRED = COLUMNS[:4]
KNOWN, REQUIRED_SET = frozenset(COLUMNS), frozenset(REQUIRED)
SNAPSHOT_COMMENT = re.compile(r"#\s*snapshot:(.*)")
SNAPSHOT_FIELD = "snapshot_at"
JSON_LINES = (".jsonl", ".ndjson")
MAX_BYTES = 64_000_000
"""Largest export read: about 600,000 rows, far more than a marketplace lists."""
SHOWN_CHARACTERS = 60
"""The most of a value a message quotes: an export's cell may be kilobytes long."""


def quoted(text: str) -> str:
    """A value of the export as a message quotes it: escaped (a line break or control character shows as
    \\n, \\x00), and cut short where it is long."""
    return repr(text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "…")


@dataclass(slots=True)
class RawRow:
    line: int
    values: dict[str, str | None]
    """Column -> its text as written; None where JSON Lines gave null."""


@dataclass
class Export:
    name: str
    """How messages call the file: the path as given."""
    rows: list[RawRow]
    snapshot_at: tuple[str, int] | None = None
    """The file's own snapshot time, as written, and its line."""


def read_export(path: Path, name: str) -> tuple[Export, list[Problem]]:
    """The export's rows and every problem of its form (not of its values)."""
    text = _text(path, name)
    reader = _read_json_lines if _is_json_lines(path, text) else _read_csv
    export, problems = reader(text, name)
    if not export.rows and not problems:  # a header alone, or a snapshot time alone
        problems.append(Problem(name, None, "", "lists no machine: importing it would take every card's price "
                                                "away; is it the whole export?"))
    return export, problems


def _text(path: Path, name: str) -> str:
    raw = read_regular_file(path, name, MAX_BYTES, f"is larger than {MAX_BYTES // 1_000_000} MB; is it a listing export?")
    text = decode_utf8(raw, name).removeprefix("\ufeff")  # a spreadsheet's byte-order mark
    if not text.strip():
        raise InputError([Problem(name, 1, "", "the file is empty")])
    return text


def _is_json_lines(path: Path, text: str) -> bool:
    suffix = path.suffix.lower()
    if suffix == ".csv" or suffix in JSON_LINES:
        return suffix in JSON_LINES
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.lstrip().startswith("{")
    return False


# -- CSV -----------------------------------------------------------------------------


def _read_csv(text: str, name: str) -> tuple[Export, list[Problem]]:
    export, problems = Export(name, []), []
    offset = 0
    if text.startswith("#"):
        first, _, text = text.partition("\n")
        offset = 1
        export.snapshot_at = _snapshot_comment(first.rstrip("\r"), name, problems)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    ended = 0
    try:
        for record in reader:
            line, ended = ended + 1 + offset, reader.line_num
            cells = list(map(str.strip, record))
            if not any(cells):
                continue
            if header is None:
                header = _header(cells, name, line, problems)
                if header is None:
                    return export, problems
                continue
            if len(record) != len(header):
                problems.append(Problem(name, line, "", f"has {len(record)} fields; the header has {len(header)}"))
                continue
            export.rows.append(RawRow(line, dict(zip(header, cells))))
    except csv.Error as error:
        problems.append(Problem(name, reader.line_num + offset, "", f"cannot be read as CSV: {error}"))
    if header is None:
        problems.append(Problem(name, 1 + offset, "", "no header row; the first row names the columns: "
                                                       + ", ".join(REQUIRED)))
    return export, problems


def _snapshot_comment(line: str, name: str, problems: list[Problem]) -> tuple[str, int] | None:
    found = SNAPSHOT_COMMENT.fullmatch(line)
    if found is None:
        problems.append(Problem(name, 1, "", "a first line starting with # must be '# snapshot: YYYY-MM-DD HH:MM UTC'"))
        return None
    return found.group(1).strip(), 1


def _header(names: list[str], name: str, line: int, problems: list[Problem]) -> list[str] | None:
    """The columns in their order, or None (and the problems) where they cannot be read."""
    found = _column_problems(names, line, name)
    problems += found
    return None if found else names


def _column_problems(names: list[str], line: int, name: str, field: str = "header",
                     what: str = "column") -> list[Problem]:
    """Unknown, repeated and missing columns (or, in JSON Lines, a row's fields)."""
    problems = []
    for index, column in enumerate(names):
        if column not in COLUMNS:
            problems.append(Problem(name, line, field,
                                    f"unknown {what} {quoted(column)} (known: {', '.join(COLUMNS)})"))
        elif column in names[:index]:
            problems.append(Problem(name, line, field, f"{what} {column!r} is named twice"))
    missing = [column for column in REQUIRED if column not in names]
    if missing:
        problems.append(Problem(name, line, field, f"missing {what}{'s' if len(missing) > 1 else ''} "
                                                   f"{', '.join(missing)}"))
    return problems


# -- JSON Lines ----------------------------------------------------------------------


class _Number(str):
    """A JSON number kept as the text it was written as: 0.410 stays 0.410."""


def _refuse_constant(word: str):
    raise ValueError(f"{word} is not a number")


_DECODER = json.JSONDecoder(parse_float=_Number, parse_int=_Number, parse_constant=_refuse_constant,
                            object_pairs_hook=unique_object)
"""One decoder for every line: json.loads with options builds a new one each call, doubling the time."""


def _read_json_lines(text: str, name: str) -> tuple[Export, list[Problem]]:
    export, problems = Export(name, []), []
    first = True
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        value = _json_object(line, name, number, problems)
        if value is None:
            first = False
            continue
        if SNAPSHOT_FIELD in value:
            _snapshot_field(value, export, name, number, first, problems)
        else:
            row = _json_row(value, name, number, problems)
            if row is not None:
                export.rows.append(row)
        first = False
    return export, problems


def _json_object(line: str, name: str, number: int, problems: list[Problem]) -> dict | None:
    try:
        value = _DECODER.decode(line)
    except DuplicateKey as error:
        problems.append(Problem(name, number, "", f"field {quoted(str(error))} is given twice in this row"))
        return None
    except RecursionError:
        problems.append(Problem(name, number, "", "nested too deeply; a row is one flat JSON object"))
        return None
    except ValueError as error:  # json.JSONDecodeError among them
        problems.append(Problem(name, number, "", f"not a JSON object: {getattr(error, 'msg', error)}"))
        return None
    if not isinstance(value, dict):
        problems.append(Problem(name, number, "", "not a JSON object; each line holds one listing, {...}"))
        return None
    return value


def _snapshot_field(value: dict, export: Export, name: str, number: int, first: bool,
                    problems: list[Problem]) -> None:
    stamp = value[SNAPSHOT_FIELD]
    if not first or len(value) != 1:
        problems.append(Problem(name, number, SNAPSHOT_FIELD,
                                "belongs on the first line, alone: {\"snapshot_at\": \"YYYY-MM-DD HH:MM UTC\"}"))
    elif not isinstance(stamp, str) or isinstance(stamp, _Number):
        problems.append(Problem(name, number, SNAPSHOT_FIELD, "must be text: \"YYYY-MM-DD HH:MM UTC\""))
    else:
        export.snapshot_at = (stamp, number)


def _json_row(value: dict, name: str, number: int, problems: list[Problem]) -> RawRow | None:
    keys = value.keys()
    fits = keys <= KNOWN and keys >= REQUIRED_SET  # the common case, checked at the speed of sets
    found = [] if fits else _column_problems(list(value), number, name, field="", what="field")
    values = {}
    for key, item in value.items():
        text = item if item is None or isinstance(item, str) else _json_text(item)  # _Number is a str
        if text is not _NOT_TEXT:
            values[key] = text
        elif key in KNOWN:  # an unknown field is refused as such
            found.append(Problem(name, number, key, f"expected text, a number or true/false, got {_kind(item)}"))
    problems += found
    return None if found else RawRow(number, values)


_NOT_TEXT = object()


def _json_text(item: object):
    """A JSON value other than text, a number or null as the text a CSV cell would hold."""
    if isinstance(item, bool):
        return "true" if item else "false"
    return _NOT_TEXT


def _kind(item: object) -> str:
    return "a list" if isinstance(item, list) else "an object" if isinstance(item, dict) else type(item).__name__
