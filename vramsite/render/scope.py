"""One page in one language and one format: what its templates may call.

Content (``content/<language>/<page>.md``, untrusted) sees this API and
nothing else; ``ContentApi`` holds its functions, and the sandbox
(``sandbox.py``) lets no expression reach further::

    g                         the Guide (every figure, by name)
    model("70B"), gpu("a40"), cell("70B", "infer-int4")
    table("lookup")           a table, as HTML or as a GFM pipe table
    chart("cost")             a chart: inline SVG, or in the twin an image link to its .svg copy
    calculator()              the in-page calculator (calculator/); calculator(model.id) opens on that model,
                              calculator(card=id) offers that card alone
    link("gpu", "a40")        the URL of another page (a twin from a twin)
    stats([(value, label)])   the headline figures block
    gpu_link(card), link_name(card), method_name(method), msg("{n} cards", n=...), _("UI string")
    params                    the page's named inputs (content/pages.yaml)
    card, model, ...          on a page made once per item of a collection (vramsite/page_collections.py), that
                              item by the collection's name: a card, a real model (in place of model("70B"))
    facts                     the page's figures and claims (vramsite/facts), the same for every language
    site, pricing, locale, format

and these filters, which format for the page's locale:

    fig      75 GB, $1,590, 5.3 TB/s      (fig(1) for one decimal, fig(period=True) for /month)
    num      the bare number              usd    money: $1,590
    names    A, B and C / A、B和C         date   2026年9月1日 / September 1, 2026
    explain  the derivation line          tokens 8k

Layout templates (``templates/``) are maintained with the code and trusted:
they get ``template_context``, which adds the Scope itself and the layout
helpers (``inline``, ``cell``, ``download``, ``asset``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property, lru_cache

from jinja2 import Environment, pass_context
from markupsafe import Markup

from ..calc import Guide
from ..calc.figure import COUNT, PRICE, Figure, given
from ..layout import download_path, relative_url
from ..load.model import LocaleConfig, Pricing, SiteConfig
from ..load.text import excerpt
from ..load.reads import ReadCache, apart
from ..page_collections import COLLECTIONS
from ..tables.guide import method_label
from ..tables.model import Code
from .calculator import MODEL_FOLDER, calculator_block, calculator_data, calculator_path
from .charts import chart_file, chart_title
from .derivation import explain
from .format import MONEY_PERIODS, Formatter
from .i18n import Catalog
from .inline import HTML, MD, InlineRenderer
from .markdown import ANCHOR
from .sandbox import BUDGET, PAGE, Access, Budget, expose
from .services import ChartService, TableService


MODEL_PAGES = COLLECTIONS["model"]
"""The pages made once per real model: the calculator links its answer's model to its own."""


@dataclass(frozen=True)
class ScopeServices:
    """What a page's scope may ask of the build: the same for every page."""

    guide: Guide
    site: SiteConfig
    pricing: Pricing
    layout: Environment
    """The layout environment: the partials tables and stats are drawn with."""
    router: object
    """Page targets -> paths (``router.path(target, locale)``)."""
    tables: TableService
    charts: ChartService
    catalogs: Mapping[str, Catalog]
    """UI strings, by locale segment."""
    formatter: Callable[[LocaleConfig], Formatter]
    calculators: ReadCache = field(default_factory=ReadCache)
    """The calculator's default answer, by (language, model, card): worked out once per build, and every page
    that takes one reads what working it out read."""
    importer: str | None = None
    """Where the in-page importer's files are in the site (publish/in_page_importer.py); None: the site has none,
    and the calculator offers no "Paste a config.json"."""
    calculator_files: dict = field(default_factory=dict)
    """Each language's calculator data, the file its pages' scripts fetch: made once per build."""

    def calculator_data(self, locale) -> dict:
        """``locale``'s calculator data (render/calculator/data.py), worked out apart from the page that asks: a
        page shows its choices (models, cards, formats), not the figures behind them."""
        if locale.segment not in self.calculator_files:
            self.calculator_files[locale.segment] = apart(
                lambda: calculator_data(self.guide, self.formatter(locale), self.catalogs[locale.segment],
                                        model_page=self._model_page_pattern(locale)))
        return self.calculator_files[locale.segment]

    def _model_page_pattern(self, locale) -> str | None:
        """Where a real model's page in ``locale`` is, as a URL from the language's calculator data, the model's id
        as ``{model}``; None where the site makes no model pages."""
        path = self.router.pattern_path(MODEL_PAGES.link, locale)
        return None if path is None else relative_url(path, posixpath.dirname(calculator_path(locale.segment)))


