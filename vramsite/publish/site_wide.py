"""The files of the site beside its pages: the language chooser, the 404 page, sitemap, robots.txt, llms.txt, and
each language's feed of price changes where the site keeps a price history (``feed.py``)."""

from __future__ import annotations

from jinja2 import Environment
from markupsafe import Markup

from ..calc.guide import Guide
from ..errors import InputError
from ..load.dates import parse_moment
from ..load.model import SiteData
from ..render.content import layout_problem
from ..render.format import Formatter
from . import discovery, feed
from .pages import Assets, RenderedPage, language_name


def site_wide_files(layout_env: Environment, data: SiteData, catalogs: dict, assets: Assets, pages: tuple,
                    rendered: list[RenderedPage], guide: Guide) -> dict[str, bytes]:
    """``pages``: the site's page specs; ``rendered``: every page in every language, as rendered; ``guide``: the
    calculation over ``data`` (the feeds word what each price list changed)."""
    site = data.site
    by_key = {(page.key, page.locale.segment): page for page in rendered}
    languages = [{"locale": locale, "name": language_name(locale), "index": by_key[("index", locale.segment)],
                  "url": f"{locale.segment}/index.html", "catalog": catalogs[locale.segment],
                  "feed": feed.llms_link(site, locale, catalogs[locale.segment]) if guide.keeps_price_history
                  else None}
                 for locale in site.locales]
    # The 404 page is served at any address, so it carries its styles inline.
    stylesheet = Markup(assets.stylesheet)
    context = {"site": site, "languages": languages, "pricing": data.pricing, "stylesheet": stylesheet}
    files = {
        "index.html": _plain(layout_env, "root.html", context),
        "index.html.md": _plain(layout_env, "root.md", context),
        "404.html": _plain(layout_env, "404.html", context),
        "404.html.md": _plain(layout_env, "404.md", context),
        "sitemap.xml": discovery.sitemap(site.base_url, [page.id for page in pages], site.locales,
                                         discovery.lastmod(_dates_every_page_shows(data))),
        "robots.txt": discovery.robots(site.base_url),
        **feed.feed_files(guide, catalogs, [page.id for page in pages]),
    }
    sections = []
    for language in languages:
        locale = language["locale"]
        links = [(page.title, f"{site.base_url}/{locale.segment}/{page.key}.html.md", page.description)
                 for page in rendered if page.locale == locale]
        if language["feed"]:
            links.append(language["feed"])
        sections.append((language["name"], links))
    first = languages[0]
    summary = first["index"].description
    files["llms.txt"] = discovery.llms_txt(site.name, summary, _prices_checked(data, first), sections)
    return files


def _dates_every_page_shows(data: SiteData) -> list:
    """The dated inputs every page shows: the footer's price date."""
    return [parse_moment(data.pricing.updated)]


def _prices_checked(data: SiteData, language: dict) -> str:
    """The footer's sentence saying when the prices were checked, in ``language``."""
    formatter = Formatter(language["locale"], data.site.display, language["catalog"])
    return language["catalog"].gettext("Prices updated {date}.").replace("{date}", formatter.date(data.pricing.updated))


def _plain(layout_env: Environment, template_name: str, context: dict) -> bytes:
    try:
        return layout_env.get_template(template_name).render(context).encode("utf-8")
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - every failure becomes a located message
        raise InputError([layout_problem(error, template_name)]) from None
