"""Run one function over a list of items on several cores, each item in a forked copy of this process.

A build cuts its work into shares (``publish/site.py``): each language's pages made once, and the pages made
once per item, a batch of items at a time. A forked child starts with everything the parent has already loaded
and compiled (libraries, data, layouts), renders its share, sends the results back pickled through a pipe and
ends, freeing what it worked out. Results come back in the items' order, so the output does not depend on how
many workers ran.

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
import select
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
PIPE_CHUNK = 1 << 20
"""How much of a child's results is read from its pipe at a time."""


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


def map_in_fresh_workers(function: Callable[[Item], Result], items: Sequence[Item], workers: int) -> list[Result]:
    """``[function(item) for item in items]``, each item computed in a forked child of its own that ends after it,
    at most ``workers`` at a time; this process only hands the items out and collects the results.

    What a child works out for its item is freed when it ends, so the memory of a long list of items stays that of
    the largest one. ``function`` must return something picklable; an exception in a child becomes
    ``WorkerFailed`` with the child's traceback. Where forking is not possible, or ``workers`` is 1, the items are
    computed here, one after another.
    """
    items = list(items)
    if workers <= 1 or not can_fork():
        return [function(item) for item in items]
    results: list = [None] * len(items)
    waiting = list(reversed(range(len(items))))
    running: dict[int, tuple[int, int, bytearray]] = {}
    """Each running child's pipe -> (its item's index, its pid, what it has sent so far)."""
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                index = waiting.pop()
                pid, pipe = _fork(function, [items[index]])
                running[pipe] = (index, pid, bytearray())
            ready, _, _ = select.select(list(running), [], [])
            for pipe in ready:
                index, pid, received = running[pipe]
                chunk = os.read(pipe, PIPE_CHUNK)
                if chunk:
                    received += chunk
                    continue
                del running[pipe]
                os.close(pipe)
                results[index] = _result(pid, received)[0]
        return results
    finally:
        for pipe, (_, pid, _) in running.items():  # this process or a child failed: stop the children still running
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


def _result(pid: int, payload: bytes | bytearray) -> list:
    """A child's results from all it sent, once it has ended; WorkerFailed where it failed or sent nothing."""
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
