"""What a card really offers: the memory it reports to the driver, against the size it is sold as.

Spec sheets state card memory in round figures ("141 GB"); the driver reports
MiB (``nvidia-smi --query-gpu=memory.total``). Where the data holds that
reported figure (``reported_memory.mib``, with its source), it is the truth.
Where it does not, one rule per kind of memory stands in:

- HBM, and memory without ECC: the sold size behaves like binary GB, so a card
  sold as 141 GB offers 141 × 2³⁰ bytes (an H200 reports 143,771 MiB, about
  that; an H100 SXM reports a little less than its 80 × 2³⁰).
- GDDR with ECC on: ECC takes part of the memory, by an amount that differs
  by card, so the usable size is unknown and no margin is claimed.
"""

from __future__ import annotations

from decimal import Decimal

from ..load.model import Gpu
from .cost import card_memory
from .figure import COUNT, FACTOR, MEMORY, PERCENT, Figure, FigureKind, difference, given, product, quotient
from ..units import BYTES_PER_GB, BYTES_PER_GIB, BYTES_PER_MIB


def reported_gb(gpu: Gpu) -> Figure | None:
    """The decimal GB the card reports to the driver, where the data gives it."""
    reported = gpu.reported_memory
    if reported is None:
        return None
    return mib_in_gb(reported.mib, "reported to the driver", "reported memory")


def mib_in_gb(mib: int, what: str, label: str, kind: FigureKind = MEMORY) -> Figure:
    """A size in MiB (as drivers report memory), in decimal GB."""
    return product(given(mib, "MiB", COUNT, what), given(BYTES_PER_MIB, "B/MiB", FACTOR, "bytes per MiB"),
                   unit="GB", kind=kind, label=label, scale=1 / BYTES_PER_GB)


def binary_gb(size_gib) -> Figure:
    """A size in GiB (2³⁰ bytes), in decimal GB."""
    gib = size_gib if isinstance(size_gib, Figure) else given(size_gib, "GiB", MEMORY, "size")
    return product(gib, given(BYTES_PER_GIB, "B/GiB", FACTOR, "bytes per GiB"),
                   unit="GB", kind=MEMORY, label="decimal GB", scale=1 / BYTES_PER_GB)


def ecc_takes_capacity(gpu: Gpu) -> bool:
    """GDDR keeps ECC inside its capacity; HBM keeps it beside."""
    return gpu.ecc and not gpu.memory_type.upper().startswith("HBM")


def usable_gb(gpu: Gpu) -> Figure | None:
    """The decimal GB the card offers: reported, else by its memory kind's rule; None when unknown."""
    reported = reported_gb(gpu)
    if reported is not None:
        return reported
    if ecc_takes_capacity(gpu):
        return None
    return binary_gb(given(gpu.memory_gb, "GiB", MEMORY, "sold as"))


def margin(gpu: Gpu) -> Figure | None:
    """Usable decimal GB beyond the sold size (negative when the card offers less); None when unknown."""
    usable = usable_gb(gpu)
    if usable is None:
        return None
    return difference(usable, card_memory(gpu), unit="GB", kind=MEMORY, label="memory margin")


def margin_percent(gpu: Gpu) -> Figure | None:
    """The margin as a share of the sold size: how much a need equal to the spec-sheet size leaves in hand."""
    extra = margin(gpu)
    if extra is None:
        return None
    return quotient(extra, card_memory(gpu), unit="%", kind=PERCENT, label="memory margin", scale=Decimal(100))

