"""One question the calculator answers, and the calculation it is answered with: a model (of the site's or
a custom shape), a method, the precisions, a context and a batch, sized by calc/memory.py and
calc/attention.py as the tables size them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from ...calc import memory
from ...calc.figure import Figure
from ...calc.guide import Guide
from ...calc.model_kinds import kind_of
from ...calc.serving import serving_engine
from ...load.model import MethodKind, Model, full_attention

INFERENCE = "inference"
"""The method choice that sizes inference at the chosen weight precision."""

CUSTOM = "custom"
"""The model choice whose shape the reader types in."""

SCALED_CONTEXT = "Beyond {tokens} tokens this holds only when the engine is started with the RoPE scaling named on the model's page."
"""Said under a real model's answer for a context longer than its config takes without the scaling its vendor
documents (catalogue context_scaling)."""


@dataclass(frozen=True)
class Custom:
    """A shape the reader types in: sized as a reference shape of data/models.yaml is."""

    params_billion: Decimal
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None


@dataclass(frozen=True)
class Case:
    """One question the calculator answers."""

    model: str
    """A model id (reference or catalogue) or ``CUSTOM``."""
    method: str
    """``INFERENCE`` or the id of a fine-tuning method."""
    precision: str
    kv_precision: str | None = None
    context: int | None = None
    batch: int | None = None
    custom: Custom | None = None
    weight_format: str | None = None
    """A weight format id: a catalogue model's inference is then sized by a serving engine."""
    engine: str | None = None
    """The serving engine's id; None (or one the site lacks): the format's own (calc/serving.serving_engine)."""
    card: str | None = None
    """A card id: only configurations of that card are offered (a GPU page's calculator); None: every card."""


def kv_formats(guide: Guide) -> tuple:
    """The KV cache formats a reader may pick: sizing.yaml kv_precisions, else the inference block's own."""
    data = guide.data
    if not data.inference.kv_cache:
        return ()
    return data.kv_precisions or ((data.inference.kv_precision,) if data.inference.kv_precision else ())


def default_kv_format(guide: Guide):
    """The format the calculator opens with: ``Guide.kv_precision()`` where the site lists formats."""
    formats = kv_formats(guide)
    if not formats:
        return None
    return guide.kv_precision() if guide.data.kv_precisions else formats[0]


def finetune_methods(guide: Guide) -> tuple:
    return tuple(method for method in guide.data.methods if method.kind != MethodKind.INFERENCE)


def serving_format(guide: Guide, case: Case) -> str | None:
    """The weight format a case is served in, where its engine sizes it (a catalogue model, inference, a site with
    engines): the case's format where the model offers it, else the one the model ships in; None otherwise
    (calculator.js ``servedFormat``)."""
    if case.method != INFERENCE or not guide.serves:
        return None
    model = model_of(guide, case)
    if not kind_of(model).served:  # the custom shape is a reference shape (model_of)
        return None
    offered = [weight_format.id for weight_format in guide.catalogue_model(model.id).formats()]
    return case.weight_format if case.weight_format in offered else offered[0]


def resolve_method(guide: Guide, case: Case):
    if case.method == INFERENCE:
        return guide.inference_method(case.precision)
    return guide.method(case.method)


def model_of(guide: Guide, case: Case):
    if case.model == CUSTOM:
        shape = case.custom
        return Model(id=CUSTOM, name=CUSTOM, params_billion=shape.params_billion,
                     layers=full_attention(shape.layers, shape.kv_heads, shape.head_dim))
    data = guide.data
    found = [model for model in (*data.models, *data.catalogue) if model.id == case.model]
    if not found:
        raise KeyError(f"no model {case.model!r}")
    return found[0]


def sizing_of(guide: Guide, case: Case) -> memory.Sizing:
    formats = {p.id: p for p in kv_formats(guide)}
    if case.kv_precision is None or case.kv_precision not in formats:
        return guide.sizing
    return replace(guide.sizing, inference=replace(guide.data.inference, kv_precision=formats[case.kv_precision]))


def need_of(guide: Guide, case: Case, cards: int = 1) -> memory.MemoryNeed:
    """The method's memory for the case on ``cards`` cards (a reference shape's need is one need)."""
    model, method, sizing = model_of(guide, case), resolve_method(guide, case), sizing_of(guide, case)
    return kind_of(model).method_memory(model, method, sizing, case.context, case.batch, cards)


def per_token_figure(guide: Guide, case: Case) -> Figure | None:
    """The KV cache one token adds (MB for a reference shape, bytes for a real model's layer groups)."""
    model, sizing = model_of(guide, case), sizing_of(guide, case)
    if not sizing.inference.kv_cache or not resolve_method(guide, case).kv_cache:
        return None
    return kind_of(model).kv_per_token(model, sizing.inference.kv_precision)


def serving_engine_of(guide: Guide, case: Case, format_id: str):
    """The engine a served case is sized by: the case's where the site has it (it may not load the format: that is
    the answer then), else the format's own (calculator.js ``servedEngine``)."""
    engines = guide.data.engines
    if case.engine is not None and any(engine.id == case.engine for engine in engines.engines):
        return engines.engine(case.engine)
    return serving_engine(engines, guide.weight_format(format_id))
