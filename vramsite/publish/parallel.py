"""Run one function over a few items on several cores, in forked copies of this process.

A build renders each language independently, so the languages can be shared
out among cores. A forked child starts with everything the parent has already
loaded and computed (libraries, data, compiled layouts), renders its share and
sends the results back pickled through a pipe. Results come back in the
items' order, so the output does not depend on how many workers ran.

Where ``os.fork`` is missing (Windows), or other threads are running (the
preview server), everything runs in this process, one item after another.

A worker dies with the build that forked it, however the build dies (SIGKILL
included): on Linux the kernel kills it (``PR_SET_PDEATHSIG``), which works
even while the worker is busy in C code; elsewhere a thread of the worker
watches for the parent to go away.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


PR_SET_PDEATHSIG = 1
"""prctl option: the signal this process gets when the thread that forked it ends (linux/prctl.h)."""
ORPHAN_POLL_SECONDS = 0.2


class WorkerFailed(RuntimeError):
    """A forked worker raised an exception or stopped without a result.

    The message is one line; ``worker_traceback`` holds the worker's whole traceback, if it raised.
    """

    def __init__(self, message: str, worker_traceback: str = ""):
        super().__init__(message)
        self.worker_traceback = worker_traceback


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    return hasattr(os, "fork") and threading.active_count() == 1


def map_in_workers(function: Callable[[Item], Result], items: Sequence[Item], workers: int) -> list[Result]:
    """``[function(item) for item in items]``, computed by up to ``workers`` processes.

    The items are dealt out in turn; this process takes the first share, each
    other share runs in a forked child. ``function`` must return something
    picklable. An exception in a child becomes ``WorkerFailed`` with the
    child's traceback.
    """
    items = list(items)
    workers = max(1, min(workers, len(items)))
    if workers == 1 or not can_fork():
        return [function(item) for item in items]
    shares = [range(first, len(items), workers) for first in range(workers)]
    pending = []
    try:
        for share in shares[1:]:
            pending.append((share, _fork(function, [items[index] for index in share])))
        results: list = [None] * len(items)
        for index in shares[0]:
            results[index] = function(items[index])
        while pending:
            share, (pid, pipe) = pending.pop(0)
            for index, result in zip(share, _collect(pid, pipe)):
                results[index] = result
        return results
    finally:
        for _, (pid, pipe) in pending:  # this process failed first: stop the children it started
            os.close(pipe)
            os.kill(pid, signal.SIGTERM)
            _reap(pid)


def _fork(function: Callable, items: list) -> tuple[int, int]:
    parent = os.getpid()
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    # The child: never return into the parent's code, whatever happens.
    status = 1
    try:
        _die_with(parent)
        os.close(read)
        try:
            payload = pickle.dumps((True, [function(item) for item in items]), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - sent to the parent, which raises it
            payload = pickle.dumps((False, traceback.format_exc()))
        with os.fdopen(write, "wb") as pipe:
            pipe.write(payload)
        status = 0
    finally:
        os._exit(status)


def _die_with(parent: int) -> None:
    """Make this worker end as soon as ``parent`` does, so that no killed build leaves workers behind."""
    if not kernel_kills_orphan():
        threading.Thread(target=_exit_once_orphaned, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def kernel_kills_orphan() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        # Tied to the forking thread, not the process: fine, as workers are forked only while the
        # parent runs a single thread (can_fork).
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _exit_once_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_SECONDS)
    os._exit(1)


def _collect(pid: int, pipe: int) -> list:
    with os.fdopen(pipe, "rb") as stream:
        payload = stream.read()
    status = _reap(pid)
    if not payload:
        raise WorkerFailed(f"a build worker stopped without a result (wait status {status})")
    succeeded, value = pickle.loads(payload)
    if not succeeded:
        raise WorkerFailed(f"a build worker failed: {_last_line(value)}", value)
    return value


def _last_line(text: str) -> str:
    """The exception a traceback ends with: 'ValueError: three is not allowed'."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no detail"


def _reap(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return status
