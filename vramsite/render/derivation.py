"""A figure's formula as one line a reader can check with a calculator.

    2 × 80 layers × 8 KV heads × 128 × 2 B × 8,192 tokens × batch 1 = 2.7 GB

One level deep: each term is shown as its own figure, so a sum of a product
reads as "weights 70 GB + KV cache 2.7 GB + runtime overhead 2 GB = 75 GB".
"""

from __future__ import annotations

from ..calc.figure import Figure
from .format import Formatter


EXTREMES = {"max": "the larger of {a} and {b}", "min": "the smaller of {a} and {b}"}
"""How the larger or smaller of two figures reads: a msgid each (calculator.js words them by the same msgids)."""


def explain(figure: Figure, fmt: Formatter, decimals: int | None = None) -> str:
    """'terms = result', or '' for an input that has no formula and for a figure that is its one term."""
    formula = figure.formula
    if formula is None or _is_its_term(figure):
        return ""
    result = fmt.figure(figure, decimals)
    if formula.op in ("⌈÷⌉", "⌊÷⌋"):
        a, b = formula.terms
        left, right = ("⌈", "⌉") if formula.op == "⌈÷⌉" else ("⌊", "⌋")
        return f"{left}{_term(a, fmt, False)} ÷ {_term(b, fmt, False)}{right} = {result}"
    if formula.op in EXTREMES:
        a, b = formula.terms
        pattern = fmt.gettext(EXTREMES[formula.op])
        return f"{pattern.replace('{a}', _term(a, fmt, False)).replace('{b}', _term(b, fmt, False))} = {result}"
    if formula.op == "^":
        base, exponent = formula.terms
        return f"{_term(base, fmt, False)} ^ {fmt.number(exponent)} = {result}"
    named = formula.op in ("+", "−")
    terms = f" {formula.op} ".join(_term(term, fmt, named) for term in formula.terms)
    return f"{terms} = {result}"


def _is_its_term(figure: Figure) -> bool:
    """A sum of one term (the others were zero) says nothing its term does not: "70,272 bytes = 70,272 bytes"."""
    terms = figure.formula.terms
    return len(terms) == 1 and terms[0].value == figure.value and terms[0].unit == figure.unit


def _term(term: Figure, fmt: Formatter, named: bool) -> str:
    text = fmt.figure(term)
    if named and term.label:
        return f"{fmt.gettext(term.label)} {text}"
    return text
