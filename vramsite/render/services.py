"""What pages ask of the build while they render: tables, charts, formatters and facts, each made once.

Each service notes what pages show, and tells the listeners registered on
``Events`` (the diff report is one): a page started or finished in a
language, a table shown, a chart shown. Listeners see what is rendered in
their own process; shares rendered by other workers reach the build
only as their ``ShareOutput`` (publish/site.py).
"""

from __future__ import annotations

from ..errors import InputError, Problem, UnknownId
from ..facts import FACTS
from ..load.pages import PAGES_FILE
from ..load.reads import ReadCache
from ..tables import ALL_TABLES
from .charts import CHARTS, render_chart
from .format import Formatter


class BuildListener:
    """Override the events wanted; each does nothing by default."""

    def page_started(self, page, locale) -> None:
        pass

    def page_finished(self, page, locale) -> None:
        pass

    def table_shown(self, table) -> None:
        pass

    def chart_shown(self, name: str, locale, svg: str) -> None:
        pass


class Events(BuildListener):
    """Passes each event on to every listener, in the order they were added."""

    def __init__(self):
        self.listeners: list[BuildListener] = []

    def add(self, listener: BuildListener) -> None:
        self.listeners.append(listener)

    def page_started(self, page, locale) -> None:
        for listener in self.listeners:
            listener.page_started(page, locale)

    def page_finished(self, page, locale) -> None:
        for listener in self.listeners:
            listener.page_finished(page, locale)

    def table_shown(self, table) -> None:
        for listener in self.listeners:
            listener.table_shown(table)

    def chart_shown(self, name: str, locale, svg: str) -> None:
        for listener in self.listeners:
            listener.chart_shown(name, locale, svg)


class TableService:
    """Table objects, each built once however many pages, languages and charts ask for it."""

    def __init__(self, guide, events: Events):
        self.guide, self.events = guide, events
        self._built = ReadCache()
        """Each table, and the data records building it read (load/reads.py)."""
        self._used: dict = {}
        self.heard: list | None = None
        """While a page renders for the record a rebuild keeps (publish/incremental.py): (name, options) of
        each table it shows."""

    def build(self, name: str, **options):
        """The table ``name`` with ``options``, built once; None for a table with nothing to show (a card that
        wins no cell). Not counted as shown: what a chart is drawn from."""
        if name not in ALL_TABLES:
            raise UnknownId("table", name, tuple(ALL_TABLES))
        return self._built.fetch((name, freeze(options)), lambda: ALL_TABLES[name](self.guide, **options))

    def __call__(self, name: str, **options):
        """The table, counted as shown: it is published among the downloads."""
        table = self.build(name, **options)
        self._used.setdefault((name, freeze(options)), (name, options))
        if self.heard is not None:
            self.heard.append((name, options))
        return table

    def note(self, name: str, options: dict) -> None:
        """Count as shown a table another worker showed, without building it here: its downloads come back
        written, and ``shown_by_key`` builds it only if asked."""
        self._used.setdefault((name, freeze(options)), (name, options))

    def show(self, name: str, **options):
        """The table, as a page shows it: counted as shown, and the listeners hear of it."""
        table = self(name, **options)
        if table is not None:
            self.events.table_shown(table)
        return table

    def shown(self) -> list:
        """Every table counted as shown so far, once each, in the order first shown."""
        return [table for _, table in self.shown_by_key()]

    def shown_by_key(self) -> list[tuple[tuple, object]]:
        """(key, table) of every table counted as shown so far, in the order first shown (built here where only
        noted); a key names its table in every worker of a build."""
        tables = ((key, make()) for key, make in self.lazily())
        return [(key, table) for key, table in tables if table is not None]

    def lazily(self) -> list[tuple[tuple, object]]:
        """(key, a function building the table or giving None) of every table counted as shown so far, in the
        order first shown."""
        return [(key, lambda use=use: self.build(use[0], **use[1])) for key, use in self._used.items()]

    def uses(self) -> list[tuple[str, dict]]:
        """(name, options) of every table counted as shown so far."""
        return list(self._used.values())


class ChartService:
    """Charts' SVG, each drawn once per language however many pages show it."""

    def __init__(self, tables: TableService, formatters: Formatters, events: Events):
        self.tables, self.formatters, self.events = tables, formatters, events
        self._svg = ReadCache()
        self._options: dict = {}
        self.heard: list | None = None
        """Like ``TableService.heard``, for charts."""

    def draw(self, name: str, locale, standalone: bool = False, **options) -> str:
        if name not in CHARTS:
            raise UnknownId("chart", name, tuple(CHARTS))
        frozen = freeze(options)
        key = (name, frozen, locale.segment, standalone)
        svg = self._svg.fetch(key, lambda: render_chart(name, self.tables.build, self.formatters(locale),
                                                        locale.segment, standalone=standalone, **options))
        self._options.setdefault((name, frozen), (name, options))
        if self.heard is not None:
            self.heard.append((name, options))
        return svg

    def show(self, name: str, locale, standalone: bool = False, **options) -> str:
        """The chart, as a page shows it: the listeners hear of it."""
        svg = self.draw(name, locale, standalone, **options)
        self.events.chart_shown(name, locale, svg)
        return svg

    def note(self, name: str, options: dict) -> None:
        """Count a chart another worker drew as drawn, for the standalone copies."""
        self._options.setdefault((name, freeze(options)), (name, options))

    def uses(self) -> list[tuple[str, dict]]:
        """(name, options) of every chart drawn so far, once each, in the order first drawn."""
        return list(self._options.values())


class Formatters:
    """One formatter per language for the whole build: it remembers the text of every figure."""

    def __init__(self, display, catalogs):
        self.display, self.catalogs = display, catalogs
        self._by_segment: dict[str, Formatter] = {}

    def __call__(self, locale) -> Formatter:
        if locale.segment not in self._by_segment:
            self._by_segment[locale.segment] = Formatter(locale, self.display, self.catalogs[locale.segment])
        return self._by_segment[locale.segment]


def freeze(value):
    """A hashable copy of table or chart options (lists and dicts from YAML)."""
    if isinstance(value, dict):
        return tuple(sorted((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


class PageFacts:
    """Each page's facts (vramsite/facts), computed once for every language and format."""

    def __init__(self, guide):
        self.guide = guide
        self._by_page = ReadCache()

    def __call__(self, page, subject=None):
        """The facts of ``page``; ``subject``: the view of the item a page made once per item is about (a card's
        GpuView), None for other pages."""
        if page.facts is None:
            return None
        builder = FACTS.get(page.facts)
        if builder is None:
            raise InputError([Problem(PAGES_FILE, page.line, f"{page.entry}.facts",
                                      f"no page facts named {page.facts!r} (known: {', '.join(sorted(FACTS))})")])
        try:
            return self._by_page.fetch(page.id, lambda: builder(self.guide, page.params, subject))
        except UnknownId as error:
            raise InputError([Problem(PAGES_FILE, page.line, f"{page.entry}.params", f"names {error}")]) from None
