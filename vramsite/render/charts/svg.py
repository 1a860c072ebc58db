"""SVG documents: coordinates, elements in drawing order, and the accessible root element.

Geometry is in user units of the ``viewBox``. Inline, the SVG is as wide as
its column (``width="100%"``) between a minimum and a maximum width. Text is
``FONT`` units or larger and the minimum width is chosen so that this is at
least ``MIN_PX`` pixels.
"""

from __future__ import annotations

import math

from markupsafe import escape

from .colour import INK, PAPER, paint_classes
from .text import FONT, LINE, TITLE_FONT, wrap

MIN_PX = 11
"""The smallest text size, in CSS pixels, a chart may shrink to."""
PAD = 12
FONT_FAMILY = ("system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', "
               "'Noto Sans CJK SC', 'Noto Sans', sans-serif")


def n(value: float) -> str:
    """A coordinate: at most one decimal, no trailing zeros."""
    text = f"{value:.1f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


def attrs(**attributes) -> str:
    """Attributes as markup: ``font_size=13`` is ``font-size="13"``, ``class_`` is ``class``; None and False
    drop out. A fill or stroke of the chart's palette adds its role's class (see ``colour.ROLES``)."""
    roles = paint_classes(fill=attributes.get("fill"), stroke=attributes.get("stroke"))
    if roles:
        attributes["class_"] = " ".join(filter(None, [attributes.get("class_"), *roles]))
    out = []
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        text = n(value) if isinstance(value, float) else str(value)
        out.append(f' {name}="{escape(text)}"')
    return "".join(out)


class Canvas:
    """SVG elements in drawing order."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def text(self, x: float, y: float, content: str, *, anchor: str = "start", size: float = FONT,
             weight: str | None = None, fill: str | None = None, **attributes) -> None:
        attributes = attrs(x=float(x), y=float(y), text_anchor=None if anchor == "start" else anchor,
                           font_size=None if size == FONT else size, font_weight=weight, fill=fill, **attributes)
        self.parts.append(f"<text{attributes}>{escape(content)}</text>")

    def lines(self, x: float, y: float, lines: list[str], **options) -> float:
        """Several lines of text, the first baseline at ``y``; returns the baseline after the last."""
        for line in lines:
            self.text(x, y, line, **options)
            y += LINE
        return y

    def rect(self, x: float, y: float, width: float, height: float, **attributes) -> str:
        return f"<rect{attrs(x=float(x), y=float(y), width=float(max(width, 0)), height=float(height), **attributes)}/>"

    def line(self, x1: float, y1: float, x2: float, y2: float, **attributes) -> str:
        return f"<line{attrs(x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **attributes)}/>"

    def title(self, title: str, width: float) -> float:
        """The visible title at the top; returns the y below it."""
        lines = wrap(title, width - 2 * PAD, TITLE_FONT, bold=True)
        y = PAD + TITLE_FONT
        for line in lines:
            self.text(PAD, y, line, size=TITLE_FONT, weight="700")
            y += TITLE_FONT + 5
        return y - TITLE_FONT + 4


def middle(y_center: float, size: float = FONT) -> float:
    """The baseline that centres one line of text on ``y_center``."""
    return y_center + size * 0.35


def document(chart_id: str, width: float, height: float, title: str, desc: str, canvas: Canvas, *,
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
            f' font-family="{FONT_FAMILY}" font-size="{FONT}"{attrs(fill=INK)}>')
    body = [head, f'<title id="{chart_id}-title">{escape(title)}</title>',
            f'<desc id="{chart_id}-desc">{escape(desc)}</desc>']
    if defs:
        body.append(f"<defs>{defs}</defs>")
    body.append(f'<rect{attrs(width=width, height=height, fill=PAPER)}/>')
    body += canvas.parts
    body.append("</svg>")
    return "\n".join(body)
