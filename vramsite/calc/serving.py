"""Whether a serving engine starts a catalogue model on a card, or a set of cards split by tensor, in one weight
format: the one verdict `build.py plan`, the model pages and the GPU pages give.

A verdict names its engine: the one asked for, else the site's default engine
where it loads the format, else the first engine of data/engines.yaml that does
(GGUF files go to llama.cpp). The weights are those the engine holds per card
(calc/engines.loaded_weights); the budget is the engine's (calc/engines.py). A
format the card cannot compute in, or one the engine does not load, is a
verdict with its reason, not an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from functools import lru_cache

from ..load.model import CatalogueModel, Engine, Engines, Gpu, KvCacheFormat, WeightFormat
from ..units import BYTES_PER_GB, BYTES_PER_GIB
from . import attention
from .engines import Budget, card_gib, element_bytes, engine_budget, in_gib, kv_format_by_id, loaded_weights
from .figure import COUNT, FACTOR, MEMORY, Figure, FigureKind, Formula, difference, given, product, quotient
from .offers import Offer
from .weight_formats import weight_bytes


@dataclass(frozen=True)
class Verdict:
    """One engine's answer for one model, format and card (or set of cards)."""

    engine: Engine
    weight_format: WeightFormat
    cards: int
    weights_gib: Figure
    """The weights each card holds as the engine loads them."""
    budget: Budget | None
    """None where the engine never gets to size a cache: the card lacks a feature, or the engine the format."""
    refusal: str | None = None
    """Why the engine cannot run the format here at all: 'needs fp8', 'does not load ...'."""
    needs: str | None = None
    """The hardware feature the format needs and the card lacks, where that is the refusal."""

    @property
    def starts(self) -> bool:
        return self.budget is not None and self.budget.starts

    @property
    def fits(self) -> bool:
        return self.budget is not None and self.budget.fits

    @property
    def reason(self) -> str | None:
        return self.refusal if self.budget is None else self.budget.reason

    @property
    def kv_cache_gib(self) -> Figure | None:
        return self.budget.kv_cache_gib if self.budget else None

    @property
    def kv_tokens(self) -> Figure | None:
        return self.budget.kv_tokens if self.budget else None

    @property
    def headroom_gib(self) -> Figure | None:
        return self.budget.headroom_gib if self.budget else None


def serving_engine(engines: Engines, weight_format: WeightFormat) -> Engine:
    """The engine a verdict for ``weight_format`` names when none is asked for."""
    default = engines.engine(engines.default_engine)
    if default.loads(weight_format.id):
        return default
    return next((engine for engine in engines.engines if engine.loads(weight_format.id)), default)


def missing_feature(card: Gpu | None, weight_format: WeightFormat) -> str | None:
    """The hardware feature the format needs and the card lacks; None for a card given by its memory alone."""
    needed = weight_format.requires_feature
    if card is None or needed is None or needed in card.features:
        return None
    return needed


@lru_cache(maxsize=1024)
def stored_weights(model: CatalogueModel, weight_format: WeightFormat, cards: int) -> Figure:
    """``weight_bytes``, worked out once per model, format and card count: every card of a page asks for it."""
    return weight_bytes(model, weight_format, cards)


def heads_split_refused(engine: Engine, model: CatalogueModel, cards: int) -> str | None:
    """The engine's own refusal where it splits attention heads across the cards (an engine whose errors in
    data/engines.yaml name ``heads_split``) and the model's heads do not divide by their count."""
    if cards == 1 or "heads_split" not in dict(engine.errors) or model.attention_heads % cards == 0:
        return None
    return engine.error("heads_split").format(heads=model.attention_heads, cards=cards)


def verdict(engines: Engines, model: CatalogueModel, weight_format: WeightFormat, card: Gpu | Figure, cards: int,
            context: int, sequences: int, kv_format: str | None = None, engine: Engine | None = None,
            settings: tuple[tuple[str, Decimal], ...] = ()) -> Verdict:
    """Whether ``engine`` (default: ``serving_engine``) starts ``model`` in ``weight_format`` on ``cards`` × ``card``
    with ``context`` tokens and holds ``sequences`` of them, its KV cache in ``kv_format`` (default: the engine's
    own). ``card``: a card of data/gpus.yaml, or the memory one reports, a Figure in GiB (no feature check then).
    UnknownId for a KV cache format the engine does not store.

    Worked out once per distinct question in a process, whatever the load its data came from: the pages, the
    calculator and both languages ask the same thousands, and a test session asks them again for every build."""
    engine = engine or serving_engine(engines, weight_format)
    kv = kv_format_by_id(engines, engine, kv_format or engine.default_kv_format)
    return _verdict(model, weight_format, card, cards, context, sequences, kv,
                    engine, tuple(settings))


