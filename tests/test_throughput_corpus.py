"""calc/throughput.py against published measurements (tests/data/throughput_corpus.yaml, tests/throughput_cases.py).

At one sequence the estimate of what a case measured is within the bound data/throughput.yaml states (``checked``,
which the model pages print) of it, for the cases data/throughput.yaml was set against and for those held back
alike; a case marked as an outlier must miss by more, and says why.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from throughput_cases import (
    comparable,
    corpus,
    error,
    estimate,
    fitted_layer_step,
)
from vramsite.calc import serving_speed, throughput



def bound(guide) -> Decimal:
    """data/throughput.yaml's stated bound, which the model pages print."""
    return guide.data.speed.checked_within_percent / 100


def one_sequence(guide, held_back: bool):
    return [case for case in corpus() if case.sequences == 1 and not comparable(case, guide)
            and case.held_back == held_back]


def test_the_corpus_holds_fifteen_sourced_cases_of_every_kind():
    cases = corpus()
    assert len(cases) >= 15
    assert all(case.source and case.quoted for case in cases)
    assert {case.parallel for case in cases} == {"none", "tensor", "pipeline"}
    assert any(case.sequences == 1 for case in cases) and any((case.sequences or 0) > 1 for case in cases)
    assert any(case.held_back for case in cases) and any(not case.held_back for case in cases)


@pytest.mark.parametrize("held_back", [False, True], ids=["tuned against", "held back"])
def test_one_sequence_estimates_are_within_35_percent(guide, held_back):
    cases = [case for case in one_sequence(guide, held_back) if not case.raw.get("outlier")]
    assert len(cases) >= 5
    misses = {case.id: f"{error(case, guide) * 100:+.1f} %" for case in cases if abs(error(case, guide)) > bound(guide)}
    assert not misses


def test_an_outlier_misses_by_more_than_the_bound_and_says_why(guide):
    outliers = [case for case in corpus() if case.raw.get("outlier")]
    assert len(outliers) <= 2
    for case in outliers:
        assert abs(error(case, guide)) > bound(guide), f"{case.id} is within the bound: it is no outlier"
        assert len(case.outlier) > 40


def test_the_layer_step_is_the_fit_over_the_cases_tuned_against(guide):
    fitted = fitted_layer_step(guide)
    stated = guide.data.speed.layer_step_s
    assert abs(fitted / stated - 1) < Decimal("0.01"), (fitted, stated)


def _compared(guide):
    return [case for case in corpus() if not comparable(case, guide)]


def test_no_estimate_passes_the_ceilings_it_states(guide):
    for case in _compared(guide):
        step = estimate(case, guide).step
        tokens = step.tokens_per_s().value
        assert tokens <= case.sequences / step.reading.value
        if step.computing is not None:
            assert tokens <= case.sequences / step.computing.value


def test_a_mixture_of_experts_reads_more_experts_as_the_batch_grows(guide):
    model = guide.data.catalogue_model("deepseek-v3")
    fp8 = guide.weight_format("fp8")
    one, eight, many = (serving_speed.weights_read(model, fp8, tokens).value for tokens in (1, 8, 4096))
    dense = guide.data.catalogue_model("llama-3.1-8b")
    assert one < eight < many
    assert many <= serving_speed.weights_read(model, fp8, 10 ** 6).value
    assert throughput.expert_share(256, 8, 1).value == Decimal(8) / 256
    assert serving_speed.weights_read(dense, fp8, 1).value == serving_speed.weights_read(dense, fp8, 64).value


def test_splitting_by_layers_gains_no_speed_for_one_sequence(guide):
    case = next(case for case in corpus() if case.parallel == "pipeline")
    model = guide.data.catalogue_model(case.same_shape)
    fmt = guide.weight_format(case.weights)
    rates = guide.card_rates(guide.data.gpu(case.card), fmt)
    work = serving_speed.decode_work(model, fmt, guide.data.engines.kv_cache_format("bf16"), 512, 1)
    layer = guide.data.speed.layer_step_s
    alone = throughput.step(work, rates, 1, False, layer).seconds.value
    assert throughput.step(work, rates, case.cards, False, layer).seconds.value == alone
    assert throughput.step(work, rates, case.cards, True, layer).seconds.value < alone


def test_a_set_exchanges_over_its_links_one_way(guide):
    """NVLink joins each card to the rest at its whole link; an Infinity Fabric mesh gives each pair one link, so a
    pair of MI300X exchanges at one link's speed (data/gpus.yaml interconnect, one way)."""
    fp8 = guide.weight_format("fp8")
    nvlink = guide.card_rates(guide.data.gpu("h100-sxm"), fp8)
    mesh = guide.card_rates(guide.data.gpu("mi300x"), fp8)
    assert [throughput.set_link(nvlink, n).value for n in (2, 4, 8)] == [450, 450, 450]
    assert [throughput.set_link(mesh, n).value for n in (2, 4, 8)] == [64, 192, 448]
    model = guide.data.catalogue_model("llama-3.1-70b-instruct")
    work = serving_speed.decode_work(model, fp8, guide.data.engines.kv_cache_format("bf16"), 4096, 256)
    on_nvlink = throughput.exchange(work, throughput.set_link(nvlink, 2), 2).value
    on_mesh = throughput.exchange(work, throughput.set_link(mesh, 2), 2).value
    assert abs(on_mesh / on_nvlink - Decimal(450) / 64) < Decimal("1e-20")
