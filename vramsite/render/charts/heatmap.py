"""lookup_heatmap: the lookup grid coloured by price, from the "lookup" table and its cells' answers."""

from __future__ import annotations

import math
from decimal import Decimal

from markupsafe import escape

from ...calc.figure import PRICE, given
from .colour import GRID, INK, MUTED, PAPER, class_colours, text_on
from .names import chart_title, point_title
from .reading import language, words
from .svg import PAD, Canvas, attrs, document, middle, n
from .text import FONT, LINE, sentences, text_width, wrap

HEAT_STEPS = (1, 3)
"""Price class boundaries within a decade: $100, $300, $1,000, $3,000, ..."""
LEGENDS = {"USD/month": "Price per month, log scale"}
"""The legend's heading by the unit of the prices; any other price is by the hour."""


def price_classes(low: Decimal, high: Decimal) -> list[Decimal]:
    """Class boundaries on a log scale ($100, $300, $1,000, ...): the last one not above ``low`` to the
    first one above ``high``."""
    edges: list[Decimal] = []
    power = math.floor(math.log10(low))
    while not edges or edges[-1] <= high:
        edges += [Decimal(step) * Decimal(10) ** power for step in HEAT_STEPS]
        power += 1
    start = max(index for index, edge in enumerate(edges) if edge <= low)
    end = min(index for index, edge in enumerate(edges) if edge > high)
    return edges[start:end + 1]


