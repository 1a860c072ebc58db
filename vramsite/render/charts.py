"""Charts drawn at build time as SVG: no JavaScript, no data sent to the browser.

Each chart is a pure function of the calculation (a ``Guide``) and of a
formatter for one language (``render.format.Formatter``, or anything with
``figure``, ``number``, ``money``, ``names`` and ``gettext``). Every number a
chart prints is a figure of the calculation formatted for the page's locale,
every word a msgid of the gettext catalog. Output is deterministic: element
ids come from the chart's name, its options and the language, never from a
counter or a random source, so a rebuild writes the same bytes.

Geometry is in user units of the ``viewBox``. Inline, the SVG is as wide as
its column (``width="100%"``) between a minimum and a maximum width. Text is
``FONT`` units or larger and the minimum width is chosen so that this is at
least ``MIN_PX`` pixels: the 400-unit charts fit a 390 px phone (358 px of
column) as they are; the heat map is wider and scrolls sideways there.

    render_chart("cost", guide, fmt, "en")                  inline <svg>
    render_chart("cost", guide, fmt, "en", standalone=True) an .svg file's text
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from markupsafe import escape

from ..calc.figure import COUNT, MEMORY, PRICE, given

FONT = 13
"""Size of all chart text but the title, in user units."""
TITLE_FONT = 15
MIN_PX = 11
"""The smallest text size, in CSS pixels, a chart may shrink to."""
PAD = 12
LINE = 17
"""Distance between two lines of wrapped text."""

INK, MUTED, GRID, PAPER = "#1d2330", "#5b6475", "#d9dee7", "#ffffff"
FONT_FAMILY = ("system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', "
               "'Noto Sans CJK SC', 'Noto Sans', sans-serif")
SERIES = ("#0b5fa5", "#b3430a", "#0a7a55", "#8e2c6f", "#1d2330", "#6d28d9", "#a14a00", "#0f766e")
"""Line and bar colours: each at least 4.5:1 against white, so they may colour text too."""
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 2", "1 2", "12 4", "5 2 1 2")
HEAT = ("#eef4fb", "#c9def3", "#97bde6", "#2c69b0", "#174b8f", "#0c2c5c")
"""The heat map's price classes, cheapest first; text on each takes ink or white, whichever contrasts more."""
HEAT_STEPS = (1, 3)
"""Price class boundaries within a decade: $100, $300, $1,000, $3,000, ..."""

TITLES = {
    "cost": "What VRAM and bandwidth cost per month, by card",
    "kv_context": "KV cache as the context grows, by model",
    "finetune": "Memory to fine-tune, by model and method",
    "lookup_heatmap": "The lookup grid, coloured by price",
}
"""Each chart's title: a msgid, shown on top of the chart and as the image's alternative text."""


def chart_title(name: str, fmt) -> str:
    return fmt.gettext(TITLES[name])


def chart_slug(name: str, segment: str, options: dict | None = None) -> str:
    """'en-cost', or 'en-kv_context--contexts-1024-2048' with options: file names and ids."""
    slug = f"{segment}-{name}"
    for key in sorted(options or {}):
        value = options[key]
        parts = value if isinstance(value, (list, tuple)) else [value]
        slug += f"--{key}-" + "-".join(str(part) for part in parts)
    return re.sub(r"[^A-Za-z0-9._-]", "_", slug)


def chart_file(name: str, segment: str, options: dict | None = None) -> str:
    """The standalone copy's path under assets/."""
    return f"charts/{chart_slug(name, segment, options)}.svg"


def render_chart(name: str, guide, fmt, segment: str, *, standalone: bool = False, **options) -> str:
    """The SVG text of chart ``name`` in the language of ``fmt``."""
    if name not in CHARTS:
        raise LookupError(f"unknown chart {name!r} (known: {', '.join(CHARTS)})")
    chart_id = "chart-" + chart_slug(name, segment, options)
    return CHARTS[name](guide, fmt, chart_id, standalone=standalone, **options)


