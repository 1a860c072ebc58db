"""Which configuration to rent for a memory need, under the site's rules.

A configuration is N identical cards. It qualifies when the card may be
rented in that count, has the hardware the method's precision needs, has an
all-to-all link for that many cards where the method needs one, has a price,
and holds the need split evenly across the cards. The site's ``selection``
rule then picks one (see ``LookupRules``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..load.model import Discount, Gpu, LookupRules, Method, Pricing, Selection
from ..load.reads import EveryCardRead
from .cost import card_memory, order_price
from .figure import COUNT, MEMORY, Figure, ceiling_quotient, given, product
from .offers import Offer, card_offers, market_offers
from .rules import (
    headroom_figure,
    headroom_per_card,
    is_tight,
    meets_rules,
    need_per_card_figure,
    required_feature,
)


@dataclass(frozen=True)
class Market:
    """What the lookup chooses from: cards, their prices, and the rules."""

    gpus: tuple[Gpu, ...]
    pricing: Pricing
    discounts: tuple[Discount, ...]
    rules: LookupRules
    _offers: dict = field(default_factory=EveryCardRead, init=False, compare=False, hash=False, repr=False)
    """What depends only on the method's rules (feature, all-to-all), worked out once: the priced
    configurations, their ranking, the cards of each memory size, the card that forms a node."""


@dataclass(frozen=True, slots=True)
class Configuration:
    gpu: Gpu
    count: int
    need_per_card: Figure
    headroom_per_card: Figure
    price: Figure
    tight: bool

    @property
    def memory(self) -> Figure:
        return product(given(self.count, "cards", COUNT), card_memory(self.gpu), unit="GB", kind=MEMORY,
                       label="memory")

    @property
    def headroom(self) -> Figure:
        """Memory left over in total, on all cards together."""
        return product(given(self.count, "cards", COUNT), self.headroom_per_card, unit="GB", kind=MEMORY,
                       label="headroom")


@dataclass(frozen=True, slots=True)
class Lookup:
    """The answer for one need: a configuration, or the nodes it would take."""

    need: Figure
    method: Method
    choice: Configuration | None
    same_class: tuple[Gpu, ...]
    """Every qualifying card with the chosen card's memory, the chosen one included."""
    nodes: Figure | None
    """When nothing fits: full nodes of the largest qualifying card needed."""
    node_cards: int
    cheapest: Configuration | None = None
    """The lowest-priced configuration that holds the need, where it costs less than ``choice``: the
    selection rule may prefer one card, or the smallest, over a cheaper set."""

    @property
    def fits(self) -> bool:
        return self.choice is not None


def configuration(need: Figure, gpu: Gpu, count: int, market: Market) -> Configuration | None:
    """The configuration of ``count`` × ``gpu`` for ``need``, if it has a price."""
    price = order_price(gpu, count, market.pricing, market.discounts)
    if price is None:
        return None
    headroom = headroom_figure(card_memory(gpu), need, count)
    return Configuration(gpu=gpu, count=count, need_per_card=need_per_card_figure(need, count),
                         headroom_per_card=headroom, price=price, tight=is_tight(headroom.value, count, market.rules))


@dataclass(frozen=True, slots=True)
class Option:
    """A qualifying configuration in plain numbers: what the selection rule compares.

    Only the chosen option becomes a ``Configuration`` with figures and formulas;
    a grid of hundreds of models and cards compares tens of thousands of options.
    """

    gpu: Gpu
    count: int
    price: Decimal
    headroom_per_card: Decimal


def candidates(need: Figure, method: Method, market: Market) -> list[Option]:
    """Every priced configuration that meets the rules and holds the need."""
    found = []
    for offer in _offers(method, market):
        if need.value <= offer.memory_gb:  # rules.fits, with the cards' memory worked out once
            found.append(Option(offer.gpu, offer.count, offer.usd,
                                headroom_per_card(offer.gpu.memory_gb, need.value, offer.count)))
    return found


def _offers(method: Method, market: Market) -> list[Offer]:
    """The offers a method's rules allow (calc/offers.py).

    They depend on the method only through its hardware feature and its need for an
    all-to-all link, so a grid of many models works them out once per kind of method.
    """
    key = _rules_key(method)
    if key not in market._offers:
        if "all" not in market._offers:
            market._offers["all"] = market_offers(market)
        market._offers[key] = [offer for offer in market._offers["all"] if offer.allows(method)]
    return market._offers[key]


def _rules_key(method: Method) -> tuple:
    """What of a method the hardware rules look at."""
    return required_feature(method), method.needs_all_to_all


def _cheapest_key(offer: Offer) -> tuple:
    """One card before several, then the lowest price, fewer cards, more memory to spare."""
    # Within one card count, more memory per card is more headroom for any need.
    return (offer.count > 1, offer.usd, offer.count, -offer.gpu.memory_gb, offer.gpu.id)


def _smallest_fit_key(offer: Offer) -> tuple:
    """The fewest cards, then the smallest card, then the lowest price."""
    return (offer.count, offer.gpu.memory_gb, offer.usd, offer.gpu.id)


SELECTIONS = {Selection.CHEAPEST: _cheapest_key, Selection.SMALLEST_FIT: _smallest_fit_key}
"""The selection rules a site can name in sizing.yaml (lookup.selection). Neither depends on
the need, so the offers are sorted once and the answer is the first that holds the need."""


