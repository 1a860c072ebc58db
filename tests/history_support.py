"""Sites with a price history: dated price lists written into a copy's data/price_history.yaml."""

from __future__ import annotations

from pathlib import Path

from data_edits import read, write


def current_prices(site: Path) -> dict[str, object]:
    return {entry["gpu"]: entry["usd"] for entry in read(site, "prices")["prices"]}


def write_history(site: Path, snapshots: list[tuple[str, dict[str, object]]]) -> None:
    """data/price_history.yaml with ``snapshots``: (date, {card id: price}) each, oldest first."""
    write(site, "price_history", {"snapshots": [
        {"at": at, "prices": [{"gpu": gpu, "usd": usd} for gpu, usd in prices.items()]} for at, prices in snapshots]})


def with_past_prices(site: Path, at: str, **changed) -> dict[str, object]:
    """Record a list dated ``at`` that is today's prices with ``changed`` ones (card ids with '-' as '_');
    return it."""
    prices = current_prices(site)
    for key, usd in changed.items():
        prices[key.replace("_", "-")] = usd
    write_history(site, [(at, prices)])
    return prices
