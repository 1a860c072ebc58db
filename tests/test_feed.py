"""Each language's Atom feed of what each dated price list changed (vramsite/publish/feed.py), read as a feed
reader reads it (feedparser), on copies of the seed 000 site with a price history written in."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

import pytest

from data_edits import live_copy, read, site_copy, write
from history_support import current_prices, served_picks, write_history
from site_support import XHTML, parse_html
from vramsite.calc.guide import Guide
from vramsite.layout import SiteLayout
from vramsite.load import load_site
from vramsite.publish import feed
from vramsite.publish.site import SiteBuild
from vramsite.render.i18n import load_catalogs

feedparser = pytest.importorskip("feedparser", reason="feedparser is part of the test extra: pip install -e '.[test]'")

LANGUAGES = ("en", "zh-cn")
HOSTILE_CARD = 'A40 <script>alert(1)</script> & "Co"'
HOSTILE_SITE = 'Hub <b>&amp; "Rent"'
LIST_ITEM = re.compile(r"<li>(.*?)</li>", re.S)


def with_history(site: Path) -> Path:
    """Four lists: only the RTX 3090 offered (the big models fit nothing); every card, the A40 at $100; the A40 at
    $5,000 and the RTX A5000 left out; then prices.yaml's own (2026-09-01: the A40 at $240, the RTX A5000 back)."""
    prices = current_prices(site)
    later = {gpu: usd for gpu, usd in prices.items() if gpu != "rtx-a5000"}
    write_history(site, [("2026-04-01", {"rtx-3090": prices["rtx-3090"]}),
                         ("2026-05-01", {**prices, "a40": 100}),
                         ("2026-06-01 17:40 UTC", {**later, "a40": 5000})])
    return site


def built(site: Path) -> dict[str, bytes]:
    return SiteBuild(site).render()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, bytes]:
    return built(with_history(site_copy(tmp_path_factory.mktemp("feed") / "site")))


@pytest.fixture(scope="module")
def feeds(files) -> dict[str, object]:
    return {segment: feedparser.parse(files[f"{segment}/feed.xml"]) for segment in LANGUAGES}


def items(entry) -> list[str]:
    """The lines of an entry's content (its list items), as a reader sees them."""
    return [html.unescape(item) for item in LIST_ITEM.findall(entry.content[0].value)]


def test_each_language_has_a_well_formed_atom_feed_newest_list_first(feeds):
    for segment, parsed in feeds.items():
        assert not parsed.bozo, (segment, parsed.get("bozo_exception"))
        assert parsed.version == "atom10"
        assert [entry.updated for entry in parsed.entries] == ["2026-09-01T00:00:00Z", "2026-06-01T17:40:00Z",
                                                               "2026-05-01T00:00:00Z"]
        stamps = [time.mktime(entry.updated_parsed) for entry in parsed.entries]
        assert stamps == sorted(stamps, reverse=True)
        assert parsed.feed.updated == parsed.entries[0].updated
        assert all(entry.content[0].type == "text/html" for entry in parsed.entries)
    assert [entry.title for entry in feeds["en"].entries] == [
        "Prices of September 1, 2026", "Prices of June 1, 2026, 17:40 UTC", "Prices of May 1, 2026"]
    assert [entry.title for entry in feeds["zh-cn"].entries] == [
        "价目表（2026年9月1日）", "价目表（2026年6月1日 17:40 UTC）", "价目表（2026年5月1日）"]
    assert feeds["en"].feed.title == "GPU Rent Hub: price changes"
    assert feeds["zh-cn"].feed.title == "GPU Rent Hub：价格变动"
    assert feeds["en"].feed.author == "GPU Rent Hub"


def test_an_entry_lists_the_prices_that_changed_in_the_pages_money(feeds):
    newest, later, first = (items(entry) for entry in feeds["en"].entries)
    assert newest[:2] == ["A40: $5,000/month → $240/month", "RTX A5000: newly offered at $190/month"]
    assert later[:2] == ["A40: $100/month → $5,000/month", "RTX A5000: no longer offered, was $190/month"]
    assert "A40: newly offered at $100/month" in first and "MI300X: newly offered at $1,590/month" in first
    assert not [line for line in first if line.startswith("RTX 3090")]
    newest_zh, later_zh, first_zh = (items(entry) for entry in feeds["zh-cn"].entries)
    assert newest_zh[:2] == ["A40：$5,000/月 → $240/月", "RTX A5000：新上架，$190/月"]
    assert later_zh[:2] == ["A40：$100/月 → $5,000/月", "RTX A5000：已下架，原价 $190/月"]
    assert "MI300X：新上架，$1,590/月" in first_zh