class Scope:
    def __init__(self, services: ScopeServices, locale, mode: str, page_path: str, params: dict | None = None,
                 facts=None, subject: Mapping[str, object] | None = None):
        self.services, self.locale, self.mode, self.page_path = services, locale, mode, page_path
        self.params = params or {}
        self.subject = subject or {}
        """On a page made once per item: that item by its collection's name ({"card": its GpuView}), as content
        sees it."""
        self.facts = facts
        self.catalog = services.catalogs[locale.segment]
        self.fmt = services.formatter(locale)
        self.inline = InlineRenderer(self.fmt, mode, self.resolve)
        """Pieces for layouts: raw HTML in an HTML page (a table is one HTML block), Markdown in the twin."""
        self.pieces = Pieces(self.inline, self.catalog)
        self.prose = Pieces(InlineRenderer(self.fmt, mode, self.resolve, in_markdown=True), self.catalog)
        """Pieces for content, whose text is Markdown source in both formats."""

    # -- links ---------------------------------------------------------------

    def resolve(self, target: tuple) -> str:
        """Relative URL from this page to ``target``; the twin's URL when rendering a twin."""
        path = self.services.router.path(target, self.locale)
        if self.mode == MD:
            path += ".md"
        return relative_url(path, posixpath.dirname(self.page_path))

    def link(self, *target, anchor: str | None = None) -> Markup:
        url = self.resolve(tuple(target))
        if anchor and not re.fullmatch(ANCHOR, str(anchor)):
            raise ValueError(f"anchor {excerpt(str(anchor))} is no heading id (a letter, then letters, digits, _ or -)")
        return Markup(url + (f"#{anchor}" if anchor else ""))

    def asset(self, name: str) -> str:
        return relative_url(f"assets/{name}", posixpath.dirname(self.page_path))

    # -- blocks --------------------------------------------------------------

    def table(self, name: str, **options) -> Markup:
        table = self.services.tables.show(name, **options)
        if table is None:  # a table with nothing to show on this page (a card that wins no cell)
            return Markup("")
        text = self._draw_table(table)
        if self.mode == HTML:  # one HTML block in the Markdown around it: no blank lines inside
            text = "\n".join(line for line in text.split("\n") if line.strip())
        return Markup(text.strip("\n"))

    def _draw_table(self, table) -> str:
        """``table`` as partials/table.<format> draws it (the site's own partial, else the engine's)."""
        template = self.services.layout.get_template(f"partials/table.{self.mode}")
        return template.render(self.template_context(table=table, cell=self.cell, digit_group=self.fmt.digit_group))

    @cached_property
    def lookup_cell(self):
        """The lookup_cell macro of partials/lookup_cell.<format>: how this site words a lookup answer."""
        template = self.services.layout.get_template(f"partials/lookup_cell.{self.mode}")
        return template.make_module(self.template_context()).lookup_cell

    def cell(self, cell) -> Markup:
        """One table cell: a lookup answer through the site's partial, anything else as inline pieces."""
        if cell.lookup is not None:
            return self.lookup_cell(cell.lookup)
        main = self.inline.render(cell.content)
        if self.mode == MD:
            return self.inline.message("{main} — {sub}", main=main, sub=self.inline.render(cell.sub)) \
                if cell.sub is not None else main
        if cell.sub is None:
            return Markup(f'<span class="main">{main}</span>')
        return Markup(f'<span class="main">{main}</span> <span class="sub">{self.inline.render(cell.sub)}</span>')

    def chart(self, name: str, **options) -> Markup:
        """A chart as inline SVG; in the twin, an image link to the chart's standalone copy."""
        if self.mode == MD:
            url = self.asset(chart_file(name, self.locale.segment, options))
            self.services.charts.show(name, self.locale, standalone=True, **options)  # checks the name, files the copy
            return Markup("![{}]({})").format(self.inline.text(chart_title(name, self.fmt)), Markup(url))
        svg = self.services.charts.show(name, self.locale, **options)
        return Markup('<div class="chart" style="overflow-x:auto;margin:1.5rem 0">\n{}\n</div>').format(Markup(svg))

    def download(self, table) -> Markup:
        """'Download: JSON · CSV', linking the table's files in this page's language under data/ (relative); for
        a bundled table, its one JSON with the other tables about the same item."""
        here = posixpath.dirname(self.page_path)
        if table.bundle is not None:
            url = relative_url(table.bundle.path(self.locale.segment), here)
            link = (Markup("[JSON]({})").format(Markup(url)) if self.mode == MD
                    else Markup('<a href="{}" type="application/json" download>JSON</a>').format(url))
            return self.inline.message("Download: {json}, one file with every table about {subject}", json=link,
                                       subject=table.bundle.subject)
        links = {}
        for ext, label, kind in (("json", "JSON", "application/json"), ("csv", "CSV", "text/csv")):
            url = relative_url(download_path(table.id, ext, self.locale.segment), here)
            if self.mode == MD:
                links[ext] = Markup("[{}]({})").format(label, Markup(url))
            else:
                links[ext] = Markup('<a href="{}" type="{}" download>{}</a>').format(url, kind, label)
        return self.inline.message("Download: {json} · {csv}", json=links["json"], csv=links["csv"])

    def calculator(self, model: str | None = None, card: str | None = None) -> Markup:
        """The in-page calculator, opening on ``model`` (the site's first model by default) and offering ``card``
        alone where given (any card by default), with "Paste a config.json" where it opens on no model of its own
        and the site has the in-page importer; nothing in the twin, which has no script to run it."""
        if self.mode == MD:
            return Markup("")
        guide, cache = self.services.guide, self.services.calculators
        data = self.services.calculator_data(self.locale)
        block = cache.fetch(("block", self.locale.segment, model, card),
                            lambda: calculator_block(guide, self.fmt, self.catalog, data, model, card))
        template = self.services.layout.get_template("partials/calculator.html")
        here = posixpath.dirname(self.page_path)
        models = relative_url(MODEL_FOLDER, here) if guide.data.catalogue else None
        source = relative_url(calculator_path(self.locale.segment), here)
        page = self._model_page(block["opening_model"])
        # A model page's form is for its own model: a config is pasted where the form opens on none of its own.
        importer = relative_url(self.services.importer, here) if self.services.importer and model is None else None
        text = template.render(self.template_context(**block, models_url=models, source_url=source, model_page=page,
                                                     importer_url=importer))
        return Markup("\n".join(line for line in text.split("\n") if line.strip()))  # one HTML block

    def _model_page(self, model: dict) -> str | None:
        """The URL of ``model``'s page from this one; None where it has none, or this is it."""
        target = (MODEL_PAGES.link, model["id"])
        if model["shape"] != "layers" or self.services.router.pattern_path(MODEL_PAGES.link, self.locale) is None:
            return None
        return None if self.services.router.path(target, self.locale) == self.page_path else self.resolve(target)

    def stats(self, items) -> Markup:
        template = self.services.layout.get_template(f"partials/stats.{self.mode}")
        text = template.render(self.template_context(items=items))
        return Markup("\n".join(line for line in text.split("\n") if line.strip()))

    # -- contexts ------------------------------------------------------------

    def template_context(self, **extra) -> dict:
        """What layout templates see (trusted: they come with the code)."""
        guide = self.services.guide
        context = {
            "scope": self,
            "g": guide,
            "model": guide.model,
            "gpu": guide.gpu,
            "cell": guide.cell,
            "table": self.table,
            "chart": self.chart,
            "download": self.download,
            "stats": self.stats,
            "link": self.link,
            "asset": self.asset,
            "inline": self.inline,
            "msg": self.inline.message,
            "gpu_link": self.pieces.gpu_link,
            "link_name": self.pieces.link_name,
            "method_name": self.pieces.method_name,
            **self._page_data(),
            "_": self.catalog.gettext,
            "ngettext": self.catalog.ngettext,
            PAGE: self.pieces,
        }
        context.update(extra)
        return context

    def _page_data(self) -> dict:
        """What layouts and content both see of this page: its inputs, facts, the site's data, its language."""
        return {
            "params": self.params,
            "facts": self.facts,
            "site": self.services.site,
            "pricing": self.services.pricing,
            "locale": self.locale,
            "format": self.mode,
            **self.subject,
        }

    def content_context(self) -> dict:
        """What a content file sees: figures, facts and the page's functions, nothing of the build.

        A fresh ``Budget`` each time: one context serves one rendering.
        """
        guide, budget = self.services.guide, Budget()
        api = ContentApi(self, budget)
        return {
            "g": guide,
            "model": guide.model,
            "gpu": guide.gpu,
            "cell": guide.cell,
            **{name: getattr(api, name) for name in CONTENT_FUNCTIONS},
            "_": api.gettext,
            **self._page_data(),
            PAGE: self.prose,
            BUDGET: budget,
        }


