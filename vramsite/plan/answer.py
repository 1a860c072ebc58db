"""The answer `build.py plan` gives: weights per card, the KV budget an engine leaves, and its verdict."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc.engines import engine_budget, engine_by_id, in_gib, kv_format_by_id, loaded_weights
from ..calc.figure import MEMORY, Figure, given
from ..calc.weight_formats import format_by_id, weight_bytes
from ..load.model import Gpu, SiteData, WeightFormat

NATIVE = "native"
"""--weights native: the format the model's checkpoint ships in (the catalogue's native_format)."""


@dataclass(frozen=True)
class PlanRequest:
    model: str
    gpu: str | None
    memory_gib: Decimal | None
    cards: int
    weights: str
    kv_cache: str
    engine: str | None
    """None: the default engine of data/engines.yaml."""
    context: int
    sequences: int
    settings: tuple[tuple[str, Decimal], ...] = ()


@dataclass(frozen=True)
class PlanAnswer:
    request: PlanRequest
    model: str
    card: str
    weights: str
    engine: str
    context: int
    weights_gib: Figure
    kv_cache_gib: Figure | None
    kv_tokens: Figure | None
    starts: bool
    fits: bool
    headroom_gib: Figure | None
    reason: str | None
    settings: tuple[tuple[str, Decimal], ...]


def plan(data: SiteData, request: PlanRequest) -> PlanAnswer:
    """The answer to ``request`` from ``data`` (which has engines and weight formats); UnknownId naming the known
    ids for an unknown model, card, format, engine or KV cache format."""
    model = data.catalogue_model(request.model)
    card = data.gpu(request.gpu) if request.gpu is not None else None
    weight_format = _weight_format(data, model.native_format, request.weights)
    engine = engine_by_id(data.engines, request.engine or data.engines.default_engine)
    kv_format = kv_format_by_id(data.engines, engine, request.kv_cache)
    weights = loaded_weights(engine, model, weight_format, card, request.cards,
                             weight_bytes(model, weight_format, request.cards))
    memory = card if card is not None else given(request.memory_gib, "GiB", MEMORY, "memory per card")
    common = dict(request=request, model=model.id, card=card.id if card else f"{request.memory_gib} GiB",
                  weights=weight_format.id, engine=engine.id, context=request.context, weights_gib=in_gib(weights))
    missing = _missing_feature(card, weight_format)
    if missing:
        return PlanAnswer(**common, kv_cache_gib=None, kv_tokens=None, starts=False, fits=False, headroom_gib=None,
                          reason=f"needs {missing}: {card.name} cannot compute in {weight_format.name}",
                          settings=request.settings)
    budget = engine_budget(engine, memory, weights, model, request.cards, request.context, request.sequences, kv_format,
                           dict(request.settings))
    return PlanAnswer(**common, kv_cache_gib=budget.kv_cache_gib, kv_tokens=budget.kv_tokens, starts=budget.starts,
                      fits=budget.fits, headroom_gib=budget.headroom_gib, reason=budget.reason,
                      settings=budget.settings)


def _weight_format(data: SiteData, native: str | None, wanted: str) -> WeightFormat:
    if wanted != NATIVE:
        return format_by_id(data.weight_formats, wanted)
    return format_by_id(data.weight_formats, native or "bf16")


def _missing_feature(card: Gpu | None, weight_format: WeightFormat) -> str | None:
    """The hardware feature the format needs and the card lacks (a verdict, not an error)."""
    needed = weight_format.requires_feature
    if card is None or needed is None or needed in card.features:
        return None
    return needed
