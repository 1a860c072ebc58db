"""finetune: memory to fine-tune, a bar per model and method on a log scale, from the "finetune" table."""

from __future__ import annotations

import math
from decimal import Decimal

from markupsafe import escape

from ...calc.figure import COUNT, given
from .colour import GRID, INK, MUTED, SERIES
from .names import chart_title, point_title
from .reading import language, rows_by_key, words
from .svg import PAD, Canvas, document, middle, n
from .text import FONT, LINE, text_width, wrap


def finetune_chart(table, fmt, chart_id: str, *, standalone: bool = False, model_ids=None) -> str:
    width = 400
    finetune = table("finetune")
    if not finetune.columns:
        raise ValueError("the data has no fine-tuning method to chart (methods of kind finetune)")
    say = words(fmt)
    methods = [column.key for column in finetune.columns]
    method_names = {column.key: say(column.label) for column in finetune.columns}
    rows = rows_by_key(finetune, model_ids, "model")
    names = {row.key: say(row.header.content) for row in rows}
    cells = {(row.key, method): cell for row in rows for method, cell in zip(methods, row.cells)}
    canvas = Canvas()
    title = chart_title("finetune", fmt)
    y = canvas.title(title, width) + 6
    for index, method in enumerate(methods):
        lines = wrap(method_names[method], width - 2 * PAD - 20)
        canvas.add(canvas.rect(PAD, y + 2, 12, 12, fill=SERIES[index % len(SERIES)]))
        y = canvas.lines(PAD + 18, y + FONT, lines) - FONT + 2
    y += 6

    labels = {key: say(cell.content) for key, cell in cells.items()}
    values = {key: cell.value.value for key, cell in cells.items()}
    low_power = math.floor(math.log10(min(values.values())))
    high_power = max(math.ceil(math.log10(max(values.values()))), low_power + 1)
    decades = [Decimal(10) ** power for power in range(low_power, high_power + 1)]
    left = PAD + max(text_width(name, bold=True) for name in names.values()) + 10
    right = width - PAD - max(text_width(label) for label in labels.values()) - 6

    def x_of(value: Decimal) -> float:
        return left + (math.log10(value) - low_power) / (high_power - low_power) * (right - left)

    bar, gap, group_gap = 12, 2, 12
    group_height = len(methods) * (bar + gap) - gap
    plot_top = y
    plot_bottom = plot_top + len(rows) * (group_height + group_gap) - group_gap
    for decade in decades:
        x = x_of(decade)
        canvas.add(canvas.line(x, plot_top - 4, x, plot_bottom + 4, stroke=GRID, stroke_width="1"))
    for group, row in enumerate(rows):
        top = plot_top + group * (group_height + group_gap)
        canvas.text(left - 8, middle(top + group_height / 2), names[row.key], anchor="end", weight="600")
        for index, method in enumerate(methods):
            key = (row.key, method)
            bar_top = top + index * (bar + gap)
            end = x_of(values[key])
            canvas.add(f'<g class="bar" data-model="{escape(row.key)}" data-method="{escape(method)}">'
                       f"<title>{escape(point_title(say, names[row.key], method_names[method], labels[key]))}</title>"
                       + canvas.rect(left, bar_top, end - left, bar, fill=SERIES[index % len(SERIES)])
                       + f'<text x="{n(end + 4)}" y="{n(middle(bar_top + bar / 2))}">{escape(labels[key])}</text>'
                       + "</g>")
    canvas.add(canvas.line(left, plot_top - 4, left, plot_bottom + 4, stroke=INK, stroke_width="1"))
    for decade in decades:
        canvas.text(x_of(decade), plot_bottom + 6 + FONT, fmt.number(given(decade, "", COUNT)), anchor="middle",
                    fill=MUTED)
    axis = wrap(fmt.gettext("Memory needed in GB, log scale"), width - 2 * PAD, bold=True)
    y = canvas.lines((left + right) / 2, plot_bottom + 6 + FONT + LINE, axis, anchor="middle", weight="600")

    low_key = min(values, key=values.get)
    high_key = max(values, key=values.get)
    desc = say.message("Memory to fine-tune each model by method, on a log scale: from {low} for the {low_model} "
                       "with {low_method} to {high} for the {high_model} with {high_method}.",
                       low=labels[low_key], low_model=names[low_key[0]], low_method=method_names[low_key[1]],
                       high=labels[high_key], high_model=names[high_key[0]], high_method=method_names[high_key[1]])
    return document(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=language(fmt))
