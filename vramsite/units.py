"""Byte units, stated once for the loader's checks and the calculation.

Sizes the pages print are decimal (GB, MB); drivers report binary ones (MiB).
"""

from decimal import Decimal

BYTES_PER_GB = Decimal(10) ** 9
BYTES_PER_MB = Decimal(10) ** 6
BYTES_PER_GIB = Decimal(2) ** 30
BYTES_PER_MIB = Decimal(2) ** 20
