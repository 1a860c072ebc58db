"""The dated price lists: read and checked, a card's prices over time, and when an answer last moved."""

from __future__ import annotations

from decimal import Decimal

import pytest

from data_edits import live_copy, read, site_copy, write
from history_support import current_prices, with_past_prices, write_history
from vramsite.calc import price_history
from vramsite.calc.guide import Guide
from vramsite.calc.lookup import first_fit
from vramsite.errors import InputError
from vramsite.load import load_site


@pytest.fixture()
def site(tmp_path):
    return site_copy(tmp_path / "site")


def problems_of(site) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_site(site)
    return [str(problem) for problem in caught.value.problems]


def test_a_site_without_history_has_one_list_the_current_one(site):
    history = load_site(site).price_history
    assert [snapshot.at for snapshot in history] == [str(read(site, "prices")["updated"])]
    assert not Guide(load_site(site)).keeps_price_history


def test_past_lists_come_first_and_prices_yaml_s_list_last(site):
    with_past_prices(site, "2026-06-01", a40=320)
    data = load_site(site)
    assert [snapshot.at for snapshot in data.price_history] == ["2026-06-01", str(data.pricing.updated)]
    points = Guide(data).card_prices("a40")
    assert [point.price.usd for point in points] == [Decimal(320), data.pricing.usd["a40"]]


def test_a_list_dated_as_prices_yaml_stands_for_it_while_its_prices_agree(site):
    updated = read(site, "prices")["updated"]
    prices = current_prices(site)
    write(site, "price_history", {"snapshots": [
        {"at": "2026-06-01", "prices": [{"gpu": "a40", "usd": 300}]},
        {"at": updated, "prices": [{"gpu": gpu, "usd": usd, "median": usd + 10, "listings": 3}
                                   for gpu, usd in prices.items()]}]})
    latest = load_site(site).price_history[-1]
    assert latest.cards["a40"].median == Decimal(prices["a40"] + 10) and latest.cards["a40"].listings == 3
    document = read(site, "prices")
    document["prices"] = [{"gpu": entry["gpu"], "usd": entry["usd"] + 1} for entry in document["prices"]]
    write(site, "prices", document)  # a price edited without a new date: prices.yaml's list stands
    data = load_site(site)
    assert len(data.price_history) == 2
    assert data.price_history[-1].cards["a40"] == price_history.CardPrice(Decimal(prices["a40"] + 1))


@pytest.mark.parametrize(("snapshots", "expected"), [
    ([("2026-07-01", {"a40": 300}), ("2026-06-01", {"a40": 320})],
     "data/price_history.yaml:6: snapshots[1].at: 2026-06-01 is not later than the snapshot before it"),
    ([("2027-01-01", {"a40": 300})],
     "data/price_history.yaml:2: snapshots[0].at: 2027-01-01 is later than data/prices.yaml's updated"),
    ([("2026-06-01", {"a4o": 300})],
     "data/price_history.yaml:4: snapshots[0].prices[a4o].gpu: unknown card 'a4o'"),
])
def test_a_bad_list_is_named_by_file_line_and_field(site, snapshots, expected):
    write_history(site, snapshots)
    found = problems_of(site)
    assert any(problem.startswith(expected) for problem in found), found


def test_the_schema_bounds_the_history_file(site):
    (site / "data" / "price_history.yaml").write_text(
        "snapshots:\n  - at: 2026-06-01\n    prices:\n      - {gpu: a40, usd: -3}\n", encoding="utf-8")
    found = problems_of(site)
    assert any(problem.startswith("data/price_history.yaml:4: snapshots[0].prices[a40].usd: must be at least 0.01") for problem in found), found


def test_an_answer_moved_by_a_price_names_when_and_what_it_was(site):
    data = load_site(site)
    guide = Guide(data)
    cell = next((model.id, method.id) for model, method, answer in guide.grid_cells()
                if answer.choice and answer.choice.gpu.id == "a40")
    with_past_prices(site, "2026-06-01", a40=5000)  # dear then: something else was picked
    guide = Guide(load_site(site))
    change = guide.answer_change(*cell)
    assert change.since == str(data.pricing.updated) and change.first == "2026-06-01"
    assert change.now.choice.gpu.id == "a40" and change.before.choice.gpu.id != "a40"
    assert cell in [(moved.model_id, moved.method_id) for moved in guide.moved_answers(1)]


def test_an_answer_the_prices_never_moved_has_no_date(site):
    with_past_prices(site, "2026-06-01")  # the same prices, earlier
    guide = Guide(load_site(site))
    assert guide.keeps_price_history
    for model, method, _ in guide.grid_cells():
        change = guide.answer_change(model.id, method.id)
        assert change.since is None and change.before is None
    assert guide.moved_answers(1) == ()


def test_price_changes_name_cards_whose_price_moved_or_that_came_or_went(site):
    prices = current_prices(site)
    del prices["a40"]
    prices["l4"] = 999
    write_history(site, [("2026-06-01", prices)])
    data = load_site(site)
    changes = price_history.price_changes(*data.price_history, tuple(gpu.id for gpu in data.gpus))
    by_card = {change.gpu_id: change for change in changes}
    assert sorted(by_card) == ["a40", "l4"]
    assert by_card["a40"].before is None and by_card["a40"].after.usd == data.pricing.usd["a40"]
    assert by_card["l4"].before.usd == 999 and by_card["l4"].after.usd == data.pricing.usd["l4"]


def test_the_pick_alone_is_the_whole_answer_s_pick_under_every_past_market(tmp_path):
    """The history walks back with the pick alone (lookup.first_fit); it must be what the lookup picks."""
    site = live_copy(tmp_path / "site")
    write_history(site, [("2026-06-01", {**current_prices(site), "a40": 5000, "rtx-a6000": 5000}),
                         ("2026-07-01", {**current_prices(site), "l4": 90, "rtx-a5000": 900})])
    guide = Guide(load_site(site))
    checked = 0
    for market in guide.past_markets:
        for model, method, _ in guide.grid_cells():
            need = guide.need(model, method).total
            assert price_history.pick_key(first_fit(need, method, market)) == \
                price_history.pick_key(guide.lookup(model, method, market=market))
            checked += 1
        for view in guide.catalogue:
            native = view.native_format().id
            assert price_history.pick_key(view.serving_picks(native, (market,))[0]) == \
                price_history.pick_key(view.serving_choice(native, market=market))
            for method in guide.columns:
                whole = view.lookup(method, market)
                alone = first_fit(view.need(method).total, method, market, lambda cards: view.need(method, cards).total)
                assert price_history.pick_key(alone) == price_history.pick_key(whole)
                checked += 1
    assert checked > 100
