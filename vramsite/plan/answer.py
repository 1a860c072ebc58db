"""The answer `build.py plan` gives: weights per card, the KV budget an engine leaves, and its verdict."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc.engines import engine_by_id
from ..calc.figure import MEMORY, Figure, given
from ..calc.serving import serving_engine, verdict
from ..calc.weight_formats import format_by_id, native_format
from ..load.model import CatalogueModel, SiteData, WeightFormat

NATIVE = "native"
"""--weights native: the format the model's checkpoint ships in (the catalogue's native_format)."""


@dataclass(frozen=True)
class PlanRequest:
    model: str
    gpu: str | None
    memory_gib: Decimal | None
    cards: int
    weights: str
    kv_cache: str | None
    """None: the engine's own (the first KV cache format it lists in data/engines.yaml)."""
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
    kv_cache: str
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
    weight_format = _weight_format(data, model, request.weights)
    engine = engine_by_id(data.engines, request.engine) if request.engine else serving_engine(data.engines,
                                                                                               weight_format)
    kv_cache = request.kv_cache or engine.default_kv_format
    memory = card if card is not None else given(request.memory_gib, "GiB", MEMORY, "memory per card")
    answer = verdict(data.engines, model, weight_format, memory, request.cards, request.context, request.sequences,
                     kv_cache, engine, request.settings)
    return PlanAnswer(request=request, model=model.id, card=card.id if card else f"{request.memory_gib} GiB",
                      weights=weight_format.id, kv_cache=kv_cache, engine=answer.engine.id, context=request.context,
                      weights_gib=answer.weights_gib, kv_cache_gib=answer.kv_cache_gib, kv_tokens=answer.kv_tokens,
                      starts=answer.starts, fits=answer.fits, headroom_gib=answer.headroom_gib, reason=answer.reason,
                      settings=answer.budget.settings if answer.budget else request.settings)


def _weight_format(data: SiteData, model: CatalogueModel, wanted: str) -> WeightFormat:
    if wanted != NATIVE:
        return format_by_id(data.weight_formats, wanted)
    return native_format(data, model)
