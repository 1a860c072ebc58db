"""Measurement files: read exactly as measured, each bad value reported as file:line: field: message."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.errors import InputError
from vramsite.load import load_site

ROOT = Path(__file__).resolve().parent.parent
RUN = "data/measurements/h200-2026-11-30.yaml"
RAW = ROOT.parent / "shared" / "measurements" / "h200-2026-11-30.json"


def edit_run(root: Path, old: str, new: str) -> int:
    """Replace ``old`` by ``new`` once in the H200 run's file; return the line where ``new`` starts."""
    path = root / RUN
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


def problems_of(root: Path) -> list:
    with pytest.raises(InputError) as caught:
        load_site(root)
    return caught.value.problems


def test_the_run_is_read_with_its_card_shapes_and_provenance(site_data):
    run = site_data.measurement("h200-2026-11-30")
    assert site_data.gpu(run.gpu).name == "H200 SXM"
    assert run.provenance.startswith("one NVIDIA H200, torch 2.11.0+cu130")
    assert [shape.id for shape in run.shapes] == ["7b-gqa", "13b-mha"]
    gqa, mha = run.shapes
    assert (gqa.layers, gqa.attention_heads, gqa.kv_heads, gqa.hidden_size, gqa.vocab_size) == (32, 32, 8, 4096, 32000)
    assert (mha.layers, mha.attention_heads, mha.kv_heads, mha.head_dim) == (40, 40, 40, 128)
    assert run.precision.id == "bf16" and run.memory_from == "cuda"


@pytest.mark.skipif(not RAW.is_file(), reason="the raw H200 figures are not beside this checkout")
def test_every_figure_is_the_raw_run_s_exactly(site_data):
    raw = json.loads(RAW.read_text(encoding="utf-8"), parse_float=Decimal)
    run = site_data.measurement("h200-2026-11-30")
    assert run.total_mib == raw["smi_before_torch"]["total_mib"]
    assert run.used_mib_before == raw["smi_before_torch"]["used_mib"]
    assert run.used_mib_after_workspace == raw["context"]["after_cublas_matmul"]["used_mib"]
    for measured, key in zip(run.inference, ("infer_7b_gqa", "infer_13b_mha")):
        source = raw[key]
        assert (measured.params, measured.weights_bytes, measured.kv_bytes, measured.prefill_peak_bytes,
                measured.used_mib_at_end, measured.context_tokens) == (
            source["params"], source["weights_bytes"], source["kv_bytes_held"], source["prefill_peak_bytes"],
            source["smi_at_end"]["used_mib"], source["ctx"])
    assert run.bandwidth.bytes == raw["gemv_bandwidth"]["bytes"]
    assert run.bandwidth.median_s == raw["gemv_bandwidth"]["median_s"]  # not rounded on the way in
    assert (run.lora.params, run.lora.trainable, run.lora.peak_bytes, run.lora.sequence_tokens) == (
        raw["lora_7b"]["params"], raw["lora_7b"]["trainable"], raw["lora_7b"]["peak_bytes"], raw["lora_7b"]["seq"])
    assert (run.full.params, run.full.peak_bytes, run.full.used_mib_at_end) == (
        raw["full_7b"]["params"], raw["full_7b"]["peak_bytes"], raw["full_7b"]["smi_at_end"]["used_mib"])


def test_a_site_without_the_folder_has_no_measurements():
    assert load_site(ROOT / "sites" / "quick").measurements == ()


CASES = [
    # (id, old, new, field, words in the message)
    ("unknown card", "gpu: h200-sxm", "gpu: h300", "gpu", "unknown card 'h300'"),
    ("unknown precision", "  precision: bf16", "  precision: bf12", "settings.precision", "unknown precision"),
    ("implausible total", "  total_mib: 143771", "  total_mib: 150760", "device.total_mib",
     "does not fit a card sold as 141 GB"),
    ("unknown shape", "  - shape: 13b-mha", "  - shape: 13b-gqa", "inference[1].shape", "unknown shape '13b-gqa'"),
    ("uneven KV heads", "    kv_heads: 8\n", "    kv_heads: 7\n", "shapes[7b-gqa].kv_heads", "cannot share 7 KV heads"),
    ("rounded bytes", "    kv_bytes: 1073871360", "    kv_bytes: 1.07e9", "inference[0].kv_bytes", "whole number"),
    ("unknown key", "    peak_bytes: 16038545408", "    peek_bytes: 16038545408", "finetune.lora.peek_bytes",
     "unknown key"),
    ("trainable above total", "    trainable: 13631488", "    trainable: 8000000000", "finetune.lora.trainable",
     "exceed"),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_a_bad_measurement_is_located(site_copy, case):
    _, old, new, field, words = case
    line = edit_run(site_copy, old, new)
    found = [p for p in problems_of(site_copy) if p.file == RUN and p.field == field]
    assert found, f"no problem for {field}"
    assert words in found[0].message, found[0].message
    assert found[0].line == line and str(found[0]).startswith(f"{RUN}:{line}: {field}: ")


def test_broken_yaml_in_a_run_is_located(site_copy):
    line = edit_run(site_copy, "  - shape: 7b-gqa\n    context_tokens", "  - shape: [7b-gqa\n    context_tokens")
    problem = problems_of(site_copy)[0]
    assert problem.file == RUN and problem.line is not None and problem.line >= line


def test_a_run_outlives_the_model_size_its_shape_stands_for(site_copy):
    edit_run(site_copy, "    model: 13B", "    model: 14B")  # as if the 13B row had been removed
    shape = load_site(site_copy).measurement("h200-2026-11-30").shapes[1]
    assert shape.model == "14B" and shape.layers == 40
