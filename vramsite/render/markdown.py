"""Markdown: the twin's text as written, and HTML from it via markdown-it-py.

Two plugins of our own. A heading may end in ``{#id}`` to give it a stable
anchor in every language (``## 公式 {#formula}``): the HTML gets the id; the
twin loses the marker. And content is input, so nothing live reaches a page
from it (``engine_markup_only``): raw HTML may be only the markup the
engine's own blocks and pieces write (tables, charts, the calculator, stats,
figures and links, ``ENGINE_MARKUP``), and every link, image and attribute URL
is relative or http, https or mailto. Anything else, whoever wrote it (content
can cut pieces out of the engine's markup and join them), is refused as
``UnsafeMarkup``: no script, event handler, ``javascript:`` or ``data:`` URL.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import unescape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import escape

from ..load.text import excerpt

ANCHOR = r"[A-Za-z][\w-]*"
"""What an id (and so a link's #anchor) may be: a letter, then letters, digits, _ and -."""
HEADING_ID = re.compile(r"\s*(?<!\\)\{#(" + ANCHOR + r")\}\s*$")
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
    """CommonMark with GFM tables, heading ids, and raw HTML that is the engine's markup only (our tables)."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table").use(heading_ids).use(engine_markup_only)
    md.validateLink = lambda url: True  # every link is made, so that engine_markup_only sees (and refuses) it
    return md


# -- nothing live from content -------------------------------------------------------------------------


class UnsafeMarkup(ValueError):
    """Markup in a page's Markdown that could run script or load what it should not; ``source``: the tag or URL,
    to find in the content file."""

    def __init__(self, message: str, source: str):
        super().__init__(message)
        self.source = source


HTML_ELEMENTS = frozenset("""
    a abbr b br button caption code col colgroup dd details div dl dt em figcaption figure form h1 h2 h3 h4 h5 h6 hr
    i input label li ol optgroup option p pre script section select small span strong sub summary sup table tbody td
    textarea tfoot th thead time tr ul
""".split())
"""HTML the engine's partials write (tables, the calculator, stats), and plain formatting a site's partial may add.
Never: iframe, object, embed, base, meta, link, style, template, img (a picture is a Markdown image)."""
SVG_ELEMENTS = frozenset("""
    circle clippath defs desc ellipse g line lineargradient marker path pattern polygon polyline radialgradient
    rect stop svg text title tspan
""".split())
"""The charts' SVG. Never: script, foreignobject, use, image, animate, set."""
ATTRIBUTES = frozenset("""
    alt autocomplete class colspan cx cy d datetime defer dominant-baseline download dx dy fill fill-opacity font-family
    font-size font-weight for headers height hidden href id inputmode lang name novalidate offset opacity open
    patterntransform patternunits points r rel role rows rowspan rx ry scope selected span spellcheck src stop-color stroke
    stroke-dasharray stroke-linecap stroke-linejoin stroke-opacity stroke-width style tabindex text-anchor title
    transform type value viewbox width x x1 x2 xmlns y y1 y2
""".split())
"""Attributes of the engine's markup, besides data-* and aria-*. Never an event handler (on*), action, formaction,
srcdoc or xlink:href."""
URL_ATTRIBUTES = frozenset({"href", "src"})
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
SCRIPT_ASSET = re.compile(r"(?:\.\./)*assets/[\w.-]+\.js")
"""The one script a page may load: an asset of the site (the calculator's), by a relative URL."""

_TAG = re.compile(r'<(/?)([A-Za-z][A-Za-z0-9]*)((?:[ \t\n]+[A-Za-z][\w:.-]*(?:="[^"<>]*")?)*)[ \t\n]*/?>')
"""A tag as the engine writes one: double-quoted values without < or >, nothing a browser could read otherwise."""
_ATTRIBUTE = re.compile(r'([A-Za-z][\w:.-]*)(?:="([^"]*)")?')
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_URL_SKIPPED = re.compile(r"[\t\n\r]")
_URL_STRIPPED = "".join(map(chr, range(0x21)))
"""What a browser removes from a URL before reading its scheme: tabs and line breaks anywhere, and spaces and
control characters in front."""


def engine_markup_only(md: MarkdownIt) -> None:
    """Plugin: refuse raw HTML that is not the engine's markup, and links and images to unsafe URLs."""
    md.core.ruler.push("engine_markup_only", _engine_markup_rule)


def _engine_markup_rule(state: StateCore) -> None:
    _check_tokens(state.tokens)


def _check_tokens(tokens: list[Token]) -> None:
    for token in tokens:
        if token.type in ("html_block", "html_inline"):
            check_html(token.content)
        elif token.type in ("link_open", "image"):
            what, key = ("link", "href") if token.type == "link_open" else ("image", "src")
            url = token.attrGet(key) or ""
            refusal = _url_refusal(url)
            if refusal:
                raise UnsafeMarkup(f"{what} to {excerpt(url)} is not allowed in content: {refusal}", url)
        if token.children:
            _check_tokens(token.children)


def check_html(html: str) -> None:
    """Refuse ``html`` (raw HTML of a page's Markdown) unless every tag in it is the engine's kind of tag."""
    position = html.find("<")
    while position >= 0:
        tag = _TAG.match(html, position)
        text = html[position:].split("\n", 1)[0] if tag is None else tag.group()
        refusal = "write Markdown" if tag is None else _tag_refusal(text)
        if refusal is _LOADS_A_SCRIPT:
            refusal = None if html.startswith("</script>", tag.end()) else "a page runs no script of its own"
        if refusal:
            raise UnsafeMarkup(f"raw HTML {excerpt(text)} is not allowed in content: {refusal}", text)
        position = html.find("<", tag.end())


_LOADS_A_SCRIPT = "loads the site's script"
"""_tag_refusal's answer for <script src="../assets/x.js">: the engine's, if no text follows it."""


@lru_cache(maxsize=65536)
def _tag_refusal(tag: str) -> str | None:
    """Why ``tag`` (one whole tag, as _TAG matches it) is none of the engine's; None if it is one. A page's tables
    repeat the same few tags thousands of times: each is looked at once."""
    found = _TAG.fullmatch(tag)
    closing, name = found.group(1), found.group(2).lower()
    if name not in HTML_ELEMENTS and name not in SVG_ELEMENTS:
        return f"<{name}> is none of the engine's elements; write Markdown"
    attributes = [(key.lower(), unescape(value or "")) for key, value in _ATTRIBUTE.findall(found.group(3))]
    if closing and attributes:
        return "a closing tag has no attributes"
    for key, value in attributes:
        if key not in ATTRIBUTES and not key.startswith(("data-", "aria-")):
            return f"attribute {key!r} is none of the engine's (no event handlers)"
        if key in URL_ATTRIBUTES and _url_refusal(value):
            return f"{key} {excerpt(value)}: {_url_refusal(value)}"
        if key == "style" and re.search(r"[(\\@<&]", value):
            return "a style may hold plain properties only, no url(), expression() or escapes"
    if name == "script" and not closing:
        return _script_refusal(dict(attributes))
    return None


def _script_refusal(attributes: dict[str, str]) -> str | None:
    """A script is data (type application/json, read by the calculator) or the site's own asset, with no text."""
    if set(attributes) == {"type"} and attributes["type"] == "application/json":
        return None
    if set(attributes) <= {"src", "defer"} and SCRIPT_ASSET.fullmatch(attributes.get("src", "")):
        return _LOADS_A_SCRIPT
    return "a page runs no script of its own"


def _url_refusal(url: str) -> str | None:
    """Why ``url`` may not stand in a page; None if it is relative (or a #fragment) or http, https or mailto."""
    read = _URL_SKIPPED.sub("", url).lstrip(_URL_STRIPPED)
    scheme = _SCHEME.match(read)
    if scheme and scheme.group(1).lower() not in SAFE_SCHEMES:
        return "a link is relative, http, https or mailto"
    return None


_NAMED_SECTION = re.compile(r'<section\b[^>]*?\sid="([^"]+)"[^>]*?\sdata-contents="([^"]*)"')
"""The opening tag of a section a layout partial drew that names itself for the contents list (the calculator)."""


def section_headings(tokens: list[Token]) -> list[tuple[str, str, bool]]:
    """(id, text, drawn by script) of each ## heading that has an id, and of each section a partial drew with a
    ``data-contents`` name, in page order: a page's contents list. Such a section is shown only where scripts run."""
    found = []
    for index, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h2" and token.attrGet("id"):
            found.append((token.attrGet("id"), plain_text(tokens[index + 1]).strip(), False))
        elif token.type == "html_block" and (named := _NAMED_SECTION.match(token.content)):
            found.append((named.group(1), unescape(named.group(2)), True))
    return found


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


def line_of(text: str, needle: str) -> int | None:
    """The line of ``text`` where ``needle`` first stands, ignoring case; None where it stands nowhere."""
    found = text.lower().find(needle.lower())
    return None if found < 0 or not needle else text.count("\n", 0, found) + 1
