"""Charts drawn at build time as SVG: no JavaScript, no data sent to the browser.

Each chart is drawn from table objects (``vramsite.tables``), the ones the
pages print: ``table`` is a callable ``table(name, **options) -> Table``. A
word a table has (a model's or card's name, a method, a context, the wording
of a lookup answer) is printed as the table's pieces through the pages' inline
renderer, as plain text; a number is a figure of the table formatted for the
page's locale; every other word is a msgid of the gettext catalog. Output is
deterministic: element ids come from the chart's name, its options and the
language, never from a counter or a random source, so a rebuild writes the
same bytes.

The 400-unit charts fit a 390 px phone (358 px of column) as they are; the
heat map is wider and scrolls sideways there.

    render_chart("cost", tables, fmt, "en")                  inline <svg>
    render_chart("cost", tables, fmt, "en", standalone=True) an .svg file's text

where ``tables("context", contexts=[...])`` builds a table of ``vramsite.tables.ALL_TABLES``.

The modules: ``text`` (sizes, widths, line breaking), ``colour``, ``svg``
(canvas and root element), ``reading`` (what a chart takes from a table), and
a module per chart.
"""

from __future__ import annotations

from .colour import INK, MUTED, PAPER, contrast, text_on
from .cost import cost_chart
from .finetune import finetune_chart
from .heatmap import lookup_heatmap_chart
from .kv_context import kv_context_chart
from .measured import measured_chart
from .price_history import price_history_chart
from .names import TITLES, chart_file, chart_slug, chart_title
from .svg import MIN_PX
from .text import FONT, text_width, wrap

CHARTS = {
    "cost": cost_chart,
    "kv_context": kv_context_chart,
    "finetune": finetune_chart,
    "lookup_heatmap": lookup_heatmap_chart,
    "measured": measured_chart,
    "price_history": price_history_chart,
}
"""Charts content can place by name: {{ chart("cost") }}."""


def render_chart(name: str, table, fmt, segment: str, *, standalone: bool = False, **options) -> str:
    """The SVG text of chart ``name`` in the language of ``fmt``, drawn from the tables ``table(name, **options)``."""
    if name not in CHARTS:
        raise LookupError(f"unknown chart {name!r} (known: {', '.join(CHARTS)})")
    chart_id = "chart-" + chart_slug(name, segment, options)
    return CHARTS[name](table, fmt, chart_id, standalone=standalone, **options)


__all__ = ["CHARTS", "FONT", "INK", "MIN_PX", "MUTED", "PAPER", "TITLES", "chart_file", "chart_slug", "chart_title",
           "contrast", "render_chart", "text_on", "text_width", "wrap"]
