"""cost: $ per GB of VRAM and GB/s of bandwidth per $, a bar per card, from the "cost" table."""

from __future__ import annotations

from decimal import Decimal

from markupsafe import escape

from ...tables.series import ranked
from .colour import INK, MUTED, SERIES
from .names import chart_title
from .reading import column_index, language, words
from .svg import PAD, Canvas, document, middle, n
from .text import FONT, LINE, sentences, text_width, wrap

PANELS = (
    ("usd_per_gb", "usd_per_gb_month", "$ per GB of VRAM per month, lower is cheaper", SERIES[0]),
    ("gbps_per_usd", "gbps_per_usd", "GB/s of memory bandwidth per $ per month, higher is better", SERIES[2]),
)
"""(panel, the cost table's column, heading msgid, colour) of each bar panel."""


def cost_chart(table, fmt, chart_id: str, *, standalone: bool = False) -> str:
    costs = table("cost")
    say = words(fmt)
    width = 400
    names = {row.key: say(row.header.content) for row in costs.rows}
    canvas = Canvas()
    title = chart_title("cost", fmt)
    y = canvas.title(title, width)
    label_width = max(text_width(name) for name in names.values()) + 8
    x0 = PAD + label_width
    row_height, bar = 19, 13
    not_listed = None
    for key, column_key, heading, colour in PANELS:
        y += 12
        y = canvas.lines(PAD, y + FONT, wrap(fmt.gettext(heading), width - 2 * PAD, bold=True), weight="600") - LINE + 8
        column = column_index(costs, column_key)
        cells = [(row, row.cells[column]) for row in costs.rows]
        labels = {row.key: say(cell.content) for row, cell in cells}
        missing = [labels[row.key] for row, cell in cells if cell.value is None]
        if missing:
            not_listed = missing[0]
        shown = [labels[row.key] for row, cell in cells if cell.value is not None] + [not_listed] * bool(not_listed)
        value_width = max(text_width(label) for label in shown) + 6
        plot = width - PAD - x0 - value_width
        top = max((cell.value.value for _, cell in cells if cell.value is not None), default=Decimal(1))
        canvas.add(f'<g data-panel="{key}">')
        for index, (row, cell) in enumerate(cells):
            center = y + index * row_height + row_height / 2
            canvas.text(x0 - 6, middle(center), names[row.key], anchor="end")
            if cell.value is None:
                canvas.text(x0 + 4, middle(center), labels[row.key], fill=MUTED)
                continue
            length = float(cell.value.value / top) * plot
            canvas.add(f'<g class="bar" data-key="{escape(row.key)}">'
                       f'<title>{escape(names[row.key])}: {escape(labels[row.key])}</title>'
                       + canvas.rect(x0, center - bar / 2, length, bar, fill=colour)
                       + f'<text x="{n(x0 + length + 4)}" y="{n(middle(center))}">{escape(labels[row.key])}</text>'
                       + "</g>")
        bottom = y + len(cells) * row_height
        canvas.add(canvas.line(x0, y, x0, bottom, stroke=INK, stroke_width="1"))
        canvas.add("</g>")
        y = bottom
    desc = [fmt.gettext("Bars for every card, largest memory first.")]
    cheap = ranked(costs, "usd_per_gb_month")
    if cheap:
        (low_row, low), (high_row, high) = cheap[0], cheap[-1]
        desc.append(say.message("Per GB of VRAM per month, from {low} on the {low_card} to {high} on the {high_card}.",
                                low=say(low.content), low_card=names[low_row.key],
                                high=say(high.content), high_card=names[high_row.key]))
    rich = ranked(costs, "gbps_per_usd", highest_first=True)
    if rich:
        (best_row, best), (worst_row, worst) = rich[0], rich[-1]
        desc.append(say.message("GB/s of memory bandwidth per $ per month, from {best} on the {best_card} "
                                "to {worst} on the {worst_card}.",
                                best=say(best.content), best_card=names[best_row.key],
                                worst=say(worst.content), worst_card=names[worst_row.key]))
    return document(chart_id, width, y + PAD, title, sentences(desc), canvas, standalone=standalone,
                    lang=language(fmt))
