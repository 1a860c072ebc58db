"""Figures, money, dates and lists as text in one locale.

A ``Formatter`` belongs to one language. It rounds with ``numbers.quantize``
(half up) to the decimals the site's ``display`` gives each kind of figure,
groups digits with Babel, and wraps the number in the unit's translated
pattern ("{n} GB", "每秒 {n} 个 token"). Inputs read from data are printed as
given: they are never rounded to fewer digits than they have.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from functools import lru_cache

from babel.dates import format_date, format_datetime
from babel.lists import format_list

from ..calc.figure import BANDWIDTH, Figure
from ..load.dates import parse_moment
from ..load.model import LocaleConfig
from .i18n import Catalog
from .numbers import DisplaySpec, format_number, group_symbol

# Unit -> (singular msgid, plural msgid or None). Money units are handled apart.
UNIT_PATTERNS: dict[str, tuple[str, str | None]] = {
    "": ("{n}", None),
    "GB": ("{n} GB", None),
    "MB": ("{n} MB", None),
    "B": ("{n} B", None),
    "B/param": ("{n} B", None),
    "B params": ("{n}B parameters", None),
    "GB/s": ("{n} GB/s", None),
    "TB/s": ("{n} TB/s", None),
    "GB/s per USD/month": ("{n} GB/s per dollar", None),
    "tokens/s": ("{n} tokens/s", None),
    "tokens": ("{n} token", "{n} tokens"),
    "tokens/hour": ("{n} tokens/hour", None),
    "sequences": ("{n} sequence", "{n} sequences"),
    "%": ("{n}%", None),
    "×": ("{n}×", None),
    "cards": ("{n} card", "{n} cards"),
    "nodes": ("{n} node", "{n} nodes"),
    "layers": ("{n} layer", "{n} layers"),
    "KV heads": ("{n} KV head", "{n} KV heads"),
    "heads": ("{n} head", "{n} heads"),
    "hours": ("{n} hour", "{n} hours"),
    "days": ("{n} day", "{n} days"),
    "batch": ("batch {n}", None),
    "head dim": ("head dim {n}", None),
    "W": ("{n} W", None),
    "bits": ("{n} bits", None),
    "GB/GiB": ("{n} GB/GiB", None),
    "B/GB": ("{n} B/GB", None),
    "GiB": ("{n} GiB", None),
    "s": ("{n} s", None),
    "ms": ("{n} ms", None),
}
MONEY_PERIODS = {
    "USD": None,
    "USD/month": "{money}/month",
    "USD/hour": "{money}/hour",
    "USD/GPU-hour": "{money}/GPU-hour",
    "USD/week": "{money}/week",
    "USD/GB/month": "{money}/GB/month",
    "USD/M tokens": "{money} per million tokens",
}
TB = Decimal(1000)
MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


_DEFAULT_SPEC = DisplaySpec(2, trim=True)


@lru_cache(maxsize=None)
def _fixed(decimals: int) -> DisplaySpec:
    return DisplaySpec(decimals)


@lru_cache(maxsize=None)
def _input_spec(digits: int, trim: bool) -> DisplaySpec:
    return DisplaySpec(digits, trim)


class Formatter:
    """Text for figures in one locale."""

    def __init__(self, locale: LocaleConfig, display: dict, catalog: Catalog):
        self.locale = locale
        self.catalog = catalog
        self.specs = {kind: DisplaySpec.from_data(raw) for kind, raw in display.items()}
        self._texts: dict[tuple, str] = {}

    # -- numbers -----------------------------------------------------------

    def spec(self, figure: Figure, decimals: int | None = None) -> DisplaySpec:
        """The display of a figure: its kind's, or ``decimals`` if given; inputs keep their digits."""
        if decimals is not None:
            return _fixed(decimals)
        base = self.specs.get(figure.kind, _DEFAULT_SPEC)
        if figure.formula is None:
            digits = max(0, -figure.value.normalize().as_tuple().exponent)
            if digits > base.decimals:
                return _input_spec(digits, base.trim)
        return base

    @property
    def digit_group(self) -> str:
        return group_symbol(self.locale.gettext)

    def number(self, value: Figure | Decimal | int, decimals: int | None = None) -> str:
        """The bare number, grouped for the locale."""
        figure = value if isinstance(value, Figure) else Figure(Decimal(value))
        return format_number(figure.value, self.spec(figure, decimals), self.locale.gettext)

    def figure(self, figure: Figure, decimals: int | None = None, period: bool = False, bare: bool = False) -> str:
        """Number and unit: '75 GB', '$1,590', '5.3 TB/s', '每秒 50 个 token'; ``bare``: the number only."""
        # The text depends on these alone (an input keeps its digits, so whether it is one counts);
        # a site prints the same figure many times over.
        key = (figure.value, figure.unit, figure.kind, figure.formula is None, decimals, period, bare)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._figure(figure, decimals, period, bare)
        return text

    def _figure(self, figure: Figure, decimals: int | None, period: bool, bare: bool) -> str:
        if bare:
            return self.number(figure, decimals)
        if figure.unit in MONEY_PERIODS:
            return self.money(figure, decimals, period)
        if figure.unit == "GB/s" and figure.kind == BANDWIDTH and figure.value >= TB:
            tera = Figure(value=figure.value / TB, unit="TB/s", kind=figure.kind, label=figure.label,
                          formula=figure.formula)
            return self._with_unit(tera, decimals)
        return self._with_unit(figure, decimals)

    def _with_unit(self, figure: Figure, decimals: int | None) -> str:
        if figure.unit == "year":  # a calendar year: no digit grouping
            return str(int(figure.value))
        singular, plural = UNIT_PATTERNS.get(figure.unit, ("{n} " + figure.unit, None))
        text = self.number(figure, decimals)
        if singular == "{n}":
            return text
        if plural is None:
            pattern = self.catalog.gettext(singular)
        else:
            pattern = self.catalog.ngettext(singular, plural, int(figure.value) if figure.value == int(figure.value) else 2)
        return pattern.replace("{n}", text)

    def money(self, figure: Figure, decimals: int | None = None, period: bool = False) -> str:
        """'$1,590' in every language (an explicit pattern, not Babel's US$); '/月' with ``period``."""
        amount = "$" + self.number(figure, decimals)
        pattern = MONEY_PERIODS.get(figure.unit)
        if not period or pattern is None:
            return amount
        return self.catalog.gettext(pattern).replace("{money}", amount)

    # -- words -------------------------------------------------------------

    def names(self, items, style: str = "standard", visible=None) -> str:
        """'A, B and C' / 'A、B 和 C'; ``style='or'`` for alternatives.

        ``visible`` gives each item's text as a reader sees it (items may be
        markup). Where a connector word written without spaces (和, 或) meets
        a Latin name, a space goes between them, as Chinese technical writing does.
        """
        texts = [str(item) for item in items]
        if not texts:
            return ""
        # What a reader sees of a Markdown link is its text: [RTX 4090](url) ends in "0", not ")".
        shown = [MD_LINK.sub(r"\1", str(text)) for text in (visible or texts)]
        tokens = [f"\x00{index}\x00" for index in range(len(texts))]
        pattern = format_list(tokens, style=style, locale=self.locale.gettext)
        pieces = re.split(r"\x00(\d+)\x00", pattern)
        result = []
        for position, piece in enumerate(pieces):
            if position % 2:
                result.append(texts[int(piece)])
                continue
            if piece.strip() and not re.search(r"[\s,、]", piece):  # a bare connector such as 和
                before = shown[int(pieces[position - 1])] if position > 0 else ""
                after = shown[int(pieces[position + 1])] if position + 1 < len(pieces) else ""
                if before[-1:].isascii() and before[-1:].isalnum():
                    piece = " " + piece
                if after[:1].isascii() and after[:1].isalnum():
                    piece = piece + " "
            result.append(piece)
        return "".join(result)

    def date(self, iso: str) -> str:
        """A date (or date and time) from data, in the locale's long style."""
        moment = parse_moment(iso)
        if not isinstance(moment, datetime):
            return format_date(moment, format="long", locale=self.locale.gettext)
        day = format_date(moment.date(), format="long", locale=self.locale.gettext)
        clock = format_datetime(moment, format="HH:mm", locale=self.locale.gettext)
        return self.catalog.gettext("{date}, {time} UTC").replace("{date}", day).replace("{time}", clock)

    def gettext(self, msgid: str) -> str:
        return self.catalog.gettext(msgid)
