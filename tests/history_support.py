"""Sites with a price history: dated price lists written into a copy's data/price_history.yaml."""

from __future__ import annotations

from pathlib import Path

from data_edits import read, write
from vramsite.calc.guide import Guide
from vramsite.load import load_site


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


def served_picks(site: Path, model_id: str) -> tuple[str, str]:
    """Where the real model starts in its own format under the history's first list and now, as the pages name
    a configuration ('A40', '2× A40'); they must differ, or the test shows nothing."""
    guide = Guide(load_site(site))
    view = guide.catalogue_model(model_id)
    native = view.native_format().id
    picks = [view.serving_choice(native, market=market) for market in (guide.past_markets[0], None)]
    names = [choice.offer.gpu.name if choice.offer.count == 1 else f"{choice.offer.count}× {choice.offer.gpu.name}"
             for choice in picks]
    assert names[0] != names[1], "the dearer cards of the past list did not move the pick: choose others"
    return names[0], names[1]
