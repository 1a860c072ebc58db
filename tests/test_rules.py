"""The sizing and rental rules (vramsite/calc/rules.py), and that every copy of a figure agrees with them."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal

import pytest

from cli_support import ROOT
from seed_sites import seed_data_root
from vramsite.calc import Guide, rules
from vramsite.calc.cost import order_price
from vramsite.calc.lookup import candidates, cheapest_after, configuration
from vramsite.calc.memory import max_context, method_memory
from vramsite.calc.figure import Figure, given
from vramsite.load import load_site
from vramsite.load.model import Discount, Interconnect, MethodKind, Period, Precision, Selection, full_attention

SITES = {
    "live main": ROOT,
    "live quick": ROOT / "sites" / "quick",
    "seed 000": seed_data_root("000"),
    "seed 003": seed_data_root("003"),
}


@pytest.fixture(scope="module", params=sorted(SITES))
def any_guide(request) -> Guide:
    return Guide(load_site(SITES[request.param]))


@pytest.fixture(scope="module")
def seed_guide() -> Guide:
    return Guide(load_site(seed_data_root("000")))


def _card(guide: Guide, **changes):
    """The site's first card, changed: the rules read only the fields a test sets."""
    return replace(guide.data.gpus[0], **changes)


def _method(guide: Guide, **changes):
    return replace(guide.data.methods[0], **changes)


def _lookup_rules(guide: Guide, **changes):
    return replace(guide.data.lookup, **changes)


# -- what may be rented -------------------------------------------------------------


def test_a_card_rents_in_its_own_counts_or_the_lookups(seed_guide):
    lookup = _lookup_rules(seed_guide, card_counts=(1, 2, 4, 8))
    assert rules.allowed_counts(_card(seed_guide, rentable_counts=(8,)), lookup) == (8,)
    assert rules.allowed_counts(_card(seed_guide, rentable_counts=None), lookup) == (1, 2, 4, 8)


def test_a_card_lacks_the_feature_its_methods_precision_needs(seed_guide):
    fp8 = _method(seed_guide, precision=Precision("fp8", "FP8", Decimal(1), "fp8"))
    assert rules.lacks_feature(_card(seed_guide, features=frozenset()), fp8) == "fp8"
    assert rules.lacks_feature(_card(seed_guide, features=frozenset({"fp8"})), fp8) is None
    plain = _method(seed_guide, precision=Precision("bf16", "BF16", Decimal(2)))
    assert rules.lacks_feature(_card(seed_guide, features=frozenset()), plain) is None
    flat = _method(seed_guide, precision=None, bytes_per_param=Decimal(2))
    assert rules.lacks_feature(_card(seed_guide, features=frozenset()), flat) is None


def test_the_rental_rules(seed_guide):
    lookup = _lookup_rules(seed_guide, card_counts=(1, 2, 4, 8))
    fp8 = _method(seed_guide, precision=Precision("fp8", "FP8", Decimal(1), "fp8"), needs_all_to_all=False)
    spread = _method(seed_guide, precision=None, bytes_per_param=Decimal(2), needs_all_to_all=True)
    bridged = _card(seed_guide, rentable_counts=None, features=frozenset({"fp8"}),
                    interconnect=Interconnect("nvlink-bridge", Decimal(112), 2))
    pcie = replace(bridged, interconnect=Interconnect("pcie-gen4", Decimal(32), None))
    assert rules.meets_rules(bridged, 2, fp8, lookup)
    assert not rules.meets_rules(bridged, 3, fp8, lookup), "3 is not a lookup card count"
    assert not rules.meets_rules(replace(bridged, rentable_counts=(2,)), 1, fp8, lookup)
    assert not rules.meets_rules(replace(bridged, features=frozenset()), 1, fp8, lookup)
    assert rules.meets_rules(bridged, 2, spread, lookup)
    assert not rules.meets_rules(bridged, 4, spread, lookup), "the bridge joins two cards, not four"
    assert not rules.meets_rules(pcie, 2, spread, lookup), "PCIe is no all-to-all link"
    assert rules.meets_rules(pcie, 1, spread, lookup), "one card needs no link"
    assert rules.meets_rules(pcie, 4, fp8, lookup), "a method that shards nothing needs no link"


# -- what fits, and how much is left ------------------------------------------------


def test_a_need_fits_split_evenly_up_to_the_last_byte():
    assert rules.fits(Decimal(80), Decimal(80))
    assert not rules.fits(Decimal("80.000000001"), Decimal(80))
    assert rules.fits(Decimal(150), Decimal(80), 2)
    assert not rules.fits(Decimal(161), Decimal(80), 2)
    assert rules.fits(Decimal(320), Decimal(80), 4)


