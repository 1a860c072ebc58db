"""Layout templates read from disk as every source is (``load/source_read.py``): inside the site or the engine,
a regular file, bounded; a file that is not UTF-8 is a located problem, not a crash."""

from __future__ import annotations

import os
from pathlib import Path

from jinja2 import FileSystemLoader, TemplateNotFound, TemplateSyntaxError
from jinja2.loaders import split_template_path

from ..load.source_read import TEMPLATE, read_source, universal_newlines


class NotUtf8Template(TemplateSyntaxError):
    """A template file whose bytes are not UTF-8 text; ``lineno`` is the line of the first bad byte."""


class Utf8FileSystemLoader(FileSystemLoader):
    """``FileSystemLoader`` that reads through ``read_source`` and reports a non-UTF-8 file as a syntax error
    of that file, at its line.

    Every caller that reports template syntax errors (file:line) then reports this one too.
    """

    def get_source(self, environment, template: str):
        path = self._path_of(template)
        if path is None:
            raise TemplateNotFound(template)
        raw = read_source(Path(path), "templates/" + "/".join(split_template_path(template)), TEMPLATE)
        try:
            contents = universal_newlines(raw.decode(self.encoding))
        except UnicodeDecodeError:
            raise not_utf8(raw, path, template) from None
        mtime = os.path.getmtime(path)

        def uptodate() -> bool:
            try:
                return os.path.getmtime(path) == mtime
            except OSError:
                return False

        return contents, os.path.normpath(path), uptodate

    def _path_of(self, template: str) -> str | None:
        pieces = split_template_path(template)
        for folder in self.searchpath:
            path = os.path.join(folder, *pieces)
            if os.path.isfile(path):
                return path
        return None


def not_utf8(data: bytes, path: str, name: str) -> NotUtf8Template:
    """The error for template file ``path`` (loader name ``name``, bytes ``data``), naming the line and byte that
    are not UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        message = (f"not UTF-8 text: byte 0x{data[error.start]:02x} at column {column} ({error.reason}); "
                   "save the file as UTF-8")
        return NotUtf8Template(message, line, name, path)
    return NotUtf8Template("not UTF-8 text; save the file as UTF-8", 1, name, path)
