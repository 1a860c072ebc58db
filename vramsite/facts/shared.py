"""Pieces of page facts more than one page's builders use: a model served at three precisions, the
volume discounts, the inference defaults every table uses, the smallest order a card is rented in.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from .base import Facts
from .views import Card, Offer, card, offer


FP8_FEATURE = "fp8"


@dataclass(frozen=True)
class Serving(Facts):
    """A model served at one precision: its need and the cheapest answer."""

    bf16: Offer
    fp8: Offer
    int4: Offer


def serving(guide: Guide, model_id: str, context: int | None = None) -> Serving:
    return Serving(*(offer(guide, guide.lookup(guide.data.model(model_id), guide.inference_method(precision),
                                               context))
                     for precision in ("bf16", "fp8", "int4")))


@dataclass(frozen=True)
class Discount(Facts):
    cards: Figure
    percent: Figure


def discounts(guide: Guide) -> tuple[Discount, ...]:
    return tuple(Discount(given(d.cards, "cards", COUNT), given(d.percent, "%", COUNT))
                 for d in guide.data.discounts)


@dataclass(frozen=True)
class Defaults(Facts):
    """The inference assumptions every table uses."""

    context: Figure
    batch: Figure
    overhead: Figure
    kv_precision: str


def defaults(guide: Guide) -> Defaults:
    inference = guide.data.inference
    return Defaults(given(inference.context_tokens, "", COUNT), given(inference.batch, "", COUNT),
                    guide.overhead, inference.kv_precision.label if inference.kv_precision else "")


@dataclass(frozen=True)
class MinOrder(Facts):
    card: Card
    list_price: Figure
    order: Figure
    discount: Figure


def min_order(guide: Guide) -> MinOrder | None:
    found = [g for g in guide.gpus_with_min_order() if g.price is not None]
    if not found:
        return None
    view = found[0]
    count = int(view.min_cards.value)
    return MinOrder(card(view), view.list_price(count), view.order(count), guide.discount(count))
