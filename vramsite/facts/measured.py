"""What the guide and a card's page state about a measuring run: each comparison as figures and booleans."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.figure import COUNT, PERCENT, Figure, given
from ..calc.measured import Comparison, MeasuredRun, achieved_ceiling
from ..calc.guide import Guide
from .base import Facts
from .views import Card, card


@dataclass(frozen=True)
class Provenance(Facts):
    """How a run was made, in parts each language words: the device, its software, the weights, the attention
    kernel and the day."""

    device: str
    software: tuple[str, ...]
    """Each library the shapes were built with, as its name and version: "torch 2.11.0+cu130"."""
    weights: str
    attention: str
    date: str


MODEL_LIBRARIES = ("torch", "transformers", "peft")
"""The libraries a run's provenance names, of the software it records (the driver and CUDA are the card's)."""


def provenance(run: MeasuredRun) -> Provenance:
    versions = dict(run.run.versions)
    software = tuple(f"{name} {versions[name]}" for name in MODEL_LIBRARIES if name in versions)
    return Provenance(device=run.run.device_name, software=software, weights=run.run.weights,
                      attention=run.run.attention, date=run.run.date)


@dataclass(frozen=True)
class Against(Facts):
    """A measured figure beside the formula's prediction."""

    formula: Figure
    measured: Figure
    gap: Figure
    """How far apart they are, in the figures' unit (never negative)."""
    gap_percent: Figure | None
    """The gap as a percent of the prediction (never negative); None where the prediction is zero."""
    covers: bool
    """The prediction is at least the measured figure."""


def against(comparison: Comparison | None) -> Against | None:
    if comparison is None:
        return None
    return Against(formula=comparison.formula, measured=comparison.measured, gap=comparison.gap,
                   gap_percent=comparison.gap_percent, covers=comparison.formula_covers)


@dataclass(frozen=True)
class ShapeServed(Facts):
    """One shape's inference run: the model it is shaped like and each figure against the formula."""

    name: str
    context: Figure
    weights: Against
    kv_cache: Against
    prefill: Against
    serving: Against | None
    prefill_within_overhead: bool
    """What prefill held beyond the weights and KV cache is no more than the runtime overhead assumed."""


@dataclass(frozen=True)
class Trained(Facts):
    label: str
    """The method's label (a UI string)."""
    precision: str
    against: Against


@dataclass(frozen=True)
class Measured(Facts):
    """A measuring run on one card, set against the guide's formulas."""

    provenance: Provenance
    card: Card
    reported_mib: Figure | None
    reported: Against | None
    """The sold-as size (formula) against what the device reports, in decimal GB."""
    overhead: Against | None
    shapes: tuple[ShapeServed, ...]
    held_within: Figure | None
    """The largest gap, in percent, between the weights or KV cache formula and what was held."""
    serving_covered: bool
    """The need formula is at least the memory in use for every shape."""
    worst_serving: ShapeServed | None
    """The shape whose memory in use exceeds its need formula the most (None where none does)."""
    lora: Trained | None
    lora_sequence: Figure | None
    adapter_rule: Figure | None
    adapter_measured: Figure | None
    adapter_below_rule: bool
    """The adapters trained a smaller share of the parameters than the rule assumes."""
    full: tuple[Trained, ...]
    bandwidth: Against | None
    achieved_share: Figure | None
    ceiling_model: str | None
    ceiling_spec: Figure | None
    ceiling_achieved: Figure | None


def measured(guide: Guide, run: MeasuredRun) -> Measured:
    overhead = run.find("overhead")
    shapes = tuple(_shape(run, measured_inference, overhead) for measured_inference in run.run.inference)
    held = [against(item) for item in run.of("weights") + run.of("kv_cache") if item.gap_percent is not None]
    short = [shape for shape in shapes if shape.serving is not None and not shape.serving.covers
             and shape.serving.gap_percent is not None]
    lora_items = [item for item in run.of("finetune") if item.method.adapter]
    full_items = [item for item in run.of("finetune") if item.method.training_state]
    adapter = guide.data.finetune.adapter
    bandwidth = run.find("bandwidth")
    first_weights = run.find("weights")
    ceilings = achieved_ceiling(first_weights, bandwidth) if bandwidth and first_weights else (None, None)
    return Measured(
        provenance=provenance(run),
        card=card(guide.gpu(run.gpu.id)),
        reported_mib=given(run.run.total_mib, "MiB", COUNT) if run.run.total_mib is not None else None,
        reported=against(run.find("card_memory")),
        overhead=against(overhead),
        shapes=shapes,
        held_within=max((item.gap_percent for item in held), default=None, key=lambda figure: figure.value),
        serving_covered=not short,
        worst_serving=max(short, default=None, key=lambda shape: shape.serving.gap_percent.value),
        lora=_trained(lora_items[0]) if lora_items else None,
        lora_sequence=given(run.run.lora.sequence_tokens, "tokens", COUNT) if run.run.lora else None,
        adapter_rule=given(adapter.share_percent, "%", PERCENT) if adapter and run.adapter_share else None,
        adapter_measured=run.adapter_share,
        adapter_below_rule=bool(adapter and run.adapter_share and run.adapter_share.value < adapter.share_percent),
        full=tuple(_trained(item) for item in full_items),
        bandwidth=against(bandwidth),
        achieved_share=run.achieved_share,
        ceiling_model=first_weights.shape.like or first_weights.shape.id if first_weights else None,
        ceiling_spec=ceilings[0],
        ceiling_achieved=ceilings[1],
    )


def _shape(run: MeasuredRun, inference, overhead: Comparison | None) -> ShapeServed:
    shape = inference.shape
    prefill = run.find("prefill", shape_id=shape.id)
    beyond = prefill.difference.value
    return ShapeServed(name=shape.like or shape.id, context=given(inference.context_tokens, "tokens", COUNT),
                       weights=against(run.find("weights", shape_id=shape.id)),
                       kv_cache=against(run.find("kv_cache", shape_id=shape.id)), prefill=against(prefill),
                       serving=against(run.find("serving", shape_id=shape.id)),
                       prefill_within_overhead=overhead is not None and beyond <= overhead.formula.value)


def _trained(comparison: Comparison) -> Trained:
    method = comparison.method
    return Trained(method.label, method.precision.label if method.precision else "", against(comparison))


@dataclass(frozen=True)
class MeasuredCard(Facts):
    """A card's own measured figures, for its page."""

    provenance: Provenance
    reported_mib: Figure | None
    reported: Against | None
    bandwidth: Against | None
    achieved_share: Figure | None


def measured_card(guide: Guide, gpu_id: str) -> MeasuredCard | None:
    run = guide.measured_on(gpu_id)
    if run is None:
        return None
    return MeasuredCard(provenance=provenance(run),
                        reported_mib=given(run.run.total_mib, "MiB", COUNT) if run.run.total_mib is not None else None,
                        reported=against(run.find("card_memory")), bandwidth=against(run.find("bandwidth")),
                        achieved_share=run.achieved_share)
