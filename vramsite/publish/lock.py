"""One build at a time publishes into an output folder: an flock on OUT.lock beside it.

A second build of the same output waits its turn, up to WAIT_S, then refuses.
The kernel drops the lock when its holder exits, however it ends, so a killed
build never leaves it held. The lock file itself stays: removing it would let
a waiting build lock a file that the next one no longer sees.

Commands that rewrite a site's data files (``prices import``, ``model add``)
take another lock the same way, <site>/.cache/sources.lock
(``editing_sources``), from their first read to their write.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError, Problem
from ..layout import SiteLayout

WAIT_S = 300.0
POLL_S = 0.05


def lock_path(out: Path) -> Path:
    return out.with_name(out.name + ".lock")


@contextmanager
def locked(out: Path, wait_s: float = WAIT_S) -> Iterator[None]:
    path = lock_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:  # closing it releases the lock
        _acquire(handle, out, wait_s)
        yield


def _acquire(handle, out: Path, wait_s: float) -> None:
    if not _flocked(handle, wait_s):
        raise InputError([Problem(str(out), None, "output folder",
                                  f"another build was still publishing here after {wait_s:g} s of waiting "
                                  f"(it holds {lock_path(out).name}); try again when it has finished")])


EDIT_LOCK = "sources.lock"
"""In the site's .cache folder: held by a command that rewrites the site's data files (prices import, model add)."""


@contextmanager
def editing_sources(site: Path, wait_s: float | None = None) -> Iterator[None]:
    """One command at a time rewrites a site's data files: it holds this from its first read to its write,
    so a second one reads what the first wrote. A hand edit takes no lock; the command checks the file is as
    it read it before replacing it (``importers/data_file.py``)."""
    cache = SiteLayout(site).cache
    cache.mkdir(parents=True, exist_ok=True)
    wait_s = WAIT_S if wait_s is None else wait_s
    with open(cache / EDIT_LOCK, "ab") as handle:  # closing it releases the lock
        if not _flocked(handle, wait_s):
            raise InputError([Problem(str(site), None, "", f"another command was still rewriting this site's data "
                                                           f"after {wait_s:g} s of waiting (it holds "
                                                           f".cache/{EDIT_LOCK}); try again when it has finished")])
        yield


def _flocked(handle, wait_s: float) -> bool:
    """Whether this process holds ``handle``'s flock within ``wait_s``. Polled rather than blocking: a blocking
    flock cannot be given a deadline."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)