def test_an_entry_lists_the_answers_that_moved(feeds):
    newest, _, first = (items(entry) for entry in feeds["en"].entries)
    assert "13B, Inference BF16 / FP16: RTX A6000 → A40" in newest
    assert "405B, QLoRA: 8× RTX A6000 → 8× A40" in newest
    assert "405B, Inference BF16 / FP16: nothing fits → 8× MI300X" in first
    newest_zh, _, first_zh = (items(entry) for entry in feeds["zh-cn"].entries)
    assert "13B，推理 BF16 / FP16：RTX A6000 → A40" in newest_zh
    assert "405B，QLoRA：8× RTX A6000 → 8× A40" in newest_zh
    assert "405B，推理 BF16 / FP16：没有配置装得下 → 8× MI300X" in first_zh
    content = feeds["en"].entries[0].content[0].value
    assert content.index("Prices that changed") < content.index("The cheapest card that fits")


def test_every_link_is_absolute_and_leads_into_the_site(files, feeds):
    base = "https://gpu-rent-hub.example"
    for segment, parsed in feeds.items():
        own = f"{base}/{segment}/feed.xml"
        assert parsed.feed.id == own
        assert {link.rel: link.href for link in parsed.feed.links} == {"self": own,
                                                                       "alternate": f"{base}/{segment}/index.html"}
        for entry in parsed.entries:
            assert entry.link == f"{base}/{segment}/pricing.html"
            assert entry.id == f"{own}#{entry.updated}"
        hrefs = [link.href for link in parsed.feed.links] + [entry.link for entry in parsed.entries]
        assert all(href.startswith(base + "/") and href[len(base) + 1:] in files for href in hrefs), hrefs
    assert len({entry.id for parsed in feeds.values() for entry in parsed.entries}) == 6


def test_every_page_links_its_language_s_feed_and_llms_txt_names_each(files):
    for segment in LANGUAGES:
        link = '<link rel="alternate" type="application/atom+xml" title="'.encode()
        href = f'href="https://gpu-rent-hub.example/{segment}/feed.xml">'.encode()
        pages = [path for path in files if path.startswith(f"{segment}/") and path.endswith(".html")]
        assert len(pages) > 10
        assert all(files[path].count(link) == 1 and href in files[path] for path in pages)
        for path in (f"{segment}/index.html", f"{segment}/vram.html", f"{segment}/gpus/a40.html"):
            links = [link for link in parse_html(files[path]).iter(f"{XHTML}link")
                     if link.get("type") == "application/atom+xml"]
            assert [(link.get("rel"), link.get("href")) for link in links] == [
                ("alternate", f"https://gpu-rent-hub.example/{segment}/feed.xml")], path
    chooser = [(link.get("title"), link.get("href")) for link in parse_html(files["index.html"]).iter(f"{XHTML}link")
               if link.get("type") == "application/atom+xml"]  # the language chooser links each language's
    assert chooser == [("GPU Rent Hub：价格变动", "https://gpu-rent-hub.example/zh-cn/feed.xml"),
                       ("GPU Rent Hub: price changes", "https://gpu-rent-hub.example/en/feed.xml")]
    title = {link.get("title") for link in parse_html(files["zh-cn/vram.html"]).iter(f"{XHTML}link")}
    assert "GPU Rent Hub：价格变动" in title
    llms = files["llms.txt"].decode("utf-8")
    assert "- [GPU Rent Hub: price changes](https://gpu-rent-hub.example/en/feed.xml): " \
           "What each price list changed, as an Atom feed" in llms.split("\n")
    assert any(line.startswith("- [GPU Rent Hub：价格变动](https://gpu-rent-hub.example/zh-cn/feed.xml): ")
               for line in llms.split("\n"))


def test_two_builds_write_the_same_bytes(tmp_path, files):
    again = built(with_history(site_copy(tmp_path / "site")))
    for name in [f"{segment}/feed.xml" for segment in LANGUAGES] + ["llms.txt", "en/vram.html"]:
        assert again[name] == files[name], name


def test_names_from_the_data_stay_text(tmp_path):
    site = with_history(site_copy(tmp_path / "site"))
    gpus = read(site, "gpus")
    next(gpu for gpu in gpus["gpus"] if gpu["id"] == "a40")["name"] = HOSTILE_CARD
    write(site, "gpus", gpus)
    settings = read(site, "site")
    settings["name"] = HOSTILE_SITE
    write(site, "site", settings)
    files = built(site)
    for segment in LANGUAGES:
        raw = files[f"{segment}/feed.xml"]
        assert b"<script" not in raw and b"<b>" not in raw
        parsed = feedparser.parse(raw)
        assert not parsed.bozo, parsed.get("bozo_exception")
        assert parsed.feed.title.startswith(HOSTILE_SITE) and parsed.feed.author == HOSTILE_SITE
        content = parsed.entries[0].content[0].value
        assert "<script" not in content and items(parsed.entries[0])[0].startswith(HOSTILE_CARD)
    head = [link for link in parse_html(files["en/vram.html"]).iter(f"{XHTML}link")
            if link.get("type") == "application/atom+xml"]
    assert [link.get("title") for link in head] == [f"{HOSTILE_SITE}: price changes"]


