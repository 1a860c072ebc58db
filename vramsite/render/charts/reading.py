"""What a chart reads from a table: pieces as plain text in the page's language, rows and columns by key."""

from __future__ import annotations

from ...errors import UnknownId
from ...tables.model import Row, Table
from ..inline import InlineRenderer


def words(fmt) -> InlineRenderer:
    """The pages' inline renderer, as plain text: the chart escapes what it places."""
    return InlineRenderer.plain(fmt)


def column_index(table: Table, key: str) -> int:
    keys = [column.key for column in table.columns]
    if key not in keys:
        raise UnknownId(f"column of table {table.id!r}", key, tuple(keys))
    return keys.index(key)


def rows_by_key(table: Table, keys=None, what: str = "row") -> list[Row]:
    """The rows named by ``keys`` in that order, or every row."""
    if not keys:
        return list(table.rows)
    rows = {row.key: row for row in table.rows}
    for key in keys:
        if key not in rows:
            raise UnknownId(what, key, tuple(rows))
    return [rows[key] for key in keys]


def language(fmt) -> str | None:
    locale = getattr(fmt, "locale", None)
    return getattr(locale, "tag", None)
