"""Each chart's title, and the slug its ids and its standalone file are named by."""

from __future__ import annotations

import hashlib
import re

TITLES = {
    "cost": "What VRAM and bandwidth cost per month, by card",
    "kv_context": "KV cache as the context grows, by model",
    "finetune": "Memory to fine-tune, by model and method",
    "lookup_heatmap": "The lookup grid, coloured by price",
    "measured": "How far each measured figure lands from the formula",
    "price_history": "The price over time",
}
"""Each chart's title: a msgid, shown on top of the chart and as the image's alternative text."""

MAX_SLUG = 100
"""Characters of a chart's slug. A file name may have 255 bytes; options that would spell a longer slug
(a list of two hundred contexts) keep its start and end in a digest of the whole."""


def chart_title(name: str, fmt) -> str:
    return fmt.gettext(TITLES[name])


def point_title(say, subject: str, case: str, value: str) -> str:
    """The tooltip of one mark: "7B, Full fine-tuning: 129 GB", its punctuation the language's own."""
    return str(say.message("{model}, {case}: {value}", model=subject, case=case, value=value))


def chart_slug(name: str, segment: str, options: dict | None = None) -> str:
    """'en-cost', or 'en-kv_context--contexts-1024-2048' with options: file names and ids."""
    slug = f"{segment}-{name}"
    for key in sorted(options or {}):
        value = options[key]
        parts = value if isinstance(value, (list, tuple)) else [value]
        slug += f"--{key}-" + "-".join(str(part) for part in parts)
    slug = re.sub(r"[^A-Za-z0-9._-]", "_", slug)
    if len(slug) <= MAX_SLUG:
        return slug
    digest = hashlib.sha256(slug.encode()).hexdigest()[:16]
    return f"{slug[:MAX_SLUG - len(digest) - 1]}-{digest}"


def chart_file(name: str, segment: str, options: dict | None = None) -> str:
    """The standalone copy's path under assets/."""
    return f"charts/{chart_slug(name, segment, options)}.svg"
