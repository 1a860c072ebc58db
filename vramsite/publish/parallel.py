"""Run one function over a few items on several cores, in forked copies of this process.

A build renders each language independently, so the languages can be shared
out among cores. A forked child starts with everything the parent has already
loaded and computed (libraries, data, compiled layouts), renders its share and
sends the results back pickled through a pipe. Results come back in the
items' order, so the output does not depend on how many workers ran.

Where ``os.fork`` is missing (Windows), or other threads are running (the
preview server), everything runs in this process, one item after another.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class WorkerFailed(RuntimeError):
    """A forked worker raised an exception or stopped without a result."""


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
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    # The child: never return into the parent's code, whatever happens.
    status = 1
    try:
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


def _collect(pid: int, pipe: int) -> list:
    with os.fdopen(pipe, "rb") as stream:
        payload = stream.read()
    status = _reap(pid)
    if not payload:
        raise WorkerFailed(f"a build worker stopped without a result (wait status {status})")
    succeeded, value = pickle.loads(payload)
    if not succeeded:
        raise WorkerFailed(f"a build worker failed:\n{value}")
    return value


def _reap(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return status
