"""What the dated price lists say: a card's price over time, and when the answer for a model last moved.

The lists are ``SiteData.price_history``, oldest first, the last being
prices.yaml's own. A past answer is the lookup worked out again under that
list's prices, with today's cards, sizing rules and discounts: the history
tells what the prices alone did to the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..load.model import CardPrice, PriceSnapshot
from .lookup import Market


@dataclass(frozen=True)
class PricePoint:
    at: str
    price: CardPrice


@dataclass(frozen=True)
class AnswerChange:
    """When the configuration picked for a question last changed with the prices, and what it was before.

    An answer is a ``Lookup`` (its ``choice``) or a serving engine's ``ServingChoice`` (or None, where nothing
    starts): ``pick_key`` reduces either to what the reader rents."""

    now: object
    since: str | None
    """The date of the list that brought the current pick; None where every list gave it."""
    before: object
    """The answer under the list just before ``since``; None where ``since`` is."""
    first: str
    """The date of the oldest list."""


def card_prices(history: tuple[PriceSnapshot, ...], gpu_id: str) -> tuple[PricePoint, ...]:
    """The card's price in each list that offers it, oldest first."""
    return tuple(PricePoint(snapshot.at, snapshot.cards[gpu_id]) for snapshot in history if gpu_id in snapshot.cards)


def has_price_history(points: tuple[PricePoint, ...]) -> bool:
    """Whether a card's prices make a history: two lists or more, one at least with a price."""
    return len(points) > 1 and any(point.price.usd is not None for point in points)


def past_markets(market: Market, history: tuple[PriceSnapshot, ...]) -> tuple[Market, ...]:
    """The market under each list's prices but the last (which is ``market``'s own), oldest first."""
    return tuple(Market(market.gpus, replace(market.pricing, usd=_usd(snapshot), updated=snapshot.at),
                        market.discounts, market.rules) for snapshot in history[:-1])


def _usd(snapshot: PriceSnapshot) -> dict:
    return {gpu: price.usd for gpu, price in snapshot.cards.items()}


def pick_key(answer) -> tuple | None:
    """What the reader rents, the card and the count, from a ``Lookup``, a ``ServingChoice`` or an ``Offer``;
    None where nothing fits."""
    if answer is None:
        return None
    if hasattr(answer, "offer"):
        answer = answer.offer
    elif hasattr(answer, "choice"):
        answer = answer.choice
        if answer is None:
            return None
    return answer.gpu.id, answer.count


def answer_change(now, answer_in: Callable[[Market], object], markets: tuple[Market, ...],
                  history: tuple[PriceSnapshot, ...],
                  pick_in: Callable[[Market], object] | None = None) -> AnswerChange:
    """``now`` (the answer under the last list) against ``answer_in(market)`` under each of ``past_markets``,
    from the newest back to the first whose pick differs. ``pick_in(market)``, where given, finds the pick alone
    (what ``pick_key`` reads) at less cost than the whole answer, which is then worked out for that market only."""
    key = pick_key(now)
    pick_in = pick_in or answer_in
    for index in range(len(markets) - 1, -1, -1):
        if pick_key(pick_in(markets[index])) != key:
            return AnswerChange(now=now, since=history[index + 1].at, before=answer_in(markets[index]),
                                first=history[0].at)
    return AnswerChange(now=now, since=None, before=None, first=history[0].at)


@dataclass(frozen=True)
class MovedAnswer:
    """A question whose pick a price list moved: a model and a method (a ``Lookup`` each side), or a real model
    and the format it is served in (a ``ServingChoice`` or None each side)."""

    model_id: str
    method_id: str
    before: object
    after: object


@dataclass(frozen=True)
class PriceChange:
    gpu_id: str
    before: CardPrice | None
    """None: the card was not offered in the list before."""
    after: CardPrice | None
    """None: the card is no longer offered."""


def price_changes(before: PriceSnapshot, after: PriceSnapshot, gpu_order: tuple[str, ...]) -> tuple[PriceChange, ...]:
    """The cards whose price differs between two lists, in the cards' order."""
    changes = []
    for gpu in gpu_order:
        old, new = before.cards.get(gpu), after.cards.get(gpu)
        if _as_offered(old) != _as_offered(new):
            changes.append(PriceChange(gpu, old, new))
    return tuple(changes)


def _as_offered(price: CardPrice | None) -> tuple | None:
    """None where the card is not offered; else its price, itself None where none is published."""
    return None if price is None else (price.usd,)


def moved_answers(cells: tuple[tuple[str, str], ...], answer_in: Callable[[str, str, Market], object],
                  before: Market, after: Market) -> tuple[MovedAnswer, ...]:
    """The (model id, method id) cells whose pick differs between two markets, in ``cells``' order."""
    moved = []
    for model_id, method_id in cells:
        old, new = answer_in(model_id, method_id, before), answer_in(model_id, method_id, after)
        if pick_key(old) != pick_key(new):
            moved.append(MovedAnswer(model_id, method_id, old, new))
    return tuple(moved)