# -- text --------------------------------------------------------------------

CJK_FROM = "\u2e80"
"""Characters from here to the end of the Basic Multilingual Plane are set one em wide and may break anywhere."""
_TOKENS = re.compile(r"[ \t\n]+|[^ \t\n]+")
_NO_BREAK_BEFORE = set("，。、：；）」』！？%")
_ADVANCE = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~×·—–",
    (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, *[636] * 10, 337, 337, 838,
     838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695,
     635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634,
     278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
     838, 318, 1000, 500)))
"""Advance widths in thousandths of an em, of DejaVu Sans: wider than most system faces, so a safe guess."""


def text_width(text: str, size: float = FONT, bold: bool = False) -> float:
    """An estimate of the width of ``text`` (generous: DejaVu Sans metrics, Chinese at one em)."""
    em = 0.0
    for char in text:
        em += 1.0 if _is_cjk(char) else _ADVANCE.get(char, 650) / 1000
    return em * size * (1.1 if bold else 1.0)


def wrap(text: str, width: float, size: float = FONT, bold: bool = False) -> list[str]:
    """Greedy line breaking at spaces, and between any two Chinese characters."""
    lines, line = [], ""
    text = text.replace(" / ", "\u00a0/\u00a0")  # "BF16 / FP16" stays on one line
    for token in _tokens(text):
        candidate = line + token
        if (line.strip() and not token.isspace() and token not in _NO_BREAK_BEFORE
                and text_width(candidate.rstrip(), size, bold) > width):
            lines.append(line.rstrip())
            line = token
        else:
            line = candidate
    if line.strip():
        lines.append(line.strip())
    return [line.replace("\u00a0", " ") for line in lines] or [""]


def _is_cjk(char: str) -> bool:
    return CJK_FROM <= char <= "\uffff"


def _tokens(text: str) -> list[str]:
    """Runs of spaces, runs of other characters, and each Chinese character on its own."""
    tokens = []
    for run in _TOKENS.findall(text):
        start = 0
        for index, char in enumerate(run):
            if _is_cjk(char):
                tokens += [run[start:index], char] if index > start else [char]
                start = index + 1
        if start < len(run):
            tokens.append(run[start:])
    return tokens


def message(fmt, msgid: str, **args) -> str:
    """A translated UI string with its {placeholders} filled by plain text."""
    pattern = fmt.gettext(msgid)
    return re.sub(r"\{(\w+)\}", lambda m: str(args[m.group(1)]) if m.group(1) in args else m.group(0), pattern)


def sentences(parts: list[str]) -> str:
    """Sentences as one text: a space after '.', none after '。'."""
    text = ""
    for part in parts:
        text += ("" if not text or _is_cjk(text[-1]) else " ") + part
    return text


def method_name(fmt, method) -> str:
    return message(fmt, method.label, precision=method.precision.label if method.precision else "")


