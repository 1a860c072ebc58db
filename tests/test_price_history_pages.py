"""The price history on the pages: a card's price chart and table, a model's last change of pick, the downloads."""

from __future__ import annotations

import pytest

from data_edits import live_copy, read, rendered_page, site_copy, write
from history_support import current_prices, served_picks, with_past_prices
from site_support import markdown_table_rows, parse_html, table_download, table_rows
from vramsite.publish.site import SiteBuild

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def card_page(tmp_path_factory):
    """The A40's page of the seed site, whose A40 cost $80 more in a list of 2026-06-01."""
    site = site_copy(tmp_path_factory.mktemp("history") / "site")
    now = current_prices(site)["a40"]
    with_past_prices(site, "2026-06-01", a40=now + 80)
    return rendered_page(site, "gpus/a40"), now


def english_date(day) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def chinese_date(day) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


def _chart(tree, chart_id: str):
    return next((element for element in tree.iter(f"{SVG}svg") if element.get("id") == chart_id), None)


def test_a_card_page_tabulates_its_dated_prices_newest_first(card_page):
    pages, now = card_page
    rows = table_rows(parse_html(pages["en"].html), "price-history-a40")
    assert rows == {"September 1, 2026": [f"${now}/month"], "June 1, 2026": [f"${now + 80:,}/month"]}
    chinese = table_rows(parse_html(pages["zh-cn"].html), "price-history-a40")
    assert list(chinese) == ["2026年9月1日", "2026年6月1日"]
    twin = markdown_table_rows(pages["en"].markdown.decode(), "A40: its price in each dated list")
    assert list(twin) == ["September 1, 2026", "June 1, 2026"]


def test_a_card_page_charts_its_price_as_steps_from_the_oldest_list(card_page):
    pages, now = card_page
    chart = _chart(parse_html(pages["en"].html), "chart-en-price_history--gpu-a40")
    assert chart is not None
    points = [tuple(map(float, point.split(","))) for point in chart.find(f"{SVG}polyline").get("points").split()]
    assert len(points) == 3  # the old price, held to the new list's date, then the new price
    (x0, old), (x1, held), (x2, new) = points
    assert x0 < x1 == x2 and old == held and new > old  # SVG's y grows downwards: a lower price sits lower
    marks = [mark.find(f"{SVG}title").text for mark in chart.iter(f"{SVG}circle")]
    assert marks == [f"June 1, 2026, Per month: ${now + 80:,}/month", f"September 1, 2026, Per month: ${now}/month"]
    assert "![The price over time](" in pages["en"].markdown.decode()


def test_a_site_without_history_shows_none_of_it(tmp_path):
    pages = rendered_page(site_copy(tmp_path / "site"), "gpus/a40")
    for page in pages.values():
        assert b"price-history" not in page.html and b"price_history" not in page.markdown


def test_a_model_page_says_when_the_prices_last_changed_its_pick(tmp_path):
    site = live_copy(tmp_path / "site")
    with_past_prices(site, "2026-06-01", a40=5000, rtx_a6000=5000)  # both dear then: another card served it
    pages = rendered_page(site, "models/qwen3-14b")
    rows = table_rows(parse_html(pages["en"].html), "model-picks-qwen3-14b")
    before, now = served_picks(site, "qwen3-14b")
    updated = english_date(read(site, "prices")["updated"])
    assert rows["Serving, BF16"] == [f"{now} vLLM", updated, f"{before} vLLM"]
    assert rows["QLoRA"][1:] == ["every list since June 1, 2026", "—"]  # a card neither dear card is
    chinese = table_rows(parse_html(pages["zh-cn"].html), "model-picks-qwen3-14b")
    assert chinese["推理服务，BF16"][1] == chinese_date(read(site, "prices")["updated"])


def test_the_downloads_carry_the_history(tmp_path):
    site = live_copy(tmp_path / "site")
    now = current_prices(site)["a40"]
    with_past_prices(site, "2026-06-01", a40=5000, rtx_a6000=5000)
    files = SiteBuild(site).render(workers=2)
    prices = table_download(files, "price-history-a40")
    assert [row["key"] for row in prices["rows"]] == [str(read(site, "prices")["updated"]), "2026-06-01"]
    assert [row["cells"]["price"]["exact"] for row in prices["rows"]] == [str(now), "5000"]
    picks = table_download(files, "model-picks-qwen3-14b", "zh-cn")
    assert picks["rows"][0]["key"] == "serving"
    assert picks["rows"][0]["cells"]["since"]["text"] == chinese_date(read(site, "prices")["updated"])
    assert "assets/charts/en-price_history--gpu-a40.svg" in files


def test_a_rebuild_after_a_price_edit_shows_what_a_cold_build_shows(tmp_path):
    """The last list is prices.yaml's: an edit of a price alone renders again the pages that show it, and the
    history, the chart and the feed follow."""
    site = site_copy(tmp_path / "site")
    with_past_prices(site, "2026-06-01", a40=300)
    SiteBuild(site, incremental=True).render()
    document = read(site, "prices")
    document["prices"] = [{**entry, "usd": entry["usd"] + 50} if entry["gpu"] == "a40" else entry
                          for entry in document["prices"]]
    write(site, "prices", document)
    rebuild = SiteBuild(site, incremental=True)
    files = rebuild.render()
    assert files == SiteBuild(site).render()
    assert rebuild.kept, "every page was rendered again: the test shows nothing of the rebuild"
    now = current_prices(site)["a40"]
    assert table_rows(parse_html(files["en/gpus/a40.html"]), "price-history-a40")["September 1, 2026"] == [
        f"${now}/month"]
    assert f"A40: $300/month → ${now}/month".encode() in files["en/feed.xml"]
