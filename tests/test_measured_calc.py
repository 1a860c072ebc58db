"""The measured figures against the formulas: predictions, differences and the conclusions drawn from them."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.calc.measured import measured_run
from vramsite.units import BYTES_PER_GB, BYTES_PER_MIB

RAW = Path(__file__).resolve().parent.parent.parent / "shared" / "measurements" / "h200-2026-11-30.json"


@pytest.fixture(scope="module")
def run(site_data):
    return measured_run(site_data.measurement("h200-2026-11-30"), site_data)


@pytest.mark.skipif(not RAW.is_file(), reason="the raw H200 figures are not beside this checkout")
def test_the_formulas_agree_with_the_formula_bytes_the_run_recorded(run):
    raw = json.loads(RAW.read_text(encoding="utf-8"))
    assert run.find("weights", "7b-gqa").formula.value * BYTES_PER_GB == raw["infer_7b_gqa"]["weights_formula_bytes"]
    assert run.find("weights", "13b-mha").formula.value * BYTES_PER_GB == raw["infer_13b_mha"]["weights_formula_bytes"]
    assert run.find("kv_cache", "7b-gqa").formula.value * BYTES_PER_GB == raw["infer_7b_gqa"]["kv_formula_bytes"]
    assert run.find("kv_cache", "13b-mha").formula.value * BYTES_PER_GB == raw["infer_13b_mha"]["kv_formula_bytes"]
    assert run.find("finetune", method_id="full").formula.value * BYTES_PER_GB == raw["full_7b"]["state_formula_16B"]


def test_each_difference_is_measured_less_formula_and_its_percent_of_the_formula(run):
    assert len(run.comparisons) >= 10
    for item in run.comparisons:
        assert item.difference.value == item.measured.value - item.formula.value
        assert item.percent.value == item.difference.value / item.formula.value * 100
        assert item.gap.value == abs(item.difference.value) and item.gap_percent.value == abs(item.percent.value)
        assert item.formula_covers == (item.difference.value <= 0)
        assert all(isinstance(figure.value, Decimal) for figure in (item.formula, item.measured, item.percent))


def test_the_card_s_reported_mib_are_decimal_gb_against_its_sold_size(run, site_data):
    memory = run.find("card_memory")
    total_mib = site_data.measurement("h200-2026-11-30").total_mib
    assert memory.formula.value == site_data.gpu("h200-sxm").memory_gb
    assert memory.measured.value == total_mib * BYTES_PER_MIB / BYTES_PER_GB
    assert Decimal("150.7") < memory.measured.value < Decimal("150.8")  # 143,771 MiB, sold as 141 GB


def test_the_overhead_is_context_and_workspace_above_the_memory_in_use_before(run, site_data):
    measurement = site_data.measurement("h200-2026-11-30")
    overhead = run.find("overhead")
    taken = (measurement.used_mib_after_workspace - measurement.used_mib_before) * BYTES_PER_MIB / BYTES_PER_GB
    assert overhead.measured.value == taken
    assert overhead.formula.value == site_data.inference.overhead_gb
    assert overhead.formula_covers == (taken <= site_data.inference.overhead_gb)


def test_an_overhead_below_the_measured_context_is_not_conservative(site_data):
    small = replace(site_data, inference=replace(site_data.inference, overhead_gb=Decimal("0.5")))
    assert not measured_run(site_data.measurement("h200-2026-11-30"), small).find("overhead").formula_covers


def test_fine_tuning_rules_use_the_base_model_without_its_adapters(run, site_data):
    lora_run = site_data.measurement("h200-2026-11-30").lora
    lora = run.find("finetune", method_id="lora")
    share = site_data.finetune.adapter.share_percent / 100
    per_param = site_data.precision("bf16").bytes_per_param + share * site_data.finetune.adapter.bytes_per_param
    assert lora.formula.value == (lora_run.params - lora_run.trainable) * per_param / BYTES_PER_GB
    assert lora.measured.value == lora_run.peak_bytes / BYTES_PER_GB
    assert run.adapter_share.value == Decimal(lora_run.trainable) / (lora_run.params - lora_run.trainable) * 100


def test_the_margin_of_full_fine_tuning_is_what_makes_it_cover_the_peak(run):
    plain, with_margin = (run.find("finetune", method_id=key) for key in ("full", "full-act"))
    assert with_margin.formula.value > plain.formula.value
    assert with_margin.formula_covers == (with_margin.formula.value >= with_margin.measured.value)


def test_achieved_bandwidth_is_bytes_over_the_median_run_against_the_spec(run, site_data):
    bandwidth = run.find("bandwidth")
    streamed = site_data.measurement("h200-2026-11-30").bandwidth
    assert bandwidth.measured.value == Decimal(streamed.bytes) / BYTES_PER_GB / streamed.median_s
    assert bandwidth.formula.value == site_data.gpu("h200-sxm").bandwidth_gbps
    assert run.achieved_share.value == bandwidth.measured.value / bandwidth.formula.value * 100


def test_a_run_without_optional_parts_compares_what_it_has(site_data):
    bare = replace(site_data.measurement("h200-2026-11-30"), bandwidth=None, lora=None, full=None, total_mib=None,
                   used_mib_after_workspace=None)
    keys = {item.key for item in measured_run(bare, site_data).comparisons}
    assert keys == {"weights", "kv_cache", "prefill", "serving"}


def test_a_site_assuming_no_overhead_gets_a_difference_but_no_percent(site_data):
    none = replace(site_data, inference=replace(site_data.inference, overhead_gb=Decimal(0)))
    overhead = measured_run(site_data.measurement("h200-2026-11-30"), none).find("overhead")
    assert overhead.percent is None and overhead.gap_percent is None
    assert overhead.difference.value == overhead.measured.value and not overhead.formula_covers
