"""The answer `build.py plan` gives: weights per card, the KV budget an engine leaves, and its verdict."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc import serving_speed, throughput
from ..calc.cost import hourly_price, usd_per_million_tokens
from ..calc.engines import engine_by_id
from ..calc.figure import COUNT, MEMORY, Figure, given, product
from ..calc.serving import Verdict, serving_engine, sized_to_request, verdict
from ..calc.weight_formats import format_by_id, native_format
from ..load.model import CatalogueModel, Gpu, SiteData, WeightFormat

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
    speed: "PlanSpeed | None" = None
    """None where the engine does not hold the sequences, the card is given by its memory alone, or the site
    states no speeds."""


@dataclass(frozen=True)
class PlanSpeed:
    decode_tokens_per_s: Figure
    """All the asked sequences together, each at the asked context."""
    ttft_s: Figure
    """One prompt of the asked context's tokens."""
    usd_per_million_tokens: Figure | None
    """At the card's hourly price (None where it has none), decoding the asked sequences."""


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
                      settings=answer.budget.settings if answer.budget else request.settings,
                      speed=_speed(data, model, weight_format, kv_cache, card, answer, request))


def _speed(data: SiteData, model: CatalogueModel, weight_format: WeightFormat, kv_cache: str, card: Gpu | None,
           answer: Verdict, request: PlanRequest) -> PlanSpeed | None:
    if data.speed is None or card is None or card.dense_tflops is None or not answer.fits:
        return None
    rates = serving_speed.card_rates(data.speed, card, weight_format, serving_speed.measured_bandwidth_share(data))
    kv_format = data.engines.kv_cache_format(kv_cache)
    by_tensor = not sized_to_request(answer.engine)

    def timed(work) -> throughput.Step:
        return throughput.step(work, rates, request.cards, by_tensor, data.speed.layer_step_s)

    decode = timed(serving_speed.decode_work(model, weight_format, kv_format, request.context, request.sequences))
    first = timed(serving_speed.prefill_work(model, weight_format, kv_format, request.context))
    hourly = hourly_price(card, data.pricing)
    price = None
    if hourly is not None:
        total = product(given(request.cards, "cards", COUNT, "cards"), hourly, unit=hourly.unit, kind=hourly.kind,
                        label="price per hour")
        price = usd_per_million_tokens(total, decode.tokens_per_s())
    return PlanSpeed(decode_tokens_per_s=decode.tokens_per_s(), ttft_s=first.seconds, usd_per_million_tokens=price)


def _weight_format(data: SiteData, model: CatalogueModel, wanted: str) -> WeightFormat:
    if wanted != NATIVE:
        return format_by_id(data.weight_formats, wanted)
    return native_format(data, model)
