"""Inline pieces (tables' cells, content's figures) as HTML or as Markdown.

One renderer per page, language and format. In HTML a figure with a formula
carries it in a ``title`` ("2 × 80 layers × … = 2.7 GB"); in Markdown the
figure is plain text. Both return ``Markup``: text from data is escaped here,
once, and never again.
"""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup, escape

from ..calc.figure import Figure
from ..tables.model import Fig, Flag, Link, Msg, Names, Text
from .derivation import explain
from .format import Formatter

HTML, MD = "html", "md"

MD_SPECIAL = str.maketrans({"|": "\\|", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "`": "\\`"})


class InlineRenderer:
    def __init__(self, fmt: Formatter, mode: str, resolve: Callable[[tuple], str | None]):
        self.fmt, self.mode, self.resolve = fmt, mode, resolve

    def __call__(self, piece) -> Markup:
        return self.render(piece)

    def render(self, piece) -> Markup:
        if piece is None:
            return Markup("")
        if isinstance(piece, tuple):
            return Markup("").join(self.render(part) for part in piece)
        if isinstance(piece, Text):
            return self.text(piece.text)
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
        if isinstance(piece, Names):
            texts = [self.render(item) for item in piece.items]
            return Markup(self.fmt.names([str(t) for t in texts], piece.style, [t.striptags() for t in texts]))
        if isinstance(piece, Markup):
            return piece
        if isinstance(piece, str):
            return self.text(piece)
        raise TypeError(f"cannot render {piece!r}")

    def text(self, text: str) -> Markup:
        if self.mode == MD:
            return Markup(str(escape(text)).translate(MD_SPECIAL))
        return escape(text)

    def figure(self, figure: Figure, decimals: int | None = None, period: bool = False,
               bare: bool = False) -> Markup:
        shown = self.text(self.fmt.figure(figure, decimals, period, bare))
        if self.mode == MD:
            return shown
        derivation = explain(figure, self.fmt, decimals)
        # Plain concatenation of escaped parts: Markup.format is the slowest step of a large table.
        if not derivation:
            return Markup(f'<span class="fig">{shown}</span>')
        return Markup(f'<span class="fig" title="{escape(derivation)}">{shown}</span>')

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
        return Markup("".join(parts))

    def link(self, target: tuple, content: Markup) -> Markup:
        url = self.resolve(target)
        if url is None:
            return content
        if self.mode == MD:
            return Markup(f"[{content}]({url})")
        return Markup(f'<a href="{escape(url)}">{content}</a>')

    def flag(self, msgid: str) -> Markup:
        label = self.text(self.fmt.gettext(msgid))
        if self.mode == MD:
            return label
        return Markup(f'<span class="flag">{label}</span>')
