"""What a table is, independent of how it is printed.

A cell holds inline pieces: text from data (``Text``), a UI string to
translate with placeholders (``Msg``), a figure (``Fig``, which keeps the
value, unit and formula), a link to another page (``Link``) and flags such as
"tight" (``Flag``). The HTML and Markdown renderers walk the same objects,
so the two formats cannot show different numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from ..calc.figure import Figure
from ..layout import bundle_path


@dataclass(frozen=True, slots=True)
class Text:
    """Text from data (a card's name): printed as is, never translated."""

    text: str


@dataclass(frozen=True, slots=True)
class Code:
    """Text from data that a reader types (a command line): printed as is, as code."""

    text: str


@dataclass(frozen=True, slots=True)
class Msg:
    """A UI string (msgid) with ``{name}`` placeholders filled by inline pieces."""

    msgid: str
    args: tuple[tuple[str, "Inline"], ...] = ()

    @classmethod
    def of(cls, msgid: str, **args: "Inline") -> "Msg":
        return cls(msgid, tuple(sorted(args.items())))


@dataclass(frozen=True, slots=True)
class When:
    """A date (or date and time) from data, ISO as written: printed in the reader's language."""

    iso: str


@dataclass(frozen=True, slots=True)
class Fig:
    figure: Figure
    period: bool = False
    """Money with its period: $1,590/month."""
    decimals: int | None = None
    bare: bool = False
    """The number without its unit, where the column heading names the unit."""


@dataclass(frozen=True, slots=True)
class Link:
    """A link to another page of the site, by page key: ("gpu", "a40")."""

    target: tuple[str, ...]
    content: "Inline"


@dataclass(frozen=True, slots=True)
class Flag:
    """A short marker: "tight", "talk to sales"."""

    msgid: str


@dataclass(frozen=True, slots=True)
class Names:
    """A list in the reader's language: 'A, B and C', 'A、B 和 C'."""

    items: tuple["Inline", ...]
    style: str = "standard"


Inline = Text | Code | Msg | Fig | Link | Flag | Names | When | tuple


@dataclass(frozen=True, slots=True)
class Cell:
    content: Inline = ()
    sub: Inline | None = None
    """A second, smaller line: a model's shape under its name."""
    flags: tuple[str, ...] = ()
    """Semantic flags for styling and downloads: tight, multi, sales."""
    value: Figure | None = None
    """The cell's main figure, for downloads and charts."""
    lookup: object | None = None
    """A lookup answer (calc.lookup.Lookup): templates word it (partials/lookup_cell)."""
    answer: tuple["Inline", ...] = ()
    """A lookup answer worded in two short lines, for narrow places such as a chart's cell: what to rent
    ('8× MI300X') and its price, or the nodes it would take and 'talk to sales'."""
    order: Decimal | None = None
    """The number a finder orders the row by in this cell's column, where it is not the cell's figure: the price
    of the configuration a choice names."""


@dataclass(frozen=True, slots=True)
class Column:
    label: Inline
    numeric: bool = False
    key: str = ""
    """A stable name for downloads (JSON keys, CSV headers)."""


@dataclass(frozen=True, slots=True)
class Row:
    header: Cell
    cells: tuple[Cell, ...]
    key: str = ""


@dataclass(frozen=True, slots=True)
class Bundle:
    """The one download a table shares with the other tables about the same item (a model): a catalogue of
    thousands of models gets one file per model and language instead of two per table."""

    folder: str
    item: str
    subject: Inline
    """What the tables are about, as the download's link names it: the model's name."""

    def path(self, segment: str) -> str:
        """The file in language ``segment``, relative to the site's root."""
        return bundle_path(self.folder, self.item, segment)


@dataclass(frozen=True, slots=True)
class Table:
    id: str
    caption: Inline
    corner: Inline
    """The label of the header column."""
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    notes: tuple[Inline, ...] = field(default=())
    assumes: tuple[Inline, ...] = field(default=())
    """What every figure of the table takes as given ('FP16 cache, batch 1'): the page says it in its prose,
    a chart drawn from the table under its title."""
    stacks: bool = False
    """On a phone each row shows as a block, every value under its column's name, instead of a grid wider than
    the screen: for a list a reader looks an item up in, not one whose columns are compared."""
    bundle: Bundle | None = None
    """Where the table is downloaded with the other tables about its item; None: a JSON and a CSV of its own."""
    finder: Inline | None = None
    """The label of a box that narrows the rows to those holding what a reader types, beside a choice of the
    rows' order (assets/table-find.js), for a list long enough to need them; None: no such box."""

    def orders(self) -> tuple[tuple[str, Inline], ...]:
        """(key, label) of what a finder may order the rows by: the rows' own headings ('row'), then each column
        with a number to order by (a numeric column's figures, or the cells' ``order``)."""
        numbered = [column.numeric or any(row.cells[index].order is not None for row in self.rows)
                    for index, column in enumerate(self.columns)]
        return (("row", self.corner),) + tuple((column.key, column.label)
                                                for column, has in zip(self.columns, numbered) if has)

    @staticmethod
    def sort_number(cell: "Cell", column: Column) -> Decimal | None:
        """The number a finder orders ``cell``'s row by in ``column``: its ``order``, else a numeric column's figure."""
        if cell.order is not None:
            return cell.order
        return cell.value.value if column.numeric and cell.value is not None else None