class Pieces:
    """Text, links and formatted figures for one renderer: what the filters and text functions give."""

    def __init__(self, inline: InlineRenderer, catalog):
        self.inline, self.catalog, self.fmt = inline, catalog, inline.fmt

    def text(self, text: str) -> Markup:
        return self.inline.text(text)

    def message(self, msgid: str, **args) -> Markup:
        return self.inline.message(msgid, **args)

    def gpu_link(self, gpu) -> Markup:
        gpu = getattr(gpu, "gpu", gpu)
        return self.inline.link(("gpu", gpu.id), self.inline.text(gpu.name))

    def link_name(self, gpu) -> Markup:
        """The card's interconnect in words: 'PCIe Gen4 peer-to-peer'."""
        gpu = getattr(gpu, "gpu", gpu)
        return self.inline.text(self.catalog.gettext(f"link:{gpu.interconnect.kind}"))

    def method_name(self, method) -> Markup:
        return self.inline.render(method_label(method))

    # -- filters ---------------------------------------------------------------

    def fig(self, value, decimals: int | None = None, period: bool = False) -> Markup:
        return self.inline.figure(_as_figure(value), _decimals(decimals), period)

    def num(self, value, decimals: int | None = None) -> Markup:
        return self.inline.text(self.fmt.number(_as_figure(value), _decimals(decimals)))

    def usd(self, value, decimals: int | None = None, period: bool = False) -> Markup:
        figure = _as_figure(value)
        if figure.unit not in MONEY_PERIODS:
            figure = Figure(value=figure.value, unit="USD", kind=PRICE, label=figure.label, formula=figure.formula)
        return self.inline.figure(figure, _decimals(decimals), period)

    def names(self, items, style: str = "standard") -> Markup:
        items = list(items)
        texts = [str(self.inline.text(item)) if isinstance(item, str) and not isinstance(item, Markup)
                 else str(self.inline.render(item)) for item in items]
        visible = [Markup(text).striptags() for text in texts]
        return Markup(self.fmt.names(texts, style, visible))

    def date(self, iso: str) -> Markup:
        return self.inline.text(self.fmt.date(str(iso)))

    def explain(self, value, decimals: int | None = None) -> Markup:
        return self.inline.text(explain(_as_figure(value), self.fmt, _decimals(decimals)))

    def code(self, text) -> Markup:
        return self.inline.render(Code(str(text)))

    def tokens(self, count) -> Markup:
        value = _as_figure(count).value
        if value % 1024 == 0:
            return self.inline.message("{n}k", n=given(value / 1024, "", COUNT))
        return self.num(value)


