"""data/price_history.yaml: the past price lists, checked against the cards and prices.yaml.

The site's price history is these lists, oldest first, then prices.yaml's
own list where it is newer than the last of them: a site that keeps no
history has one dated list, the current one. A past list dated as
prices.yaml is stands for prices.yaml's list (with the medians and counts a
marketplace snapshot keeps) while it gives the same prices; where a price was
edited since without a new date, prices.yaml's list stands instead.
"""

from __future__ import annotations

from datetime import datetime

from .dates import parse_moment
from .model import CardPrice, Gpu, PriceSnapshot, Pricing, Snapshot

DOCUMENT = "price_history"


def moment_key(at: str) -> datetime:
    """A snapshot's time for ordering: a date alone is its first minute."""
    moment = parse_moment(at)
    return moment if isinstance(moment, datetime) else datetime.combine(moment, datetime.min.time())


def current_snapshot(pricing: Pricing) -> PriceSnapshot:
    """prices.yaml's list as a snapshot."""
    return PriceSnapshot(at=pricing.updated, cards={gpu: CardPrice(usd) for gpu, usd in pricing.usd.items()},
                         snapshot=pricing.snapshot)


def price_history(checker, gpus: tuple[Gpu, ...], pricing: Pricing, decimal) -> tuple[PriceSnapshot, ...]:
    """Every dated price list, oldest first, ending with prices.yaml's (``checker`` collects the problems).

    ``decimal`` reads a number of the file as the loader reads prices."""
    current = current_snapshot(pricing)
    if DOCUMENT not in checker.docs:
        return (current,)
    known = {gpu.id for gpu in gpus}
    now = moment_key(pricing.updated)
    past: list[PriceSnapshot] = []
    latest = current
    previous: datetime | None = None
    for index, item in enumerate(checker.docs[DOCUMENT].value["snapshots"] or []):
        moment = moment_key(str(item["at"]))
        where = ("snapshots", index, "at")
        if previous is not None and moment <= previous:
            checker.problem(DOCUMENT, where, f"{item['at']} is not later than the snapshot before it: keep the "
                                             "snapshots oldest first, one per time")
        if moment > now:
            checker.problem(DOCUMENT, where, f"{item['at']} is later than data/prices.yaml's updated "
                                             f"({pricing.updated}): the newest prices belong there")
        previous = moment
        snapshot = _price_list(checker, index, item, known, decimal)
        if moment == now and _same_prices(snapshot, current):
            latest = snapshot  # prices.yaml's list as recorded, with the counts prices.yaml does not keep
        elif moment < now:
            past.append(snapshot)
    return (*past, latest)


def _price_list(checker, index: int, item: dict, known: set[str], decimal) -> PriceSnapshot:
    """One list of the file, each card named checked against gpus.yaml."""
    checker.unique(DOCUMENT, ("snapshots", index, "prices"), item["prices"], "gpu")
    cards = {}
    for number, entry in enumerate(item["prices"]):
        if entry["gpu"] not in known:
            checker.problem(DOCUMENT, ("snapshots", index, "prices", number, "gpu"),
                            f"unknown card {entry['gpu']!r}: a card taken out of gpus.yaml takes its past prices "
                            "with it (delete this line)")
            continue
        cards[entry["gpu"]] = CardPrice(decimal(entry["usd"]), decimal(entry.get("median")), entry.get("listings"))
    counts = item.get("snapshot")
    return PriceSnapshot(at=str(item["at"]), cards=cards, snapshot=Snapshot(**counts) if counts else None)


def _same_prices(snapshot: PriceSnapshot, current: PriceSnapshot) -> bool:
    return _usd(snapshot) == _usd(current)


def _usd(snapshot: PriceSnapshot) -> dict:
    return {gpu: price.usd for gpu, price in snapshot.cards.items()}
