"""A card's own page (``facts: gpu``, made once per card)."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.guide import Guide
from . import register
from .base import Facts
from .measured import MeasuredCard, measured_card
from .shared import Defaults, defaults
from .views import Card, card


@dataclass(frozen=True)
class GpuPage(Facts):
    card: Card
    id: str
    """The card's id, for the tables that show it."""
    several_min: bool
    """The smallest order is more than one card."""
    wins: bool
    defaults: Defaults
    measured: MeasuredCard | None = None
    """The card's own measured figures, where a run of data/measurements/ was taken on it."""
    speeds: bool = False
    """The pages give the card's estimated speeds (GpuView.states_speeds)."""
    history: bool = False
    """The site keeps dated prices of the card (GpuView.past_prices)."""


@register("gpu")
def gpu_page(guide: Guide, params: dict, card_view=None) -> GpuPage:
    """A card's own page (made once per card)."""
    facts = card(card_view)
    return GpuPage(card=facts, id=card_view.id, several_min=facts.min_cards.value > 1, wins=facts.wins.value > 0,
                   defaults=defaults(guide), measured=measured_card(guide, card_view.id),
                   speeds=card_view.states_speeds, history=bool(card_view.past_prices))
