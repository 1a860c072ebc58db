"""Byte units, stated once for the loader's checks and the calculation.

Sizes the pages print are decimal (GB, MB); drivers report binary ones (MiB).
"""

from decimal import ROUND_HALF_UP, Decimal

BYTES_PER_GB = Decimal(10) ** 9
BYTES_PER_MB = Decimal(10) ** 6
BYTES_PER_GIB = Decimal(2) ** 30
BYTES_PER_MIB = Decimal(2) ** 20

BILLION = Decimal(10) ** 9

GIB_DECIMALS = 2
"""GiB as engines log them, and as the site quotes an engine's figures: vLLM prints two decimals."""


def billions(count: int) -> Decimal:
    """A parameter count in billions, to two decimals, as the catalogue states it (8,030,261,248 -> 8.03)."""
    return (Decimal(count) / BILLION).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