@lru_cache(maxsize=8192)
def _verdict(model: CatalogueModel, weight_format: WeightFormat, card: Gpu | Figure, cards: int, context: int,
             sequences: int, kv: KvCacheFormat, engine: Engine, settings: tuple[tuple[str, Decimal], ...]) -> Verdict:
    gpu = card if isinstance(card, Gpu) else None
    weights = in_gib(loaded_weights(engine, model, weight_format, gpu, cards, stored_weights(model, weight_format, cards)))
    if not engine.loads(weight_format.id):
        return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=None,
                       refusal=f"{engine.name} does not load {weight_format.name} (data/engines.yaml weight_formats)")
    if gpu is not None and not engine.runs_on(gpu.stack):
        return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=None,
                       refusal=f"{engine.name} does not run on {gpu.stack} ({gpu.name}): data/engines.yaml stacks")
    split = heads_split_refused(engine, model, cards)
    if split:
        return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=None,
                       refusal=split)
    needed = missing_feature(gpu, weight_format)
    if needed:
        return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=None,
                       refusal=f"needs {needed}: {gpu.name} cannot compute in {weight_format.name}", needs=needed)
    memory = card_gib(card)
    if weights.value > memory.value:
        return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=None,
                       refusal="the weights alone exceed the memory each card reports: no engine starts")
    budget = engine_budget(engine, card, weights, model, cards, context, sequences, kv, dict(settings))
    return Verdict(engine=engine, weight_format=weight_format, cards=cards, weights_gib=weights, budget=budget)


# -- what the room an engine leaves holds ------------------------------------------


def sized_to_request(engine: Engine) -> bool:
    """The engine allocates the cache the request asks for (llama.cpp) instead of keeping a budget."""
    return engine.budget == "request"


def sequence_split(engine: Engine, model: CatalogueModel, cards: int) -> tuple[tuple, Decimal]:
    """How each of ``cards`` cards holds a sequence: (the layers it keeps them in, the share of those it holds).
    An engine that sizes its cache to the request splits the layers (each card keeps every layer's cache for
    its share of them, as calc/engines.sequences_gib_by_layers); the others split the heads of every layer."""
    layers = attention.model_layers(model)
    if sized_to_request(engine):
        return layers, Decimal(cards)
    return attention.on_one_card(layers, cards), Decimal(1)


def kv_room_gib(answer: Verdict) -> Figure | None:
    """What each card has for sequences, in GiB, whatever the context: the engine's KV budget, or for an engine
    that sizes the cache to the request the cache it allocated plus the headroom left; None where the engine never
    sizes a cache (the card lacks a feature, the engine the format, the card the memory for the weights)."""
    if answer.budget is None:
        return None
    room = answer.budget.kv_cache_gib
    if sized_to_request(answer.engine):
        room = Figure(value=room.value + answer.budget.headroom_gib.value, unit=room.unit, kind=room.kind,
                      label="room for sequences", formula=Formula("+", (room, answer.budget.headroom_gib)))
    return room


def kv_room_gb(answer: Verdict) -> Figure | None:
    """``kv_room_gib`` in GB, where the engine starts."""
    if not answer.starts:
        return None
    return in_gb(kv_room_gib(answer), "KV cache room per card")


def longest_context(answer: Verdict, model: CatalogueModel, kv_format: KvCacheFormat) -> Figure | None:
    """The longest context one sequence may have where ``answer`` was given (at most the model's): the tokens the
    engine's budget holds, which is what its start check compares with the context; for a request-sized engine,
    the context whose cache fills the room (with flash attention its other terms do not grow with the context)."""
    room = kv_room_gb(answer)
    if room is None:
        return None
    if not sized_to_request(answer.engine):
        tokens = min(answer.budget.kv_tokens.value, Decimal(model.max_context))
        return Figure(value=tokens, unit="tokens", kind=COUNT, label="longest context", formula=Formula("min", (
            answer.budget.kv_tokens, given(model.max_context, "tokens", COUNT, "the model's longest context"))))
    return attention.longest_context(attention.model_layers(model), element_bytes(kv_format), room, 1,
                                     model.max_context)


