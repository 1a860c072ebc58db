"""Text in a chart: sizes, estimated widths, and line breaking (Latin at spaces, Chinese anywhere)."""

from __future__ import annotations

import re

FONT = 13
"""Size of all chart text but the title, in user units."""
TITLE_FONT = 15
LINE = 17
"""Distance between two lines of wrapped text."""

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
        em += 1.0 if is_cjk(char) else _ADVANCE.get(char, 650) / 1000
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


def is_cjk(char: str) -> bool:
    return CJK_FROM <= char <= "\uffff"


def _tokens(text: str) -> list[str]:
    """Runs of spaces, runs of other characters, and each Chinese character on its own."""
    tokens = []
    for run in _TOKENS.findall(text):
        start = 0
        for index, char in enumerate(run):
            if is_cjk(char):
                tokens += [run[start:index], char] if index > start else [char]
                start = index + 1
        if start < len(run):
            tokens.append(run[start:])
    return tokens


def sentences(parts: list[str]) -> str:
    """Sentences as one text: a space after '.', none after '。'."""
    text = ""
    for part in parts:
        text += ("" if not text or is_cjk(text[-1]) else " ") + part
    return text
