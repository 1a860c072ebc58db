"""The preview's site: the files of its last whole build, and the build under way after a save.

A request, or the one watcher that looks at the sources while a reload
stream is open (or `serve` runs), that finds a source changed since
the last build starts the next one, in a thread of its own; one build runs at
a time, and a change saved meanwhile is built once it ends. Each request
serves one build, never a mix of two: the whole site as last built, or, while
a build runs, what it has finished.

A build renders first the pages a reader has in view (the pages open in a
browser, listening for reloads, and the page asked for last), with the site's
static assets, and hands them over before the rest of the site is rendered:
the same bytes as the whole build gives them (``SiteBuild.pages_first``). A
request for one of them, or a reload stream of one of them, is answered from
those at once; any other request waits for the whole build. So an editor
sees the page they look at as soon as it is rendered, as Hugo's server
does in its fast render mode, while the rest of the site follows.

Builds are numbered. A page carries the number of the build it came from and
its reload stream waits for a newer one. A build that handed over pages and
then failed takes the next number as well, so that those pages reload into
the list of problems.
"""

from __future__ import annotations

import posixpath
import sys
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import InputError, Problem
from ..layout import SiteLayout
from .builder import Render, render_kept
from .parallel import WorkerFailed

RECENT_PAGES = 4
"""How many pages asked for last a build renders first, beside those open in a browser."""


@dataclass
class RunningBuild:
    number: int
    first: tuple[str, ...]
    """Paths of the pages it renders first."""
    ready: dict[str, bytes] = field(default_factory=dict)
    """Those pages, their twins and the static assets, once rendered."""
    ready_after: float | None = None
    outdated: bool = False
    """A source changed since it started: nothing is answered from it before it ends, and the next build
    starts then."""

    def answers(self, path: str | None) -> bool:
        return not self.outdated and path in self.ready


