"""Build a whole site in memory: every output path and its bytes.

Nothing is written here; ``writer.write_site`` swaps the result into place
only when this finished without a single problem.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from babel import Locale as BabelLocale
from jinja2 import (ChoiceLoader, Environment, FileSystemBytecodeCache, StrictUndefined,
                    TemplateNotFound, TemplateSyntaxError, select_autoescape)
from markupsafe import Markup

from ..calc import Guide
from ..errors import InputError, Problem, UnknownId
from ..facts import FACTS
from ..load import load_site
from ..load.pages import PAGES_FILE, read_pages
from ..load.schema import readable_path
from ..load.yaml_source import read_yaml
from ..render.charts import CHARTS, chart_file, render_chart
from ..render.content import (content_environment, html_meta, layout_problem, page_meta, read_content,
                               render_content)
from ..render.format import Formatter
from ..render.i18n import load_catalogs
from ..render.markdown import make_markdown, section_pairs, strip_heading_ids
from ..render.scope import HTML, MD, Scope, install_filters
from ..render.template_files import Utf8FileSystemLoader
from ..tables import ALL_TABLES
from . import discovery, downloads
from .parallel import map_in_workers
from .router import Router
from .writer import SiteFiles

ENGINE_ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository: its templates/ and locales/ back any site's own."""


@dataclass(frozen=True)
class ContentPage:
    id: str
    """The page key: <segment>/<id>.html."""
    source: str
    """Content file: content/<segment>/<source>.md."""
    template: str
    nav: str | None
    """Menu label (a UI string), or None to keep the page out of the menu."""
    params: dict
    card: str | None = None
    """For pages made once per card: the card's id (the content sees it as `card`)."""
    line: int | None = None
    entry: str = ""
    """Where content/pages.yaml declares the page (line, and its entry: pages[pricing]), for messages."""
    facts: str | None = None
    """The page-facts builder the content reads as `facts` (vramsite/facts), if any."""


def code_cache(root: Path) -> Path:
    """Where compiled templates are kept between builds (ignored by git)."""
    return Path(root) / ".cache" / "jinja"


