"""Series drawn from a table that the table itself does not list: its rows ranked by one column."""

from __future__ import annotations

from .model import Cell, Row, Table


def ranked(table: Table, column_key: str, highest_first: bool = False) -> list[tuple[Row, Cell]]:
    """The rows with a figure in that column, lowest first (or highest), rows of one value by key."""
    index = [column.key for column in table.columns].index(column_key)
    found = [(row, row.cells[index]) for row in table.rows if row.cells[index].value is not None]
    sign = -1 if highest_first else 1
    return sorted(found, key=lambda item: (sign * item[1].value.value, item[0].key))
