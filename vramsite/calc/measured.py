"""A measuring run set against the site's own formulas, figure by figure.

Each ``Comparison`` holds what the formula predicts for the shape and settings
the run used, what the device held, and the difference (measured − formula)
in the figures' unit and as a percent of the prediction. The formulas are the
site's: weights = parameters × bytes, the reference KV cache formula at the
run's context, the runtime overhead of sizing.yaml, the fine-tuning methods,
the card's bandwidth and the size it is sold as. Every conclusion the pages
draw is a figure or a boolean here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..load.model import (
    Gpu, MeasuredInference, MeasuredShape, MeasuredTraining, Measurement, Method, MethodKind, Model, SiteData,
    full_attention,
)
from ..units import BYTES_PER_GB
from . import memory
from .card_memory import mib_in_gb
from .cost import card_bandwidth, card_memory
from .figure import BANDWIDTH, COUNT, MEMORY, PERCENT, Figure, difference, given, product, quotient, total
from .throughput import decode_ceiling

PERCENT_SCALE = Decimal(100)


@dataclass(frozen=True)
class Comparison:
    """One measured figure beside the formula's prediction for it."""

    key: str
    """What is compared: card_memory, overhead, weights, kv_cache, prefill, serving, finetune, bandwidth."""
    formula: Figure
    measured: Figure
    difference: Figure
    """measured − formula, in the figures' unit: positive where the device held more than predicted."""
    percent: Figure | None
    """The difference as a percent of the prediction; None where the prediction is zero."""
    shape: MeasuredShape | None = None
    method: Method | None = None
    context_tokens: int | None = None

    @property
    def formula_covers(self) -> bool:
        """Whether the prediction is at least what was measured (a memory rule that does not fall short)."""
        return self.formula.value >= self.measured.value

    @property
    def gap(self) -> Figure:
        """How far apart the two are, the larger less the smaller: never negative."""
        larger, smaller = (self.formula, self.measured) if self.formula_covers else (self.measured, self.formula)
        return difference(larger, smaller, label="gap")

    @property
    def gap_percent(self) -> Figure | None:
        """The gap as a percent of the prediction; None where the prediction is zero."""
        return percent_of(self.gap, self.formula, "gap")


def compare(key: str, formula: Figure, measured: Figure, **where) -> Comparison:
    gap = difference(measured, formula, label="measured − formula")
    return Comparison(key=key, formula=formula, measured=measured, difference=gap,
                      percent=percent_of(gap, formula, "difference"), **where)


def percent_of(part: Figure, whole: Figure, label: str) -> Figure | None:
    """``part`` as a percent of ``whole``; None where ``whole`` is zero (a site that assumes no overhead)."""
    if whole.value == 0:
        return None
    return quotient(part, whole, unit="%", kind=PERCENT, label=label, scale=PERCENT_SCALE)


@dataclass(frozen=True)
class MeasuredRun:
    """A run's comparisons, in the order the guide lists them, and the shares its prose states."""

    run: Measurement
    gpu: Gpu
    comparisons: tuple[Comparison, ...]
    achieved_share: Figure | None
    """Achieved streaming bandwidth as a percent of the card's data bandwidth; None: not measured."""
    adapter_share: Figure | None
    """Trainable LoRA parameters as a percent of the base model's (the rule assumes sizing.yaml's share)."""

    def find(self, key: str, shape_id: str | None = None, method_id: str | None = None) -> Comparison | None:
        """The first comparison of ``key`` (for that shape or method, if named); None where the run has none."""
        for comparison in self.comparisons:
            if comparison.key != key:
                continue
            if shape_id is not None and (comparison.shape is None or comparison.shape.id != shape_id):
                continue
            if method_id is not None and (comparison.method is None or comparison.method.id != method_id):
                continue
            return comparison
        return None

    def of(self, key: str) -> tuple[Comparison, ...]:
        return tuple(comparison for comparison in self.comparisons if comparison.key == key)


def measured_run(run: Measurement, data: SiteData) -> MeasuredRun:
    """Every figure of ``run`` against the formula of ``data`` for the same shape and settings."""
    gpu = data.gpu(run.gpu)
    sizing = memory.Sizing(data.inference, data.finetune)
    found: list[Comparison | None] = [card_memory_comparison(gpu, run), overhead_comparison(run, data)]
    serving = _method(data, MethodKind.INFERENCE, run, adapter=False)
    for measured in run.inference:
        found += inference_comparisons(measured, run, sizing, serving)
    if run.lora is not None:
        lora = _method(data, MethodKind.FINETUNE, run, adapter=True)
        found.append(training_comparison(run.lora, lora, sizing))
    if run.full is not None:
        found += [training_comparison(run.full, method, sizing) for method in data.methods if method.training_state]
    found.append(bandwidth_comparison(gpu, run))
    comparisons = tuple(item for item in found if item is not None)
    bandwidth = next((item for item in comparisons if item.key == "bandwidth"), None)
    return MeasuredRun(run=run, gpu=gpu, comparisons=comparisons,
                       achieved_share=bandwidth and share(bandwidth.measured, bandwidth.formula),
                       adapter_share=adapter_share(run.lora))


