"""One card as pages ask for it: ``GpuView``, its fields as load/cards.py declares them and its prices.

Each field of the declaration that names a ``view`` is an attribute here, set from the declaration
below the class: the value as the data holds it, or a ``Figure`` where the field has a unit
(``memory``, ``bandwidth``, ``launched``). What the class itself says is derived: the link, the prices,
orders of several cards, the lookup cells the card wins. ``Guide.gpu(id)`` makes one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..load.cards import FIELDS, AsFigure, CardField
from ..load.model import Gpu
from . import cost, price_history, rules, throughput
from .figure import COUNT, MEMORY, Figure, given, product


@dataclass(frozen=True)
class DatedPrice:
    """A card's price in one dated list: the price, and a marketplace snapshot's median and listings."""

    at: str
    price: Figure | None
    median: Figure | None
    listings: Figure | None


class GpuView:
    """One card, with its prices and derived figures."""

    def __init__(self, guide, gpu: Gpu):
        self.guide, self.gpu = guide, gpu
        """The ``Guide`` (calc/guide.py) that made it, and the card's record."""

    # id, name, memory, memory_type, bandwidth, architecture, launched, stack, regions: from load/cards.py

    interconnect_kind = property(lambda self: self.gpu.interconnect.kind)

    def has(self, feature: str) -> bool:
        return feature in self.gpu.features

    @property
    def fp8(self) -> bool:
        """Whether the card computes in FP8 (the catalogue's FP8 column)."""
        return self.has("fp8")

    @property
    def link(self) -> Figure:
        return throughput.card_link(self.gpu)

    @property
    def peer_link(self) -> Figure | None:
        """One link of a mesh, one way; None where a card can send its whole link to any one peer."""
        return throughput.mesh_peer_link(self.gpu)

    @property
    def stock(self) -> Figure | None:
        counts = [region.stock for region in self.gpu.regions if region.stock is not None]
        return given(sum(counts), "cards", COUNT, "free cards") if counts else None

    @property
    def all_to_all_cards(self) -> Figure | None:
        reach = self.gpu.interconnect.all_to_all_cards
        return given(reach, "cards", COUNT, "all-to-all cards") if reach else None

    @property
    def min_cards(self) -> Figure:
        counts = rules.allowed_counts(self.gpu, self.guide.data.lookup)
        return given(min(counts), "cards", COUNT, "minimum order")

    @property
    def price(self) -> Figure | None:
        return cost.unit_price(self.gpu, self.guide.data.pricing)

    @property
    def past_prices(self) -> tuple["DatedPrice", ...]:
        """The card's price in each dated list that offers it, oldest first, the last being today's;
        () where the site keeps no history or the card has no price in it."""
        points = self.guide.card_prices(self.gpu.id)
        if not price_history.has_price_history(points):
            return ()
        pricing = self.guide.data.pricing
        return tuple(DatedPrice(point.at, cost.listed_price(point.price.usd, pricing),
                                cost.listed_price(point.price.median, pricing),
                                None if point.price.listings is None
                                else given(point.price.listings, "listings", COUNT, "available listings"))
                     for point in points)

    @property
    def hourly(self) -> Figure | None:
        return cost.hourly_price(self.gpu, self.guide.data.pricing)

    @property
    def states_speeds(self) -> bool:
        """The pages give the card's estimated speeds: the site states speeds (data/throughput.yaml), and the card
        has a price and a dense rate (data/gpus.yaml dense_tflops)."""
        return self.guide.data.speed is not None and self.gpu.dense_tflops is not None and self.hourly is not None

    @property
    def weekly(self) -> Figure | None:
        return cost.weekly_price(self.gpu, self.guide.data.pricing)

    @property
    def usd_per_gb(self) -> Figure | None:
        return cost.usd_per_gb(self.gpu, self.guide.data.pricing)

    @property
    def gbps_per_usd(self) -> Figure | None:
        return cost.gbps_per_usd(self.gpu, self.guide.data.pricing)

    def order(self, count: int) -> Figure | None:
        """The price of ``count`` cards rented together, discount applied."""
        return cost.order_price(self.gpu, count, self.guide.data.pricing, self.guide.data.discounts)

    def list_price(self, count: int) -> Figure | None:
        """``count`` cards at the per-card price, before any discount."""
        price = self.price
        return None if price is None else cost.order_price(self.gpu, count, self.guide.data.pricing, ())

    def memory_of(self, count: int) -> Figure:
        return product(given(count, "cards", COUNT), self.memory, unit="GB", kind=MEMORY, label="memory")

    def bandwidth_of(self, count: int) -> Figure:
        return throughput.combined_bandwidth(self.bandwidth, count)

    def cells_won(self) -> list:
        return self.guide.cells_won_by(self.gpu.id)


def declared_figure(figure: AsFigure, value) -> Figure | None:
    """A field's value as the ``Figure`` load/cards.py declares for it (None stays None)."""
    return None if value is None else given(value, figure.unit, figure.kind, figure.label)


def _declared(entry: CardField) -> property:
    """The attribute ``entry.view``: the field's value, as its declared figure where it has one."""
    key, figure = entry.key, entry.figure
    if figure is None:
        return property(lambda self: getattr(self.gpu, key), doc=f"``{key}`` of the card's gpus.yaml entry.")
    return property(lambda self: declared_figure(figure, getattr(self.gpu, key)),
                    doc=f"``{key}`` of the card's gpus.yaml entry, in {figure.unit} (None where it is not given).")


for _entry in FIELDS:
    if _entry.view is not None:
        if _entry.view in vars(GpuView):
            raise TypeError(f"load/cards.py: {_entry.key!r} is viewed as {_entry.view!r}, which GpuView already has")
        setattr(GpuView, _entry.view, _declared(_entry))
del _entry
