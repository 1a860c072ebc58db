"""What a market offers: every priced configuration of N identical cards, reduced to plain numbers.

An ``Offer`` is one card rented in one of its allowed counts, with the memory
of the cards together, the order's price (discount applied) and what the
hardware rules need to know of it. The lookup chooses among these, and the
in-page calculator gets the same list (render/calculator/data.py), so both answer
from one reduction.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..load.model import Gpu, Method
from . import rules


@dataclass(frozen=True)
class Offer:
    gpu: Gpu
    count: int
    memory_gb: Decimal
    """The memory of the ``count`` cards together."""
    usd: Decimal
    """The order's price per billing period, discount applied (``rules.order_usd``)."""
    links_all_to_all: bool
    """Whether the ``count`` cards are joined all-to-all (``rules.links_all_to_all``)."""

    def allows(self, method: Method) -> bool:
        """The hardware rules (``rules.meets_rules``) for an offer already in an allowed count."""
        if rules.lacks_feature(self.gpu, method):
            return False
        return self.count == 1 or not method.needs_all_to_all or self.links_all_to_all


def market_offers(market) -> tuple[Offer, ...]:
    """Every priced card in every count it may be rented in, in card order."""
    return tuple(offer for gpu in market.gpus for offer in card_offers(gpu, market))


def card_offers(gpu: Gpu, market) -> tuple[Offer, ...]:
    """One card in every count it may be rented in, from its own price alone; none where it has no price."""
    usd = market.pricing.usd.get(gpu.id)
    if usd is None:
        return ()
    return tuple(Offer(gpu=gpu, count=count, memory_gb=rules.capacity(gpu.memory_gb, count),
                       usd=rules.order_usd(usd, count, market.discounts),
                       links_all_to_all=rules.links_all_to_all(gpu, count))
                 for count in rules.allowed_counts(gpu, market.rules))
