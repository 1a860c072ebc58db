"""Cards, models and lookup answers as page facts: figures only, read by attribute."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc import rules
from ..calc.figure import COUNT, Figure, given
from ..calc.lookup import Lookup
from ..load.model import Gpu
from .base import Facts


@dataclass(frozen=True, kw_only=True)
class Card(Facts):
    """One card and its own figures; ``gpu_link(card)`` and ``link_name(card)`` take it as it is."""

    gpu: Gpu
    name: str
    architecture: str
    memory: Figure
    memory_gb: Figure
    """The spec-sheet size as a bare number (48), for "a 48 GB card"."""
    memory_type: str
    bandwidth: Figure
    launched: Figure | None
    price: Figure | None
    weekly: Figure | None
    hourly: Figure | None
    usd_per_gb: Figure | None
    gbps_per_usd: Figure | None
    link: Figure
    peer_link: Figure | None
    """Where each pair of cards has a link of its own (a mesh): one such link, one way."""
    all_to_all_cards: Figure | None
    min_cards: Figure
    stock: Figure | None
    regions: tuple[str, ...]
    stack: str
    fp8: bool
    wins: Figure
    """Cells of the lookup grid this card is the answer for."""


def card(view) -> Card:
    """A card's facts from its ``GpuView``."""
    return Card(
        gpu=view.gpu, name=view.name, architecture=view.architecture, memory=view.memory,
        memory_gb=given(view.gpu.memory_gb, "", COUNT), memory_type=view.memory_type, bandwidth=view.bandwidth,
        launched=view.launched, price=view.price, weekly=view.weekly, hourly=view.hourly,
        usd_per_gb=view.usd_per_gb, gbps_per_usd=view.gbps_per_usd, link=view.link,
        peer_link=view.peer_link, all_to_all_cards=view.all_to_all_cards, min_cards=view.min_cards, stock=view.stock,
        regions=tuple(region.id for region in view.regions), stack=view.stack, fp8=view.fp8,
        wins=given(len(view.cells_won()), "cells", COUNT, "cells won"),
    )


def card_or_none(view) -> Card | None:
    return None if view is None else card(view)


@dataclass(frozen=True)
class Model(Facts):
    name: str
    params: Figure
    layers: Figure | None
    """The shape, where the data gives one (the KV cache reads it); None for a model sized by parameters alone."""
    attention_heads: Figure | None
    kv_heads: Figure | None
    head_dim: Figure | None


def model(view) -> Model:
    if not view.model.layers:
        return Model(name=view.name, params=view.params, layers=None, attention_heads=None, kv_heads=None,
                     head_dim=None)
    return Model(name=view.name, params=view.params, layers=view.layer_count, attention_heads=view.attention_heads,
                 kv_heads=view.kv_heads, head_dim=view.head_dim)


@dataclass(frozen=True)
class Offer(Facts):
    """A lookup answer: the need and, when something holds it, the cards that do."""

    need: Figure
    fits: bool
    one_card: bool
    """True when a single card holds the need."""
    card: Card | None
    count: Figure | None
    price: Figure | None
    headroom: Figure | None
    """Memory left on each card."""
    nodes: Figure | None
    """When nothing fits: full nodes it would take."""
    node_cards: Figure


def offer(guide, answer: Lookup) -> Offer:
    node_cards = given(answer.node_cards, "cards", COUNT, "cards per node")
    choice = answer.choice
    if choice is None:
        return Offer(need=answer.need, fits=False, one_card=False, card=None, count=None, price=None, headroom=None,
                     nodes=answer.nodes, node_cards=node_cards)
    return Offer(need=answer.need, fits=True, one_card=choice.count == 1, card=card(guide.gpu(choice.gpu.id)),
                 count=given(choice.count, "cards", COUNT, "cards"), price=choice.price,
                 headroom=choice.headroom_per_card, nodes=None, node_cards=node_cards)


def holds(card_facts: Card, need: Figure) -> bool:
    """Whether one card's memory holds ``need``."""
    return rules.fits(need.value, card_facts.memory.value)
