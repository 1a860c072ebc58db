"""price_history: one card's price over time, from the "gpu_price_history" table.

The price holds from one dated list to the next, so the line steps: flat
until the next list, then up or down. Time runs left to right in
proportion to the days between lists.
"""

from __future__ import annotations

from datetime import datetime

from markupsafe import escape

from ...calc.figure import given
from ...load.price_history import moment_key
from .colour import GRID, INK, MUTED, SERIES
from .kv_context import nice_ticks
from .names import chart_title, point_title
from .reading import column_index, language, words
from .svg import PAD, Canvas, attrs, document, middle, n
from .text import FONT, LINE, text_width, wrap


def price_history_chart(table, fmt, chart_id: str, *, standalone: bool = False, gpu: str) -> str:
    width = 400
    prices = table("gpu_price_history", gpu=gpu)
    say = words(fmt)
    column = column_index(prices, "price")
    points = [(row.key, say(row.header.content), row.cells[column]) for row in reversed(prices.rows)
              if row.cells[column].value is not None]  # oldest first; a list without a price leaves a gap
    canvas = Canvas()
    title = chart_title("price_history", fmt)
    y = canvas.title(title, width)
    label = say(prices.columns[column].label)
    y = canvas.lines(PAD, y + FONT, wrap(label, width - 2 * PAD, bold=True), weight="600") - LINE

    top = max(cell.value.value for _, _, cell in points)
    ticks = nice_ticks(top)
    unit, kind = points[0][2].value.unit, points[0][2].value.kind
    tick_labels = [fmt.figure(given(tick, unit, kind)) for tick in ticks]
    left = PAD + max(text_width(tick_label) for tick_label in tick_labels) + 6
    right = width - PAD - 8
    plot_top, plot_height = y + 12, 160
    plot_bottom = plot_top + plot_height
    start, end = moment_key(points[0][0]), moment_key(points[-1][0])
    span = (end - start).total_seconds() or 1

    def x_of(moment: datetime) -> float:
        return left + (moment - start).total_seconds() / span * (right - left)

    def y_of(value) -> float:
        return plot_bottom - float(value / ticks[-1]) * plot_height

    for tick, tick_label in zip(ticks, tick_labels):
        canvas.add(canvas.line(left, y_of(tick), right, y_of(tick), stroke=GRID if tick else INK, stroke_width="1"))
        canvas.text(left - 6, middle(y_of(tick)), tick_label, anchor="end", fill=MUTED)
    first_label, last_label = points[0][1], points[-1][1]
    canvas.text(left, plot_bottom + 4 + FONT, first_label, fill=MUTED)
    if len(points) > 1:
        canvas.text(right, plot_bottom + 4 + FONT, last_label, anchor="end", fill=MUTED)
    y = plot_bottom + 4 + FONT

    steps = []
    for index, (at, _, cell) in enumerate(points):
        x, level = x_of(moment_key(at)), y_of(cell.value.value)
        if index:
            steps.append(f"{n(x)},{n(y_of(points[index - 1][2].value.value))}")
        steps.append(f"{n(x)},{n(level)}")
    colour = SERIES[0]
    canvas.add(f'<polyline points="{" ".join(steps)}"'
               + attrs(fill="none", stroke=colour, stroke_width="2.5", stroke_linejoin="round") + "/>")
    for at, shown, cell in points:
        canvas.add(f'<circle cx="{n(x_of(moment_key(at)))}" cy="{n(y_of(cell.value.value))}" r="3.5"'
                   f'{attrs(fill=colour)}><title>{escape(point_title(say, shown, label, say(cell.content)))}'
                   "</title></circle>")

    values = fmt.names([str(say.message("{date}: {price}", date=shown, price=say(cell.content)))
                        for _, shown, cell in points])
    desc = say.message("{label} from {first} to {last}, a step at each dated price list: {values}.",
                       label=label, first=first_label, last=last_label, values=values)
    return document(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=language(fmt))

