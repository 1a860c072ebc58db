"""The Atom feed of each language: what each dated price list changed.

A site that keeps a price history (``data/price_history.yaml``; ``Guide.keeps_price_history``) gets
``<segment>/feed.xml`` in each of its languages, an Atom 1.0 feed with one entry per price list after the first,
newest first (at most ``MAX_ENTRIES``): the cards whose price the list changed (``calc/price_history.py``
``price_changes``), the lookup grid's answers it moved (``Guide.moved_answers``) and, where the site serves its
real models, those it made start on another configuration (``Guide.moved_servings``), each section at most
``MAX_LINES`` long, worded as the pages word them
(the Formatter's money, the tables' model, method and configuration names). Every date in it is a list's own date,
nothing comes from the clock: a build writes the same bytes each time. A site with one list has no feed, and its
pages (``templates/base.html``) and llms.txt link none.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from html import escape

from ..calc import cost
from ..calc.guide import Guide
from ..calc.lookup import Lookup, Market
from ..calc.price_history import MovedAnswer, PriceChange, price_changes
from ..layout import page_path
from ..load.dates import parse_moment
from ..load.model import SiteConfig
from ..render.format import Formatter
from ..render.inline import InlineRenderer
from ..tables.guide import configuration_label, method_label
from ..tables.serving import DOES_NOT_START
from ..tables.selection_words import selection_words

MAX_ENTRIES = 50
"""The newest lists the feed holds an entry for; older ones drop out of it."""

MAX_LINES = 40
"""The lines of one section of an entry; a catalogue of thousands of models may move more at once."""

FEED_FILE = "feed.xml"
"""The feed's file in each language's folder: en/feed.xml."""

PRICING_PAGE = "pricing"
"""The id in content/pages.yaml of the page an entry links to; a site without one links its home page."""

HOME_PAGE = "index"

ATOM = "http://www.w3.org/2005/Atom"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
FEED_TYPE = "application/atom+xml"


@dataclass(frozen=True)
class ListChanges:
    """What one dated price list changed from the list before it, in no language."""

    at: str
    """The list's date, as written."""
    prices: tuple[PriceChange, ...]
    before: Market
    """The market under the list before it (its prices)."""
    after: Market
    """The market under this list."""
    answers: tuple[MovedAnswer, ...]
    servings: tuple[MovedAnswer, ...] = ()
    """The real models whose serving pick (in the format each ships in) the list moved."""


# -- where the feed is -----------------------------------------------------------


def feed_path(segment: str) -> str:
    return f"{segment}/{FEED_FILE}"


def feed_url(base_url: str, segment: str) -> str:
    return f"{base_url}/{feed_path(segment)}"


def feed_title(site_name: str, say: InlineRenderer) -> str:
    return say.message("{site}: price changes", site=site_name)


def entry_page(base_url: str, segment: str, page_ids) -> str:
    """The absolute address an entry links to: the pricing page in that language, else its home page."""
    key = PRICING_PAGE if PRICING_PAGE in page_ids else HOME_PAGE
    return f"{base_url}/{page_path(segment, key)}"


def rfc3339(at: str) -> str:
    """A list's date as an RFC 3339 timestamp in UTC: a date alone is its midnight."""
    moment = parse_moment(at)
    if not isinstance(moment, datetime):
        return f"{moment.isoformat()}T00:00:00Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- what each list changed --------------------------------------------------------


def list_changes(guide: Guide) -> list[ListChanges]:
    """Each list after the first against the one before it, newest first, the newest ``MAX_ENTRIES`` of them."""
    history = guide.data.price_history
    markets = guide.history_markets()
    order = tuple(gpu.id for gpu in guide.data.gpus)
    oldest = max(1, len(history) - MAX_ENTRIES)
    servings = guide.moved_servings(range(oldest, len(history)))
    return [ListChanges(at=history[index].at, prices=price_changes(history[index - 1], history[index], order),
                        before=markets[index - 1], after=markets[index], answers=guide.moved_answers(index),
                        servings=servings[index])
            for index in range(len(history) - 1, oldest - 1, -1)]


# -- in words ------------------------------------------------------------------------


def price_line(change: PriceChange, found: ListChanges, guide: Guide, say: InlineRenderer) -> str:
    """'A40: $260/month → $240/month', or the card newly offered, or no longer offered."""
    gpu = guide.data.gpu(change.gpu_id)
    before, after = _price(gpu, found.before, say), _price(gpu, found.after, say)
    if change.before is None:
        return say.message("{card}: newly offered at {price}", card=gpu.name, price=after)
    if change.after is None:
        return say.message("{card}: no longer offered, was {price}", card=gpu.name, price=before)
    return say.message("{card}: {before} → {after}", card=gpu.name, before=before, after=after)


def _price(gpu, market: Market, say: InlineRenderer) -> str:
    """The card's price under ``market``'s list as the pages print it, per period; words where it has none."""
    figure = cost.unit_price(gpu, market.pricing)
    return say.message("no published price") if figure is None else say.fmt.figure(figure, period=True)


def answer_line(moved: MovedAnswer, guide: Guide, say: InlineRenderer) -> str:
    """'13B, BF16 inference: RTX A6000 → A40': a cell of the lookup grid and the pick before and after."""
    return say.message("{model}, {method}: {before} → {after}", model=guide.model(moved.model_id).name,
                       method=say.render(method_label(guide.method(moved.method_id))),
                       before=_pick(moved.before, say), after=_pick(moved.after, say))