def layout_environment(root: Path) -> Environment:
    """Layout templates: the site's own first, then the engine's."""
    folders = [root / "templates", ENGINE_ROOT / "templates"]
    cache = code_cache(root)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only checkout builds without the cache
        cache = None
    env = Environment(
        loader=ChoiceLoader([Utf8FileSystemLoader(str(folder)) for folder in folders if folder.is_dir()]),
        bytecode_cache=FileSystemBytecodeCache(str(cache)) if cache else None,
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    install_filters(env)
    return env


def language_name(locale) -> str:
    """A language's name in itself: 中文, English."""
    return BabelLocale.parse(locale.gettext).get_language_name(locale.gettext)


@dataclass
class RenderedPage:
    key: str
    locale: object
    title: str
    description: str
    html: str
    markdown: str


@dataclass
class LanguageOutput:
    """What rendering every page in one language produced, and what it asked of the rest of the build."""

    pages: list[RenderedPage]
    problems: list[Problem]
    tables: list[tuple[str, dict]]
    """(name, options) of every table shown, for the downloads."""
    charts: list[tuple[str, dict]]
    """(name, options) of every chart shown."""
    chart_files: dict[str, bytes]
    """The standalone copies of those charts in this language."""
    missing: dict[str, set[str]]
    """Per catalog: the UI strings asked for that it lacks."""


class SiteBuild:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.data = load_site(self.root)
        self.guide = Guide(self.data)
        self.catalogs = load_catalogs(self.root, self.data.site.locales, ENGINE_ROOT)
        self.pages = self._read_pages()
        self.router = Router()
        for page in self.pages:
            self.router.add(page.id)
        self._tables: dict = {}
        self._table_uses: dict = {}
        self._sources: dict = {}
        self._facts: dict = {}
        self._formatters: dict = {}
        self._charts: dict = {}
        self._chart_options: dict = {}

    # -- sources -------------------------------------------------------------

    def _read_pages(self) -> list[ContentPage]:
        name = PAGES_FILE
        document = read_pages(self.root, self.data)
        pages, problems, claimed = [], [], {}
        for index, item in enumerate(document.value["pages"]):
            source = item.get("source", item["id"])
            line, entry = document.line_of(("pages", index)), readable_path(document, ("pages", index))
            if item.get("each") == "card":
                made = [ContentPage(item["id"].replace("{card}", gpu.id), source, item["template"], None,
                                    item.get("params", {}), gpu.id, line, entry, item.get("facts"))
                        for gpu in self.data.gpus]
            else:
                made = [ContentPage(item["id"], source, item["template"], item.get("nav"), item.get("params", {}),
                                    None, line, entry, item.get("facts"))]
            for page in made:
                if page.id in claimed:  # two pages would write one file in every language
                    first = claimed[page.id]
                    clash = (f"{first.entry} (content/pages.yaml line {first.line}); "
                             f"two pages cannot write <language>/{page.id}.html")
                    if page.card:  # the card's id makes the clash: say so where the id is
                        problems.append(self._card_id_problem(page.card, f"its page {page.id!r} is already made by {clash}"))
                    else:
                        problems.append(Problem(name, document.line_of(("pages", index, "id")), f"{entry}.id",
                                                f"page {page.id!r} is already made by {clash}"))
                else:
                    claimed[page.id] = page
                    pages.append(page)
            problems += self._template_problems(document, index, entry, item["template"])
        if problems:
            raise InputError(problems)
        return pages

    def _card_id_problem(self, card: str, message: str) -> Problem:
        name = "data/gpus.yaml"
        document = read_yaml(self.root / name, name)
        index = next(i for i, item in enumerate(document.value["gpus"]) if item.get("id") == card)
        return Problem(name, document.line_of(("gpus", index, "id")), f"gpus[{card}].id", message)

    def _template_problems(self, document, index: int, entry: str, template: str) -> list[Problem]:
        try:
            self.layout.get_template(template)
        except TemplateNotFound:
            return [Problem(document.name, document.line_of(("pages", index, "template")), f"{entry}.template",
                            f"no template {template!r} in templates/")]
        except TemplateSyntaxError:
            return []  # reported, with every other problem, by the pages that render with it
        return []

    @cached_property
    def layout(self) -> Environment:
        return layout_environment(self.root)

    @cached_property
    def content_env(self):
        env = content_environment()
        install_filters(env)
        return env

    @cached_property
    def markdown(self):
        return make_markdown()

    def table(self, name: str, **options):
        """A table object, built once however many pages and languages show it."""
        key = (name, _freeze(options))
        if key not in self._tables:
            if name not in ALL_TABLES:
                raise UnknownId("table", name, tuple(ALL_TABLES))
            self._tables[key] = ALL_TABLES[name](self.guide, **options)
            self._table_uses[key] = (name, options)
        return self._tables[key]

    def shown_tables(self) -> list:
        """Every table a page has shown so far, once each, in the order first shown."""
        return [table for table in self._tables.values() if table is not None]

    def chart(self, name: str, locale, standalone: bool = False, **options) -> str:
        """A chart's SVG in one language, drawn once however many pages show it."""
        if name not in CHARTS:
            raise UnknownId("chart", name, tuple(CHARTS))
        frozen = _freeze(options)
        key = (name, frozen, locale.segment, standalone)
        if key not in self._charts:
            self._charts[key] = render_chart(name, lambda table, **wanted: ALL_TABLES[table](self.guide, **wanted),
                                             self.formatter(locale), locale.segment, standalone=standalone, **options)
            self._chart_options.setdefault((name, frozen), options)
        return self._charts[key]

    def chart_files(self, locales=None, drawn: dict[str, bytes] | None = None) -> dict[str, bytes]:
        """assets/charts/<segment>-<name>.svg: each chart a page shows, as a file in every language, for the twins.

        ``drawn``: files already drawn elsewhere (by another worker), used as they are.
        """
        drawn = drawn or {}
        uses = dict(self._chart_options)
        files = {}
        for (name, _), options in sorted(uses.items(), key=lambda item: (item[0][0], repr(item[0][1]))):
            for locale in locales or self.data.site.locales:
                path = f"assets/{chart_file(name, locale.segment, options)}"
                if path in drawn:
                    files[path] = drawn[path]
                    continue
                svg = self.chart(name, locale, standalone=True, **options)
                files[path] = ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n").encode("utf-8")
        return files

    # -- rendering -----------------------------------------------------------

    def render(self, workers: int = 1) -> dict[str, bytes]:
        """Every file of the site, by path relative to the output folder.

        ``workers`` > 1 renders the languages side by side in forked processes
        (see ``parallel``); the files are the same bytes either way.
        """
        locales = self.data.site.locales
        if workers > 1:
            self._compile_layouts()  # once, before the workers fork, rather than once in each
        outputs = map_in_workers(self.render_language, locales, workers)
        drawn: dict[str, bytes] = {}
        for output in outputs:
            self._take_over(output)
            drawn.update(output.chart_files)
        problems = [problem for output in outputs for problem in output.problems]
        if problems:
            raise InputError(problems + self.catalog_problems())
        rendered = [page for output in outputs for page in output.pages]
        files = SiteFiles()
        for page in rendered:
            path = f"{page.locale.segment}/{page.key}.html"
            source = f"content/pages.yaml ({page.key})"
            files.add(path, page.html.encode("utf-8"), source)
            files.add(path + ".md", page.markdown.encode("utf-8"), source)
        for path, content in self.site_files(rendered).items():
            files.add(path, content, "templates")
        for path, content in self.assets().items():
            files.add(path, content, "templates/static")
        for path, content in downloads.download_files(self.shown_tables()).items():
            files.add(path, content, "vramsite/tables")
        for path, content in self.chart_files(drawn=drawn).items():
            files.add(path, content, "vramsite/render/charts.py")
        if self.catalog_problems():
            raise InputError(self.catalog_problems())
        return files

    def render_language(self, locale) -> LanguageOutput:
        """Every page in one language, and the standalone copies of its charts."""
        pages, problems = [], []
        for page in self.pages:
            try:
                pages.append(self.render_page(page, locale))
            except InputError as error:
                problems.extend(error.problems)
        charts = {} if problems else self.chart_files(locales=[locale])
        return LanguageOutput(pages, problems, list(self._table_uses.values()),
                              [(name, options) for (name, _), options in self._chart_options.items()],
                              charts, {segment: set(catalog.missing) for segment, catalog in self.catalogs.items()})

    def _take_over(self, output: LanguageOutput) -> None:
        """Make this build know the tables, charts and missing strings of a language another worker rendered."""
        for name, options in output.tables:
            self.table(name, **options)
        for name, options in output.charts:
            self._chart_options.setdefault((name, _freeze(options)), options)
        for segment, missing in output.missing.items():
            self.catalogs[segment].missing |= missing

    def _compile_layouts(self) -> None:
        for template in sorted({page.template for page in self.pages} | {"page.md"}):
            try:
                self.layout.get_template(template)
            except Exception:  # noqa: BLE001 - reported, located, by the pages that use it
                pass

    def catalog_problems(self) -> list[Problem]:
        """UI strings some page asked for that a language's catalog lacks (strict by default)."""
        catalogs = tuple(self.catalogs.values())
        return [problem for catalog in catalogs for problem in catalog.problems(catalogs)]

    def site_files(self, rendered: list[RenderedPage]) -> dict[str, bytes]:
        """The language chooser, the 404 page, sitemap, robots.txt and llms.txt."""
        site = self.data.site
        by_key = {(page.key, page.locale.segment): page for page in rendered}
        languages = [{"locale": locale, "name": language_name(locale), "index": by_key[("index", locale.segment)],
                      "url": f"{locale.segment}/index.html", "catalog": self.catalogs[locale.segment]}
                     for locale in site.locales]
        # The 404 page is served at any address, so it carries its styles inline.
        stylesheet = Markup(self.assets()["assets/style.css"].decode("utf-8"))
        context = {"site": site, "languages": languages, "pricing": self.data.pricing, "stylesheet": stylesheet}
        files = {
            "index.html": self._plain("root.html", context),
            "index.html.md": self._plain("root.md", context),
            "404.html": self._plain("404.html", context),
            "404.html.md": self._plain("404.md", context),
            "sitemap.xml": discovery.sitemap(site.base_url, [page.id for page in self.pages], site.locales),
            "robots.txt": discovery.robots(site.base_url),
        }
        sections = []
        for language in languages:
            locale = language["locale"]
            links = [(page.title, f"{site.base_url}/{locale.segment}/{page.key}.html.md", page.description)
                     for page in rendered if page.locale == locale]
            sections.append((language["name"], links))
        summary = languages[0]["index"].description
        files["llms.txt"] = discovery.llms_txt(site.name, summary, sections)
        return files

    def _plain(self, template_name: str, context: dict) -> bytes:
        try:
            return self.layout.get_template(template_name).render(context).encode("utf-8")
        except InputError:
            raise
        except Exception as error:  # noqa: BLE001 - every failure becomes a located message
            raise InputError([layout_problem(error, template_name)]) from None

    def formatter(self, locale) -> Formatter:
        """One formatter per language for the whole build: it remembers the text of every figure."""
        if locale.segment not in self._formatters:
            self._formatters[locale.segment] = Formatter(locale, self.data.site.display, self.catalogs[locale.segment])
        return self._formatters[locale.segment]

    def content_file(self, path: Path, name: str):
        """A content file, compiled once however many pages it makes (one per card, say)."""
        if name not in self._sources:
            self._sources[name] = read_content(path, name, self.content_env, code_cache(self.root))
        return self._sources[name]

    def render_page(self, page: ContentPage, locale) -> RenderedPage:
        name = f"content/{locale.segment}/{page.source}.md"
        path = self.root / name
        if not path.is_file():
            raise InputError([Problem("content/pages.yaml", page.line, page.entry,
                                      f"no {locale.tag} text: {name} is missing")])
        source = self.content_file(path, name)
        out_path = f"{locale.segment}/{page.id}.html"
        card = self.guide.gpu(page.card) if page.card else None
        facts = self.page_facts(page, card)
        md_scope = Scope(self, locale, MD, out_path, page.params, card, facts)
        html_scope = Scope(self, locale, HTML, out_path, page.params, card, facts)
        meta = page_meta(source, md_scope.content_context())
        body_md = strip_heading_ids(render_content(source, source.template, md_scope.content_context()))
        tokens = self.markdown.parse(render_content(source, source.template, html_scope.content_context()))
        body_html = self.markdown.renderer.render(tokens, self.markdown.options, {})
        info = {"key": page.id, "title": meta["title"], "description": meta["description"],
                "lead": meta.get("lead", ""), "jsonld": discovery.faq_jsonld(section_pairs(tokens, "faq"))}
        html = self._layout(page.template, html_scope, page={**info, **html_meta(meta, self.markdown)},
                            body=Markup(body_html))
        twin = self._layout("page.md", md_scope, page=info, body=Markup(body_md))
        return RenderedPage(page.id, locale, info["title"], info["description"], html, twin)

    def page_facts(self, page: ContentPage, card):
        """The page's facts (vramsite/facts), computed once for every language and format."""
        if page.facts is None:
            return None
        if page.id not in self._facts:
            builder = FACTS.get(page.facts)
            if builder is None:
                raise InputError([Problem(PAGES_FILE, page.line, f"{page.entry}.facts",
                                          f"no page facts named {page.facts!r} (known: {', '.join(sorted(FACTS))})")])
            try:
                self._facts[page.id] = builder(self.guide, page.params, card)
            except UnknownId as error:
                raise InputError([Problem(PAGES_FILE, page.line, f"{page.entry}.params", f"names {error}")]) from None
        return self._facts[page.id]

    def _layout(self, template_name: str, scope: Scope, **context) -> str:
        key = context["page"]["key"]
        base = self.data.site.base_url
        page_file = posixpath.basename(scope.page_path)
        context.update(
            nav=self.nav(scope),
            alternates=self.alternates(key),
            languages=self.languages(scope, key),
            canonical=f"{base}/{scope.page_path}",
            stylesheets=self.stylesheets,
            twin=page_file + ".md",
            html_url=page_file,
        )
        try:
            template = self.layout.get_template(template_name)
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
        for locale in self.data.site.locales:
            target = f"{locale.segment}/{key}.html"
            url = posixpath.relpath(target, here)
            result.append({"locale": locale, "name": language_name(locale), "url": url, "twin": url + ".md",
                           "current": locale == scope.locale})
        return result

    def alternates(self, key: str) -> list[dict]:
        base = self.data.site.base_url
        return [{"locale": locale, "url": f"{base}/{locale.segment}/{key}.html"} for locale in self.data.site.locales]

    @cached_property
    def _assets(self) -> dict[str, bytes]:
        files = {}
        for folder in (ENGINE_ROOT / "templates" / "static", self.root / "templates" / "static"):
            if folder.is_dir():
                for item in sorted(folder.iterdir()):
                    if item.is_file():
                        files[f"assets/{item.name}"] = item.read_bytes()
        return files

    def assets(self) -> dict[str, bytes]:
        """templates/static of the engine, then of the site (a site's file of the same name wins)."""
        return dict(self._assets)

    @cached_property
    def stylesheets(self) -> list[str]:
        """Every stylesheet among the assets, the engine's style.css first: each page links them all."""
        names = [path.removeprefix("assets/") for path in self._assets if path.endswith(".css")]
        return sorted(names, key=lambda name: (name != "style.css", name))


def render_site(root: Path, workers: int = 1) -> dict[str, bytes]:
    """The whole site in memory, or InputError with every problem found.

    When the data cannot be loaded no page can be rendered; the content files,
    layout templates and pages.yaml are then still read and compiled, so that
    one run lists their problems too.
    """
    try:
        return SiteBuild(root).render(workers)
    except InputError as error:
        raise InputError(error.problems + source_problems(Path(root))) from None


def source_problems(root: Path) -> list[Problem]:
    """Problems found without the data: pages.yaml's shape, template and content syntax."""
    problems: list[Problem] = []
    sources: set[str] | None = None
    if (root / PAGES_FILE).is_file():
        try:
            document = read_pages(root)
            sources = {item.get("source", item["id"]) for item in document.value["pages"]}
        except InputError as error:
            problems += error.problems
    layout = layout_environment(root)
    folder = root / "templates"
    if folder.is_dir():
        for item in sorted(folder.rglob("*")):
            name = item.relative_to(folder).as_posix()
            if item.suffix in (".html", ".md") and not name.startswith("static/"):
                try:
                    layout.get_template(name)
                except TemplateSyntaxError as error:  # a file that is not UTF-8 too (template_files)
                    problems.append(layout_problem(error, name))
    env = content_environment()
    install_filters(env)
    for item in sorted((root / "content").glob("*/*.md")):
        if sources is None or item.stem in sources:
            try:
                read_content(item, item.relative_to(root).as_posix(), env)
            except InputError as error:
                problems += error.problems
    return problems


def _freeze(value):
    """A hashable copy of table options (lists and dicts from YAML)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _freeze(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(item) for item in value)
    return value