def tokens_name(fmt, tokens: int) -> str:
    """'8k' for 8,192 tokens, as the tables write contexts."""
    if tokens % 1024 == 0:
        return message(fmt, "{n}k", n=fmt.number(given(tokens // 1024, "", COUNT)))
    return fmt.number(given(tokens, "", COUNT))


def configuration_name(fmt, choice) -> str:
    """'A40' for one card, '8× MI300X' for several."""
    if choice.count == 1:
        return choice.gpu.name
    return message(fmt, "{count}× {card}", count=fmt.number(given(choice.count, "", COUNT)), card=choice.gpu.name)


# -- colour ------------------------------------------------------------------

def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """The WCAG contrast ratio of two #rrggbb colours."""
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_on(fill: str) -> str:
    """Ink or white, whichever reads better on ``fill``."""
    return INK if contrast(INK, fill) >= contrast(PAPER, fill) else PAPER


# -- drawing -----------------------------------------------------------------

def _n(value: float) -> str:
    """A coordinate: at most one decimal, no trailing zeros."""
    text = f"{value:.1f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


def _attrs(**attrs) -> str:
    out = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        text = _n(value) if isinstance(value, float) else str(value)
        out.append(f' {name}="{escape(text)}"')
    return "".join(out)


class Canvas:
    """SVG elements in drawing order."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def text(self, x: float, y: float, content: str, *, anchor: str = "start", size: float = FONT,
             weight: str | None = None, fill: str | None = None, **attrs) -> None:
        attributes = _attrs(x=float(x), y=float(y), text_anchor=None if anchor == "start" else anchor,
                            font_size=None if size == FONT else size, font_weight=weight, fill=fill, **attrs)
        self.parts.append(f"<text{attributes}>{escape(content)}</text>")

    def lines(self, x: float, y: float, lines: list[str], **options) -> float:
        """Several lines of text, the first baseline at ``y``; returns the baseline after the last."""
        for line in lines:
            self.text(x, y, line, **options)
            y += LINE
        return y

    def rect(self, x: float, y: float, width: float, height: float, **attrs) -> str:
        return f"<rect{_attrs(x=float(x), y=float(y), width=float(max(width, 0)), height=float(height), **attrs)}/>"

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs) -> str:
        return f"<line{_attrs(x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **attrs)}/>"


def _svg(chart_id: str, width: float, height: float, title: str, desc: str, canvas: Canvas, *,
         standalone: bool, lang: str | None = None, defs: str = "") -> str:
    """The root element: accessible name and description, viewBox, size for inline or file use."""
    width, height = math.ceil(width), math.ceil(height)
    if standalone:
        size = f' width="{width}" height="{height}"'
    else:
        low = math.ceil(width * MIN_PX / FONT)
        high = round(width * 1.25)
        size = f' width="100%" style="min-width:{low}px;max-width:{high}px;height:auto;display:block"'
    language = f' xml:lang="{escape(lang)}"' if standalone and lang else ""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" id="{chart_id}" viewBox="0 0 {width} {height}"{size}'
            f' role="img" aria-labelledby="{chart_id}-title" aria-describedby="{chart_id}-desc"{language}'
            f' font-family="{FONT_FAMILY}" font-size="{FONT}" fill="{INK}">')
    body = [head, f'<title id="{chart_id}-title">{escape(title)}</title>',
            f'<desc id="{chart_id}-desc">{escape(desc)}</desc>']
    if defs:
        body.append(f"<defs>{defs}</defs>")
    body.append(f'<rect width="{width}" height="{height}" fill="{PAPER}"/>')
    body += canvas.parts
    body.append("</svg>")
    return "\n".join(body)


def _title(canvas: Canvas, title: str, width: float) -> float:
    """The visible title at the top; returns the y below it."""
    lines = wrap(title, width - 2 * PAD, TITLE_FONT, bold=True)
    y = PAD + TITLE_FONT
    for line in lines:
        canvas.text(PAD, y, line, size=TITLE_FONT, weight="700")
        y += TITLE_FONT + 5
    return y - TITLE_FONT + 4


def _middle(y_center: float, size: float = FONT) -> float:
    """The baseline that centres one line of text on ``y_center``."""
    return y_center + size * 0.35


def _lang(fmt) -> str | None:
    locale = getattr(fmt, "locale", None)
    return getattr(locale, "tag", None)


# -- cost: $/GB and GB/s per $ per card -------------------------------------------

def cost_chart(guide, fmt, chart_id: str, *, standalone: bool = False) -> str:
    width = 400
    gpus = guide.gpus_by_memory()
    panels = (
        ("usd_per_gb", "$ per GB of VRAM per month, lower is cheaper", SERIES[0],
         lambda gpu: gpu.usd_per_gb, lambda figure: fmt.figure(figure)),
        ("gbps_per_usd", "GB/s of memory bandwidth per $ per month, higher is better", SERIES[2],
         lambda gpu: gpu.gbps_per_usd, lambda figure: fmt.figure(figure, bare=True)),
    )
    canvas = Canvas()
    title = chart_title("cost", fmt)
    y = _title(canvas, title, width)
    label_width = max(text_width(gpu.name) for gpu in gpus) + 8
    x0 = PAD + label_width
    row, bar = 19, 13
    not_listed = None
    for key, heading, colour, value_of, shown in panels:
        y += 12
        y = canvas.lines(PAD, y + FONT, wrap(fmt.gettext(heading), width - 2 * PAD, bold=True), weight="600") - LINE + 8
        figures = [(gpu, value_of(gpu)) for gpu in gpus]
        labels = {gpu.id: shown(figure) if figure is not None else None for gpu, figure in figures}
        if any(figure is None for _, figure in figures):
            not_listed = fmt.gettext("not listed")
        value_width = max(text_width(label) for label in [*labels.values(), not_listed] if label) + 6
        plot = width - PAD - x0 - value_width
        top = max((figure.value for _, figure in figures if figure is not None), default=Decimal(1))
        canvas.add(f'<g data-panel="{key}">')
        for index, (gpu, figure) in enumerate(figures):
            center = y + index * row + row / 2
            canvas.text(x0 - 6, _middle(center), gpu.name, anchor="end")
            if figure is None:
                canvas.text(x0 + 4, _middle(center), not_listed, fill=MUTED)
                continue
            length = float(figure.value / top) * plot
            canvas.add(f'<g class="bar" data-key="{escape(gpu.id)}">'
                       f'<title>{escape(gpu.name)}: {escape(labels[gpu.id])}</title>'
                       + canvas.rect(x0, center - bar / 2, length, bar, fill=colour)
                       + f'<text x="{_n(x0 + length + 4)}" y="{_n(_middle(center))}">{escape(labels[gpu.id])}</text>'
                       + "</g>")
        bottom = y + len(figures) * row
        canvas.add(canvas.line(x0, y, x0, bottom, stroke=INK, stroke_width="1"))
        canvas.add("</g>")
        y = bottom
    cheap = guide.gpus_by_usd_per_gb()
    rich = guide.gpus_by_gbps_per_usd()
    desc = [fmt.gettext("Bars for every card, largest memory first.")]
    if cheap:
        desc.append(message(fmt, "Per GB of VRAM per month, from {low} on the {low_card} to {high} on the {high_card}.",
                            low=fmt.figure(cheap[0].usd_per_gb), low_card=cheap[0].name,
                            high=fmt.figure(cheap[-1].usd_per_gb), high_card=cheap[-1].name))
    if rich:
        desc.append(message(fmt, "GB/s of memory bandwidth per $ per month, from {best} on the {best_card} "
                                 "to {worst} on the {worst_card}.",
                            best=fmt.figure(rich[0].gbps_per_usd, bare=True), best_card=rich[0].name,
                            worst=fmt.figure(rich[-1].gbps_per_usd, bare=True), worst_card=rich[-1].name))
    desc = sentences(desc)
    return _svg(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=_lang(fmt))


# -- kv_context: KV cache against context length --------------------------------

DEFAULT_CONTEXTS = tuple(1024 * 2 ** step for step in range(8))
"""1k to 128k tokens."""


def _nice_ticks(top: Decimal, count: int = 5) -> list[Decimal]:
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


def _spread(positions: list[float], gap: float, low: float, high: float) -> list[float]:
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


def kv_context_chart(guide, fmt, chart_id: str, *, standalone: bool = False, contexts=None, model_ids=None) -> str:
    width = 400
    contexts = sorted(int(tokens) for tokens in (contexts or DEFAULT_CONTEXTS))
    models = [guide.model(model_id) for model_id in model_ids] if model_ids else list(guide.models)
    shapeless = [model.id for model in models if model.model.layers is None]
    if shapeless:
        raise ValueError(f"no KV cache shape (layers, KV heads, head dim) for model {', '.join(shapeless)}")
    series = [(model, [(tokens, model.kv(context=tokens)) for tokens in contexts]) for model in models]
    canvas = Canvas()
    title = chart_title("kv_context", fmt)
    y = _title(canvas, title, width)
    inference = guide.data.inference
    batch = fmt.number(given(inference.batch, "", COUNT))
    note = message(fmt, "{precision} cache, batch {batch}", precision=inference.kv_precision.label, batch=batch)
    y = canvas.lines(PAD, y + FONT, wrap(note, width - 2 * PAD), fill=MUTED)
    y = canvas.lines(PAD, y + 4, wrap(fmt.gettext("KV cache in GB"), width - 2 * PAD, bold=True), weight="600") - LINE

    top = max(figure.value for _, points in series for _, figure in points)
    ticks = _nice_ticks(top)
    tick_labels = [fmt.number(given(tick, "GB", MEMORY)) for tick in ticks]
    ends = {model.id: message(fmt, "{model}: {value}", model=model.name, value=fmt.figure(points[-1][1]))
            for model, points in series}
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
        canvas.text(left - 6, _middle(y_of(tick)), label, anchor="end", fill=MUTED)
    for every in range(1, len(contexts) + 1):  # label every tick if they fit, else every other from the last, ...
        shown = contexts[::-1][::every]
        spans = sorted((x_of(tokens) - text_width(tokens_name(fmt, tokens)) / 2,
                        x_of(tokens) + text_width(tokens_name(fmt, tokens)) / 2) for tokens in shown)
        if all(spans[index][1] + 6 <= spans[index + 1][0] for index in range(len(spans) - 1)):
            break
    for tokens in contexts:
        canvas.add(canvas.line(x_of(tokens), plot_bottom, x_of(tokens), plot_bottom + 4, stroke=INK, stroke_width="1"))
        if tokens in shown:
            canvas.text(x_of(tokens), plot_bottom + 4 + FONT, tokens_name(fmt, tokens), anchor="middle", fill=MUTED)
    axis = wrap(fmt.gettext("Context length in tokens, log scale"), width - 2 * PAD, bold=True)
    y = canvas.lines((left + right) / 2, plot_bottom + 8 + FONT + LINE, axis, anchor="middle", weight="600")

    label_y = _spread([y_of(points[-1][1].value) for _, points in series], LINE - 1, plot_top, plot_bottom)
    for index, (model, points) in enumerate(series):
        colour, dash = SERIES[index % len(SERIES)], DASHES[index % len(DASHES)]
        coordinates = " ".join(f"{_n(x_of(tokens))},{_n(y_of(figure.value))}" for tokens, figure in points)
        canvas.add(f'<g class="series" data-key="{escape(model.id)}">')
        canvas.add(f'<polyline points="{coordinates}" fill="none" stroke="{colour}" stroke-width="2.5"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + ' stroke-linejoin="round"/>')
        for tokens, figure in points:
            canvas.add(f'<circle cx="{_n(x_of(tokens))}" cy="{_n(y_of(figure.value))}" r="3" fill="{colour}">'
                       f"<title>{escape(model.name)}, {escape(tokens_name(fmt, tokens))}: "
                       f"{escape(fmt.figure(figure))}</title></circle>")
        end_x, end_y = x_of(points[-1][0]), y_of(points[-1][1].value)
        if abs(label_y[index] - end_y) > 3:
            canvas.add(canvas.line(end_x + 3, end_y, right + 6, label_y[index], stroke=colour, stroke_width="1"))
        canvas.text(right + 8, _middle(label_y[index]), ends[model.id], fill=colour, class_="end")
        canvas.add("</g>")

    values = fmt.names([ends[model.id] for model, _ in series])
    desc = message(fmt, "KV cache in GB against context length from {first} to {last} tokens, on a log-2 scale, "
                        "one line per model; {note}. At {last} tokens: {values}.",
                   first=tokens_name(fmt, contexts[0]), last=tokens_name(fmt, contexts[-1]), note=note,
                   values=values)
    return _svg(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=_lang(fmt))


# -- finetune: memory by method, log scale ----------------------------------------

def finetune_chart(guide, fmt, chart_id: str, *, standalone: bool = False, model_ids=None) -> str:
    width = 400
    methods = [method for method in guide.data.methods if method.kind == "finetune"]
    if not methods:
        raise ValueError("the data has no fine-tuning method to chart (methods of kind finetune)")
    models = [guide.model(model_id) for model_id in model_ids] if model_ids else list(guide.models)
    needs = {(model.id, method.id): model.need(method.id).total for model in models for method in methods}
    canvas = Canvas()
    title = chart_title("finetune", fmt)
    y = _title(canvas, title, width) + 6
    for index, method in enumerate(methods):
        lines = wrap(method_name(fmt, method), width - 2 * PAD - 20)
        canvas.add(canvas.rect(PAD, y + 2, 12, 12, fill=SERIES[index % len(SERIES)]))
        y = canvas.lines(PAD + 18, y + FONT, lines) - FONT + 2
    y += 6

    labels = {key: fmt.figure(figure) for key, figure in needs.items()}
    low_value = min(figure.value for figure in needs.values())
    high_value = max(figure.value for figure in needs.values())
    low_power = math.floor(math.log10(low_value))
    high_power = max(math.ceil(math.log10(high_value)), low_power + 1)
    decades = [Decimal(10) ** power for power in range(low_power, high_power + 1)]
    left = PAD + max(text_width(model.name, bold=True) for model in models) + 10
    right = width - PAD - max(text_width(label) for label in labels.values()) - 6

    def x_of(value: Decimal) -> float:
        return left + (math.log10(value) - low_power) / (high_power - low_power) * (right - left)

    bar, gap, group_gap = 12, 2, 12
    group_height = len(methods) * (bar + gap) - gap
    plot_top = y
    plot_bottom = plot_top + len(models) * (group_height + group_gap) - group_gap
    for decade in decades:
        canvas.add(canvas.line(x_of(decade), plot_top - 4, x_of(decade), plot_bottom + 4, stroke=GRID, stroke_width="1"))
    for group, model in enumerate(models):
        top = plot_top + group * (group_height + group_gap)
        canvas.text(left - 8, _middle(top + group_height / 2), model.name, anchor="end", weight="600")
        for index, method in enumerate(methods):
            figure = needs[(model.id, method.id)]
            label = labels[(model.id, method.id)]
            bar_top = top + index * (bar + gap)
            end = x_of(figure.value)
            canvas.add(f'<g class="bar" data-model="{escape(model.id)}" data-method="{escape(method.id)}">'
                       f"<title>{escape(model.name)}, {escape(method_name(fmt, method))}: {escape(label)}</title>"
                       + canvas.rect(left, bar_top, end - left, bar, fill=SERIES[index % len(SERIES)])
                       + f'<text x="{_n(end + 4)}" y="{_n(_middle(bar_top + bar / 2))}">{escape(label)}</text>'
                       + "</g>")
    canvas.add(canvas.line(left, plot_top - 4, left, plot_bottom + 4, stroke=INK, stroke_width="1"))
    for decade in decades:
        canvas.text(x_of(decade), plot_bottom + 6 + FONT, fmt.number(given(decade, "", COUNT)), anchor="middle",
                    fill=MUTED)
    axis = wrap(fmt.gettext("Memory needed in GB, log scale"), width - 2 * PAD, bold=True)
    y = canvas.lines((left + right) / 2, plot_bottom + 6 + FONT + LINE, axis, anchor="middle", weight="600")

    low_key = min(needs, key=lambda key: needs[key].value)
    high_key = max(needs, key=lambda key: needs[key].value)
    by_id = {method.id: method for method in methods}
    desc = message(fmt, "Memory to fine-tune each model by method, on a log scale: from {low} for the {low_model} "
                        "with {low_method} to {high} for the {high_model} with {high_method}.",
                   low=labels[low_key], low_model=guide.model(low_key[0]).name,
                   low_method=method_name(fmt, by_id[low_key[1]]),
                   high=labels[high_key], high_model=guide.model(high_key[0]).name,
                   high_method=method_name(fmt, by_id[high_key[1]]))
    return _svg(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=_lang(fmt))


# -- lookup_heatmap: the grid coloured by price -----------------------------------

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


def class_colours(count: int) -> list[str]:
    """``count`` colours of ``HEAT`` spread from the lightest to the darkest."""
    if count == 1:
        return [HEAT[0]]
    return [HEAT[round(index * (len(HEAT) - 1) / (count - 1))] for index in range(count)]


def lookup_heatmap_chart(guide, fmt, chart_id: str, *, standalone: bool = False) -> str:
    models, methods = list(guide.models), list(guide.columns)
    cells = {(model.id, method.id): guide.cell(model.id, method.id) for model in models for method in methods}
    prices = [found.choice.price.value for found in cells.values() if found.choice]
    edges = price_classes(min(prices), max(prices)) if prices else [Decimal(1), Decimal(10)]
    colours = class_colours(len(edges) - 1)

    def fill_of(price: Decimal) -> str:
        for index in range(len(edges) - 1):
            if price < edges[index + 1]:
                return colours[index]
        return colours[-1]

    sales = fmt.gettext("talk to sales")
    texts = {}
    for key, found in cells.items():
        if found.choice:
            texts[key] = (configuration_name(fmt, found.choice), fmt.figure(found.choice.price))
        else:
            texts[key] = (fmt.figure(found.nodes) if found.nodes is not None else "—", sales)
    headers = [method_name(fmt, method) for method in methods]
    cell_width = max(88, max(text_width(line, bold=index == 0) for pair in texts.values()
                             for index, line in enumerate(pair)) + 12)
    cell_width = max(cell_width, max(text_width(word, bold=True) for header in headers for word in header.split()) + 8)
    cell_height, gap = 40, 3
    left = PAD + max(text_width(model.name, bold=True) for model in models) + 10
    width = left + len(methods) * (cell_width + gap) - gap + PAD

    canvas = Canvas()
    title = chart_title("lookup_heatmap", fmt)
    y = _title(canvas, title, width) + 8
    header_lines = [wrap(header, cell_width - 6, bold=True) for header in headers]
    depth = max(len(lines) for lines in header_lines)
    for column, lines in enumerate(header_lines):
        x = left + column * (cell_width + gap) + cell_width / 2
        start = y + FONT + (depth - len(lines)) * LINE
        canvas.lines(x, start, lines, anchor="middle", weight="600")
    y += depth * LINE + 6
    hatch = f"{chart_id}-hatch"
    defs = (f'<pattern id="{hatch}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            f'<rect width="6" height="6" fill="{PAPER}"/><line x1="0" y1="0" x2="0" y2="6" stroke="{GRID}"'
            f' stroke-width="3"/></pattern>')
    for row, model in enumerate(models):
        top = y + row * (cell_height + gap)
        canvas.text(left - 8, _middle(top + cell_height / 2), model.name, anchor="end", weight="600")
        for column, method in enumerate(methods):
            found = cells[(model.id, method.id)]
            x = left + column * (cell_width + gap)
            first, second = texts[(model.id, method.id)]
            if found.choice:
                fill = fill_of(found.choice.price.value)
                ink = text_on(fill)
                shape = canvas.rect(x, top, cell_width, cell_height, fill=fill, rx="3")
                kind = "cell"
                extra = f' data-gpu="{escape(found.choice.gpu.id)}" data-fill="{fill}" data-ink="{ink}"'
            else:
                ink = INK
                shape = canvas.rect(x + 0.75, top + 0.75, cell_width - 1.5, cell_height - 1.5, fill=f"url(#{hatch})",
                                    stroke=MUTED, stroke_width="1.5", stroke_dasharray="4 3", rx="3")
                kind = "cell sales"
                extra = f' data-fill="{PAPER}" data-ink="{ink}"'
            center = x + cell_width / 2
            canvas.add(f'<g class="{kind}" data-model="{escape(model.id)}" data-method="{escape(method.id)}"{extra}>'
                       f"<title>{escape(model.name)}, {escape(method_name(fmt, method))}: "
                       f"{escape(first)}, {escape(second)}</title>" + shape
                       + f'<text x="{_n(center)}" y="{_n(top + 17)}" text-anchor="middle" fill="{ink}"'
                         f' font-weight="600">{escape(first)}</text>'
                       + f'<text x="{_n(center)}" y="{_n(top + 33)}" text-anchor="middle" fill="{ink}">'
                         f"{escape(second)}</text></g>")
    y += len(models) * (cell_height + gap) - gap + 18

    # Legend: the price classes, then the "talk to sales" swatch.
    if prices:
        period = guide.data.pricing.period
        legend = fmt.gettext("Price per month, log scale" if period == "month" else "Price per hour, log scale")
        y = canvas.lines(left, y + FONT, wrap(legend, width - left - PAD, bold=True), weight="600") - LINE + 6
        swatch = min(64.0, (width - left - PAD - 30) / len(colours))
        for index, colour in enumerate(colours):
            canvas.add(canvas.rect(left + index * swatch, y, swatch, 14, fill=colour, stroke=GRID, stroke_width="1",
                                   class_="swatch"))
        for index, edge in enumerate(edges):
            canvas.text(left + index * swatch, y + 14 + 4 + FONT, fmt.money(given(edge, "USD", PRICE)),
                        anchor="middle", fill=MUTED)
        y += 14 + 4 + FONT + 14
    if any(not found.choice for found in cells.values()):
        canvas.add(canvas.rect(left + 0.75, y + 0.75, 26.5, 14.5, fill=f"url(#{hatch})", stroke=MUTED,
                               stroke_width="1.5", stroke_dasharray="4 3"))
        canvas.text(left + 36, _middle(y + 8), sales)
        y += 16

    by_id = {method.id: method for method in methods}

    def case(key, found) -> str:
        return message(fmt, "{model}, {method}: {configuration}", model=guide.model(key[0]).name,
                       method=method_name(fmt, by_id[key[1]]), configuration=configuration_name(fmt, found.choice))

    desc = [fmt.gettext("The cheapest configuration for each model and method, coloured by price on a log scale.")]
    priced = [(key, found) for key, found in cells.items() if found.choice]
    if priced:
        low_key, low = min(priced, key=lambda item: item[1].choice.price.value)
        high_key, high = max(priced, key=lambda item: item[1].choice.price.value)
        desc.append(message(fmt, "From {low} ({low_case}) to {high} ({high_case}).",
                            low=fmt.figure(low.choice.price), low_case=case(low_key, low),
                            high=fmt.figure(high.choice.price), high_case=case(high_key, high)))
    no_fit = [f"{guide.model(key[0]).name} {method_name(fmt, by_id[key[1]])}"
              for key, found in cells.items() if not found.choice]
    if no_fit:
        desc.append(message(fmt, "Talk to sales: {cells}.", cells=fmt.names(no_fit)))
    desc = sentences(desc)
    return _svg(chart_id, width, y + PAD, title, desc, canvas, standalone=standalone, lang=_lang(fmt), defs=defs)


CHARTS = {
    "cost": cost_chart,
    "kv_context": kv_context_chart,
    "finetune": finetune_chart,
    "lookup_heatmap": lookup_heatmap_chart,
}
"""Charts content can place by name: {{ chart("cost") }}."""
