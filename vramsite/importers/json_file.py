"""One JSON file read as untrusted input, with the line of each key for messages.

JSON carries no positions once parsed, so the keys' lines are found in the
text, in one pass, the first time a message needs one. Numbers with a
fraction become ``Decimal`` (never float), and a file too large, too deep,
not UTF-8 or naming a key twice in one object (json would keep the last
value silently) is refused in one line, as a parse error is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from pathlib import Path

from ..errors import InputError, Problem
from ..load.source_read import read_regular_file

MAX_BYTES = 64_000_000
"""Largest file read: a config.json is a few KB, the index of a 671B checkpoint a few MB."""


class DuplicateKey(ValueError):
    """A JSON object names one key twice: json would keep the last value, but which was meant?"""


def unique_object(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` refusing a repeated key (DuplicateKey, naming it)."""
    result = dict(pairs)
    if len(result) < len(pairs):
        keys = [key for key, _value in pairs]
        raise DuplicateKey(next(key for index, key in enumerate(keys) if key in keys[:index]))
    return result


@dataclass(frozen=True)
class JsonFile:
    """A parsed JSON object and the text it came from."""

    name: str
    text: str
    value: dict

    def line_of(self, path: tuple[str, ...]) -> int | None:
        """The line of the key at ``path`` ("text_config", "head_dim"), or of its nearest ancestor found."""
        lines = self._keys.lines
        for end in range(len(path), 0, -1):
            if tuple(path[:end]) in lines:
                return lines[tuple(path[:end])]
        return None

    @cached_property
    def _keys(self) -> KeyLines:
        """Every key's line, found in one pass the first time a line is asked for: a config of 20 MB with
        many problems is read once, not once per problem."""
        return key_lines(self.text)


@dataclass
class KeyLines:
    lines: dict[tuple[str, ...], int]
    """Each key, by the keys of the objects that hold it (an object in a list is named by the list's key),
    -> the line of its first occurrence."""
    repeated: list[tuple[tuple[str, ...], int, int]]
    """(key, line, line of the first) for each key written twice in one object, in the order of the text."""


_TOKEN = re.compile(r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")(?P<key>\s*:)?|[{}\[\]]')
"""A JSON string (a key when a colon follows) or a bracket; numbers, commas and spaces are skipped."""


def key_lines(text: str) -> KeyLines:
    """The lines of a parsed JSON text's keys, and its repeated keys, in one pass."""
    found = KeyLines({}, [])
    open_: list[tuple[tuple[str, ...], dict[str, int] | None]] = []
    """Per open object or list: its path, and (objects only) the line of each key so far."""
    last_key: str | None = None
    line, counted = 1, 0
    for token in _TOKEN.finditer(text):
        if token["string"] is None:
            if token.group() in "{[":
                path, keys = open_[-1] if open_ else ((), None)
                inner = (*path, last_key) if keys is not None else path  # an object's value, or a list's item
                open_.append((inner, {} if token.group() == "{" else None))
            else:
                open_.pop()
        elif token["key"] is not None:
            line += text.count("\n", counted, token.start())
            counted = token.start()
            last_key = _key(token["string"])
            path, keys = open_[-1]
            if last_key in keys:
                found.repeated.append(((*path, last_key), line, keys[last_key]))
            keys.setdefault(last_key, line)
            found.lines.setdefault((*path, last_key), line)
    return found


def _key(string: str) -> str:
    return json.loads(string) if "\\" in string else string[1:-1]


def read_json(path: Path, name: str) -> JsonFile:
    """``path`` parsed; InputError (one problem, naming ``name``) when it is not a readable JSON object."""
    raw = read_regular_file(path, name, MAX_BYTES, f"larger than {MAX_BYTES:,} bytes: not a model's config file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError([Problem(name, None, "", f"not UTF-8 text (byte {error.start})")]) from None
    return parse_json(text, name)


def parse_json(text: str, name: str, what: str = "a config file") -> JsonFile:
    """``text`` parsed as one JSON object (``what`` is: a file's, or an option's, as ``name`` says); InputError
    otherwise."""
    try:
        value = json.loads(text, parse_float=Decimal, parse_constant=_no_constant, object_pairs_hook=unique_object)
    except json.JSONDecodeError as error:
        raise InputError([Problem(name, error.lineno, "", f"not JSON: {error.msg}")]) from None
    except DuplicateKey as error:
        raise InputError([_repeated_key(text, name, str(error))]) from None
    except (ValueError, RecursionError) as error:
        raise InputError([Problem(name, None, "", f"not JSON this reader accepts: {_reason(error)}")]) from None
    if not isinstance(value, dict):
        raise InputError([Problem(name, 1, "", f"not a JSON object: {what} is one {{ ... }} object")])
    return JsonFile(name, text, value)


def _repeated_key(text: str, name: str, key: str) -> Problem:
    repeated = key_lines(text).repeated
    if not repeated:  # the scan and the decoder disagree: name the key at least
        return Problem(name, None, key, "given twice in one object; which value is meant? keep one")
    path, line, first = repeated[0]
    return Problem(name, line, ".".join(path), f"given twice in one object (first at line {first}); which value "
                                               "is meant? keep one")


def _no_constant(word: str):
    raise ValueError(f"{word} is not a JSON number")


def _reason(error: BaseException) -> str:
    return "nested too deeply" if isinstance(error, RecursionError) else " ".join(str(error).split())