def share(part: Figure, whole: Figure) -> Figure | None:
    return percent_of(part, whole, "share")


def bytes_in_gb(count: int, label: str) -> Figure:
    return product(given(count, "B", COUNT, label), unit="GB", kind=MEMORY, label=label, scale=1 / BYTES_PER_GB)


def shape_model(shape: MeasuredShape, params: int) -> Model:
    """The shape as the formulas read a model: its exact parameter count, in billions."""
    attention = "mha" if shape.kv_heads == shape.attention_heads else "gqa"
    return Model(id=shape.id, name=shape.like or shape.id, params_billion=Decimal(params) / 10 ** 9,
                 layers=full_attention(shape.layers, shape.kv_heads, shape.head_dim), attention=attention,
                 attention_heads=shape.attention_heads, hidden_size=shape.hidden_size)


def card_memory_comparison(gpu: Gpu, run: Measurement) -> Comparison | None:
    """The size the card is sold as against what the device reported, in decimal GB."""
    if run.total_mib is None:
        return None
    return compare("card_memory", card_memory(gpu), mib_in_gb(run.total_mib, "reported", "reported memory"))


def overhead_comparison(run: Measurement, data: SiteData) -> Comparison | None:
    """The runtime overhead assumed per process against the CUDA context and library workspace measured."""
    if run.used_mib_after_workspace is None:
        return None
    taken = run.used_mib_after_workspace - (run.used_mib_before or 0)
    overhead = given(data.inference.overhead_gb, "GB", MEMORY, "runtime overhead")
    return compare("overhead", overhead, mib_in_gb(taken, "context and workspace", "CUDA context and workspace"))


def inference_comparisons(measured: MeasuredInference, run: Measurement, sizing: memory.Sizing,
                          serving: Method | None) -> list[Comparison | None]:
    """Weights, KV cache, the prefill peak against weights + KV cache, and memory in use against the need."""
    model = shape_model(measured.shape, measured.params)
    where = {"shape": measured.shape, "context_tokens": measured.context_tokens}
    weights = (memory.weights(model, memory.precision_bytes(run.precision)))
    cache = (memory.kv_cache(model, run.precision, measured.context_tokens, measured.batch))
    resident = total(weights, cache, unit="GB", kind=MEMORY, label="weights + KV cache")
    found = [
        compare("weights", weights, bytes_in_gb(measured.weights_bytes, "weights held"), **where),
        compare("kv_cache", cache, bytes_in_gb(measured.kv_bytes, "KV cache held"), **where),
        compare("prefill", resident, bytes_in_gb(measured.prefill_peak_bytes, "prefill peak"), **where),
    ]
    if serving is not None and measured.used_mib_at_end is not None:
        need = memory.method_memory(model, serving, sizing, measured.context_tokens, measured.batch).total
        in_use = mib_in_gb(measured.used_mib_at_end - (run.used_mib_before or 0), "in use", "memory in use")
        found.append(compare("serving", need, in_use, method=serving, **where))
    return found


def training_comparison(measured: MeasuredTraining, method: Method | None, sizing: memory.Sizing) -> Comparison | None:
    """A fine-tuning method's memory rule for the base model against the peak the training steps reached."""
    if method is None:
        return None
    model = shape_model(measured.shape, measured.base_params)
    need = memory.method_memory(model, method, sizing).total
    return compare("finetune", need, bytes_in_gb(measured.peak_bytes, "training peak"), shape=measured.shape,
                   method=method)


def bandwidth_comparison(gpu: Gpu, run: Measurement) -> Comparison | None:
    """The card's data bandwidth against the bandwidth achieved streaming a matrix once per run."""
    if run.bandwidth is None:
        return None
    return compare("bandwidth", card_bandwidth(gpu), achieved_bandwidth(run))


def achieved_bandwidth(run: Measurement) -> Figure:
    streamed = bytes_in_gb(run.bandwidth.bytes, "bytes streamed")
    return quotient(streamed, given(run.bandwidth.median_s, "s", COUNT, "median run"), unit="GB/s",
                    kind=BANDWIDTH, label="achieved bandwidth")


def achieved_ceiling(comparison: Comparison, bandwidth: Comparison) -> tuple[Figure, Figure]:
    """The decode ceiling of a weights comparison's model at the card's bandwidth and at the achieved one."""
    return decode_ceiling(bandwidth.formula, comparison.measured), decode_ceiling(bandwidth.measured, comparison.measured)


def adapter_share(lora: MeasuredTraining | None) -> Figure | None:
    if lora is None or lora.trainable is None:
        return None
    return share(given(lora.trainable, "", COUNT, "trainable"), given(lora.base_params, "", COUNT, "base"))


def _method(data: SiteData, kind: MethodKind, run: Measurement, adapter: bool) -> Method | None:
    """The site's method of ``kind`` at the run's precision (with adapters or without), where it has one."""
    for method in data.methods:
        if (method.kind is kind and method.adapter == adapter and method.precision is not None
                and method.precision.id == run.precision.id and not method.training_state):
            return method
    return None


