"""The published throughput measurements of tests/data/throughput_corpus.yaml, and calc/throughput.py's estimate
of what each one measured.

``python -m tests.throughput_cases`` prints each case beside its estimate.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

from vramsite.calc import serving_speed, throughput
from vramsite.calc.guide import Guide

CORPUS = Path(__file__).parent / "data" / "throughput_corpus.yaml"
KV_FORMATS = {"f16": "bf16", "fp16": "bf16", "auto": "bf16", "fp8": "fp8", "q8_0": "q8_0", None: "bf16"}
"""The data/engines.yaml KV cache format of each case's kv_cache (auto and unstated: the weights' 16 bits)."""
KV_WITH_FP8_WEIGHTS = {"trtllm": "fp8"}
"""TensorRT-LLM keeps an FP8 model's cache in FP8 ('If you specify FP8 quantization, the KV cache will
automatically be set to FP8 as well!': NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md)."""


@dataclass(frozen=True)
class Case:
    raw: dict

    def __getattr__(self, name):
        return self.raw[name]

    @property
    def measured(self) -> Decimal | None:
        value = self.raw["figures"]["per_sequence_tokens_per_s"]
        return None if value is None else Decimal(str(value))


def corpus() -> list[Case]:
    return [Case(item) for item in yaml.safe_load(CORPUS.read_text(encoding="utf-8"))["cases"]]


def comparable(case: Case, guide: Guide) -> str | None:
    """Why the case is not compared; None where it is."""
    if case.sequences is None:
        return "the batch is not published"
    if shape(case) not in {model.id for model in guide.data.catalogue}:
        return "no model of the catalogue has its shapes"
    return None


def shape(case: Case) -> str | None:
    """The catalogue model the case ran, or one with the same tensor shapes."""
    return case.same_shape or case.model


@dataclass(frozen=True)
class Estimate:
    per_sequence: Decimal
    """What the case measured, as estimated: one sequence's decode speed, or output ÷ the whole request's time."""
    step: throughput.Step
    layers: int


def estimate(case: Case, guide: Guide, layer_seconds: Decimal | None = None) -> Estimate:
    """The estimate of what the case measured, on its cards with its split, at its average context."""
    data = guide.data
    model = data.catalogue_model(shape(case))
    weight_format = guide.weight_format(case.weights)
    kv_id = KV_FORMATS[case.kv_cache]
    if case.weights == "fp8" and case.engine in KV_WITH_FP8_WEIGHTS:
        kv_id = KV_WITH_FP8_WEIGHTS[case.engine]
    kv_format = data.engines.kv_cache_format(kv_id)
    rates = guide.card_rates(data.gpu(case.card), weight_format)
    layer_seconds = data.speed.layer_step_s if layer_seconds is None else layer_seconds
    by_tensor = case.parallel == "tensor"
    prompt = 0 if case.decode_from == "empty" else (case.prompt_tokens or 0)
    context = prompt + case.output_tokens // 2
    work = serving_speed.decode_work(model, weight_format, kv_format, context, case.sequences)
    step = throughput.step(work, rates, case.cards, by_tensor, layer_seconds)
    per_sequence = step.tokens_per_s().value / case.sequences
    if case.measures == "end_to_end" and prompt:
        first = throughput.step(serving_speed.prefill_work(model, weight_format, kv_format, prompt * case.sequences),
                                rates, case.cards, by_tensor, layer_seconds)
        whole = first.seconds.value + case.output_tokens / per_sequence
        per_sequence = case.output_tokens / whole
    return Estimate(per_sequence=per_sequence, step=step, layers=model.layer_count)


def error(case: Case, guide: Guide, layer_seconds: Decimal | None = None) -> Decimal:
    """(estimate − measured) ÷ measured."""
    return estimate(case, guide, layer_seconds).per_sequence / case.measured - 1


def fitted_layer_step(guide: Guide) -> Decimal:
    """data/throughput.yaml's layer_step: over the one-sequence decode cases not held back, the median of
    (the measured seconds per token − the step's other terms) ÷ the layers."""
    residuals = []
    for case in corpus():
        if case.held_back or case.measures != "decode" or case.sequences != 1 or comparable(case, guide):
            continue
        timed = estimate(case, guide, Decimal(0))
        others = timed.step.seconds.value
        residuals.append((1 / case.measured - others) / timed.layers)
    return statistics.median(residuals)


def report(guide: Guide) -> str:
    lines = [f"{'case':58} {'measures':10} {'measured':>9} {'estimate':>9} {'error':>7}"]
    for case in corpus():
        reason = comparable(case, guide)
        if reason:
            lines.append(f"{case.id:58} {case.measures:10} not compared: {reason}")
            continue
        made = estimate(case, guide).per_sequence
        mark = " held back" if case.held_back else ""
        lines.append(f"{case.id:58} {case.measures:10} {case.measured:9.1f} {made:9.1f} "
                     f"{(made / case.measured - 1) * 100:+6.1f}%{mark}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - a report for people
    from vramsite.load.assemble import load_site

    site = Guide(load_site(Path(__file__).parent.parent))
    print(report(site))
    print(f"layer step fitted on the tuning cases: {fitted_layer_step(site):.7f} s")
