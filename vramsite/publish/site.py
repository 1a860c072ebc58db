"""Build a whole site in memory: every output path and its bytes.

Nothing is written here; ``writer.write_site`` swaps the result into place
only when this finished without a single problem. ``SiteBuild`` loads the
site, sets up the services pages render with (``render/services.py``,
``pages.py``) and puts the languages' pages and the site's other files
together.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from jinja2 import Environment, TemplateSyntaxError

from ..calc import Guide
from ..errors import InputError, Problem
from ..layout import SiteLayout, page_path
from ..load.assemble import load_site_sources
from ..load.pages import PAGES_FILE, PageSpec, read_page_specs, read_pages
from ..load.reads import reading, tracked_data
from ..render.calculator import calculator_file, calculator_path, model_file, model_files, model_path
from ..render.charts import chart_file
from ..render.content import layout_problem, read_content
from ..render.environments import content_env, has_template, layout_environment
from ..render.i18n import load_catalogs
from ..render.inline import InlineRenderer
from ..render.markdown import make_markdown
from ..render.scope import ScopeServices
from ..render.services import ChartService, Events, Formatters, PageFacts, TableService, freeze
from . import downloads
from .in_page_importer import FOLDER as IMPORTER_FOLDER, RUNTIME_CACHE, importer_files, runtime_files
from .incremental import FileRecord, PageMemory, PageRecord
from .pages import Assets, PageRenderer, PageServices, RenderedPage
from .parallel import map_in_fresh_workers
from .router import Router
from .site_wide import site_wide_files
from .writer import SiteFiles


ITEMS_PER_SHARE = 50
"""How many items (models, cards) one worker renders the pages of before it ends: what a worker works out for its
items is freed with it, so that a build's memory does not grow with the catalogue."""


@dataclass(frozen=True)
class Share:
    """One worker's part of a build: some pages in some languages, and the files that go with them."""

    pages: tuple[tuple[PageSpec, object], ...]
    """(page, locale) of each page it renders."""
    locales: tuple
    """The languages its pages are in: it writes their download and chart files for what its pages show."""
    language_files: bool = False
    """Whether it writes those languages' calculator data."""
    models: tuple[str, ...] = ()
    """The real models whose calculator files it writes (language-free)."""


@dataclass
class ShareOutput:
    """What rendering one share produced, and what it asked of the rest of the build. A share with problems
    writes no files: the build reports the problems instead."""

    pages: list[RenderedPage]
    problems: list[Problem]
    tables: list[tuple[str, dict]]
    """(name, options) of every table shown, for the downloads."""
    charts: list[tuple[str, dict]]
    """(name, options) of every chart shown."""
    records: list[PageRecord]
    """Each page with what it depended on, for the next build (empty unless the build keeps them)."""
    kept: list[tuple[str, str]]
    """(segment, page) of the pages kept from the last build as they were, not rendered again."""
    chart_files: dict[str, bytes] = field(default_factory=dict)
    """The standalone copies of those charts in the share's languages."""
    downloads: dict[tuple, dict[str, bytes]] = field(default_factory=dict)
    """(table key, segment) -> that table's download files in a language of the share."""
    model_files: dict[str, bytes] = field(default_factory=dict)
    """The calculator files of the share's ``models``, by path."""
    file_records: list[FileRecord] = field(default_factory=list)
    """Each of those files with what it depended on, for the next build (empty unless the build keeps them)."""
    kept_files: list[str] = field(default_factory=list)
    """The paths of those files kept from the last build as they were, not made again."""
    calculator: dict[str, bytes] = field(default_factory=dict)
    """Its languages' calculator data files, by path (``calculator_files``), where it writes them."""
    missing: dict[str, set[str]] = field(default_factory=dict)
    """Per catalog: the UI strings asked for that it lacks."""


