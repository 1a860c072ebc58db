"""What a snapshot of listings says: each card's lowest and median available price, and how much was listed.

The counts of GPUs and machines cover every listing, available or not: they
say how many the marketplace listed, as the pages word it. The prices are
taken among available listings only; a card with none has no price (null)
and no median. Each card's count of available listings is kept beside them,
for data/price_history.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..errors import Problem
from .cards import GPUS_FILE, listing_key
from .read import quoted
from .rows import Listing


@dataclass(frozen=True)
class Snapshot:
    gpus: int
    machines: int
    lowest: dict[str, Decimal | None]
    """Card id -> its lowest price per GPU-hour among available listings; None where none is available."""
    median: dict[str, Decimal | None]
    """Card id -> the median price per GPU-hour among its available listings (of an even count, the mean of
    the two middle ones, exact); None where none is available."""
    listings: dict[str, int]
    """Card id -> how many of its listings are available (0 where none is)."""


def summarize(listings: list[Listing], names: dict[str, str], card_ids: list[str],
              file: str) -> tuple[Snapshot, list[Problem]]:
    """The snapshot of ``listings``, every card of ``card_ids`` priced or None; and the rows that name nothing."""
    problems: list[Problem] = []
    available: dict[str, list[Decimal]] = {card: [] for card in card_ids}
    cards_of = _Matcher(names)
    first_line: dict[str, int] = {}
    gpus = 0
    for listing in listings:
        first = first_line.setdefault(listing.machine_id, listing.line)
        if first != listing.line:
            problems.append(Problem(file, listing.line, "machine_id",
                                    f"machine {quoted(listing.machine_id)} is listed twice (first at line {first})"))
            continue
        card = cards_of(listing.gpu)
        if card is None:
            problems.append(Problem(file, listing.line, "gpu",
                                    f"unknown GPU {quoted(listing.gpu)}: no card in {GPUS_FILE} has this name "
                                    "or lists it in listing_names"))
            continue
        gpus += listing.gpus
        if listing.available:
            available[card].append(listing.price)
    lowest = {card: min(prices, default=None) for card, prices in available.items()}
    medians = {card: median(prices) for card, prices in available.items()}
    counts = {card: len(prices) for card, prices in available.items()}
    return Snapshot(gpus=gpus, machines=len(first_line), lowest=lowest, median=medians, listings=counts), problems


def median(prices: list[Decimal]) -> Decimal | None:
    """The middle price, or of an even count the mean of the two middle ones, as an exact Decimal (a sum of two
    prices of at most 8 decimals, halved, is exact within Decimal's 28 digits); None for no price."""
    if not prices:
        return None
    ordered = sorted(prices)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


class _Matcher:
    """A listing's GPU name -> the card's id, each distinct spelling matched once."""

    def __init__(self, names: dict[str, str]):
        self.names = names
        self.seen: dict[str, str | None] = {}

    def __call__(self, gpu: str) -> str | None:
        if gpu not in self.seen:
            self.seen[gpu] = self.names.get(listing_key(gpu))
        return self.seen[gpu]