class PreviewSite:
    """The site as last built from ``root``, rebuilt when a source file changed."""

    def __init__(self, root: Path, render: Render = render_kept, log: Callable[[str], None] | None = None,
                 debug: bool = False):
        self.root = Path(root)
        self.render = render
        self.log = log or _print
        self.debug = debug
        self.files: dict[str, bytes] = {}
        self.problems: list[Problem] = []
        self.builds = 0
        """The number of the newest build, finished or under way."""
        self._finished = 0
        """The number of the build ``files`` and ``problems`` come from."""
        self._stamp: tuple | None = None
        self._running: RunningBuild | None = None
        self._open: dict[str, int] = {}
        """Pages open in a browser (their reload streams), by path: how many."""
        self._recent: list[str] = []
        """The pages asked for last, the latest first."""
        self._changed = threading.Condition()
        self._watch_periods: list[float] = []
        """How often each block under ``watched`` asks for the sources to be looked at."""
        self._watcher: threading.Thread | None = None

    def folders(self) -> list[Path]:
        """The site's watched folders, and the engine's templates and catalogs that a site falls back on."""
        folders = SiteLayout(self.root).watched_folders(("templates", "locales"))
        return [folder for folder in folders if folder.is_dir()]

    def stamp(self) -> tuple:
        """Path, modification time and size of every file under the watched folders."""
        entries = []
        for folder in self.folders():
            for path in folder.rglob("*"):
                try:
                    status = path.stat()
                except OSError:  # removed while we looked
                    continue
                if path.is_file():
                    entries.append((str(path), status.st_mtime_ns, status.st_size))
        return tuple(sorted(entries))

    # -- what requests are answered from ------------------------------------------

    def current(self) -> tuple[dict[str, bytes], list[Problem]]:
        """The files of the latest whole build, or the problems that stopped it; builds first if sources changed."""
        files, problems, _ = self.snapshot()
        return files, problems

    def snapshot(self) -> tuple[dict[str, bytes], list[Problem], int]:
        """``current()`` and the number of the build it comes from, taken together."""
        with self._changed:
            return self._answered(lambda running: False)

    def answer(self, url_path: str) -> tuple[dict[str, bytes], list[Problem], int]:
        """``snapshot()`` for a request of ``url_path``: from a build under way as soon as the page is among
        the pages it renders first."""
        with self._changed:
            wanted = resolve(self.files, url_path)[0] or site_path(url_path)
            if wanted.endswith(".html"):
                self._recent = [wanted] + [path for path in self._recent if path != wanted][:RECENT_PAGES - 1]
            return self._answered(lambda running: running.answers(resolve(running.ready, url_path)[0]))

    def _answered(self, early: Callable[[RunningBuild], bool]) -> tuple[dict[str, bytes], list[Problem], int]:
        """The files, problems and number of the build a request is answered from, once there is one (lock
        held): the build under way where ``early`` says what it handed over will do, else the whole build
        (a source changed since the last one: the next, which this starts)."""
        self._build_if_changed()
        while self._running is not None:
            if early(self._running):
                return self._running.ready, [], self._running.number
            self._changed.wait()
            self._build_if_changed()
        return self.files, self.problems, self._finished

    def newer_than(self, since: int, page: str, seconds: float) -> int | None:
        """The number of a build newer than ``since`` that ``page`` can be answered from, once there is one;
        None if there is none within ``seconds``. It looks at no file: the builds a watcher (``watched``) or a
        request starts wake it, and it waits without holding the lock."""
        deadline = time.monotonic() + seconds
        with self._changed:
            while True:
                running = self._running
                if running is not None and running.number != since and running.answers(page):
                    return running.number
                if running is None and self._finished != since:
                    return self._finished
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)

    @contextmanager
    def viewing(self, page: str):
        """``page`` is open in a browser for the block: builds render it first."""
        if not page:
            yield
            return
        with self._changed:
            self._open[page] = self._open.get(page, 0) + 1
        try:
            yield
        finally:
            with self._changed:
                self._open[page] -= 1
                if not self._open[page]:
                    del self._open[page]

    @contextmanager
    def watched(self, seconds: float):
        """The sources are looked at every ``seconds`` (or more often, where another block asks) for the
        block, and a change starts its build. One watcher thread does it however many blocks ask, and ends
        when none does: a scan of the sources takes the lock, so one scan per period, not one per open page.
        """
        with self._changed:
            self._watch_periods.append(seconds)
            if self._watcher is None:
                self._watcher = threading.Thread(target=self._watch, name="watch-sources", daemon=True)
                self._watcher.start()
        try:
            yield
        finally:
            with self._changed:
                self._watch_periods.remove(seconds)

    def _watch(self) -> None:
        while True:
            with self._changed:
                if not self._watch_periods:
                    self._watcher = None
                    return
                period = min(self._watch_periods)
                self._build_if_changed()
            time.sleep(period)

    # -- building -----------------------------------------------------------------

    def _build_if_changed(self) -> None:
        """Start the next build in a thread of its own if a source changed and none is under way (lock held)."""
        stamp = self.stamp()
        if stamp == self._stamp:
            return
        if self._running is not None:
            self._running.outdated = True
            return
        self._stamp = stamp
        self.builds += 1
        first = tuple(dict.fromkeys([*self._open, *self._recent]))
        self._running = RunningBuild(self.builds, first)
        threading.Thread(target=self._build, args=(self._running,), name=f"build-{self.builds}", daemon=True).start()

    def _build(self, running: RunningBuild) -> None:
        started = time.monotonic()

        def early(files: dict[str, bytes]) -> None:
            with self._changed:
                running.ready, running.ready_after = files, time.monotonic() - started
                self._changed.notify_all()

        files, problems = self._render(running.first, early)
        with self._changed:
            if problems and running.ready:
                self.builds += 1  # pages from this build are out: their reload streams wait for a newer number
            self.files, self.problems, self._finished = files, problems, self.builds
            self._running = None
            self._changed.notify_all()
        self._report(len(files), problems, time.monotonic() - started, running)

    def _render(self, first: tuple[str, ...], early) -> tuple[dict[str, bytes], list[Problem]]:
        try:
            return self.render(self.root, first, early), []
        except InputError as error:
            return {}, list(error.problems)
        except Exception as error:  # noqa: BLE001 - a preview shows any failure instead of dying
            # A failure in the builder process arrives as WorkerFailed, its message already naming the exception.
            what = str(error) if isinstance(error, WorkerFailed) else f"{type(error).__name__}: {error}"
            if self.debug:
                self.log(getattr(error, "worker_traceback", "") or traceback.format_exc())
            return {}, [Problem("(build)", None, "", f"the build crashed: {what}")]

    def _report(self, files: int, problems: list[Problem], seconds: float, running: RunningBuild) -> None:
        if problems:
            count = len(problems)
            self.log(f"build failed, {count} problem{'s' if count != 1 else ''} (shown on every page):")
            for problem in problems:
                self.log(f"  {problem}")
            return
        first = [path for path in running.first if path in running.ready]
        ahead = f" ({', '.join(first)} in {running.ready_after:.2f} s)" if first else ""
        self.log(f"built {files} files in {seconds:.1f} s{ahead}")


def resolve(files: dict[str, bytes], url_path: str) -> tuple[str | None, str | None]:
    """(file to serve, or None) and (a path to redirect to, or None) for a request path."""
    clean = site_path(url_path)
    if clean == "" or clean.endswith("/"):
        index = clean + "index.html"
        return (index, None) if index in files else (None, None)
    if clean in files:
        return clean, None
    if f"{clean}/index.html" in files:
        return None, f"/{clean}/"
    return None, None


def site_path(url_path: str) -> str:
    """A request path as a path in the site, unquoted and kept inside it ('en/', 'en/vram.html', '')."""
    path = unquote(urlsplit(url_path).path)
    clean = posixpath.normpath("/" + path.lstrip("/")).lstrip("/")
    if clean in (".", ""):
        return ""
    return clean + "/" if path.endswith("/") else clean


def _print(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
