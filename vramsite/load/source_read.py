"""Reading a site's source files: the one way the engine opens its data, content, templates, assets and catalogs.

A source is input, and a name under a site's folder may be a link to anything:
``/dev/zero`` (never ends), a FIFO (blocks), ``/etc/passwd`` (someone else's
file, printed back in a message). So each file is

* inside the site's folder or the engine's own ``templates/`` and ``locales/``
  once every link is followed;
* a regular file (opened without blocking, then checked, so a FIFO or device never stalls the build);
* read up to the bound of its kind (``LIMITS``) and no further.

Anything else is a ``Problem`` naming the file. Nothing of a refused file is read or quoted.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from ..errors import InputError, Problem
from ..layout import ENGINE_ROOT
from .text import decode_utf8, excerpt

DATA, CONTENT, TEMPLATE, ASSET, CATALOG = "data", "content", "template", "asset", "catalog"

LIMITS = {
    DATA: 4_000_000,      # data/*.yaml, data/measurements/*.yaml, content/pages.yaml: a few KB each
    CONTENT: 1_000_000,   # content/<language>/<page>.md: the longest is 45 KB. Compiling takes about 13 s and
                          # 3 GB per megabyte of template tags, so the sandbox's token bound (MAX_TOKENS) is the one
                          # that matters
    TEMPLATE: 1_000_000,  # templates/*.html, *.md: a few KB
    CATALOG: 2_000_000,   # locales/*/LC_MESSAGES/messages.po: 20 KB
    ASSET: 10_000_000,    # templates/static/*: the largest, calculator.js, is 28 KB
}
"""Largest file of each kind, in bytes: far above any real one, far below what would exhaust memory."""

ENGINE_FOLDERS = (ENGINE_ROOT / "templates", ENGINE_ROOT / "locales")
"""The engine's shared sources, which every site reads besides its own."""


def read_source(path: Path, name: str, kind: str, root: Path | None = None) -> bytes:
    """The bytes of the source file ``path`` (``name``: as messages call it, relative to the site's folder).

    ``root``: the site's folder; by default the part of ``path`` before ``name``. InputError if the file
    leaves the site and the engine's folders, is not a regular file, or is larger than ``LIMITS[kind]``.
    """
    path = Path(path)
    real = path.resolve()
    site = _site_root(path, name) if root is None else Path(root)
    allowed = (*ENGINE_FOLDERS, *([site] if site is not None else []))
    if not any(real.is_relative_to(folder.resolve()) for folder in allowed):
        raise _refused(name, f"is a link to {excerpt(str(real))}, outside the site's folder; "
                             "a source must be a file inside the site")
    return read_regular_file(real, name, LIMITS[kind], _too_large(LIMITS[kind]))


def read_regular_file(path: Path, name: str, limit: int, too_large: str) -> bytes:
    """``path``'s bytes, for any file read as input (a source, or a listing export or config named on the command
    line): InputError naming ``name`` when it cannot be opened, is no regular file, or holds more than ``limit``
    bytes (``too_large`` says so in the reader's words). Links are followed; where they may lead is the caller's
    rule."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _refused(name, "no such file") from None
    except OSError as error:
        raise _refused(name, f"cannot be read: {(error.strerror or str(error)).lower()}") from None
    try:
        return _bounded_read(handle, name, limit, too_large)
    finally:
        os.close(handle)


def read_source_text(path: Path, name: str, kind: str, root: Path | None = None) -> str:
    """``read_source`` as UTF-8 text; bytes that are not UTF-8 are a Problem at their line."""
    return decode_utf8(read_source(path, name, kind, root), name)


def universal_newlines(text: str) -> str:
    """Line ends as ``open()`` in text mode reads them: \\r\\n and \\r become \\n."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _bounded_read(handle: int, name: str, limit: int, too_large: str) -> bytes:
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode):
        raise _refused(name, f"is {_file_kind(info.st_mode)}, not a regular file; give a plain file")
    if info.st_size > limit:
        raise _refused(name, too_large)
    chunks, size = [], 0
    while size <= limit:  # the file may grow while it is read: never take more than the bound
        chunk = os.read(handle, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise _refused(name, too_large)
    return b"".join(chunks)


def _site_root(path: Path, name: str) -> Path | None:
    """The folder ``name`` is relative to: ``path`` less the parts of ``name``. A file named by its full path
    (on a command line) may be read in its own folder; a ``path`` that does not end in ``name`` (a link followed
    already) has no site folder, only the engine's."""
    if PurePosixPath(name).is_absolute():
        return path.parent
    parts = PurePosixPath(name).parts
    if parts and path.parts[-len(parts):] == parts:
        return Path(*path.parts[: -len(parts)]) if len(path.parts) > len(parts) else Path(".")
    return None


def _file_kind(mode: int) -> str:
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a plain file"


def _too_large(limit: int) -> str:
    return f"is larger than {limit / 1_000_000:g} MB, the most a source of its kind may be; is it the right file?"


def _refused(name: str, message: str) -> InputError:
    return InputError([Problem(name, None, "", message)])
