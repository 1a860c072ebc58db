"""What a snapshot of listings says: each card's lowest available price, and how much was listed.

The counts cover every listing, available or not: they say how many GPUs
and machines the marketplace listed, as the pages word it. The lowest price
is taken among available listings only; a card with none has no price (null).
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


def summarize(listings: list[Listing], names: dict[str, str], card_ids: list[str],
              file: str) -> tuple[Snapshot, list[Problem]]:
    """The snapshot of ``listings``, every card of ``card_ids`` priced or None; and the rows that name nothing."""
    problems: list[Problem] = []
    lowest: dict[str, Decimal | None] = dict.fromkeys(card_ids)
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
        if listing.available and (lowest[card] is None or listing.price < lowest[card]):
            lowest[card] = listing.price
    return Snapshot(gpus, len(first_line), lowest), problems


class _Matcher:
    """A listing's GPU name -> the card's id, each distinct spelling matched once."""

    def __init__(self, names: dict[str, str]):
        self.names = names
        self.seen: dict[str, str | None] = {}

    def __call__(self, gpu: str) -> str | None:
        if gpu not in self.seen:
            self.seen[gpu] = self.names.get(listing_key(gpu))
        return self.seen[gpu]
