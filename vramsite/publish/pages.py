"""One page in one language: its content rendered twice (HTML and the Markdown twin) into its layouts.

``PageRenderer`` is given every service it uses (``PageServices``) and
reaches nothing else of the build.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from functools import cached_property

from babel import Locale as BabelLocale
from markupsafe import Markup

from ..errors import InputError, Problem
from ..layout import STATIC_FOLDER, SiteLayout, page_path, relative_url
from ..load.pages import PAGES_FILE, PageSpec
from ..load.source_read import ASSET, CONTENT, read_source, read_source_text
from ..load.text import decode_utf8
from ..page_collections import COLLECTIONS
from ..render.content import html_meta, layout_problem, page_meta, read_content, render_content
from ..render.markdown import UnsafeMarkup, line_of, section_headings, section_pairs
from ..render.scope import HTML, MD, Scope, ScopeServices
from ..render.services import Events, PageFacts
from . import discovery
from .feed import feed_url
from .search import INDEX_FOLDER, SEARCH_PAGE, has_search


def language_name(locale) -> str:
    """A language's name in itself: 中文, English."""
    return BabelLocale.parse(locale.gettext).get_language_name(locale.gettext)


@dataclass
class RenderedPage:
    key: str
    locale: object
    title: str
    description: str
    html: bytes
    markdown: bytes
    """The page and its twin as published: UTF-8, the bytes the build writes (a build holds every page at
    once, and this way holds it once)."""


STYLESHEET = "style.css"
"""The engine's stylesheet: linked first from every page, and inline in the 404 page."""


class Assets:
    """templates/static of the engine, then of the site (a site's file of the same name wins), as assets/<name>."""

    def __init__(self, layout: SiteLayout):
        self.layout = layout

    @cached_property
    def files(self) -> dict[str, bytes]:
        """Every file of the folders, read as sources are (``source_read``): a link out of the site, a FIFO or a
        device among them is refused, not copied."""
        files = {}
        for folder in self.layout.layers(STATIC_FOLDER):
            if folder.is_dir():
                for item in sorted(folder.iterdir()):
                    if not item.is_dir():
                        files[f"assets/{item.name}"] = read_source(item, f"{STATIC_FOLDER}/{item.name}", ASSET)
        return files

    @cached_property
    def stylesheet(self) -> str:
        """The text of the engine's style.css, which the 404 page carries inline (it is served at any address)."""
        name = f"{STATIC_FOLDER}/{STYLESHEET}"
        if f"assets/{STYLESHEET}" not in self.files:
            raise InputError([Problem(name, None, "", "is missing; every site needs it (the 404 page carries it "
                                                      "inline): restore the engine's stylesheet")])
        return decode_utf8(self.files[f"assets/{STYLESHEET}"], name)

    @cached_property
    def stylesheets(self) -> list[str]:
        """Every stylesheet among the assets, the engine's style.css first: each page links them all."""
        names = [path.removeprefix("assets/") for path in self.files if path.endswith(".css")]
        return sorted(names, key=lambda name: (name != STYLESHEET, name))


@dataclass(frozen=True)
class PageServices:
    """What rendering a page needs."""

    layout: SiteLayout
    scope: ScopeServices
    """What the page's content and layouts may reach (their Scope's services)."""
    content: object
    """The content environment: each content file is compiled in it."""
    markdown: object
    facts: PageFacts
    stylesheets: list[str]
    events: Events
    locales: tuple
    base_url: str


