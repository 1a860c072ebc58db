"""A chart's colours, and which of ink or paper reads on a fill."""

from __future__ import annotations

INK, MUTED, GRID, PAPER = "#1d2330", "#5b6475", "#d9dee7", "#ffffff"
SERIES = ("#0b5fa5", "#b3430a", "#0a7a55", "#8e2c6f", "#1d2330", "#6d28d9", "#a14a00", "#0f766e")
"""Line and bar colours: each at least 4.5:1 against white, so they may colour text too."""
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 2", "1 2", "12 4", "5 2 1 2")
HEAT = ("#eef4fb", "#c9def3", "#97bde6", "#2c69b0", "#174b8f", "#0c2c5c")
"""The heat map's price classes, cheapest first; text on each takes ink or white, whichever contrasts more."""
ROLES = {**{colour: f"s{index}" for index, colour in enumerate(SERIES)}, INK: "ink", MUTED: "muted", GRID: "grid",
         PAPER: "paper"}
"""The role of each colour of the chart's own palette, as a class (``fill-ink``, ``stroke-s1``): the page's
stylesheet repaints the roles in its colour scheme, while a chart file on its own keeps the colours written.
The heat map's classes and the text on them have no role: they read the same in every scheme."""


def paint_classes(**paints: str | None) -> list[str]:
    """``fill``/``stroke`` colours as their role classes; colours without a role have none."""
    return [f"{prop}-{ROLES[colour]}" for prop, colour in paints.items() if colour in ROLES]


def luminance(colour: str) -> float:
    """The WCAG relative luminance of a #rrggbb colour."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """The WCAG contrast ratio of two #rrggbb colours."""
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_on(fill: str) -> str:
    """Ink or white, whichever reads better on ``fill``."""
    return INK if contrast(INK, fill) >= contrast(PAPER, fill) else PAPER


def class_colours(count: int) -> list[str]:
    """``count`` colours of ``HEAT`` spread from the lightest to the darkest."""
    if count == 1:
        return [HEAT[0]]
    return [HEAT[round(index * (len(HEAT) - 1) / (count - 1))] for index in range(count)]