def serving_line(moved: MovedAnswer, guide: Guide, say: InlineRenderer) -> str:
    """'Qwen3 14B, BF16: RTX A6000 → A40': a real model served in its own format, where it starts before and after."""
    return say.message("{model}, {method}: {before} → {after}", model=guide.catalogue_model(moved.model_id).name,
                       method=guide.weight_format(moved.method_id).name, before=_start(moved.before, say),
                       after=_start(moved.after, say))


def _start(offer, say: InlineRenderer) -> str:
    """'A40', '2× A40', or 'does not start'."""
    return say.message(DOES_NOT_START) if offer is None else say.render(configuration_label(offer))


def _pick(answer: Lookup, say: InlineRenderer) -> str:
    """'A40', '2× A40', or 'nothing fits'."""
    if answer.choice is None:
        return say.message("nothing fits")
    return say.render(configuration_label(answer.choice))


def entry_html(found: ListChanges, guide: Guide, say: InlineRenderer) -> str:
    """An entry's content as HTML: the prices that changed, then the answers that moved (each text escaped)."""
    prices = [price_line(change, found, guide, say) for change in found.prices]
    answers = [answer_line(moved, guide, say) for moved in found.answers]
    caption = selection_words(guide.data.lookup.selection).lookup_caption
    text = (_section(say.message("Prices that changed"), prices, say.message("No price changed."), say)
            + _section(say.message(caption), answers, say.message("No answer changed."), say))
    if guide.serves:
        servings = [serving_line(moved, guide, say) for moved in found.servings]
        text += _section(say.message("Where each real model starts, in the format it ships in"), servings,
                         say.message("No real model starts elsewhere."), say)
    return text


def _section(heading: str, lines: list[str], none: str, say: InlineRenderer) -> str:
    """A heading and its lines, one to a line of the file (so that ``build.py diff`` shows the lines that changed);
    past ``MAX_LINES``, one line counts the rest."""
    if not lines:
        return f"<p>{escape(heading)}</p>\n<p>{escape(none)}</p>\n"
    if len(lines) > MAX_LINES:
        rest = say.message("and {count} more", count=say.fmt.number(len(lines) - MAX_LINES))
        lines = lines[:MAX_LINES] + [rest]
    items = "".join(f"<li>{escape(line)}</li>\n" for line in lines)
    return f"<p>{escape(heading)}</p>\n<ul>\n{items}</ul>\n"


# -- the file ------------------------------------------------------------------------


def feed_xml(site: SiteConfig, locale, changes: list[ListChanges], guide: Guide, say: InlineRenderer,
             page_ids) -> bytes:
    """One language's feed: its own address as id, the newest list's date as updated, an entry per list."""
    base, segment = site.base_url, locale.segment
    url = feed_url(base, segment)
    feed = ET.Element("feed", {"xmlns": ATOM, XML_LANG: locale.tag})
    _text(feed, "title", feed_title(site.name, say))
    _text(feed, "subtitle", feed_description(say))
    _text(feed, "id", url)
    _text(feed, "updated", rfc3339(changes[0].at))
    ET.SubElement(feed, "link", rel="self", type=FEED_TYPE, href=url)
    ET.SubElement(feed, "link", rel="alternate", type="text/html", href=f"{base}/{page_path(segment, HOME_PAGE)}")
    ET.SubElement(ET.SubElement(feed, "author"), "name").text = site.name
    link = entry_page(base, segment, page_ids)
    for found in changes:
        entry = ET.SubElement(feed, "entry")
        _text(entry, "title", say.message("Prices of {date}", date=say.fmt.date(found.at)))
        _text(entry, "id", f"{url}#{rfc3339(found.at)}")
        _text(entry, "updated", rfc3339(found.at))
        ET.SubElement(entry, "link", rel="alternate", type="text/html", href=link)
        ET.SubElement(entry, "content", type="html").text = entry_html(found, guide, say)
    ET.indent(feed)
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n").encode("utf-8")


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(parent, tag).text = text


def feed_files(guide: Guide, catalogs: dict, page_ids) -> dict[str, bytes]:
    """<segment>/feed.xml of every language, by path; none where the site keeps one price list only."""
    if not guide.keeps_price_history:
        return {}
    site = guide.data.site
    changes = list_changes(guide)
    page_ids = frozenset(page_ids)
    return {feed_path(locale.segment): feed_xml(site, locale, changes, guide, _say(site, locale, catalogs), page_ids)
            for locale in site.locales}


def feed_description(say: InlineRenderer) -> str:
    return say.message("What each price list changed, as an Atom feed")


def llms_link(site: SiteConfig, locale, catalog) -> tuple[str, str, str]:
    """The feed as a line of llms.txt: (title, address, description) in ``locale``'s language."""
    say = _say(site, locale, {locale.segment: catalog})
    return feed_title(site.name, say), feed_url(site.base_url, locale.segment), feed_description(say)


def _say(site: SiteConfig, locale, catalogs: dict) -> InlineRenderer:
    return InlineRenderer.plain(Formatter(locale, site.display, catalogs[locale.segment]))
