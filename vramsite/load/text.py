"""The one rule for text an editor types into a field of a data file.

Names, labels, titles and ids end up in table cells, headings, HTML
attributes and Markdown tables: a line break there splits a table row, and
control or bidirectional-override characters print nothing but change what
a reader sees.
"""

from __future__ import annotations

import re

from ..errors import InputError, Problem

_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
"""Control characters (Unicode Cc), line and paragraph separators, bidirectional controls, a stray BOM."""
_NAMES = {"\n": "a line break", "\r": "a carriage return", "\t": "a tab"}


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot stand in a one-line text field, or None when it can."""
    found = _FORBIDDEN.search(value)
    if found is None:
        return None
    character = found.group()
    what = _NAMES.get(character, f"the control character U+{ord(character):04X}")
    return f"must be one line of text without control characters; found {what} at character {found.start() + 1}"


def decode_utf8(raw: bytes, name: str) -> str:
    """``raw`` as text, or InputError at the line of the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(
            [Problem(name, line, "", f"not UTF-8 text (byte 0x{raw[error.start]:02x}); save the file as UTF-8")]
        ) from None


def shown(name: str) -> str:
    """``name`` as a message prints it: quoted and escaped when it holds what text_problem refuses."""
    return repr(name) if text_problem(name) else name


EXCERPT_CHARS = 60
"""The most of a bad value a message quotes: enough to recognise it, never a whole file."""


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted for a message: one line (``repr`` escapes line breaks), at most ``limit`` characters of it."""
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


MAX_QUOTED = 200
"""Characters of a failed expression's description a content message keeps: enough to recognise it, short
enough to keep the message one readable line (a model's whole data printed in a message took 25 KB)."""


def clipped(text: str, limit: int = MAX_QUOTED) -> str:
    """``text``, or its start and end around an ellipsis when it is longer than ``limit`` (a described error,
    whose end often names what failed)."""
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[-half:]}"
