"""Rounding and number formatting: the one place a figure becomes text.

The rounding rule of every page: a figure is rounded half up (away from
zero at exactly .5: 18.625 -> 18.63, 0.125 -> 0.13, 2.5 -> 3) to the number
of decimals its kind is shown with, and only when it is printed. It keeps a
minus sign only where the figure is below zero (-0.001 prints -0.00, as the
in-page calculator prints it; a negative zero, -0.0, prints 0). Babel then
groups digits for the locale; it never rounds again, because the value it
gets already has exactly the decimals of the pattern.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import get_decimal_symbol, get_group_symbol

ROUNDING = ROUND_HALF_UP


def quantize(value: Decimal, decimals: int) -> Decimal:
    """``value`` rounded half up to ``decimals`` places."""
    return Decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUNDING)


@dataclass(frozen=True)
class DisplaySpec:
    """How many decimals a kind of figure is shown with.

    ``trim`` drops trailing zeros (3.5 GB, 28 GB); ``below_10`` gives small
    values their own count (9.6 GB beside 19 GB).
    """

    decimals: int
    trim: bool = False
    below_10: int | None = None

    def decimals_for(self, value: Decimal) -> int:
        """``below_10`` where the value, shown with those decimals, stays under 10 (9.6, but 9.96 reads 10)."""
        if self.below_10 is not None and abs(quantize(value, self.below_10)) < 10:
            return self.below_10
        return self.decimals

    @classmethod
    def from_data(cls, raw) -> "DisplaySpec":
        if isinstance(raw, int):
            return cls(raw)
        return cls(raw["decimals"], raw.get("trim", False), raw.get("below_10"))


def rounded(value: Decimal, spec: DisplaySpec) -> Decimal:
    """The value a reader sees, as a number (what golden tests compare)."""
    return quantize(value, spec.decimals_for(value))


def format_number(value: Decimal, spec: DisplaySpec, locale: str) -> str:
    """Round by ``spec`` and group digits for ``locale`` (a gettext id such as zh_CN)."""
    decimals = spec.decimals_for(value)
    shown = quantize(value, decimals)
    if shown.is_signed() and not value < 0:  # a negative zero: the calculator's numbers have none
        shown = shown.copy_abs()
    return _grouped(shown, shown.is_signed(), decimals, spec.trim, locale)


@lru_cache(maxsize=65536)
def _grouped(value: Decimal, signed: bool, decimals: int, trim: bool, locale: str) -> str:
    """An already rounded value in groups of three digits, with the locale's group and decimal symbols, as
    Babel's pattern ``#,##0.00`` (``#,##0.##`` where ``trim``) prints it, and as calculator.js does; a page
    repeats the same figures often. (Babel's own ``apply`` gives the same text at many times the cost; a test
    holds the two to each other.)

    ``signed`` is part of the cache's key: Decimal("-0.00") equals Decimal("0.00") (and hashes alike), yet
    the one prints as "-0.00" and the other as "0.00".
    """
    group, point = _symbols(locale)
    text = format(abs(value), f",.{decimals}f")
    if trim and decimals:
        text = text.rstrip("0").rstrip(".")
    text = text.replace(",", "\0").replace(".", point).replace("\0", group)
    return "-" + text if signed else text


def group_symbol(locale: str) -> str:
    """What ``format_number`` puts between groups of three digits in ``locale``: a page script that counts in
    the page's language groups its digits with it."""
    return _symbols(locale)[0]


@lru_cache(maxsize=None)
def _symbols(locale: str) -> tuple[str, str]:
    """The locale's digit group and decimal symbols (Babel's data)."""
    found = _locale(locale)
    return get_group_symbol(found), get_decimal_symbol(found)


@lru_cache(maxsize=None)
def _locale(identifier: str) -> Locale:
    return Locale.parse(identifier)