class SiteBuild:
    def __init__(self, root: Path, incremental: bool = False):
        """``incremental``: keep every page with what it read, and keep the last build's pages whose inputs
        did not change since (``incremental.py``)."""
        self.layout = SiteLayout(root)
        self.root = self.layout.root
        self.data, documents = load_site_sources(self.root)
        if incremental:
            self.data = tracked_data(self.data)
        self.guide = Guide(self.data)
        self.catalogs = load_catalogs(self.layout, self.data.site.locales)
        self.pages: tuple[PageSpec, ...] = read_page_specs(
            self.root, self.data, documents, lambda name: has_template(self.layout_env, name))
        self.memory = PageMemory(self.root, self.data, self._page_keys()) if incremental else None
        self.kept: list[tuple[str, str]] = []
        """(language, page) of each page kept from the last build, after ``render``."""
        self.kept_files: list[str] = []
        """The path of each calculator model file kept from the last build, after ``render``."""
        self.router = Router(self.pages)
        self.events = Events()
        """Register a ``BuildListener`` here to hear what each page shows."""
        self.formatter = Formatters(self.data.site.display, self.catalogs)
        self.tables = TableService(self.guide, self.events)
        self.charts = ChartService(self.tables, self.formatter, self.events)
        self.page_facts = PageFacts(self.guide)
        self.assets = Assets(self.layout)

    @cached_property
    def layout_env(self) -> Environment:
        return layout_environment(self.layout)

    @cached_property
    def content_env(self):
        return content_env()

    @cached_property
    def scope_services(self) -> ScopeServices:
        return ScopeServices(guide=self.guide, site=self.data.site, pricing=self.data.pricing, layout=self.layout_env,
                             router=self.router, tables=self.tables, charts=self.charts, catalogs=self.catalogs,
                             formatter=self.formatter, importer=IMPORTER_FOLDER if self.has_importer else None)

    @cached_property
    def has_importer(self) -> bool:
        """Whether the site offers the in-page importer (publish/in_page_importer.py): it has real models, and
        Pyodide's runtime can be had. Asked before any page renders; the files are zipped only when written."""
        return bool(self.guide.serves and self.data.catalogue) and runtime_files(RUNTIME_CACHE) is not None

    @cached_property
    def importer_files(self) -> dict[str, bytes]:
        """The in-page importer's files where the site has it (``has_importer``); else none."""
        if not self.has_importer:
            return {}
        return importer_files(self.root / "data", tuple(locale.gettext for locale in self.data.site.locales))

    @cached_property
    def renderer(self) -> PageRenderer:
        services = PageServices(layout=self.layout, scope=self.scope_services, content=self.content_env,
                                markdown=make_markdown(), facts=self.page_facts, stylesheets=self.assets.stylesheets,
                                events=self.events, locales=self.data.site.locales, base_url=self.data.site.base_url)
        return PageRenderer(services, self.pages)

    def _page_keys(self) -> tuple:
        return tuple(locale.segment for locale in self.data.site.locales), tuple(page.id for page in self.pages)

    def table(self, name: str, **options):
        """A table object, built once however many pages and languages show it."""
        return self.tables(name, **options)

    def chart(self, name: str, locale, standalone: bool = False, **options) -> str:
        """A chart's SVG in one language, drawn once however many pages show it."""
        return self.charts.draw(name, locale, standalone, **options)

    def render_page(self, page: PageSpec, locale) -> RenderedPage:
        return self.renderer.render(page, locale)

    # -- the whole site ------------------------------------------------------

    def render(self, workers: int = 1) -> dict[str, bytes]:
        """Every file of the site, by path relative to the output folder.

        The work is cut into shares (``shares``); ``workers`` > 1 renders them side by side, each in a forked
        process that ends after it (see ``parallel``). The files are the same bytes either way.
        """
        if workers > 1:
            self._before_forking()
        outputs = map_in_fresh_workers(self.render_share, self.shares(), workers)
        drawn: dict[str, bytes] = {}
        written: dict[tuple, dict[str, bytes]] = {}
        for output in outputs:
            self._take_over(output)
            drawn.update(output.chart_files)
            written.update(output.downloads)
        problems = [problem for output in outputs for problem in output.problems]
        if problems:
            raise InputError(problems + self.catalog_problems())
        rendered = sorted((page for output in outputs for page in output.pages),
                          key=lambda page: self._site_order(page.locale.segment, page.key))
        files = SiteFiles()
        for page in rendered:
            path = page_path(page.locale.segment, page.key)
            source = f"{PAGES_FILE} ({page.key})"
            files.add(path, page.html, source)
            files.add(path + ".md", page.markdown, source)
        for path, content in site_wide_files(self.layout_env, self.data, self.catalogs, self.assets, self.pages,
                                             rendered, self.guide).items():
            files.add(path, content, "templates")
        for path, content in self.assets.files.items():
            files.add(path, content, "templates/static")
        for path, content in self.importer_files.items():
            files.add(path, content, "vramsite/publish/in_page_importer.py")
        languages = {locale.segment: InlineRenderer.plain(self.formatter(locale)) for locale in self.data.site.locales}
        for path, content in downloads.download_files(self.tables.lazily(), languages, written).items():
            files.add(path, content, "vramsite/tables")
        for path, content in self.chart_files(drawn=drawn).items():
            files.add(path, content, "vramsite/render/charts")
        for output in outputs:
            for path, content in output.calculator.items():
                files.add(path, content, "vramsite/render/calculator")
        made = {path: content for output in outputs for path, content in output.model_files.items()}
        for model in self._calculator_models():
            files.add(model_path(model), made[model_path(model)], "vramsite/render/calculator")
        if self.catalog_problems():
            raise InputError(self.catalog_problems())
        if self.memory is not None:
            self._keep(sorted((record for output in outputs for record in output.records),
                              key=lambda record: self._site_order(record.segment, record.key)),
                       [record for output in outputs for record in output.file_records])
            self.kept = sorted((kept for output in outputs for kept in output.kept),
                               key=lambda kept: self._site_order(*kept))
            self.kept_files = [path for output in outputs for path in output.kept_files]
        return files

    def shares(self) -> list[Share]:
        """The build cut into shares: each language's pages made once (with its calculator data), then the pages
        made once per item in every language, ``ITEMS_PER_SHARE`` items a share; a model's calculator file goes
        with its pages (or, without any, with the last share)."""
        locales = tuple(self.data.site.locales)
        shares = [Share(pages=tuple((page, locale) for page in self.pages if page.item is None), locales=(locale,),
                        language_files=True) for locale in locales]
        items = list(dict.fromkeys(page.item for page in self.pages if page.item is not None))
        paged = set(items)
        modelled = self._calculator_models()
        for first in range(0, len(items), ITEMS_PER_SHARE):
            batch = set(items[first:first + ITEMS_PER_SHARE])
            pages = tuple((page, locale) for locale in locales for page in self.pages if page.item in batch)
            shares.append(Share(pages=pages, locales=locales, models=tuple(model for model in modelled
                                                                             if model in batch)))
        unpaged = tuple(model for model in modelled if model not in paged)
        if unpaged:
            shares.append(Share(pages=(), locales=(), models=unpaged))
        return shares

    def _calculator_models(self) -> list[str]:
        """The real models whose calculator file the calculator fetches, in catalogue order."""
        return [model.id for model in self.data.catalogue]

    def _site_order(self, segment: str, key: str) -> tuple[int, int]:
        """Where page ``key`` in language ``segment`` comes in the site's order: the languages in order, and in each
        the pages as content/pages.yaml lists them."""
        return self._page_places[segment, key]

    @cached_property
    def _page_places(self) -> dict[tuple[str, str], tuple[int, int]]:
        return {(locale.segment, page.id): (place, index) for place, locale in enumerate(self.data.site.locales)
                for index, page in enumerate(self.pages)}

    def _keep(self, records: list[PageRecord], files: list[FileRecord]) -> None:
        """Keep the pages and files for the next build, unless some UI string was missing (a kept page would not
        ask for it again)."""
        if any(catalog.missing for catalog in self.catalogs.values()):
            self.memory.forget()
        else:
            self.memory.save(records, files)

    def render_share(self, share: Share) -> ShareOutput:
        """A share's pages, and the files that go with them."""
        tables_before = len(self.tables.uses())
        pages, problems, records, reused = [], [], [], []
        for page, locale in share.pages:
            kept = self.memory.kept(locale.segment, page.id, self._derived_digest) if self.memory else None
            try:
                record = kept or (self.render_recorded(page, locale) if self.memory else None)
                pages.append(record.page if record else self.render_page(page, locale))
            except InputError as error:
                problems.extend(error.problems)
                continue
            if kept:
                self._replay(kept)
                reused.append((locale.segment, page.id))
            if record:
                records.append(record)
        output = ShareOutput(pages=pages, problems=problems, tables=self.tables.uses()[tables_before:],
                             charts=self.charts.uses(), records=records, kept=reused)
        if not problems:
            if share.locales:  # chart_files of no language would draw them in every language
                output.chart_files = self.chart_files(locales=share.locales)
            for locale in share.locales:
                output.downloads.update(self._downloads(locale, tables_before))
                if share.language_files:
                    output.calculator.update(self.calculator_files(locale))
            if self.memory is None:
                output.model_files = self.model_files(share.models)
            else:
                self._model_files_recorded(share.models, output)
        # Last: drawing the charts and writing the downloads ask for UI strings too.
        output.missing = {segment: set(catalog.missing) for segment, catalog in self.catalogs.items()}
        return output

    def model_files(self, models: tuple[str, ...]) -> dict[str, bytes]:
        """The calculator file of each of ``models`` (render/calculator/data.py), by path."""
        found = model_files(self.guide, list(models)) if models else {}
        return {model_path(model): model_file(held) for model, held in found.items()}

    def _model_files_recorded(self, models: tuple[str, ...], output: ShareOutput) -> None:
        """``model_files``, each kept from the last build where nothing it read changed, else made with what it
        read."""
        for model in models:
            path = model_path(model)
            record = self.memory.kept_file(path, self._derived_digest)
            if record:
                output.kept_files.append(path)
            else:
                with reading() as reads:
                    content = self.model_files((model,))[path]
                record = FileRecord(path=path, reads=frozenset(reads), content=content,
                                    derived=self._derived_states(reads))
            output.model_files[path] = record.content
            output.file_records.append(record)

    def calculator_files(self, locale) -> dict[str, bytes]:
        """``locale``'s calculator data as the file its pages' scripts fetch (render/calculator/data.py)."""
        return {calculator_path(locale.segment): calculator_file(self.scope_services.calculator_data(locale))}

    def pages_first(self, paths) -> dict[str, bytes]:
        """The pages at ``paths`` ('en/pricing.html', or its twin's path), each with its twin, their language's
        calculator data and the site's static assets: the bytes ``render`` gives them, ready before the rest of the
        site is rendered.

        The preview answers the pages in view from these (``publish/preview.py``). A path that is no page
        (the language chooser, a download) is left out, and so is a page that does not render: ``render``
        then reports its problems with every other one.
        """
        pages = {page_path(locale.segment, page.id): (page, locale)
                 for locale in self.data.site.locales for page in self.pages}
        files = {}
        for path in dict.fromkeys(path.removesuffix(".md") for path in paths):
            if path not in pages:
                continue
            page, locale = pages[path]
            kept = self.memory.kept(locale.segment, page.id, self._derived_digest) if self.memory else None
            try:
                rendered = kept.page if kept else self.render_page(page, locale)
            except InputError:
                continue
            files[path], files[path + ".md"] = rendered.html, rendered.markdown
            files.update(self.calculator_files(locale))
        return {**files, **self.assets.files} if files else {}

    def _downloads(self, locale, since: int = 0) -> dict[tuple, dict[str, bytes]]:
        """The download files in ``locale``'s language of every table shown since the ``since``-th, written here
        so that the workers share the work; a table they cannot be written for is left to ``render``, which
        writes or reports it."""
        say = InlineRenderer.plain(self.formatter(locale))
        files = {}
        for key, make in self.tables.lazily()[since:]:
            try:
                files[(key, locale.segment)] = downloads.made_files(make, locale.segment, say)
            except InputError:
                continue
        return files

    def render_recorded(self, page: PageSpec, locale) -> PageRecord:
        """The page rendered, with the data records it read and the tables and charts it showed."""
        self.tables.heard, self.charts.heard = [], []
        try:
            with reading() as reads:
                rendered = self.render_page(page, locale)
            return PageRecord(key=page.id, segment=locale.segment,
                              content=self.layout.content_name(locale.segment, page.source), reads=frozenset(reads),
                              tables=self.tables.heard, charts=self.charts.heard, page=rendered,
                              derived=self._derived_states(reads))
        finally:
            self.tables.heard = self.charts.heard = None

    def _derived_states(self, reads) -> dict:
        """The digest of each derived value among ``reads``, and the records behind it."""
        return {read: self.guide.derived[read[0]].state(read[1]) for read in reads if read[0] in self.guide.derived}

    def _derived_digest(self, read) -> str:
        kind, record_id = read
        return self.guide.derived[kind].state(record_id)[0]

    def _replay(self, kept: PageRecord) -> None:
        """Count the tables and charts of a page kept from the last build as shown, for downloads and chart files."""
        for name, options in kept.tables:
            self.tables(name, **options)
        for name, options in kept.charts:
            self.charts.note(name, options)

    def _take_over(self, output: ShareOutput) -> None:
        """Make this build know the tables, charts and missing strings of a share another worker rendered."""
        for name, options in output.tables:
            self.tables.note(name, options)
        for name, options in output.charts:
            self.charts.note(name, options)
        for segment, missing in output.missing.items():
            self.catalogs[segment].missing |= missing

    def _before_forking(self) -> None:
        """Work out here, once, what every share would otherwise work out again: the compiled layouts, and each
        language's calculator data, which every model page's calculator opens from and which grows with the
        catalogue."""
        self._compile_layouts()
        for locale in self.data.site.locales:
            try:
                self.scope_services.calculator_data(locale)
            except InputError:  # reported, located, by the pages that show the calculator
                pass

    def _compile_layouts(self) -> None:
        for template in sorted({page.template for page in self.pages} | {"page.md"}):
            try:
                self.layout_env.get_template(template)
            except Exception:  # noqa: BLE001 - reported, located, by the pages that use it
                pass

    def catalog_problems(self) -> list[Problem]:
        """UI strings some page asked for that a language's catalog lacks (strict by default)."""
        catalogs = tuple(self.catalogs.values())
        return [problem for catalog in catalogs for problem in catalog.problems(catalogs)]

    def chart_files(self, locales=None, drawn: dict[str, bytes] | None = None) -> dict[str, bytes]:
        """assets/charts/<segment>-<name>.svg: each chart a page shows, as a file in every language, for the twins.

        ``drawn``: files already drawn elsewhere (by another worker), used as they are.
        """
        drawn = drawn or {}
        files = {}
        for name, options in sorted(self.charts.uses(), key=lambda use: (use[0], repr(freeze(use[1])))):
            for locale in locales or self.data.site.locales:
                path = f"assets/{chart_file(name, locale.segment, options)}"
                if path in drawn:
                    files[path] = drawn[path]
                    continue
                svg = self.charts.draw(name, locale, standalone=True, **options)
                files[path] = ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n").encode("utf-8")
        return files