def ranked_offers(method: Method, market: Market) -> list[Offer]:
    """The offers a method's rules allow, in the order the site's selection rule prefers them."""
    key = ("ranked", market.rules.selection, *_rules_key(method))
    if key not in market._offers:
        market._offers[key] = sorted(_offers(method, market), key=SELECTIONS[market.rules.selection])
    return market._offers[key]


def ranked_card_offers(gpu: Gpu, method: Method, market: Market) -> list[Offer]:
    """``ranked_offers`` of one card: the rule's keys compare offers one by one, so its order among themselves is
    the same; worked out from that card's price alone, so that what asks reads no other card's."""
    return sorted((offer for offer in card_offers(gpu, market) if offer.allows(method)),
                  key=SELECTIONS[market.rules.selection])


def first_fit(need: Figure, method: Method, market: Market,
              need_on: Callable[[int], Figure] | None = None) -> Offer | None:
    """The offer the selection rule picks for ``need`` (``lookup``'s ``choice``, as an offer); None where none holds
    it. What the pick needs alone, for a question asked under many markets (the price history)."""
    if need_on is None:
        # rules.fits, with the cards' memory worked out once: this is the grid's inner loop.
        return next((offer for offer in ranked_offers(method, market) if need.value <= offer.memory_gb), None)
    return next((offer for offer in ranked_offers(method, market) if need_on(offer.count).value <= offer.memory_gb),
                None)


def lookup(need: Figure, method: Method, market: Market,
           need_on: Callable[[int], Figure] | None = None) -> Lookup:
    """The configuration the selection rule picks for ``need``.

    ``need_on(cards)``, where given, is the need as ``cards`` cards split it (a real model's cache
    does not always split with them: calc/attention.py): each card count is then held to its own need,
    and ``need`` is the need on one card.
    """
    node_cards = max(market.rules.card_counts)
    best = first_fit(need, method, market, need_on)
    if best is None:
        nodes_need = need if need_on is None else need_on(node_cards)
        return Lookup(need=nodes_need, method=method, choice=None, same_class=(),
                      nodes=_nodes_needed(nodes_need, method, market, node_cards), node_cards=node_cards)
    need_of = (lambda cards: need) if need_on is None else need_on
    choice = configuration(need_of(best.count), best.gpu, best.count, market)
    cheaper = _cheapest_below(best, method, market, need_of)
    cheapest = configuration(need_of(cheaper.count), cheaper.gpu, cheaper.count, market) if cheaper else None
    return Lookup(need=need_of(best.count), method=method, choice=choice,
                  same_class=_same_class(choice, method, market), nodes=None, node_cards=node_cards, cheapest=cheapest)


def cheapest_after(prices: Sequence[Decimal]) -> int | None:
    """The index of the lowest of ``prices`` where it is below the first, the selection rule's pick (the first
    of equal prices); None where the pick is the cheapest. calculator.js ``cheapestAfter`` is the same rule."""
    lowest = min(range(len(prices)), key=prices.__getitem__, default=None)
    return lowest if lowest is not None and prices[lowest] < prices[0] else None


def _cheapest_below(best: Offer, method: Method, market: Market,
                    need_on: Callable[[int], Figure]) -> Offer | None:
    """The offer ``cheapest_after`` names among ``best`` and the cheaper offers that hold the need."""
    holding = [best] + [offer for offer in ranked_offers(method, market)
                        if offer.usd < best.usd and need_on(offer.count).value <= offer.memory_gb]
    found = cheapest_after([offer.usd for offer in holding])
    return None if found is None else holding[found]


def _same_class(choice: Configuration, method: Method, market: Market) -> tuple[Gpu, ...]:
    """Qualifying cards of the chosen card's memory size, priced or not, in data order."""
    key = ("same class", choice.gpu.memory_gb, choice.count, *_rules_key(method))
    if key not in market._offers:
        market._offers[key] = tuple(
            gpu for gpu in market.gpus
            if gpu.memory_gb == choice.gpu.memory_gb and meets_rules(gpu, choice.count, method, market.rules)
        )
    return market._offers[key]


def _node_card(method: Method, market: Market, node_cards: int) -> Gpu | None:
    """The largest priced card that forms a full node under the method's rules."""
    key = ("node card", node_cards, *_rules_key(method))
    if key not in market._offers:
        eligible = [
            gpu for gpu in market.gpus
            if meets_rules(gpu, node_cards, method, market.rules) and market.pricing.usd.get(gpu.id) is not None
        ]
        market._offers[key] = max(eligible, key=lambda gpu: (gpu.memory_gb, gpu.id)) if eligible else None
    return market._offers[key]


def _nodes_needed(need: Figure, method: Method, market: Market, node_cards: int) -> Figure | None:
    """Full nodes of the largest card that could form one, to hold ``need``."""
    largest = _node_card(method, market, node_cards)
    return None if largest is None else nodes_of(need, largest, node_cards)


def nodes_of(need: Figure, card: Gpu, node_cards: int) -> Figure:
    """Full nodes of ``node_cards`` × ``card`` that hold ``need``."""
    node_memory = product(given(node_cards, "cards", COUNT), card_memory(card), unit="GB", kind=MEMORY,
                          label="node memory")
    return ceiling_quotient(need, node_memory, unit="nodes", label="nodes")
