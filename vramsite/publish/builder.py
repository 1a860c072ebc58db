"""The preview's builds, run in a process of their own so that they use every core as `build` does.

The preview server answers requests on threads, and a process that runs
threads does not fork (``parallel.can_fork``): a lock another thread held at
that moment would stay held in the child for good. Rendered in the server's
own process, a preview build therefore took one language after the other.
So `serve` starts a builder first, before its first thread: a forked child
that stays single-threaded, keeps its imports and caches warm from one build
to the next, and shares each build's languages out among forked workers like
`build`. A rebuild sends the site's folder, with the paths of the pages to
render first, over a pipe; it gets back those pages as soon as they are
rendered (``early``), then the whole site's files, the problems that stopped
the build, or the builder's traceback.

Where the builder cannot be started (no ``os.fork``, or threads already
running) or has gone away (killed), builds run in the calling process, the
same bytes more slowly.
"""

from __future__ import annotations

import os
import signal
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe
from pathlib import Path

from ..errors import InputError
from .parallel import WorkerFailed, can_fork, kernel_kills_orphan, usable_cores
from .site import render_site, render_site_collector_off

Early = Callable[[dict[str, bytes]], None]
Render = Callable[[Path, tuple[str, ...], "Early | None"], dict[str, bytes]]
"""``render(root, first, early)``: the whole site's files; the pages at the paths ``first`` go to ``early``
first, where it is given (``site.render_site``)."""


def render_kept(root: Path, first: tuple[str, ...] = (), early: Early | None = None) -> dict[str, bytes]:
    """The site, rendering again only the pages a save can have changed (publish/incremental.py)."""
    return render_site(root, incremental=True, first=first, early=early)


def render_on_every_core(root: Path, first: tuple[str, ...] = (), early: Early | None = None) -> dict[str, bytes]:
    """``render_kept`` with the languages shared out among the cores, as `build` renders."""
    return render_site_collector_off(root, usable_cores(), True, first, early)


class Builder:
    """A ``Render`` that builds in a forked, single-threaded child started on creation."""

    def __init__(self, render: Render = render_on_every_core, fallback: Render = render_kept):
        self.fallback = fallback
        self._connection: Connection | None = None
        self._pid: int | None = None
        if can_fork():
            self._start(render)

    @property
    def running(self) -> bool:
        """True while builds go to the child."""
        return self._connection is not None

    def __call__(self, root: Path, first: tuple[str, ...] = (), early: Early | None = None) -> dict[str, bytes]:
        connection = self._connection
        if connection is None:
            return self.fallback(root, first, early)
        try:
            connection.send((str(root), tuple(first) if early else ()))
            outcome, value = connection.recv()
            while outcome == "early":
                early(value)
                outcome, value = connection.recv()
        except (EOFError, OSError):  # the builder is gone: build here from now on
            self.close()
            return self.fallback(root, first, early)
        except BaseException:  # interrupted: the pipe's next answer would be this build's, so stop using it
            self.close()
            raise
        if outcome == "files":
            return value
        if outcome == "problems":
            raise InputError(value)
        message, worker_traceback = value
        raise WorkerFailed(message, worker_traceback)

    def close(self) -> None:
        """Stop the child (it also stops on its own once this process ends)."""
        # Taken out first: a request thread waiting on the pipe may call this at the same time.
        connection, self._connection = self._connection, None
        pid, self._pid = self._pid, None
        if connection is not None:
            connection.close()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass

    def _start(self, render: Render) -> None:
        parent = os.getpid()
        ours, theirs = Pipe()
        pid = os.fork()
        if pid:
            theirs.close()
            self._pid, self._connection = pid, ours
            return
        # The child: never return into the parent's code, whatever happens.
        status = 1
        try:
            ours.close()
            # Linux ends the builder with the server even mid-build; elsewhere it ends once the pipe
            # closes. Not a watching thread, as the workers have: it would keep the builder from forking.
            kernel_kills_orphan()
            if os.getppid() != parent:  # the server ended before that took effect
                return
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle; it then closes the pipe
            _answer_builds(theirs, render)
            status = 0
        finally:
            os._exit(status)


def _answer_builds(connection: Connection, render: Render) -> None:
    """Build each site folder the pipe brings, until it closes."""
    while True:
        try:
            root, first = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("files", render(Path(root), first, lambda files: connection.send(("early", files))))
        except InputError as error:
            answer = ("problems", error.problems)
        except Exception as error:  # noqa: BLE001 - sent to the server, which shows it on every page
            details = getattr(error, "worker_traceback", "") or traceback.format_exc()
            answer = ("crashed", (f"{type(error).__name__}: {error}", details))
        try:
            connection.send(answer)
        except (BrokenPipeError, OSError):
            return
