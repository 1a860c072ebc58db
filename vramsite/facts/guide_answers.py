"""The VRAM guide's short answers: the TL;DR, the FAQ and when not to rent from us."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc import rules
from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from .base import Facts
from .guide_tradeoffs import fastest_under
from .shared import FP8_FEATURE, Serving, serving
from .views import Card, Model, Offer, card, card_or_none, holds, model, offer


@dataclass(frozen=True)
class NotUs(Facts):
    minimum_days: Figure
    try_model: Model
    try_card: Card
    largest_model: Model
    largest_full: Figure


@dataclass(frozen=True)
class Learner(Facts):
    card: Card
    up_to: Model | None
    """The largest model the card holds both at INT4 and under QLoRA."""
    int4: Figure | None
    qlora: Figure | None


@dataclass(frozen=True)
class Tldr(Facts):
    learner: Learner
    production: Card
    production_model: Model
    production_need: Figure
    production_holds: bool
    budget: Figure
    fastest: Card | None
    reference: Model
    serve: Serving
    long: Offer
    long_context: Figure


@dataclass(frozen=True)
class Small(Facts):
    """The smallest model at the default context: the FAQ's second answer."""

    model: Model
    serve: Serving
    card_memory: Figure | None
    all_fit_card: bool
    """All three needs fit the BF16 pick's memory size."""
    bf16_card_covers_int4: bool
    bf16_card_has_fp8: bool
    ceiling: Figure | None
    fast: Card | None
    fast_ceiling: Figure | None


@dataclass(frozen=True)
class KvAnswer(Facts):
    model: Model
    per_token: Figure
    cache: Figure
    long_cache: Figure
    longest: Figure


@dataclass(frozen=True)
class Fit(Facts):
    model: Model
    need: Figure
    fits: bool


@dataclass(frozen=True)
class FinetuneOn(Facts):
    """Which models one card holds under each fine-tuning method, smallest model first."""

    card: Card
    qlora: tuple[Fit, ...]
    lora: tuple[Fit, ...]
    full: tuple[Fit, ...]
    bytes_full: Figure


@dataclass(frozen=True)
class LargestModel(Facts):
    model: Model
    serve: Serving
    int4_slow: bool
    full: Figure


@dataclass(frozen=True)
class Ranked(Facts):
    first: Card
    next: tuple[Card, ...]
    reference: Card
    reference_fp8: bool


@dataclass(frozen=True)
class Faq(Facts):
    reference: Model
    reference_cache: Figure
    serve: Serving
    small: Small
    kv: KvAnswer
    finetune_on: FinetuneOn
    largest: LargestModel
    pair_memory: Figure
    ranked: Ranked
    int4_label: str


def not_us(guide: Guide) -> NotUs:
    cheapest = guide.cheapest_card()
    largest = max(guide.models, key=lambda m: (m.params.value, m.id))
    try_model = _largest_held(guide, cheapest, "infer-int4") or min(guide.models, key=lambda m: m.params.value)
    return NotUs(minimum_days=given(guide.data.pricing.minimum_days, "", COUNT), try_model=model(try_model),
                 try_card=card(cheapest), largest_model=model(largest), largest_full=largest.need("full").total)


def _largest_held(guide: Guide, view, *methods: str):
    """The largest model that one ``view`` card holds under every method without fitting tightly."""
    held = [m for m in guide.models
            if all(rules.holds_roomily(view.gpu.memory_gb, _need(guide, m, method).value, guide.data.lookup)
                   for method in methods)]
    return max(held, key=lambda m: (m.params.value, m.id)) if held else None


def _need(guide: Guide, view, method_id: str) -> Figure:
    if method_id.startswith("infer-"):
        return view.inference(method_id.removeprefix("infer-")).total
    return view.need(method_id).total


def tldr(guide: Guide, reference, serve: Serving, params: dict) -> Tldr:
    cheapest = guide.cheapest_card()
    up_to = _largest_held(guide, cheapest, "infer-int4", "qlora")
    learner = Learner(card(cheapest), model(up_to) if up_to else None,
                      up_to.inference("int4").total if up_to else None, up_to.need("qlora").total if up_to else None)
    production = guide.gpu(params["production_card"])
    mid = guide.model(params["mid_model"])
    need = mid.inference("fp8").total
    fastest = fastest_under(guide, params["budget_usd"])
    long = guide.cheapest(reference.id, guide.inference_method("fp8").id, context=params["long_context"], stack="cuda")
    return Tldr(learner=learner, production=card(production), production_model=model(mid), production_need=need,
                production_holds=rules.fits(need.value, production.gpu.memory_gb) and production.has(FP8_FEATURE),
                budget=given(params["budget_usd"], "", COUNT), fastest=card_or_none(fastest),
                reference=model(reference), serve=serve, long=offer(guide, long),
                long_context=given(params["long_context"], "", COUNT))


def faq(guide: Guide, reference, serve: Serving, reference_card, params: dict) -> Faq:
    ranked = guide.gpus_by_usd_per_gb()
    largest = max(guide.models, key=lambda m: (m.params.value, m.id))
    largest_serve = serving(guide, largest.id)
    int4 = largest_serve.int4
    long_contexts = params["long_contexts"]
    return Faq(
        reference=model(reference), reference_cache=reference.kv(), serve=serve, small=_small(guide, params),
        kv=KvAnswer(model=model(reference), per_token=reference.kv_per_token(), cache=reference.kv(),
                    long_cache=reference.kv(context=long_contexts[-1]), longest=given(long_contexts[-1], "", COUNT)),
        finetune_on=_finetune_on(guide),
        largest=LargestModel(model(largest), largest_serve, bool(int4.fits and guide.slower_than_most(int4.card.gpu.id)),
                             largest.need("full-act").total),
        pair_memory=guide.cheapest_card().memory_of(params["pair"]),
        ranked=Ranked(card(ranked[0]), tuple(card(g) for g in ranked[1:4]), card(reference_card),
                      reference_card.has(FP8_FEATURE)),
        int4_label=guide.precision_bytes("int4").label)


def _small(guide: Guide, params: dict) -> Small:
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    serve = serving(guide, small.id)
    bf16 = serve.bf16
    fast = fastest_under(guide, params["budget_usd"]) or guide.fastest_memory()
    memory = bf16.card.memory if bf16.fits and bf16.one_card else None
    return Small(model=model(small), serve=serve, card_memory=bf16.card.memory_gb if memory else None,
                 all_fit_card=bool(memory) and all(rules.fits(o.need.value, memory.value) for o in (serve.bf16, serve.fp8, serve.int4)),
                 bf16_card_covers_int4=bool(memory) and holds(bf16.card, serve.int4.need),
                 bf16_card_has_fp8=bool(bf16.card and bf16.card.fp8),
                 ceiling=small.decode_ceiling(bf16.card.gpu.id, "bf16") if bf16.fits else None,
                 fast=card(fast) if fast.id != (bf16.card.gpu.id if bf16.card else None) else None,
                 fast_ceiling=small.decode_ceiling(fast.id, "bf16"))


def _finetune_on(guide: Guide) -> FinetuneOn:
    view = guide.cheapest_card()
    models = sorted(guide.models, key=lambda m: (m.params.value, m.id))

    def fits(method_id: str) -> tuple[Fit, ...]:
        needs = ((m, m.need(method_id).total) for m in models)
        return tuple(Fit(model(m), need, rules.fits(need.value, view.gpu.memory_gb)) for m, need in needs)

    return FinetuneOn(card=card(view), qlora=fits("qlora"), lora=fits("lora"), full=fits("full-act"),
                      bytes_full=guide.bytes_per_param("full"))