class PageRenderer:
    def __init__(self, services: PageServices, pages: tuple[PageSpec, ...]):
        self.services, self.pages = services, pages
        self._sources: dict = {}
        self.searched = has_search(page.id for page in pages)
        """Whether the site has a search page, which every page's header then links with a search box."""

    def render(self, page: PageSpec, locale) -> RenderedPage:
        """The page's HTML and its twin; the listeners hear when it starts and ends."""
        self.services.events.page_started(page, locale)
        try:
            return self._render(page, locale)
        finally:
            self.services.events.page_finished(page, locale)

    def scope(self, page: PageSpec, locale, mode: str, facts=None) -> Scope:
        """What the page's content and layouts see in one language and format."""
        subject = {page.collection: self._subject(page)} if page.collection is not None else {}
        return Scope(services=self.services.scope, locale=locale, mode=mode,
                     page_path=page_path(locale.segment, page.id), params=page.params, facts=facts, subject=subject)

    def _subject(self, page: PageSpec):
        """The view of the item a page made once per item is about (a card's GpuView); None for other pages."""
        if page.collection is None:
            return None
        return COLLECTIONS[page.collection].view(self.services.scope.guide, page.item)

    def _render(self, page: PageSpec, locale) -> RenderedPage:
        source = self._content_file(page, locale)
        facts = self.services.facts(page, self._subject(page))
        md_scope, html_scope = self.scope(page, locale, MD, facts), self.scope(page, locale, HTML, facts)
        markdown = self.services.markdown
        meta = page_meta(source, md_scope.content_context())
        # The twin keeps each heading's {#id}: the anchor the links of both formats point at.
        body_md = render_content(source, source.template, md_scope.content_context())
        try:
            tokens = markdown.parse(render_content(source, source.template, html_scope.content_context()))
            shown_meta = html_meta(meta, markdown)
        except UnsafeMarkup as error:
            raise InputError([self._unsafe_markup(error, page, locale, source.name)]) from None
        body_html = markdown.renderer.render(tokens, markdown.options, {})
        info = {"key": page.id, "title": meta["title"], "description": meta["description"],
                "lead": meta.get("lead", ""), "jsonld": discovery.faq_jsonld(section_pairs(tokens, "faq"))}
        contents = [{"id": id_, "text": text, "script": script} for id_, text, script in section_headings(tokens)]
        html = self._layout(page.template, html_scope, page={**info, **shown_meta, "contents": contents},
                            body=Markup(body_html))
        twin = self._layout("page.md", md_scope, page=info, body=Markup(body_md))
        return RenderedPage(key=page.id, locale=locale, title=info["title"], description=info["description"],
                            html=html.encode("utf-8"), markdown=twin.encode("utf-8"))

    def _content_file(self, page: PageSpec, locale):
        """The page's content file in ``locale``, compiled once however many pages it makes (one per card, say)."""
        layout = self.services.layout
        name = layout.content_name(locale.segment, page.source)
        path = layout.content_file(locale.segment, page.source)
        if not os.path.lexists(path):  # a link or a FIFO is there: read_content says what is wrong with it
            raise InputError([Problem(PAGES_FILE, page.line, page.entry, f"no {locale.tag} text: {name} is missing")])
        if name not in self._sources:
            self._sources[name] = read_content(path, name, self.services.content, layout.kept_code_cache)
        return self._sources[name]

    def _unsafe_markup(self, error: UnsafeMarkup, page: PageSpec, locale, name: str) -> Problem:
        """The refusal at the line of the content file that holds the refused tag or URL (none when expressions
        made it)."""
        text = read_source_text(self.services.layout.content_file(locale.segment, page.source), name, CONTENT)
        return Problem(name, line_of(text, error.source), "", str(error))

    def _layout(self, template_name: str, scope: Scope, **context) -> str:
        key = context["page"]["key"]
        page_file = posixpath.basename(scope.page_path)
        context.update(
            nav=self.nav(scope),
            search=scope.link(SEARCH_PAGE) if self.searched else None,
            search_bundle=relative_url(INDEX_FOLDER, posixpath.dirname(scope.page_path)) + "/",
            alternates=self.alternates(key),
            x_default=discovery.x_default(self.services.base_url, key, self.services.locales),
            languages=self.languages(scope, key),
            canonical=f"{self.services.base_url}/{scope.page_path}",
            stylesheets=self.services.stylesheets,
            twin=page_file + ".md",
            html_url=page_file,
            feed=feed_url(self.services.base_url, scope.locale.segment)
            if self.services.scope.guide.keeps_price_history else None,
        )
        try:
            template = self.services.scope.layout.get_template(template_name)
            return template.render(scope.template_context(**context))
        except InputError:
            raise
        except Exception as error:  # noqa: BLE001 - every failure becomes a located message
            raise InputError([layout_problem(error, template_name)]) from None

    def nav(self, scope: Scope) -> list[dict]:
        return [{"key": page.id, "label": page.nav, "url": scope.link(page.id)} for page in self.pages if page.nav]

    def languages(self, scope: Scope, key: str) -> list[dict]:
        """The same page in every language, for the language switch."""
        here = posixpath.dirname(scope.page_path)
        result = []
        for locale in self.services.locales:
            target = page_path(locale.segment, key)
            url = relative_url(target, here)
            result.append({"locale": locale, "name": language_name(locale), "url": url, "twin": url + ".md",
                           "current": locale == scope.locale})
        return result

    def alternates(self, key: str) -> list[dict]:
        base = self.services.base_url
        return [{"locale": locale, "url": f"{base}/{locale.segment}/{key}.html"} for locale in self.services.locales]