def test_headroom_is_what_each_card_keeps():
    assert rules.need_per_card(Decimal(150), 2) == Decimal(75)
    assert rules.headroom_per_card(Decimal(80), Decimal(150), 2) == Decimal(5)
    assert rules.headroom_per_card(Decimal(80), Decimal(70), 1) == Decimal(10)
    assert rules.headroom_per_card(Decimal(24), Decimal(30), 1) == Decimal(-6)


def test_tight_has_one_limit_for_one_card_and_one_per_card_for_several(seed_guide):
    lookup = _lookup_rules(seed_guide, tight_single_gb=Decimal(10), tight_per_card_gb=Decimal(4))
    assert rules.is_tight(Decimal(5), 1, lookup)
    assert not rules.is_tight(Decimal(5), 2, lookup)
    assert rules.is_tight(Decimal("3.9"), 4, lookup)
    assert not rules.is_tight(Decimal(10), 1, lookup), "exactly the limit is not tight"
    assert rules.holds_roomily(Decimal(80), Decimal(70), lookup)
    assert not rules.holds_roomily(Decimal(80), Decimal("70.5"), lookup)


def test_the_headroom_figure_shows_card_memory_minus_the_need_per_card():
    memory, need = given(80, "GB", "memory", "card memory"), given(150, "GB", "memory", "total")
    headroom = rules.headroom_figure(memory, need, 2)
    assert headroom.value == Decimal(5) and headroom.unit == "GB"
    minuend, per_card = headroom.formula.terms
    assert minuend == memory and per_card.value == Decimal(75) and per_card.formula.terms[0] == need
    assert rules.headroom_figure(memory, need, 1).formula.terms == (memory, need)


# -- what an order costs -------------------------------------------------------------


def test_an_order_is_count_times_price_less_its_discount():
    discounts = (Discount(2, Decimal(5)), Discount(4, Decimal(10)))
    assert rules.order_usd(Decimal(100), 1, discounts) == Decimal(100)
    assert rules.order_usd(Decimal(100), 2, discounts) == Decimal(190)
    assert rules.order_usd(Decimal(100), 4, discounts) == Decimal(360)
    assert rules.order_usd(Decimal(100), 8, discounts) == Decimal(800), "no discount for 8 cards"
    assert rules.discount_percent(8, discounts) == 0 and rules.kept_share(Decimal(10)) == Decimal("0.9")


def test_the_order_price_figure_has_the_rules_value_for_every_card_and_count(any_guide):
    data = any_guide.data
    checked = 0
    for gpu in data.gpus:
        usd = data.pricing.usd.get(gpu.id)
        for count in rules.allowed_counts(gpu, data.lookup):
            figure = order_price(gpu, count, data.pricing, data.discounts)
            if usd is None:
                assert figure is None
                continue
            assert figure.value == rules.order_usd(usd, count, data.discounts), (gpu.id, count)
            checked += 1
    assert checked


def test_the_lookups_fast_path_prices_every_offer_as_the_order_price_does(any_guide):
    """Each option the lookup compares in plain numbers is the configuration it would show."""
    market, data = any_guide.market, any_guide.data
    nothing = Figure(Decimal(0), "GB", "memory")
    seen = set()
    for method in data.methods:
        for option in candidates(nothing, method, market):
            shown = configuration(nothing, option.gpu, option.count, market)
            assert option.price == shown.price.value, (method.id, option.gpu.id, option.count)
            assert option.price == order_price(option.gpu, option.count, data.pricing, data.discounts).value
            assert option.headroom_per_card == shown.headroom_per_card.value
            seen.add((option.gpu.id, option.count))
    priced = {(gpu.id, count) for gpu in data.gpus if data.pricing.usd.get(gpu.id) is not None
              for count in rules.allowed_counts(gpu, data.lookup)
              if any(rules.meets_rules(gpu, count, method, data.lookup) for method in data.methods)}
    assert seen == priced


def test_a_chosen_configuration_keeps_the_options_headroom_and_tightness(any_guide):
    for model, method, found in any_guide.grid_cells():
        if found.choice is None:
            continue
        choice = found.choice
        expected = rules.headroom_per_card(choice.gpu.memory_gb, found.need.value, choice.count)
        assert choice.headroom_per_card.value == expected, (model.id, method.id)
        assert choice.tight == rules.is_tight(expected, choice.count, any_guide.data.lookup)
        assert rules.fits(found.need.value, choice.gpu.memory_gb, choice.count)
        assert rules.meets_rules(choice.gpu, choice.count, method, any_guide.data.lookup)


