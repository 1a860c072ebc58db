"""One build at a time publishes into an output folder: an flock on OUT.lock beside it.

A second build of the same output waits its turn, up to WAIT_S, then refuses.
The kernel drops the lock when its holder exits, however it ends, so a killed
build never leaves it held. The lock file itself stays: removing it would let
a waiting build lock a file that the next one no longer sees.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError, Problem

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
    """Poll rather than block: a blocking flock cannot be given a deadline."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise InputError([Problem(str(out), None, "output folder",
                                          f"another build was still publishing here after {wait_s:g} s of waiting "
                                          f"(it holds {lock_path(out).name}); try again when it has finished")])
            time.sleep(POLL_S)