CONTENT_FUNCTIONS = ("table", "chart", "calculator", "stats", "link", "gpu_link", "link_name", "method_name", "msg", "ngettext")


class ContentApi:
    """The functions content calls. Built per rendering; it keeps the Scope out of content's reach."""

    def __init__(self, scope: Scope, budget: Budget):
        self._scope, self._budget = scope, budget

    def table(self, name: str, **options) -> Markup:
        options = _checked_options(options)
        with self._budget.engine_work():
            return self._budget.block(self._scope.table(name, **options))

    def chart(self, name: str, **options) -> Markup:
        options = _checked_options(options)
        with self._budget.engine_work():
            return self._budget.block(self._scope.chart(name, **options))

    def calculator(self, model: str | None = None, card: str | None = None) -> Markup:
        with self._budget.engine_work():
            return self._budget.block(self._scope.calculator(model, card))

    def stats(self, items) -> Markup:
        items = _checked_options({"items": list(items)})["items"]
        with self._budget.engine_work():
            return self._budget.block(self._scope.stats(items))

    def link(self, *target, anchor: str | None = None) -> Markup:
        return self._scope.link(*target, anchor=anchor)

    def gpu_link(self, gpu) -> Markup:
        return self._scope.prose.gpu_link(gpu)

    def link_name(self, gpu) -> Markup:
        return self._scope.prose.link_name(gpu)

    def method_name(self, method) -> Markup:
        return self._scope.prose.method_name(method)

    def msg(self, msgid: str, **args) -> Markup:
        return self._scope.prose.message(msgid, **args)

    def gettext(self, msgid: str) -> str:
        return self._scope.catalog.gettext(msgid)

    def ngettext(self, singular: str, plural: str, count) -> str:
        return self._scope.catalog.ngettext(singular, plural, count)


