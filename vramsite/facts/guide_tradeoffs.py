"""The VRAM guide's trade-offs: decode ceilings of a slow and a fast card, a quantized model against a dense
one, two cards against one larger, and the links between cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc import rules
from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from .base import Facts
from .views import Card, Model, Offer, card, card_or_none, model, offer


@dataclass(frozen=True)
class Ceilings(Facts):
    model: Model
    weights: Figure
    slow: Card
    slow_ceiling: Figure
    fast: Card
    fast_ceiling: Figure
    both_hold: bool
    ratio: Figure


@dataclass(frozen=True)
class Quantized(Facts):
    model: Model
    dense: Offer
    dense_weights: Figure
    dense_ceiling: Figure | None
    small_need: Figure
    small: Card | None
    small_weights: Figure
    small_ceiling: Figure | None
    faster: bool
    cheaper: bool
    cheaper_by: Figure | None


@dataclass(frozen=True)
class Pair(Facts):
    count: Figure
    card: Card
    memory: Figure
    order: Figure
    single: Card | None
    """The cheapest single card with more memory than one of the pair, up to the pair's together."""
    more_memory: bool
    cheaper: bool
    share: Figure | None


@dataclass(frozen=True)
class Links(Facts):
    nvlink: Card | None
    bridged: tuple[str, ...]
    bridge: Figure | None
    pcie: Card | None
    """A card without NVLink, over PCIe."""
    other_pcie: Card | None
    """A card on another PCIe generation than ``pcie``."""


@dataclass(frozen=True)
class Tradeoffs(Facts):
    ceilings: Ceilings
    quantized: Quantized
    pair: Pair | None
    links: Links
    comparison_memory: Figure
    """One card's memory in the comparison table's first configuration."""


def tradeoffs(guide: Guide, params: dict) -> Tradeoffs:
    production = guide.gpu(params["production_card"])
    fast = fastest_under(guide, params["budget_usd"])
    comparison = guide.gpu(params["comparison"][0][0])
    return Tradeoffs(ceilings=_ceilings(guide, fast), quantized=_quantized(guide, params),
                     pair=_pair(guide, params["pair"]), links=_links(guide, production, fast, params),
                     comparison_memory=comparison.memory)


def fastest_under(guide: Guide, budget):
    affordable = [g for g in guide.gpus if g.price is not None and g.price.value < Decimal(budget)]
    return guide.fastest_under(budget) if affordable else None


def _ceilings(guide: Guide, fast) -> Ceilings:
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    slow = guide.cheapest_per_gb()
    fast = fast or guide.fastest_memory()
    if fast.gpu.bandwidth_gbps < slow.gpu.bandwidth_gbps:
        slow, fast = fast, slow
    need = small.inference("bf16").total
    return Ceilings(model=model(small), weights=small.weights("bf16"), slow=card(slow),
                    slow_ceiling=small.decode_ceiling(slow.id, "bf16"), fast=card(fast),
                    fast_ceiling=small.decode_ceiling(fast.id, "bf16"),
                    both_hold=rules.fits(need.value, slow.gpu.memory_gb) and rules.fits(need.value, fast.gpu.memory_gb),
                    ratio=guide.ratio(fast.bandwidth, slow.bandwidth))


def _quantized(guide: Guide, params: dict) -> Quantized:
    mid = guide.model(params["mid_model"])
    dense = offer(guide, guide.lookup(mid.model, guide.inference_method("bf16")))
    small_need = mid.inference("int4").total
    holding = [g for g in guide.gpus if g.price is not None and rules.fits(small_need.value, g.gpu.memory_gb)]
    small = None
    if holding:
        size = min(g.gpu.memory_gb for g in holding)
        small = max((g for g in holding if g.gpu.memory_gb == size), key=lambda g: (g.gpu.bandwidth_gbps, g.id))
    dense_ceiling = mid.decode_ceiling(dense.card.gpu.id, "bf16") if dense.fits else None
    small_ceiling = mid.decode_ceiling(small.id, "int4") if small else None
    faster = bool(dense_ceiling and small_ceiling and small_ceiling.value > dense_ceiling.value)
    cheaper = bool(dense.fits and small and small.price.value < dense.price.value)
    return Quantized(model=model(mid), dense=dense, dense_weights=mid.weights("bf16"), dense_ceiling=dense_ceiling,
                     small_need=small_need, small=card_or_none(small), small_weights=mid.weights("int4"),
                     small_ceiling=small_ceiling, faster=faster, cheaper=cheaper,
                     cheaper_by=guide.cheaper_by(small.price, dense.price) if cheaper else None)


def _pair(guide: Guide, count: int) -> Pair | None:
    view = guide.cheapest_per_gb()
    order = view.order(count)
    if order is None:
        return None
    together = rules.capacity(view.gpu.memory_gb, count)
    singles = [g for g in guide.gpus if g.price is not None and view.gpu.memory_gb < g.gpu.memory_gb <= together]
    single = min(singles, key=lambda g: (g.price.value, g.id)) if singles else None
    cheaper = bool(single and order.value < single.price.value)
    return Pair(count=given(count, "", COUNT), card=card(view), memory=view.memory_of(count), order=order,
                single=card_or_none(single), more_memory=bool(single and together > single.gpu.memory_gb),
                cheaper=cheaper, share=guide.share(order, single.price) if single else None)


def _links(guide: Guide, production, fast, params: dict) -> Links:
    reference = guide.gpu(params["reference_card"])
    nvlink = reference if reference.interconnect_kind == "nvlink" else next(
        (g for g in guide.gpus if g.interconnect_kind == "nvlink"), None)
    bridged = [g for g in guide.gpus if g.interconnect_kind == "nvlink-bridge"]
    if bridged:
        size = max(g.gpu.memory_gb for g in bridged)
        bridged = sorted((g for g in bridged if g.gpu.memory_gb == size),
                         key=lambda g: (g.price.value if g.price else Decimal(0), g.id))
    pcie = production if production.interconnect_kind.startswith("pcie") else next(
        (g for g in guide.gpus if g.interconnect_kind.startswith("pcie")), None)
    other = None
    if pcie is not None:
        candidates = ([fast] if fast else []) + list(guide.gpus)
        other = next((g for g in candidates if g.interconnect_kind.startswith("pcie")
                      and g.interconnect_kind != pcie.interconnect_kind), None)
    return Links(nvlink=card_or_none(nvlink), bridged=tuple(g.name for g in bridged),
                 bridge=bridged[0].link if bridged else None, pcie=card_or_none(pcie), other_pcie=card_or_none(other))
