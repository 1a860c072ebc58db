"""The pricing page (``facts: pricing``): the rental terms, the volume discounts and a worked order."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from . import register
from .base import Facts
from .shared import Discount, MinOrder, discounts, min_order
from .views import Card, card


@dataclass(frozen=True)
class Example(Facts):
    card: Card
    count: Figure
    order: Figure
    list_price: Figure
    discounted: bool


@dataclass(frozen=True)
class PricingPage(Facts):
    minimum_days: Figure
    hours_per_month: Figure
    discounts: tuple[Discount, ...]
    example: Example | None
    min_order: MinOrder | None


@register("pricing")
def pricing_page(guide: Guide, params: dict, subject=None) -> PricingPage:
    """The pricing page. Params: ``example`` — [card id, card count] for the worked discount."""
    card_id, count = params["example"]
    view = guide.gpu(card_id)
    order = view.order(count)
    example = None
    if order is not None:
        example = Example(card=card(view), count=given(count, "", COUNT), order=order,
                          list_price=view.list_price(count), discounted=guide.discount(count).value > 0)
    pricing = guide.data.pricing
    return PricingPage(minimum_days=given(pricing.minimum_days, "", COUNT),
                       hours_per_month=given(pricing.hours_per_month, "", COUNT), discounts=discounts(guide),
                       example=example, min_order=min_order(guide))