expose(ContentApi, Access(frozenset(CONTENT_FUNCTIONS + ("gettext",)), frozenset(CONTENT_FUNCTIONS + ("gettext",))))


MAX_DECIMALS = 20
"""Decimals a filter may be asked for (``fig(2)``): more than any figure of the guide has; a million took
Decimal's context past its precision."""


def _decimals(decimals):
    """``decimals`` as a filter got it, if it is None or a whole number from 0 to ``MAX_DECIMALS``."""
    if decimals is not None and (isinstance(decimals, bool) or not isinstance(decimals, int)
                                 or not 0 <= decimals <= MAX_DECIMALS):
        raise ValueError(f"decimals must be a whole number from 0 to {MAX_DECIMALS}, not {str(decimals)[:20]}")
    return decimals


MAX_OPTION_VALUES = 24
"""Values one table or chart option may list (contexts, model ids): the guide's pages list up to eight, and
a chart's width has room for about twenty; 10,000 contexts took 10 s and 230 MB to draw."""
MAX_OPTION_TEXT = 500
"""Characters of a text content hands a table, chart or stats block (a caption, a label): the guide's longest
is 90."""
TABLE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""A table's id names its download files (data/<language>/<id>.json): a short slug."""


def _checked_options(options: dict) -> dict:
    """A table's, chart's or stats block's options as content gives them, if the build can make what they ask
    for: a block's text is the engine's, not counted against the page's (``Budget.block``), so what content
    puts in one is bounded here."""
    for key, value in options.items():
        _check_option(key, value)
    table_id = options.get("table_id")
    if table_id is not None and not (isinstance(table_id, str) and TABLE_ID.fullmatch(table_id)):
        raise ValueError(f"table_id {str(table_id)[:70]!r} is not a short slug: lower-case letters, digits, - and _,"
                         f" at most 64")
    return options


def _check_option(key: str, value) -> None:
    if isinstance(value, str) and len(value) > MAX_OPTION_TEXT:
        raise ValueError(f"option {key} holds a text of {len(value):,} characters: at most {MAX_OPTION_TEXT}")
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_OPTION_VALUES:
            raise ValueError(f"option {key} lists {len(value):,} values: at most {MAX_OPTION_VALUES}")
        for item in value:
            _check_option(key, item)


@lru_cache(maxsize=65536)
def _as_figure(value) -> Figure:
    if isinstance(value, Figure):
        return value
    if isinstance(value, bool) or value is None:
        raise TypeError(f"expected a figure or a number, got {value!r}")
    number = Decimal(str(value))
    if not number.is_finite():
        raise ValueError(f"not a finite number: {value}")
    return given(number, "", COUNT)


def _filter(name: str):
    @pass_context
    def apply(context, value, *args, **kwargs):
        return getattr(context[PAGE], name)(value, *args, **kwargs)

    apply.__name__ = name
    return apply


FILTERS = {name: _filter(name) for name in ("fig", "num", "usd", "names", "date", "explain", "tokens", "code")}


def install_filters(env) -> None:
    env.filters.update(FILTERS)


__all__ = ["FILTERS", "HTML", "MD", "Scope", "ScopeServices", "install_filters"]
