"""A number that remembers where it came from.

Every figure the pages print is a ``Figure``: an exact ``Decimal`` value, its
unit, what kind of quantity it is (the renderer picks decimals by kind), a
label saying what it is, and the formula that produced it from other figures.
Inputs read from data have no formula. Nothing here rounds or formats.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

class FigureKind(StrEnum):
    """What a figure measures. The renderer maps each kind to the decimals a site shows (data/site.yaml
    ``display``, whose schema lists these kinds and no other)."""

    MEMORY = "memory"  # GB a configuration needs or offers
    WEIGHTS = "weights"  # GB of weights or adapters: exact products, shown as they are
    KV_CACHE = "kv_cache"  # GB of KV cache
    KV_PER_TOKEN = "kv_per_token"  # MB of KV cache per token
    PRICE = "price"  # whole-dollar amounts: a month, a week, an order
    RATE = "rate"  # dollar rates: per GB, per GPU-hour
    EFFICIENCY = "efficiency"  # GB/s per dollar
    THROUGHPUT = "throughput"  # tokens per second
    BANDWIDTH = "bandwidth"  # GB/s (printed as TB/s from 1,000 up)
    PERCENT = "percent"
    MULTIPLE = "multiple"  # "2.6×"
    COUNT = "count"  # layers, heads, tokens, cards: whole numbers
    FACTOR = "factor"  # bytes per parameter and other exact inputs
    SECONDS = "seconds"  # a step, the time to the first token


# The kinds by their short names, as the calculation writes them.
MEMORY, WEIGHTS, KV_CACHE, KV_PER_TOKEN = (FigureKind.MEMORY, FigureKind.WEIGHTS, FigureKind.KV_CACHE,
                                          FigureKind.KV_PER_TOKEN)
PRICE, RATE, EFFICIENCY, THROUGHPUT = FigureKind.PRICE, FigureKind.RATE, FigureKind.EFFICIENCY, FigureKind.THROUGHPUT
BANDWIDTH, PERCENT, MULTIPLE = FigureKind.BANDWIDTH, FigureKind.PERCENT, FigureKind.MULTIPLE
COUNT, FACTOR, SECONDS = FigureKind.COUNT, FigureKind.FACTOR, FigureKind.SECONDS


@dataclass(frozen=True, slots=True)
class Formula:
    """``op`` applied to ``terms`` in order: '+', '−', '×', '÷', 'ceil'."""

    op: str
    terms: tuple["Figure", ...]


_set = object.__setattr__


@dataclass(frozen=True, slots=True, init=False)
class Figure:
    value: Decimal
    unit: str = ""
    kind: FigureKind = FACTOR
    label: str = ""
    formula: Formula | None = None

    # A build makes some hundred thousand figures: with slots and this plain __init__ each takes a third
    # less memory and about a quarter less time to make than with the generated __init__ and a __dict__.
    def __init__(self, value, unit: str = "", kind: FigureKind = FACTOR, label: str = "",
                 formula: Formula | None = None):
        _set(self, "value", value if type(value) is Decimal else Decimal(value))
        _set(self, "unit", unit)
        _set(self, "kind", kind)
        _set(self, "label", label)
        _set(self, "formula", formula)

    # Comparisons let content and tests ask "is this bigger than that".
    def __lt__(self, other: "Figure | Decimal | int") -> bool:
        return self.value < _value(other)

    def __le__(self, other: "Figure | Decimal | int") -> bool:
        return self.value <= _value(other)

    def __gt__(self, other: "Figure | Decimal | int") -> bool:
        return self.value > _value(other)

    def __ge__(self, other: "Figure | Decimal | int") -> bool:
        return self.value >= _value(other)


def _value(other: "Figure | Decimal | int") -> Decimal:
    return other.value if isinstance(other, Figure) else Decimal(other)


class Input(Decimal):
    """A named number standing in for one a reader types (a context, a batch, a card's memory): a calculation
    given Inputs builds the same formulas as for plain numbers, with each Input's figure a ``Variable`` that
    names it, so that the formula can be written out as data and evaluated for other numbers
    (render/calculator/formulas.py). Equal only to an Input of the same name and value, so that no cache of
    plain answers hands out a formula built for numbers."""

    __slots__ = ("name",)

    def __new__(cls, value, name: str):
        number = super().__new__(cls, value)
        number.name = name
        return number

    def __eq__(self, other) -> bool:
        return isinstance(other, Input) and other.name == self.name and Decimal.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("input", self.name, Decimal.__hash__(self)))


class Variable(Figure):
    """The figure of an ``Input``: an input figure that keeps the input's name."""

    __slots__ = ("name",)

    def __init__(self, value: Input, unit: str = "", kind: FigureKind = FACTOR, label: str = ""):
        Figure.__init__(self, value, unit, kind, label)
        _set(self, "name", value.name)

    def __eq__(self, other) -> bool:
        return isinstance(other, Variable) and other.name == self.name and Figure.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("variable", self.name, self.value, self.unit, self.kind, self.label))


def given(value, unit: str = "", kind: FigureKind = FACTOR, label: str = "") -> Figure:
    """An input figure, read from data or fixed by definition (a ``Variable`` for an ``Input``)."""
    if isinstance(value, Input):
        return Variable(value, unit, kind, label)
    return Figure(Decimal(value), unit, kind, label)


def total(*terms: Figure, unit: str, kind: FigureKind, label: str = "") -> Figure:
    """The sum of the terms; zero terms stay out of the formula."""
    shown = tuple(term for term in terms if term.value != 0) or terms[:1]
    return Figure(value=sum((term.value for term in terms), Decimal(0)), unit=unit, kind=kind, label=label,
                  formula=Formula("+", shown))


def difference(minuend: Figure, subtrahend: Figure, *, unit: str | None = None, kind: FigureKind | None = None,
               label: str = "") -> Figure:
    return Figure(value=minuend.value - subtrahend.value, unit=minuend.unit if unit is None else unit,
                  kind=kind or minuend.kind, label=label, formula=Formula("−", (minuend, subtrahend)))


def product(*terms: Figure, unit: str, kind: FigureKind, label: str = "", scale: Decimal = Decimal(1)) -> Figure:
    """The product of the terms, times ``scale`` (a unit change such as bytes to GB)."""
    value = Decimal(1)
    for term in terms:
        value *= term.value
    return Figure(value=value * scale, unit=unit, kind=kind, label=label, formula=Formula("×", terms))


def quotient(numerator: Figure, denominator: Figure, *, unit: str, kind: FigureKind, label: str = "",
             scale: Decimal = Decimal(1)) -> Figure:
    return Figure(value=numerator.value / denominator.value * scale, unit=unit, kind=kind, label=label,
                  formula=Formula("÷", (numerator, denominator)))


def ceiling_quotient(numerator: Figure, denominator: Figure, *, unit: str, label: str = "") -> Figure:
    """The smallest whole number not below numerator ÷ denominator."""
    exact = numerator.value / denominator.value
    whole = exact.to_integral_value(rounding="ROUND_CEILING")
    return Figure(value=whole, unit=unit, kind=COUNT, label=label,
                  formula=Formula("⌈÷⌉", (numerator, denominator)))
