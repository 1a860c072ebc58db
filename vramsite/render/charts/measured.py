"""measured: how far each measured figure lands from the formula, a bar per row of the "measured" table.

Bars grow from zero to the row's difference in percent of the prediction:
left where the device held less than the formula says (the formula covers
it), right where it held more.
"""

from __future__ import annotations

from decimal import Decimal

from markupsafe import escape

from ...calc.figure import COUNT, PERCENT, given
from .colour import INK, MUTED, SERIES
from .names import chart_title
from .reading import column_index, language, words
from .svg import PAD, Canvas, document, middle, n
from .text import FONT, LINE, text_width, wrap

BELOW, ABOVE = SERIES[2], SERIES[1]
"""Measured below the formula (it covers the figure), measured above it (it falls short)."""


def measured_chart(table, fmt, chart_id: str, *, standalone: bool = False) -> str:
    width = 400
    measured = table("measured")
    if not measured.rows:
        raise ValueError("the site has no measuring run to chart (data/measurements/)")
    say = words(fmt)
    at = column_index(measured, "percent")
    rows = [(row.key, say(row.header.content), row.cells[at]) for row in measured.rows
            if row.cells[at].value is not None]  # no percent of a zero prediction
    canvas = Canvas()
    y = canvas.title(chart_title("measured", fmt), width) + 6
    for colour, msgid in ((BELOW, "measured below the formula"), (ABOVE, "measured above the formula")):
        canvas.add(canvas.rect(PAD, y + 2, 12, 12, fill=colour))
        y = canvas.lines(PAD + 18, y + FONT, wrap(fmt.gettext(msgid), width - 2 * PAD - 20)) - FONT + 2
    y += 10

    labels = {key: say(cell.content) for key, _, cell in rows}
    reach = max(abs(cell.value.value) for _, _, cell in rows) or Decimal(1)
    room = (width - 2 * PAD) / 2 - max(text_width(label) for label in labels.values()) - 8
    zero = width / 2

    def x_of(value: Decimal) -> float:
        return zero + float(value / reach) * room

    bar, gap = 12, 10
    for key, name, cell in rows:
        y = canvas.lines(PAD, y + FONT, wrap(name, width - 2 * PAD), weight="600") - LINE + 4
        value = cell.value.value
        end = x_of(value)
        colour = ABOVE if value > 0 else BELOW
        label_x, anchor = (end + 4, "start") if value > 0 else (end - 4, "end")
        canvas.add(f'<g class="bar" data-row="{escape(key)}"><title>{escape(str(say.message("{model}: {value}", model=name, value=labels[key])))}</title>'
                   + canvas.rect(min(zero, end), y, abs(end - zero), bar, fill=colour)
                   + f'<text x="{n(label_x)}" y="{n(middle(y + bar / 2))}"'
                   + (f' text-anchor="{anchor}"' if anchor != "start" else "") + f">{escape(labels[key])}</text></g>")
        canvas.add(canvas.line(zero, y - 3, zero, y + bar + 3, stroke=INK, stroke_width="1"))
        y += bar + gap
    canvas.text(zero, y + FONT - 4, fmt.figure(given(0, "%", PERCENT)), anchor="middle", fill=MUTED)
    axis = wrap(fmt.gettext("Measured less formula, in percent of the formula"), width - 2 * PAD, bold=True)
    y = canvas.lines(width / 2, y + FONT + LINE, axis, anchor="middle", weight="600")

    above = [name for _, name, cell in rows if cell.value.value > 0]
    desc = say.message("{rows} figures set against the formula: {above} measured above it, {below} at or below it.",
                       rows=_count(fmt, len(rows)), above=_count(fmt, len(above)),
                       below=_count(fmt, len(rows) - len(above)))
    return document(chart_id, width, y + PAD, chart_title("measured", fmt), desc, canvas, standalone=standalone,
                    lang=language(fmt))


def _count(fmt, count: int) -> str:
    return fmt.number(given(count, "", COUNT))
