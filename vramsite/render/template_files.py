"""Layout templates read from disk: a file that is not UTF-8 is a located problem, not a crash."""

from __future__ import annotations

import os

from jinja2 import FileSystemLoader, TemplateSyntaxError
from jinja2.loaders import split_template_path


class NotUtf8Template(TemplateSyntaxError):
    """A template file whose bytes are not UTF-8 text; ``lineno`` is the line of the first bad byte."""


class Utf8FileSystemLoader(FileSystemLoader):
    """``FileSystemLoader`` that reports a non-UTF-8 file as a syntax error of that file, at its line.

    Every caller that reports template syntax errors (file:line) then reports this one too.
    """

    def get_source(self, environment, template: str):
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError:
            path = self._path_of(template)
            if path is None:
                raise
            raise not_utf8(path, template) from None

    def _path_of(self, template: str) -> str | None:
        pieces = split_template_path(template)
        for folder in self.searchpath:
            path = os.path.join(folder, *pieces)
            if os.path.isfile(path):
                return path
        return None


def not_utf8(path: str, name: str) -> NotUtf8Template:
    """The error for template file ``path`` (loader name ``name``), naming the line and byte that are not UTF-8."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        message = (f"not UTF-8 text: byte 0x{data[error.start]:02x} at column {column} ({error.reason}); "
                   "save the file as UTF-8")
        return NotUtf8Template(message, line, name, path)
    return NotUtf8Template("not UTF-8 text; save the file as UTF-8", 1, name, path)
