"""Properties of the calculation that must hold for any data, not just ours."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from vramsite.calc import Guide
from vramsite.calc.lookup import Market, candidates, lookup
from vramsite.calc.memory import method_memory
from vramsite.load.model import Precision

contexts = st.integers(min_value=1, max_value=1_048_576)
batches = st.integers(min_value=1, max_value=512)
money = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000"), places=2)


def _model_and_method(guide, data):
    model = data.draw(st.sampled_from(guide.data.models))
    method = data.draw(st.sampled_from(guide.data.methods))
    return model, method


@settings(max_examples=200, deadline=None)
@given(data=st.data(), c1=contexts, c2=contexts, b1=batches, b2=batches)
def test_more_context_or_batch_never_needs_less(guide, data, c1, c2, b1, b2):
    model, method = _model_and_method(guide, data)
    (c1, c2), (b1, b2) = sorted((c1, c2)), sorted((b1, b2))
    small = method_memory(model, method, guide.sizing, c1, b1).total
    large = method_memory(model, method, guide.sizing, c2, b2).total
    assert small <= large


@settings(max_examples=200, deadline=None)
@given(data=st.data(), low=st.decimals(min_value=Decimal("0.1"), max_value=Decimal("64"), places=2),
       extra=st.decimals(min_value=Decimal("0"), max_value=Decimal("64"), places=2))
def test_more_bytes_per_parameter_never_needs_less(guide, data, low, extra):
    model, method = _model_and_method(guide, data)
    if method.precision is None:
        method = replace(method, precision=Precision("x", "x", low), bytes_per_param=None, training_state=False)
    cheap = replace(method, precision=replace(method.precision, bytes_per_param=low))
    dear = replace(method, precision=replace(method.precision, bytes_per_param=low + extra))
    kv_cheap = replace(guide.sizing, inference=replace(guide.data.inference,
                                                       kv_precision=Precision("k", "k", low)))
    kv_dear = replace(guide.sizing, inference=replace(guide.data.inference,
                                                      kv_precision=Precision("k", "k", low + extra)))
    assert method_memory(model, cheap, kv_cheap).total <= method_memory(model, dear, kv_dear).total


def _cell_prices(market: Market, guide: Guide) -> dict:
    prices = {}
    for model in guide.data.models:
        for method in guide.data.methods:
            need = guide.need(model, method).total
            found = lookup(need, method, market)
            prices[(model.id, method.id)] = found.choice.price.value if found.choice else None
    return prices


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cut=st.decimals(min_value=Decimal("0.01"), max_value=Decimal("0.99"), places=2))
def test_a_lower_price_never_makes_a_cell_dearer(guide, data, cut):
    gpu = data.draw(st.sampled_from(guide.data.gpus))
    before = _cell_prices(guide.market, guide)
    usd = dict(guide.data.pricing.usd)
    usd[gpu.id] = usd[gpu.id] * cut
    cheaper = replace(guide.market, pricing=replace(guide.data.pricing, usd=usd))
    after = _cell_prices(cheaper, guide)
    for key, price in before.items():
        if price is not None:
            assert after[key] is not None and after[key] <= price, key


@settings(max_examples=60, deadline=None)
@given(data=st.data(), growth=st.decimals(min_value=Decimal("1"), max_value=Decimal("512"), places=0))
def test_a_larger_card_never_fits_less(guide, data, growth):
    gpu = data.draw(st.sampled_from(guide.data.gpus))
    bigger = replace(gpu, memory_gb=gpu.memory_gb + growth)
    gpus = tuple(bigger if g.id == gpu.id else g for g in guide.data.gpus)
    grown = replace(guide.market, gpus=gpus)
    for model in guide.data.models:
        for method in guide.data.methods:
            need = guide.need(model, method).total
            before, after = lookup(need, method, guide.market), lookup(need, method, grown)
            assert after.fits or not before.fits
            counts_before = {c.count for c in candidates(need, method, guide.market) if c.gpu.id == gpu.id}
            counts_after = {c.count for c in candidates(need, method, grown) if c.gpu.id == gpu.id}
            assert counts_before <= counts_after