def test_a_site_with_one_price_list_has_no_feed_and_links_none(tmp_path):
    files = built(site_copy(tmp_path / "site"))
    assert not [path for path in files if path.endswith("feed.xml")]
    assert not [path for path in files if path.endswith(".html") and b"application/atom+xml" in files[path]]
    assert b"feed.xml" not in files["llms.txt"]


def test_the_feed_keeps_the_newest_lists(tmp_path, monkeypatch):
    site = site_copy(tmp_path / "site")
    prices = current_prices(site)
    write_history(site, [(f"2026-0{month}-01", {**prices, "a40": 100 * month}) for month in range(3, 8)])
    monkeypatch.setattr(feed, "MAX_ENTRIES", 2)
    changes = feed.list_changes(Guide(load_site(site)))
    assert [found.at for found in changes] == [str(read(site, "prices")["updated"]), "2026-07-01"]
    assert [change.gpu_id for change in changes[1].prices] == ["a40"]


@pytest.mark.parametrize(("at", "expected"), [
    ("2026-07-15", "2026-07-15T00:00:00Z"),
    ("2026-10-31 17:40 UTC", "2026-10-31T17:40:00Z"),
    ("2026-10-31T17:40:05Z", "2026-10-31T17:40:05Z"),
])
def test_a_list_s_date_as_rfc_3339(at, expected):
    assert feed.rfc3339(at) == expected


def test_an_entry_links_the_home_page_of_a_site_without_a_pricing_page():
    assert feed.entry_page("https://x.example", "en", {"index", "vram"}) == "https://x.example/en/index.html"
    assert feed.entry_page("https://x.example", "en", {"index", "pricing"}) == "https://x.example/en/pricing.html"


def test_a_list_that_changed_nothing_says_so(tmp_path):
    site = site_copy(tmp_path / "site")
    write_history(site, [("2026-06-01", current_prices(site))])
    data = load_site(site)
    catalogs = load_catalogs(SiteLayout(site), data.site.locales)
    made = feed.feed_files(Guide(data), catalogs, ["index"])
    assert sorted(made) == ["en/feed.xml", "zh-cn/feed.xml"]
    (entry,) = feedparser.parse(made["en/feed.xml"]).entries
    assert entry.link == "https://gpu-rent-hub.example/en/index.html"
    assert "<p>No price changed.</p>" in entry.content[0].value
    assert "<p>No answer changed.</p>" in entry.content[0].value
    (entry,) = feedparser.parse(made["zh-cn/feed.xml"]).entries
    assert "价格均无变动。" in entry.content[0].value and "推荐配置均无变化。" in entry.content[0].value
    assert "Where each real model starts" not in feedparser.parse(made["en/feed.xml"]).entries[0].content[0].value


def _live_feeds(site: Path) -> dict[str, object]:
    data = load_site(site)
    made = feed.feed_files(Guide(data), load_catalogs(SiteLayout(site), data.site.locales), ["index", "pricing"])
    return {segment: feedparser.parse(made[f"{segment}/feed.xml"]) for segment in LANGUAGES}


def test_an_entry_lists_the_real_models_that_start_elsewhere(tmp_path):
    site = live_copy(tmp_path / "site")
    write_history(site, [("2026-06-01", {**current_prices(site), "a40": 5000, "rtx-a6000": 5000})])
    feeds = _live_feeds(site)
    before, now = served_picks(site, "qwen3-14b")
    (entry,) = feeds["en"].entries
    assert f"Qwen3 14B, BF16: {before} → {now}" in items(entry)
    content = entry.content[0].value
    assert content.index("The cheapest card that fits") < content.index(
        "Where each real model starts, in the format it ships in")
    (entry,) = feeds["zh-cn"].entries
    assert f"Qwen3 14B，BF16：{before} → {now}" in items(entry)
    assert "每个真实模型以其发布格式在哪里启动" in entry.content[0].value


def test_a_long_section_stops_and_counts_the_rest(tmp_path, monkeypatch):
    site = live_copy(tmp_path / "site")
    write_history(site, [("2026-06-01", {**current_prices(site), "a40": 5000, "rtx-a6000": 5000})])
    whole = items(_live_feeds(site)["en"].entries[0])
    monkeypatch.setattr(feed, "MAX_LINES", 1)
    cut = items(_live_feeds(site)["en"].entries[0])
    prices = current_prices(site)
    assert whole[:2] == [f"RTX A6000: $5,000/month → ${prices['rtx-a6000']:,}/month",
                         f"A40: $5,000/month → ${prices['a40']:,}/month"]
    assert cut[:2] == [whole[0], "and 1 more"]  # two prices moved: the first, then the count of the rest
    assert len(cut) == 6 < len(whole)  # each of the three sections: one line and the count of the rest
