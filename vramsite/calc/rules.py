"""The sizing and rental rules, each stated once.

Which card counts a card is rented in, which hardware a method needs, what
fits, how much memory is left, when that is tight, and what an order of
several cards costs. Plain ``Decimal`` in, plain answers out: the lookup
compares tens of thousands of options with these, and the figures the pages
show (``cost.order_price``, ``lookup.configuration``) take their values from
them.
"""

from __future__ import annotations

from decimal import Decimal

from ..load.model import Discount, Gpu, LookupRules, Method
from .figure import COUNT, MEMORY, Figure, Formula, given

# -- what may be rented ----------------------------------------------------------


def allowed_counts(gpu: Gpu, rules: LookupRules) -> tuple[int, ...]:
    """The card counts a card is rented in: its own, or the lookup's default."""
    return gpu.rentable_counts or rules.card_counts


def required_feature(method: Method) -> str | None:
    """The hardware feature a method's precision needs, if any."""
    return method.precision.requires_feature if method.precision else None


def lacks_feature(gpu: Gpu, method: Method) -> str | None:
    """The feature the method needs and the card lacks (None when the card has what it needs)."""
    feature = required_feature(method)
    return feature if feature and feature not in gpu.features else None


def links_all_to_all(gpu: Gpu, count: int) -> bool:
    """Whether ``count`` of these cards are joined all-to-all by their link."""
    reach = gpu.interconnect.all_to_all_cards
    return reach is not None and reach >= count


def meets_rules(gpu: Gpu, count: int, method: Method, rules: LookupRules) -> bool:
    """Hardware and rental rules, leaving aside whether the need fits."""
    if count not in allowed_counts(gpu, rules):
        return False
    if lacks_feature(gpu, method):
        return False
    if count > 1 and method.needs_all_to_all:
        return links_all_to_all(gpu, count)
    return True


# -- what fits, and how much is left -------------------------------------------


def capacity(memory_gb: Decimal, count: int) -> Decimal:
    """The memory of ``count`` cards together."""
    return memory_gb * count


def fits(need_gb: Decimal, memory_gb: Decimal, count: int = 1) -> bool:
    """Whether ``count`` cards hold the need, split evenly across them."""
    return need_gb <= capacity(memory_gb, count)


def need_per_card(need_gb: Decimal, count: int) -> Decimal:
    """The share of the need each of ``count`` cards holds."""
    return need_gb if count == 1 else need_gb / count


def headroom_per_card(memory_gb: Decimal, need_gb: Decimal, count: int) -> Decimal:
    """Memory left on each card once the need is split evenly (negative: it does not fit)."""
    return memory_gb - need_per_card(need_gb, count)


def tight_limit(count: int, rules: LookupRules) -> Decimal:
    """The headroom per card below which a configuration is tight: one limit for one card, one for several."""
    return rules.tight_single_gb if count == 1 else rules.tight_per_card_gb


def is_tight(headroom_gb: Decimal, count: int, rules: LookupRules) -> bool:
    return headroom_gb < tight_limit(count, rules)


def holds_roomily(memory_gb: Decimal, need_gb: Decimal, rules: LookupRules) -> bool:
    """Whether one card holds the need without fitting tightly."""
    return not is_tight(headroom_per_card(memory_gb, need_gb, 1), 1, rules)


def need_per_card_figure(need: Figure, count: int) -> Figure:
    """``need_per_card`` as a figure: need ÷ cards."""
    if count == 1:
        return need
    cards = given(count, "cards", COUNT)
    return Figure(value=need_per_card(need.value, count), unit="GB", kind=MEMORY, label="per card",
                  formula=Formula("÷", (need, cards)))


def headroom_figure(card_memory: Figure, need: Figure, count: int) -> Figure:
    """``headroom_per_card`` as a figure: card memory − need per card."""
    value = headroom_per_card(card_memory.value, need.value, count)
    return Figure(value=value, unit=card_memory.unit, kind=card_memory.kind, label="headroom",
                  formula=Formula("−", (card_memory, need_per_card_figure(need, count))))


# -- what an order costs --------------------------------------------------------


def discount_percent(count: int, discounts: tuple[Discount, ...]) -> Decimal:
    """The volume discount on an order of ``count`` cards, in percent (0 where none applies)."""
    for discount in discounts:
        if discount.cards == count:
            return discount.percent
    return Decimal(0)


def discount_share(percent: Decimal) -> Decimal:
    """A discount in percent as a share of the list price: percent ÷ 100."""
    return percent / 100


def kept_share(percent: Decimal) -> Decimal:
    """The share of the list price an order pays after a discount of ``percent``: 1 − percent ÷ 100."""
    return 1 - discount_share(percent)


def order_usd(usd: Decimal, count: int, discounts: tuple[Discount, ...]) -> Decimal:
    """count × price per card × (1 − discount): the price of renting ``count`` cards together."""
    if count == 1:
        return usd
    return count * usd * kept_share(discount_percent(count, discounts))
