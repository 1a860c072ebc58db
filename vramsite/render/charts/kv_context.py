"""kv_context: KV cache against context length, a line per model, from the "context" table."""

from __future__ import annotations

import math
from decimal import Decimal

from markupsafe import escape

from ...calc.figure import MEMORY, given
from .colour import DASHES, GRID, INK, MUTED, SERIES
from .names import chart_title, point_title
from .reading import column_index, language, words
from .svg import PAD, Canvas, attrs, document, middle, n
from .text import FONT, LINE, text_width, wrap

DEFAULT_CONTEXTS = tuple(1024 * 2 ** step for step in range(8))
"""1k to 128k tokens."""


def nice_ticks(top: Decimal, count: int = 5) -> list[Decimal]:
    """0, step, 2 × step, ... up to at least ``top``, with a step of 1, 2, 2.5 or 5 × 10^k."""
    if top <= 0:
        return [Decimal(0), Decimal(1)]
    raw = top / count
    magnitude = Decimal(10) ** math.floor(math.log10(raw))
    step = magnitude
    for multiple in (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5), Decimal(10)):
        step = multiple * magnitude
        if step * count >= top:
            break
    steps = math.ceil(top / step)
    return [step * index for index in range(steps + 1)]


def spread(positions: list[float], gap: float, low: float, high: float) -> list[float]:
    """Move sorted label positions apart to ``gap`` at least, keeping them within [low, high]."""
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = [positions[i] for i in order]
    for index in range(1, len(placed)):
        placed[index] = max(placed[index], placed[index - 1] + gap)
    if placed and placed[-1] > high:
        placed[-1] = high
        for index in range(len(placed) - 2, -1, -1):
            placed[index] = min(placed[index], placed[index + 1] - gap)
    if placed and placed[0] < low:
        placed[0] = low
        for index in range(1, len(placed)):
            placed[index] = max(placed[index], placed[index - 1] + gap)
    result = [0.0] * len(positions)
    for rank, index in enumerate(order):
        result[index] = placed[rank]
    return result


def kv_context_chart(table, fmt, chart_id: str, *, standalone: bool = False, contexts=None, model_ids=None) -> str:
    width = 400
    contexts = sorted(int(tokens) for tokens in (contexts or DEFAULT_CONTEXTS))
    chosen = {"model_ids": list(model_ids)} if model_ids else {}
    kv = table("context", contexts=contexts, **chosen)
    say = words(fmt)
    rows = list(kv.rows)
    columns = [column_index(kv, f"kv_{tokens}") for tokens in contexts]
    tokens_names = {tokens: say(kv.columns[column].label) for tokens, column in zip(contexts, columns)}
    names = {row.key: say(row.header.content) for row in rows}
    series = [(row, [(tokens, row.cells[column]) for tokens, column in zip(contexts, columns)]) for row in rows]
    canvas = Canvas()
    title = chart_title("kv_context", fmt)
    y = canvas.title(title, width)
    note = say(kv.assumes)
    y = canvas.lines(PAD, y + FONT, wrap(note, width - 2 * PAD), fill=MUTED)
    y = canvas.lines(PAD, y + 4, wrap(fmt.gettext("KV cache in GB"), width - 2 * PAD, bold=True), weight="600") - LINE

    top = max(cell.value.value for _, points in series for _, cell in points)
    ticks = nice_ticks(top)
    tick_labels = [fmt.number(given(tick, "GB", MEMORY)) for tick in ticks]
    ends = {row.key: say.message("{model}: {value}", model=names[row.key], value=say(points[-1][1].content))
            for row, points in series}
    left = PAD + max(text_width(label) for label in tick_labels) + 6
    right = width - PAD - max(text_width(label) for label in ends.values()) - 10
    plot_top, plot_height = y + 12, 230
    plot_bottom = plot_top + plot_height
    first, last = math.log2(contexts[0]), math.log2(contexts[-1])

    def x_of(tokens: int) -> float:
        return left + (math.log2(tokens) - first) / ((last - first) or 1) * (right - left)

    def y_of(value: Decimal) -> float:
        return plot_bottom - float(value / ticks[-1]) * plot_height

    for tick, label in zip(ticks, tick_labels):
        canvas.add(canvas.line(left, y_of(tick), right, y_of(tick), stroke=GRID if tick else INK, stroke_width="1"))
        canvas.text(left - 6, middle(y_of(tick)), label, anchor="end", fill=MUTED)
    for every in range(1, len(contexts) + 1):  # label every tick if they fit, else every other from the last, ...
        shown = contexts[::-1][::every]
        spans = sorted((x_of(tokens) - text_width(tokens_names[tokens]) / 2,
                        x_of(tokens) + text_width(tokens_names[tokens]) / 2) for tokens in shown)
        if all(spans[index][1] + 6 <= spans[index + 1][0] for index in range(len(spans) - 1)):
            break
    for tokens in contexts:
        canvas.add(canvas.line(x_of(tokens), plot_bottom, x_of(tokens), plot_bottom + 4, stroke=INK, stroke_width="1"))
        if tokens in shown:
            canvas.text(x_of(tokens), plot_bottom + 4 + FONT, tokens_names[tokens], anchor="middle", fill=MUTED)
    axis = wrap(fmt.gettext("Context length in tokens, log scale"), width - 2 * PAD, bold=True)
    y = canvas.lines((left + right) / 2, plot_bottom + 8 + FONT + LINE, axis, anchor="middle", weight="600")

    label_y = spread([y_of(points[-1][1].value.value) for _, points in series], LINE - 1, plot_top, plot_bottom)
    for index, (row, points) in enumerate(series):
        colour, dash = SERIES[index % len(SERIES)], DASHES[index % len(DASHES)]
        coordinates = " ".join(f"{n(x_of(tokens))},{n(y_of(cell.value.value))}" for tokens, cell in points)
        canvas.add(f'<g class="series" data-key="{escape(row.key)}">')
        canvas.add(f'<polyline points="{coordinates}"'
                   + attrs(fill="none", stroke=colour, stroke_width="2.5", stroke_dasharray=dash or None,
                           stroke_linejoin="round") + "/>")
        for tokens, cell in points:
            canvas.add(f'<circle cx="{n(x_of(tokens))}" cy="{n(y_of(cell.value.value))}" r="3"{attrs(fill=colour)}>'
                       f"<title>{escape(point_title(say, names[row.key], tokens_names[tokens], say(cell.content)))}"
                       "</title></circle>")
        end_x, end_y = x_of(points[-1][0]), y_of(points[-1][1].value.value)
        if abs(label_y[index] - end_y) > 3:
            canvas.add(canvas.line(end_x + 3, end_y, right + 6, label_y[index], stroke=colour, stroke_width="1"))
        canvas.text(right + 8, middle(label_y[index]), ends[row.key], fill=colour, class_="end")
        canvas.add("</g>")

    values = fmt.names([ends[row.key] for row, _ in series])
    desc = say.message("KV cache in GB against context length from {first} to {last} tokens, on a log-2 scale, "
                       "one line per model; {note}. At {last} tokens: {values}.",
                       first=tokens_names[contexts[0]], last=tokens_names[contexts[-1]], note=note, values=values)
    return document(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=language(fmt))
