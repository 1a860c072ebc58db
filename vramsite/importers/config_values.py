"""Typed values read out of one object of a config file, every bad one noted as a problem.

A reader does not stop at the first bad key: it notes the problem and hands
back None, so that one run lists everything wrong with the file.
"""

from __future__ import annotations

from decimal import Decimal

from ..errors import Problem
from .json_file import JsonFile

MISSING = object()
"""No default: the key must be in the config."""
LARGEST_SIZE = 2**31
"""Largest size read: far above any model's width or vocabulary, and bounds what a count multiplies."""
LARGEST = {"num_hidden_layers": 10_000}
"""Keys with a tighter bound: the importer walks each layer."""


class ConfigSection:
    """One object of a config file (the whole file, or its ``text_config``), with the defaults its family
    documents for keys a published config leaves out."""

    def __init__(self, file: JsonFile, path: tuple[str, ...], problems: list[Problem], defaults: dict | None = None):
        self.file, self.path, self.problems = file, path, problems
        self.defaults = defaults or {}
        self.value = file.value
        for key in path:
            self.value = self.value[key]

    def field(self, key: str) -> str:
        return ".".join((*self.path, key))

    def problem(self, key: str | None, message: str) -> None:
        keys = self.path if key is None else (*self.path, key)
        self.problems.append(Problem(self.file.name, self.file.line_of(keys), ".".join(keys), message))

    def given(self, key: str) -> bool:
        """Whether the config sets ``key`` to something other than null."""
        return self.value.get(key) is not None

    def raw(self, key: str, default=MISSING):
        """The key's value, its family default, ``default``; or None, noting the key as missing."""
        if self.given(key):
            return self.value[key]
        if key in self.defaults:
            return self.defaults[key]
        if default is MISSING:
            self.problem(key, "missing: this architecture needs it")
            return None
        return default

    def size(self, key: str, default=MISSING) -> int | None:
        """A positive whole number, at most the bound of its key."""
        number = self.whole(key, default)
        if number is not None and number <= 0:
            self.problem(key, f"must be a positive whole number, got {number}")
            return None
        most = LARGEST.get(key, LARGEST_SIZE)
        if number is not None and number > most:
            self.problem(key, f"{number} is more than {most:,}: not a model's size")
            return None
        return number

    def count(self, key: str, default=MISSING) -> int | None:
        """A whole number from 0 to the bound of sizes."""
        number = self.whole(key, default)
        if number is not None and not 0 <= number <= LARGEST_SIZE:
            self.problem(key, f"must be a whole number from 0 to {LARGEST_SIZE:,}, got {number}")
            return None
        return number

    def whole(self, key: str, default=MISSING) -> int | None:
        value = self.raw(key, default)
        if value is None:
            return None
        if isinstance(value, Decimal) and value == value.to_integral_value():
            value = int(value)  # 128.0 in a config means 128
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(key, f"must be a whole number, got {_shown(value)}")
            return None
        return value

    def flag(self, key: str, default: bool) -> bool | None:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            self.problem(key, f"must be true or false, got {_shown(value)}")
            return None
        return value

    def text(self, key: str, default=MISSING) -> str | None:
        value = self.raw(key, default)
        if value is not None and not isinstance(value, str):
            self.problem(key, f"must be text, got {_shown(value)}")
            return None
        return value

    def text_list(self, key: str) -> list[str] | None:
        """A list of text, or None when the config does not set it."""
        if not self.given(key):
            return None
        value = self.value[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.problem(key, f"must be a list of text, got {_shown(value)}")
            return None
        return value

    def whole_list(self, key: str) -> list[int] | None:
        """A list of whole numbers; an empty list when the config does not set it."""
        value = self.value.get(key) or []
        if not isinstance(value, list) or not all(isinstance(item, int) and not isinstance(item, bool)
                                                  for item in value):
            self.problem(key, f"must be a list of whole numbers, got {_shown(value)}")
            return None
        return value


def _shown(value) -> str:
    text = "null" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)
    if isinstance(value, (dict, list)):
        text = "a list" if isinstance(value, list) else "an object"
    elif isinstance(value, Decimal):
        text = format(value, "f")
    return text if len(text) <= 40 else text[:37] + "..."
