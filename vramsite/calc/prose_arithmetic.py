"""The arithmetic the prose states, which ``Guide`` (calc/guide.py) inherits as ``ProseArithmetic``.

How many times one figure is another, how much cheaper, what share, and how
much smaller a size reads in GiB than in GB: ``guide.ratio(a, b)`` in content.
"""

from __future__ import annotations

from . import card_memory, cost
from .figure import COUNT, FACTOR, MULTIPLE, PERCENT, Figure, given, quotient


class ProseArithmetic:
    """Figures set against one another, mixed into ``Guide`` as static methods."""

    @staticmethod
    def ratio(numerator: Figure, denominator: Figure) -> Figure:
        """How many times one figure is another: 2.6×."""
        return quotient(numerator, denominator, unit="×", kind=MULTIPLE, label="ratio")

    @staticmethod
    def cheaper_by(cheap: Figure, dear: Figure) -> Figure:
        return cost.cheaper_by(cheap, dear)

    @staticmethod
    def share(part: Figure, whole: Figure) -> Figure:
        return cost.share_of(part, whole)

    @staticmethod
    def gib_shortfall() -> Figure:
        """How much smaller a size reads in GiB than in GB: 1 − 10⁹ / 2³⁰."""
        gb = given(10 ** 9, "B", COUNT, "GB")
        gib = given(card_memory.BYTES_PER_GIB, "B", COUNT, "GiB")
        return Figure(value=(1 - gb.value / gib.value) * 100, unit="%", kind=PERCENT, label="GiB shortfall",
                      formula=quotient(gb, gib, unit="", kind=FACTOR).formula)
