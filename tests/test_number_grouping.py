"""Digit grouping with the pattern parsed once is Babel's format_decimal, digit for digit."""

from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_decimal
from hypothesis import given, settings
from hypothesis import strategies as st

from vramsite.render.numbers import _grouped, quantize


@settings(max_examples=300, deadline=None)
@given(st.decimals(min_value=-10**9, max_value=10**9, allow_nan=False, allow_infinity=False, places=6),
       st.integers(min_value=0, max_value=4), st.booleans(), st.sampled_from(["en", "zh_CN", "de_DE", "fr_FR"]))
def test_grouped_reads_as_format_decimal(value, decimals, trim, locale):
    rounded = quantize(Decimal(value), decimals)
    pattern = "#,##0" + ("." + ("#" if trim else "0") * decimals if decimals else "")
    # __wrapped__: the function itself; its cache keys Decimal("-0") and Decimal("0") alike, as they are equal
    assert _grouped.__wrapped__(rounded, decimals, trim, locale) == format_decimal(rounded, format=pattern,
                                                                                    locale=locale)
