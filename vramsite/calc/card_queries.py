"""The questions pages ask over the cards, which ``Guide`` (calc/guide.py) inherits as ``CardQueries``.

The cards ranked (by memory, by price per GB, by bandwidth per dollar), the
one card that is largest, cheapest, slowest or fastest, the cards with or
without a feature, volume discounts, and the lookup grid's cells as the cards
win them. Each reads the guide's ``gpus``, ``data`` and grid, so content and
facts ask them of the guide: ``guide.cheapest_per_gb()``.
"""

from __future__ import annotations

from decimal import Decimal

from ..load.model import Method, Model
from . import cost
from .card_view import GpuView
from .figure import COUNT, Figure, given
from .lookup import Lookup


class CardQueries:
    """Card rankings and comparisons, mixed into ``Guide``: ``self`` is the guide."""

    # -- the grid cells a card wins ----------------------------------------

    def cells_won_by(self, gpu_id: str) -> list[tuple[Model, Method, Lookup]]:
        """The grid cells the card is the answer for: read as one derived value, so that a price edit that
        leaves them as they were leaves the card's page as it was."""
        return list(self._won.get(gpu_id))

    def tightest_cell(self) -> tuple[Model, Method, Lookup]:
        """The single-card grid cell with the least memory to spare."""
        single = [cell for cell in self.grid_cells() if cell[2].choice and cell[2].choice.count == 1]
        return min(single, key=lambda cell: cell[2].choice.headroom_per_card.value)

    # -- the catalogue -----------------------------------------------------

    @property
    def card_count(self) -> Figure:
        return given(len(self.data.gpus), "cards", COUNT, "cards")

    def gpus_by_memory(self) -> tuple["GpuView", ...]:
        """Largest memory first; dearer first among cards of one size."""
        return tuple(sorted(self.gpus, key=lambda g: (-g.gpu.memory_gb, -(g.price.value if g.price else 0), g.id)))

    def gpus_by_usd_per_gb(self) -> tuple["GpuView", ...]:
        priced = [g for g in self.gpus if g.usd_per_gb is not None]
        return tuple(sorted(priced, key=lambda g: (g.usd_per_gb.value, g.id)))

    def gpus_by_gbps_per_usd(self) -> tuple["GpuView", ...]:
        priced = [g for g in self.gpus if g.gbps_per_usd is not None]
        return tuple(sorted(priced, key=lambda g: (-g.gbps_per_usd.value, g.id)))

    def cheapest_per_gb(self) -> "GpuView":
        return self.gpus_by_usd_per_gb()[0]

    def most_gbps_per_usd(self) -> "GpuView":
        return self.gpus_by_gbps_per_usd()[0]

    def largest_card(self) -> "GpuView":
        return max(self.gpus, key=lambda g: (g.gpu.memory_gb, g.id))

    def slowest_memory(self) -> "GpuView":
        return min(self.gpus, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def fastest_memory(self) -> "GpuView":
        return max(self.gpus, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def newest_launch(self) -> Figure | None:
        """The latest launch year among the cards (None when no card states one)."""
        years = [g.gpu.launched for g in self.gpus if g.gpu.launched]
        return given(max(years), "year", COUNT, "launched") if years else None

    def slower_than_most(self, gpu_id: str) -> bool:
        """Whether more than half of the other cards have faster memory than this one."""
        bandwidth = self.data.gpu(gpu_id).bandwidth_gbps
        others = [gpu for gpu in self.data.gpus if gpu.id != gpu_id]
        return sum(gpu.bandwidth_gbps > bandwidth for gpu in others) * 2 > len(others)

    def dearest_per_gb_of_size(self, memory_gb: Decimal, excluding: str | None = None) -> "GpuView | None":
        """The priced card of this memory size with the highest price per GB."""
        same = [g for g in self.gpus if g.gpu.memory_gb == memory_gb and g.id != excluding and g.usd_per_gb]
        return max(same, key=lambda g: (g.usd_per_gb.value, g.id)) if same else None

    def gpus_with_min_order(self) -> tuple["GpuView", ...]:
        """Cards that cannot be rented one at a time, in data order."""
        return tuple(g for g in self.gpus if g.min_cards.value > 1)

    def discount(self, cards: int) -> Figure:
        """The volume discount on an order of ``cards`` cards (0 % where none applies)."""
        return cost.discount_percent(cards, self.data.discounts)

    def cheapest_card(self) -> "GpuView":
        priced = [g for g in self.gpus if g.price is not None]
        return min(priced, key=lambda g: (g.price.value, g.id))

    def fastest_under(self, max_price) -> "GpuView":
        """The card with the most bandwidth among those priced below ``max_price``."""
        cap = max_price.value if isinstance(max_price, Figure) else Decimal(max_price)
        affordable = [g for g in self.gpus if g.price is not None and g.price.value < cap]
        return max(affordable, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def gpus_without(self, feature: str) -> tuple["GpuView", ...]:
        return tuple(g for g in self.gpus if feature not in g.gpu.features)

    def architectures_with(self, feature: str) -> tuple[str, ...]:
        """Architectures of the cards that have ``feature``, in data order."""
        seen: list[str] = []
        for gpu in self.data.gpus:
            if feature in gpu.features and gpu.architecture not in seen:
                seen.append(gpu.architecture)
        return tuple(seen)