def lookup_heatmap_chart(table, fmt, chart_id: str, *, standalone: bool = False) -> str:
    lookup = table("lookup")
    say = words(fmt)
    rows, methods = list(lookup.rows), [column.key for column in lookup.columns]
    names = {row.key: say(row.header.content) for row in rows}
    headers = [say(column.label) for column in lookup.columns]
    method_names = dict(zip(methods, headers))
    cells = {(row.key, method): cell for row in rows for method, cell in zip(methods, row.cells)}
    priced = {key: cell.lookup.choice for key, cell in cells.items() if cell.lookup.choice}
    prices = [choice.price.value for choice in priced.values()]
    edges = price_classes(min(prices), max(prices)) if prices else [Decimal(1), Decimal(10)]
    colours = class_colours(len(edges) - 1)

    def fill_of(price: Decimal) -> str:
        for index in range(len(edges) - 1):
            if price < edges[index + 1]:
                return colours[index]
        return colours[-1]

    texts = {key: tuple(say(line) for line in cell.answer) for key, cell in cells.items()}
    cell_width = max(88, max(text_width(line, bold=index == 0) for pair in texts.values()
                             for index, line in enumerate(pair)) + 12)
    cell_width = max(cell_width, max(text_width(word, bold=True) for header in headers for word in header.split()) + 8)
    cell_height, gap = 40, 3
    left = PAD + max(text_width(name, bold=True) for name in names.values()) + 10
    width = left + len(methods) * (cell_width + gap) - gap + PAD

    canvas = Canvas()
    title = chart_title("lookup_heatmap", fmt)
    y = canvas.title(title, width) + 8
    header_lines = [wrap(header, cell_width - 6, bold=True) for header in headers]
    depth = max(len(lines) for lines in header_lines)
    for column, lines in enumerate(header_lines):
        x = left + column * (cell_width + gap) + cell_width / 2
        start = y + FONT + (depth - len(lines)) * LINE
        canvas.lines(x, start, lines, anchor="middle", weight="600")
    y += depth * LINE + 6
    hatch = f"{chart_id}-hatch"
    defs = (f'<pattern id="{hatch}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            f'<rect width="6" height="6"{attrs(fill=PAPER)}/><line x1="0" y1="0" x2="0" y2="6"'
            f'{attrs(stroke=GRID, stroke_width="3")}/></pattern>')
    for row_index, row in enumerate(rows):
        top = y + row_index * (cell_height + gap)
        canvas.text(left - 8, middle(top + cell_height / 2), names[row.key], anchor="end", weight="600")
        for column, method in enumerate(methods):
            key = (row.key, method)
            x = left + column * (cell_width + gap)
            first, second = texts[key]
            if key in priced:
                fill = fill_of(priced[key].price.value)
                ink = text_on(fill)
                paint = f' fill="{ink}"'  # fixed, as the cell's fill: no role, the same in every scheme
                shape = canvas.rect(x, top, cell_width, cell_height, fill=fill, rx="3")
                kind = "cell"
                extra = f' data-gpu="{escape(priced[key].gpu.id)}" data-fill="{fill}" data-ink="{ink}"'
            else:
                ink = INK
                paint = attrs(fill=ink)
                shape = canvas.rect(x + 0.75, top + 0.75, cell_width - 1.5, cell_height - 1.5, fill=f"url(#{hatch})",
                                    stroke=MUTED, stroke_width="1.5", stroke_dasharray="4 3", rx="3")
                kind = "cell sales"
                extra = f' data-fill="{PAPER}" data-ink="{ink}"'
            center = x + cell_width / 2
            both = str(say.message("{need}, {offer}", need=first, offer=second))
            canvas.add(f'<g class="{kind}" data-model="{escape(row.key)}" data-method="{escape(method)}"{extra}>'
                       f"<title>{escape(point_title(say, names[row.key], method_names[method], both))}</title>"
                       + shape
                       + f'<text x="{n(center)}" y="{n(top + 17)}" text-anchor="middle"{paint}'
                         f' font-weight="600">{escape(first)}</text>'
                       + f'<text x="{n(center)}" y="{n(top + 33)}" text-anchor="middle"{paint}>'
                         f"{escape(second)}</text></g>")
    y += len(rows) * (cell_height + gap) - gap + 18

    # Legend: the price classes, then the "talk to sales" swatch.
    if prices:
        unit = next(iter(priced.values())).price.unit
        legend = fmt.gettext(LEGENDS.get(unit, "Price per hour, log scale"))
        y = canvas.lines(left, y + FONT, wrap(legend, width - left - PAD, bold=True), weight="600") - LINE + 6
        swatch = min(64.0, (width - left - PAD - 30) / len(colours))
        for index, colour in enumerate(colours):
            canvas.add(canvas.rect(left + index * swatch, y, swatch, 14, fill=colour, stroke=GRID, stroke_width="1",
                                   class_="swatch"))
        for index, edge in enumerate(edges):
            canvas.text(left + index * swatch, y + 14 + 4 + FONT, fmt.money(given(edge, "USD", PRICE)),
                        anchor="middle", fill=MUTED)
        y += 14 + 4 + FONT + 14
    sales = [key for key in cells if key not in priced]
    if sales:
        canvas.add(canvas.rect(left + 0.75, y + 0.75, 26.5, 14.5, fill=f"url(#{hatch})", stroke=MUTED,
                               stroke_width="1.5", stroke_dasharray="4 3"))
        canvas.text(left + 36, middle(y + 8), texts[sales[0]][1])
        y += 16

    def case(key) -> str:
        return point_title(say, names[key[0]], method_names[key[1]], texts[key][0])

    desc = [say.message("{caption}, for each model and method, coloured by price on a log scale.",
                        caption=say(lookup.caption))]
    if priced:
        low_key = min(priced, key=lambda key: priced[key].price.value)
        high_key = max(priced, key=lambda key: priced[key].price.value)
        desc.append(say.message("From {low} ({low_case}) to {high} ({high_case}).",
                                low=texts[low_key][1], low_case=case(low_key),
                                high=texts[high_key][1], high_case=case(high_key)))
    if sales:
        desc.append(say.message("Talk to sales: {cells}.",
                                cells=fmt.names([f"{names[key[0]]} {method_names[key[1]]}" for key in sales])))
    return document(chart_id, width, y + PAD, title, sentences(desc), canvas, standalone=standalone,
                    lang=language(fmt), defs=defs)
