"""Markdown: the twin's text as written, and HTML from it via markdown-it-py.

One plugin of our own: a heading may end in ``{#id}`` to give it a stable
anchor in every language (``## 公式 {#formula}``). The HTML gets the id; the
twin loses the marker.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

HEADING_ID = re.compile(r"\s*\{#([A-Za-z][\w-]*)\}\s*$")


def heading_ids(md: MarkdownIt) -> None:
    """Plugin: move a trailing {#id} of a heading into its id attribute."""
    md.core.ruler.after("inline", "heading_ids", _heading_ids_rule)


def _heading_ids_rule(state: StateCore) -> None:
    tokens = state.tokens
    for index, token in enumerate(tokens[:-1]):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        match = HEADING_ID.search(inline.content)
        if not match or not inline.children:
            continue
        token.attrSet("id", match.group(1))
        inline.content = inline.content[: match.start()]
        last = inline.children[-1]
        if last.type == "text":
            last.content = HEADING_ID.sub("", last.content)


def make_markdown() -> MarkdownIt:
    """CommonMark with GFM tables, raw HTML blocks (our tables) and heading ids."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").use(heading_ids)


def strip_heading_ids(text: str) -> str:
    """The twin's Markdown: headings without their {#id} markers."""
    return "\n".join(
        HEADING_ID.sub("", line) if line.lstrip().startswith("#") else line for line in text.split("\n")
    )