def room_tokens(answer: Verdict, model: CatalogueModel, kv_format: KvCacheFormat) -> Figure | None:
    """Tokens of KV cache each card has room for: the engine's own count where it keeps a budget; for a
    request-sized engine, the room over what a token costs on each card (its share of the layers)."""
    room = kv_room_gb(answer)
    if room is None:
        return None
    if not sized_to_request(answer.engine):
        return answer.budget.kv_tokens
    layers, share = sequence_split(answer.engine, model, answer.cards)
    per_token = attention.kv_bytes_per_token(layers, element_bytes(kv_format))
    held = (room.value * BYTES_PER_GB / (per_token.value / share)).to_integral_value(rounding=ROUND_FLOOR)
    return Figure(value=held, unit="tokens", kind=COUNT, label="tokens the room holds",
                  formula=Formula("⌊÷⌋", (room, per_token)))


def sequences_held(answer: Verdict, model: CatalogueModel, kv_format: KvCacheFormat, context: int) -> Figure | None:
    """Sequences of ``context`` tokens the room holds on each card; None where not one."""
    room = kv_room_gb(answer)
    if room is None:
        return None
    layers, share = sequence_split(answer.engine, model, answer.cards)
    if share != 1:  # each card holds its share of every sequence: the room stands for that many times its size
        room = product(room, given(share, "cards", COUNT, "cards sharing the layers"), unit="GB", kind=MEMORY,
                       label=room.label)
    return attention.concurrent_sequences(layers, element_bytes(kv_format), room, context)


@dataclass(frozen=True)
class ServingChoice:
    """The configuration a site's selection rule prefers among those where the engine starts and holds the
    sequences asked for."""

    offer: Offer
    verdict: Verdict


def first_that_fits(offers: Iterable[Offer], verdict_on: Callable[[Gpu, int], Verdict]) -> ServingChoice | None:
    """The first of ``offers`` (ranked by the site's selection rule) on which ``verdict_on(card, count)`` fits."""
    for offer in offers:
        answer = verdict_on(offer.gpu, offer.count)
        if answer.fits:
            return ServingChoice(offer, answer)
    return None


def in_gb(gib: Figure, label: str | None = None) -> Figure:
    """A figure in GiB (as engines log it) in the site's decimal GB."""
    return product(gib, given(BYTES_PER_GIB / BYTES_PER_GB, "GB/GiB", FACTOR, "GB per GiB"), unit="GB", kind=MEMORY,
                   label=label or gib.label)


def bytes_in_gb(figure: Figure, kind: FigureKind, label: str) -> Figure:
    """A figure in bytes, in GB."""
    return Figure(value=figure.value / BYTES_PER_GB, unit="GB", kind=kind, label=label,
                  formula=Formula("÷", (figure, given(BYTES_PER_GB, "B/GB", FACTOR, "bytes per GB"))))


def per_card_sequences(engine: Engine, model: CatalogueModel, cards: int, b: Figure, context: int,
                       batch: int) -> tuple[Figure, Figure]:
    """What each of ``cards`` cards keeps as ``engine`` splits a sequence (``sequence_split``), in bytes: for each
    token of one sequence, and for ``batch`` sequences of ``context`` tokens, cache and state."""
    layers, share = sequence_split(engine, model, cards)
    per_token = attention.kv_bytes_per_token(layers, b)
    held = product(attention.sequence_bytes(layers, b, context), given(batch, "sequences", COUNT, "batch"),
                   unit="B", kind=COUNT, label="sequences per card")
    if share == 1:
        return per_token, held
    sharing = given(share, "cards", COUNT, "cards sharing the layers")
    return (quotient(per_token, sharing, unit="B", kind=COUNT, label="KV cache per token per card"),
            quotient(held, sharing, unit="B", kind=COUNT, label="sequences per card"))


def served_headroom(room_bytes: Figure, need_bytes: Figure) -> Figure:
    """What each card keeps free beside the sequences, in GB: the room the engine leaves less what they take."""
    return difference(bytes_in_gb(room_bytes, MEMORY, "room"), bytes_in_gb(need_bytes, MEMORY, "need"),
                      label="headroom")
