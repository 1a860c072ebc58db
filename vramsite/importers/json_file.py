"""One JSON file read as untrusted input, with the line of each key for messages.

JSON carries no positions once parsed, so a key's line is found in the text,
as a key of the object that holds it. Numbers
with a fraction become ``Decimal`` (never float), and a file too large,
too deep or not UTF-8 is refused in one line, as a parse error is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ..errors import InputError, Problem

MAX_BYTES = 64_000_000
"""Largest file read: a config.json is a few KB, the index of a 671B checkpoint a few MB."""


@dataclass(frozen=True)
class JsonFile:
    """A parsed JSON object and the text it came from."""

    name: str
    text: str
    value: dict

    def line_of(self, path: tuple[str, ...]) -> int | None:
        """The line of the key at ``path`` ("text_config", "head_dim"), or of its nearest ancestor found."""
        line, start = None, self.text.find("{")
        for key in path:
            found = _member(self.text, start, key) if start >= 0 else None
            if found is None:
                return line
            line = self.text.count("\n", 0, found) + 1
            start = self.text.find("{", found)
        return line


def _member(text: str, start: int, key: str) -> int | None:
    """Where ``"key"`` stands as a key of the object opening at ``start`` (not of an object inside it)."""
    depth, index, wanted = 0, start, json.dumps(key)
    while index < len(text):
        character = text[index]
        if character == '"':
            end = _string_end(text, index)
            if depth == 1 and text[index:end] == wanted and text[end:].lstrip().startswith(":"):
                return index
            index = end
            continue
        if character in "{[":
            depth += 1
        elif character in "}]":
            depth -= 1
            if depth == 0:
                return None
        index += 1
    return None


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string opening at ``start``."""
    index = start + 1
    while index < len(text) and text[index] != '"':
        index += 2 if text[index] == "\\" else 1
    return index + 1


def read_json(path: Path, name: str) -> JsonFile:
    """``path`` parsed; InputError (one problem, naming ``name``) when it is not a readable JSON object."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError([Problem(name, None, "", "no such file")]) from None
    except IsADirectoryError:
        raise InputError([Problem(name, None, "", "is a folder, not a JSON file")]) from None
    if len(raw) > MAX_BYTES:
        raise InputError([Problem(name, None, "", f"larger than {MAX_BYTES:,} bytes: not a model's config file")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError([Problem(name, None, "", f"not UTF-8 text (byte {error.start})")]) from None
    try:
        value = json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise InputError([Problem(name, error.lineno, "", f"not JSON: {error.msg}")]) from None
    except (ValueError, RecursionError) as error:
        raise InputError([Problem(name, None, "", f"not JSON this reader accepts: {_reason(error)}")]) from None
    if not isinstance(value, dict):
        raise InputError([Problem(name, 1, "", "not a JSON object: a config file is one { ... } object")])
    return JsonFile(name, text, value)


def _no_constant(word: str):
    raise ValueError(f"{word} is not a JSON number")


def _reason(error: BaseException) -> str:
    return "nested too deeply" if isinstance(error, RecursionError) else " ".join(str(error).split())