def render_site(root: Path, workers: int = 1, incremental: bool = False, first: tuple[str, ...] = (),
                early: Callable[[dict[str, bytes]], None] | None = None) -> dict[str, bytes]:
    """The whole site in memory, or InputError with every problem found.

    ``incremental``: render again only the pages whose inputs changed since the last build
    (``SiteBuild``), the same bytes as rendering all of them.

    ``first``: paths of pages to hand to ``early`` before the rest is rendered
    (``SiteBuild.pages_first``); ``early`` is not called when none of them rendered.

    When the data cannot be loaded no page can be rendered; the content files,
    layout templates and pages.yaml are then still read and compiled, so that
    one run lists their problems too.
    """
    try:
        build = SiteBuild(root, incremental)
        ready = build.pages_first(first) if first and early else {}
        if ready:
            early(ready)
        return build.render(workers)
    except InputError as error:
        raise InputError(error.problems + source_problems(Path(root))) from None


def render_site_collector_off(root: Path, workers: int, incremental: bool, first: tuple[str, ...] = (),
                              early: Callable[[dict[str, bytes]], None] | None = None) -> dict[str, bytes]:
    """``render_site`` with the cycle collector off while it runs, as `build`, `check` and the preview do.

    A build is short and keeps nearly every object it makes until it ends: the
    cycle collector would only walk the growing heap again and again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return render_site(root, workers, incremental, first, early)
    finally:
        if was_enabled:
            gc.enable()


def source_problems(root: Path) -> list[Problem]:
    """Problems found without the data: pages.yaml's shape, template and content syntax."""
    layout = SiteLayout(root)
    problems: list[Problem] = []
    sources: set[str] | None = None
    if (layout.root / PAGES_FILE).is_file():
        try:
            document = read_pages(layout.root)
            sources = {item.get("source", item["id"]) for item in document.value["pages"]}
        except InputError as error:
            problems += error.problems
    layout_env = layout_environment(layout)
    folder = layout.templates
    if folder.is_dir():
        for item in sorted(folder.rglob("*")):
            name = item.relative_to(folder).as_posix()
            if item.suffix in (".html", ".md") and not name.startswith("static/"):
                try:
                    layout_env.get_template(name)
                except TemplateSyntaxError as error:  # a file that is not UTF-8 too (template_files)
                    problems.append(layout_problem(error, name))
    env = content_env()
    for item in sorted(layout.content.glob("*/*.md")):
        if sources is None or item.stem in sources:
            try:
                read_content(item, item.relative_to(layout.root).as_posix(), env, layout.kept_code_cache)
            except InputError as error:
                problems += error.problems
    return problems
