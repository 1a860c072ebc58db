"""Digit grouping with the pattern parsed once is Babel's format_decimal, digit for digit."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from hypothesis import given, settings
from hypothesis import strategies as st

from vramsite.render.numbers import DisplaySpec, _grouped, format_number, quantize


def _babel(value: Decimal, decimals: int, trim: bool, locale: str) -> str:
    """Babel's text of the rounded value, which keeps a minus sign only where the value is below zero."""
    rounded = quantize(Decimal(value), decimals)
    if not value < 0:
        rounded = rounded.copy_abs()
    pattern = "#,##0" + ("." + ("#" if trim else "0") * decimals if decimals else "")
    return format_decimal(rounded, format=pattern, locale=locale)


@settings(max_examples=300, deadline=None)
@given(st.decimals(min_value=-10**9, max_value=10**9, allow_nan=False, allow_infinity=False, places=6),
       st.integers(min_value=0, max_value=4), st.booleans(), st.sampled_from(["en", "zh_CN", "de_DE", "fr_FR"]))
def test_format_number_reads_as_format_decimal(value, decimals, trim, locale):
    assert format_number(Decimal(value), DisplaySpec(decimals, trim), locale) == _babel(value, decimals, trim, locale)


@pytest.mark.parametrize("first, second", [("-0.001", "0.001"), ("0.001", "-0.001"), ("-0.0", "0.0")])
def test_negative_zero_and_zero_do_not_share_a_remembered_text(first, second):
    """Decimal("-0.00") == Decimal("0.00"): whichever is printed first must not decide how the other reads."""
    _grouped.cache_clear()
    spec = DisplaySpec(2)
    shown = [format_number(Decimal(text), spec, "en") for text in (first, second)]
    assert shown == [_babel(Decimal(text), 2, False, "en") for text in (first, second)]


@pytest.mark.parametrize("value, shown", [("-0.0", "0"), ("-0", "0"), ("0", "0"), ("-0.001", "-0"), ("-0.6", "-1")])
def test_only_a_figure_below_zero_keeps_its_minus_sign(value, shown):
    """As the in-page calculator prints it (templates/static/calculator.js: a minus where the value is below zero)."""
    assert format_number(Decimal(value), DisplaySpec(0), "en") == shown


def test_the_grouping_is_babels_own_for_every_language_the_data_may_name():
    """``_grouped`` writes digits in groups of three with the locale's symbols by hand, for speed; it is held here
    to Babel's own pattern over many rounded values, negative and zero ones too, in languages with other symbols."""
    import random

    from babel import Locale
    from babel.numbers import parse_pattern

    from vramsite.render.numbers import _grouped, quantize

    def _babel_grouped(value: Decimal, decimals: int, trim: bool, locale: str) -> str:
        pattern = parse_pattern("#,##0" + ("." + ("#" if trim else "0") * decimals if decimals else ""))
        return pattern.apply(value, Locale.parse(locale))

    chance = random.Random(20261205)
    for locale in ("en", "zh_CN", "de", "fr", "hi", "ar", "ru", "pt_BR"):
        for _ in range(3000):
            decimals, trim = chance.choice([0, 1, 2, 3]), chance.random() < 0.5
            value = quantize(Decimal(chance.uniform(-1e7, 1e7)) / Decimal(10) ** chance.randint(0, 6), decimals)
            assert _grouped(value, value.is_signed(), decimals, trim, locale) == \
                _babel_grouped(value, decimals, trim, locale), (locale, value, decimals, trim)
