"""The bytes of a file an editor names, read as untrusted input: a regular file, and at most a bound.

A path may name a FIFO (opening it for reading waits for a writer that
never comes), a device (/dev/zero never ends) or a 1 GB file: it is opened
without blocking, looked at with fstat, and read no further than one byte
past the bound, so each is refused at once and in one line. Links are
followed: a Hugging Face download's config.json is a link into its blobs.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InputError, Problem


def read_bounded(path: Path, name: str, limit: int, too_large: str) -> bytes:
    """``path``'s bytes; InputError naming ``name`` when it is no regular file or holds more than ``limit``
    bytes (``too_large`` says so in the reader's words)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise InputError([Problem(name, None, "", _unreadable(error))]) from None
    try:
        kind = _not_regular(os.fstat(descriptor).st_mode)
        if kind:
            raise InputError([Problem(name, None, "", f"is {kind}, not a file")])
        with open(descriptor, "rb", closefd=False) as file:
            raw = file.read(limit + 1)
    finally:
        os.close(descriptor)
    if len(raw) > limit:
        raise InputError([Problem(name, None, "", too_large)])
    return raw


def _unreadable(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file"
    return f"cannot be read: {(error.strerror or str(error)).lower()}"


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular one is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"