def test_a_cell_names_the_cheapest_configuration_where_the_rule_picks_a_dearer_one(any_guide):
    """Nothing that holds the need costs less than the cell's cheapest, and it is named only when cheaper."""
    named = 0
    for model, method, found in any_guide.grid_cells():
        if found.choice is None:
            assert found.cheapest is None
            continue
        holding = [option.price for option in candidates(found.need, method, any_guide.market)]
        lowest = min(holding)
        if found.cheapest is None:
            assert found.choice.price.value == lowest, (model.id, method.id)
        else:
            named += 1
            assert found.cheapest.price.value == lowest < found.choice.price.value, (model.id, method.id)
            assert rules.fits(found.need.value, found.cheapest.gpu.memory_gb, found.cheapest.count)
    if any_guide.data.lookup.selection == Selection.SMALLEST_FIT:
        assert named, "a smallest-fit grid where no cell has a cheaper configuration: the check ran on nothing"


@pytest.mark.parametrize("prices, expected", [
    ([5, 3, 4], 1), ([3, 5, 4], None), ([5, 3, 3], 1), ([5, 5], None), ([], None), ([7], None),
])
def test_the_cheapest_after_the_pick_is_the_first_lowest_price_below_it(prices, expected):
    assert cheapest_after([Decimal(price) for price in prices]) == expected


# -- the longest context, from the memory formula ------------------------------------


CASES = 400


def _random_case(guide: Guide, rng: random.Random):
    """A random model shape, serving method, KV precision, batch and card memory."""
    template = next(m for m in guide.data.models if m.layers)
    model = replace(template, params_billion=Decimal(rng.randint(5, 4000)) / 10,
                    layers=full_attention(rng.randint(1, 128), rng.randint(1, 64), rng.choice((64, 80, 96, 128, 256))))
    weights = Precision("w", "w", rng.choice((Decimal("0.5"), Decimal(1), Decimal(2), Decimal(4))))
    inference = next(m for m in guide.data.methods if m.kind == MethodKind.INFERENCE)
    method = replace(inference, precision=weights, kv_cache=True, adapter=rng.random() < 0.2,
                     margin_percent=Decimal(rng.randint(0, 300)) / 10, overhead_gb=Decimal(rng.randint(0, 80)) / 10)
    kv = Precision("k", "k", rng.choice((Decimal("0.5"), Decimal(1), Decimal(2))))
    sizing = replace(guide.sizing, inference=replace(guide.data.inference, kv_precision=kv))
    batch = rng.randint(1, 64)
    memory_gb = Decimal(rng.randint(80, 3000)) / 10
    return model, method, sizing, batch, memory_gb


def _need(model, method, sizing, tokens: int, batch: int) -> Decimal:
    return method_memory(model, method, sizing, context_tokens=tokens, batch=batch).total.value


def test_the_longest_context_fits_and_one_token_more_does_not(seed_guide):
    rng = random.Random(20260601)
    answered = 0
    for _ in range(CASES):
        model, method, sizing, batch, memory_gb = _random_case(seed_guide, rng)
        tokens = max_context(model, method, sizing, memory_gb, batch)
        case = (model, method.margin_percent, method.overhead_gb, batch, memory_gb)
        if tokens is None or tokens.value == 0:
            assert not rules.fits(_need(model, method, sizing, 1, batch), memory_gb), case
            continue
        longest = int(tokens.value)
        assert rules.fits(_need(model, method, sizing, longest, batch), memory_gb), case
        assert not rules.fits(_need(model, method, sizing, longest + 1, batch), memory_gb), case
        answered += 1
    assert answered > CASES // 4, "too few cases had room for any context"


def test_a_card_exactly_the_size_of_a_need_gives_back_its_context(seed_guide):
    rng = random.Random(7)
    for _ in range(CASES):
        model, method, sizing, batch, _ = _random_case(seed_guide, rng)
        context = rng.randint(1, 1_000_000)
        memory_gb = _need(model, method, sizing, context, batch)
        assert max_context(model, method, sizing, memory_gb, batch).value == context, (model, method, batch)


def test_the_total_is_the_sum_of_the_terms_it_shows(seed_guide):
    rng = random.Random(11)
    for _ in range(CASES):
        model, method, sizing, batch, _ = _random_case(seed_guide, rng)
        need = method_memory(model, method, sizing, context_tokens=rng.randint(1, 200_000), batch=batch)
        shown = need.weights.value + need.adapter.value + need.kv_cache.value + need.margin.value + need.overhead.value
        assert need.total.value == shown
        assert sum(term.value for term in need.total.formula.terms) == shown


# -- the domain's names, as enums ------------------------------------------------------


def test_the_loader_builds_the_enums_and_they_read_as_the_yaml_text(any_guide):
    data = any_guide.data
    assert isinstance(data.pricing.period, Period) and data.pricing.period in ("month", "hour")
    assert isinstance(data.lookup.selection, Selection)
    assert all(isinstance(method.kind, MethodKind) for method in data.methods)
    assert f"{Period.MONTH}" == "month" and MethodKind.FINETUNE == "finetune"
    assert str(Selection.SMALLEST_FIT) == "smallest_fit"
