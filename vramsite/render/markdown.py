"""Markdown: the twin's text as written, and HTML from it via markdown-it-py.

One plugin of our own: a heading may end in ``{#id}`` to give it a stable
anchor in every language (``## 公式 {#formula}``). The HTML gets the id; the
twin loses the marker.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import escape

HEADING_ID = re.compile(r"\s*(?<!\\)\{#([A-Za-z][\w-]*)\}\s*$")
"""A heading's trailing {#id}; an escaped \\{ (text from data, see inline.markdown_text) is no marker."""


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


def section_headings(tokens: list[Token]) -> list[tuple[str, str]]:
    """(id, text) of each ## heading that has an id, in page order: a page's contents list."""
    return [(token.attrGet("id"), plain_text(tokens[index + 1]).strip())
            for index, token in enumerate(tokens[:-1])
            if token.type == "heading_open" and token.tag == "h2" and token.attrGet("id")]


def section_pairs(tokens: list[Token], section_id: str) -> list[tuple[str, str]]:
    """(heading, text) for each ### heading of the ## section whose id is ``section_id``, as plain text.

    The text is the heading's paragraphs, joined: the questions and answers
    of an FAQ, read from the parsed Markdown rather than from its HTML.
    """
    pairs: list[tuple[str, list[str]]] = []
    inside, capture = False, None
    for token in tokens:
        if token.type == "heading_open" and token.tag == "h2":
            inside, capture = token.attrGet("id") == section_id, None
        elif not inside:
            continue
        elif token.type == "heading_open" and token.tag == "h3":
            pairs.append(("", []))
            capture = "heading"
        elif token.type == "paragraph_open" and not token.hidden and pairs:
            capture = "text"
        elif token.type == "inline" and capture == "heading":
            pairs[-1] = (plain_text(token), pairs[-1][1])
            capture = None
        elif token.type == "inline" and capture == "text":
            pairs[-1][1].append(plain_text(token))
            capture = None
    return [(heading.strip(), " ".join(" ".join(texts).split())) for heading, texts in pairs]


def plain_text(inline: Token) -> str:
    """An inline token's text without markup: raw HTML tags dropped, the text between them kept."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def markdown_plain_text(md: MarkdownIt, source: str) -> str:
    """One line of Markdown (a page title) as the HTML-escaped text a reader sees: escapes and markup resolved."""
    tokens = md.parseInline(source)
    return str(escape(plain_text(tokens[0]) if tokens else ""))
