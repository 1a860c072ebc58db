"""Inline pieces (tables' cells, content's figures) as HTML or as Markdown.

One renderer per page, language and format. In HTML a figure with a formula
carries it in a ``title`` ("2 × 80 layers × … = 2.7 GB") and takes focus, so
that the stylesheet can show the derivation to a tap or the keyboard as well as
to a mouse; in Markdown the figure is plain text. Both return ``Markup``: text from data is escaped here,
once, and never again. A third mode, ``TEXT``, returns plain ``str`` with
nothing escaped, for text that is escaped where it is placed (a chart's SVG).

Text is always inserted as text. Where the output is Markdown source (the
twin, and content's prose in both formats, which markdown-it turns into the
HTML page) Markdown's punctuation is backslash-escaped as well as HTML's, so a
name such as ``A40 ![](https://evil.example/t.png)`` prints as written. Where
it is raw HTML (a table's partial, which is one HTML block of the page) only
HTML is escaped. A line break in text becomes a space in Markdown and ``&#10;``
in HTML: one name cannot end a table row or an HTML block.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from markupsafe import Markup, escape

from ..calc.figure import Figure
from ..load.dates import machine_date
from ..tables.model import Code, Fig, Flag, Link, Msg, Names, Text, When
from .derivation import explain
from .format import Formatter

HTML, MD = "html", "md"
TEXT = "text"
"""Plain text: what a reader sees of the pieces, unescaped."""

MARKDOWN_PUNCTUATION = "\\`*_[]{}|!~"
"""Escaped wherever they stand: emphasis, code, links and images, tables, heading ids ({#id})."""
MD_SPECIAL = str.maketrans({char: "\\" + char for char in MARKDOWN_PUNCTUATION})
TEXT_START = re.compile(r"^\(|^([ \t]*)(#|[-+](?=[ \t])|=+(?=[ \t]*$)|-+(?=[ \t]*$)|\d{1,9}(?=[.)](?:[ \t]|$)))")
"""Escaped at the start of every text: a "(" that would make the "](" of a link with the text before it,
and what makes a heading, list item, setext underline or rule when the text starts a line. Elsewhere
these are plain (the text's own "[" and "]" are escaped), so the twin keeps "(A40)" as it is written."""
LINE_BREAKS = re.compile(r"\r\n?|[\n\v\f\x1c-\x1e\x85\u2028\u2029]")


def markdown_text(text: str) -> str:
    """``text`` as Markdown source that renders as exactly that text (HTML escaped too)."""
    flat = LINE_BREAKS.sub(" ", str(text))
    escaped = str(escape(flat)).translate(MD_SPECIAL)
    return TEXT_START.sub(_escape_start, escaped, count=1)


def _escape_start(match: re.Match) -> str:
    if match.group() == "(":
        return "\\("
    indent, mark = match.group(1), match.group(2)
    if mark.isdigit():  # "1." starts an ordered list: escape the dot or parenthesis after the digits
        return indent + mark + "\\"
    return indent + "\\" + mark


def html_text(text: str) -> str:
    """``text`` as HTML text or attribute value; line breaks as character references."""
    return LINE_BREAKS.sub(lambda match: "".join(f"&#{ord(char)};" for char in match.group()), str(escape(text)))


@lru_cache(maxsize=16384)
def _markdown_piece(text: str) -> Markup:
    """A page prints the same names and figures many times over."""
    return Markup(markdown_text(text))


@lru_cache(maxsize=16384)
def _html_piece(text: str) -> Markup:
    return Markup(html_text(text))


class InlineRenderer:
    def __init__(self, fmt: Formatter, mode: str, resolve: Callable[[tuple], str | None],
                 in_markdown: bool = False):
        """``in_markdown``: the pieces go into Markdown source (always so for the twin)."""
        self.fmt, self.mode, self.resolve = fmt, mode, resolve
        self.in_markdown = in_markdown or mode == MD

    @classmethod
    def plain(cls, fmt: Formatter) -> "InlineRenderer":
        """Pieces as plain text in the language of ``fmt``: links print their text."""
        return cls(fmt, TEXT, lambda target: None)

    def _join(self, parts) -> Markup | str:
        if self.mode == TEXT:
            return "".join(parts)
        return Markup("").join(parts)

    def __call__(self, piece) -> Markup:
        return self.render(piece)

    def render(self, piece) -> Markup:
        if piece is None:
            return self._join(())
        if isinstance(piece, tuple):
            return self._join(self.render(part) for part in piece)
        if isinstance(piece, Text):
            return self.text(piece.text)
        if isinstance(piece, Code):
            return self.code(piece.text)
        if isinstance(piece, Fig):
            return self.figure(piece.figure, piece.decimals, piece.period, piece.bare)
        if isinstance(piece, Figure):
            return self.figure(piece)
        if isinstance(piece, Msg):
            return self.message(piece.msgid, **dict(piece.args))
        if isinstance(piece, Link):
            return self.link(piece.target, self.render(piece.content))
        if isinstance(piece, Flag):
            return self.flag(piece.msgid)
        if isinstance(piece, When):
            return self.when(piece.iso)
        if isinstance(piece, Names):
            texts = [self.render(item) for item in piece.items]
            if self.mode == TEXT:
                return self.fmt.names(texts, piece.style)
            return Markup(self.fmt.names([str(t) for t in texts], piece.style, [t.striptags() for t in texts]))
        if isinstance(piece, Markup):
            return piece.striptags() if self.mode == TEXT else piece
        if isinstance(piece, str):
            return self.text(piece)
        raise TypeError(f"cannot render {piece!r}")

    def text(self, text: str) -> Markup:
        if self.mode == TEXT:
            return str(text)
        if type(text) is str:  # not Markup, which escapes differently and compares equal to its str
            return _markdown_piece(text) if self.in_markdown else _html_piece(text)
        return Markup(markdown_text(text) if self.in_markdown else html_text(text))

    def code(self, text: str) -> Markup:
        """``text`` as one code span: in Markdown fenced by more backticks than it holds in a row (nothing inside
        a code span is escaped, or read as Markdown), in HTML a ``<code>`` element."""
        flat = LINE_BREAKS.sub(" ", str(text))
        if self.mode == TEXT:
            return flat
        if not self.in_markdown:
            return Markup(f"<code>{html_text(flat)}</code>")
        fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
        padded = f" {flat} " if flat.startswith("`") or flat.endswith("`") else flat
        return Markup(f"{fence}{padded}{fence}")

    def figure(self, figure: Figure, decimals: int | None = None, period: bool = False,
               bare: bool = False) -> Markup:
        shown = self.text(self.fmt.figure(figure, decimals, period, bare))
        if self.mode in (MD, TEXT):
            return shown
        derivation = explain(figure, self.fmt, decimals)
        # Plain concatenation of escaped parts: Markup.format is the slowest step of a large table.
        if not derivation:
            return Markup(f'<span class="fig">{shown}</span>')
        return Markup(f'<span class="fig" tabindex="0" title="{html_text(derivation)}">{shown}</span>')

    def message(self, msgid: str, **args) -> Markup:
        """A translated UI string with its placeholders filled (and escaped) piece by piece."""
        pattern = self.fmt.gettext(msgid)
        parts, rest = [], pattern
        while "{" in rest:
            before, _, after = rest.partition("{")
            name, _, rest = after.partition("}")
            parts.append(self.text(before))
            parts.append(self.render(args[name]) if name in args else self.text("{" + name + "}"))
        parts.append(self.text(rest))
        return "".join(parts) if self.mode == TEXT else Markup("".join(parts))

    def link(self, target: tuple, content: Markup) -> Markup:
        url = self.resolve(target)
        if url is None or self.mode == TEXT:
            return content
        if self.mode == MD:
            return Markup(f"[{content}]({url})")
        return Markup(f'<a href="{html_text(url)}">{content}</a>')

    def when(self, iso: str) -> Markup:
        """A date in the reader's words; in HTML a <time> element that gives it to machines as well."""
        shown = self.text(self.fmt.date(iso))
        if self.mode in (MD, TEXT):
            return shown
        return Markup(f'<time datetime="{html_text(machine_date(iso))}">{shown}</time>')

    def flag(self, msgid: str) -> Markup:
        label = self.text(self.fmt.gettext(msgid))
        if self.mode in (MD, TEXT):
            return label
        return Markup(f'<span class="flag">{label}</span>')
