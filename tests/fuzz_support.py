"""What every fuzz target shares: the hypothesis profiles, a hang guard, a write guard.

Two profiles are registered: "ci" (the default: the fuzz tests take seconds)
and "long" (minutes of fuzzing), chosen by the environment variable
VRAMSITE_FUZZ::

    VRAMSITE_FUZZ=long .venv/bin/python -m pytest -p no:cacheprovider tests/test_fuzz_readers.py

A target takes its settings from ``fuzz_settings()``, as a decorator
(``@fuzz_settings()``, or ``@fuzz_settings(max_examples=20)`` for a slow
target); nothing here changes the settings of other tests.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, settings

CONTENT_NAME = "content/en/index.md"
CONTENT_FRONT = "---\ntitle: Fuzz {{ g.card_count | fig }}\ndescription: fuzzing\n---\n"

PROFILE_VARIABLE = "VRAMSITE_FUZZ"

settings.register_profile(
    "ci", max_examples=40, deadline=timedelta(seconds=5), database=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long", max_examples=5000, deadline=timedelta(seconds=5), database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

HANG_SECONDS = 20
"""No reader may take this long on any input; the deadline above is the usual limit."""


def fuzz_profile() -> str:
    """The profile VRAMSITE_FUZZ names: "ci" unless it says "long"."""
    return "long" if os.environ.get(PROFILE_VARIABLE, "").strip().lower() == "long" else "ci"


def fuzz_settings(**overrides) -> settings:
    """Hypothesis settings of the selected profile, with ``overrides`` (the "long" profile keeps its count)."""
    chosen = settings.get_profile(fuzz_profile())
    if fuzz_profile() == "long":
        overrides.pop("max_examples", None)
    return settings(chosen, **overrides)


class Hang(Exception):
    """A reader ran past HANG_SECONDS on one input."""


@contextmanager
def no_hang(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Interrupt the block with Hang after ``seconds``: a hypothesis deadline only fails a finished example."""
    def interrupt(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_CHANGES = {"os.mkdir", "os.remove", "os.rename", "os.rmdir", "os.truncate", "os.symlink", "os.link", "os.chmod"}
_watch: dict = {"allowed": None, "writes": []}


def _audit(event: str, args: tuple) -> None:
    allowed = _watch["allowed"]
    if allowed is None:
        return
    if event == "open":
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(letter in mode for letter in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
    elif event in _CHANGES:
        path, writing = args[0], True
    else:
        return
    if writing and isinstance(path, (str, bytes, os.PathLike)):
        target = Path(os.fsdecode(path)).resolve()
        if not target.is_relative_to(allowed):
            _watch["writes"].append(f"{event} {target}")


sys.addaudithook(_audit)  # an audit hook cannot be removed: it does nothing outside watch_writes()


@contextmanager
def watch_writes(allowed: Path) -> Iterator[list[str]]:
    """The writes made inside the block to anywhere outside ``allowed``, listed as they happen."""
    _watch["allowed"], _watch["writes"] = Path(allowed).resolve(), []
    try:
        yield _watch["writes"]
    finally:
        _watch["allowed"] = None


# -- a content page to render bodies in ---------------------------------------------


def content_page(folder: Path):
    """A build of the seed site in ``folder``, and its English index page's two scopes (Markdown, HTML)."""
    from seed_sites import assemble_seed_site
    from vramsite.publish.site import SiteBuild
    from vramsite.render.scope import HTML, MD, Scope

    root = assemble_seed_site(folder, "000")
    build = SiteBuild(root)
    locale = next(locale for locale in build.data.site.locales if locale.segment == "en")
    scopes = [Scope(build.scope_services, locale, mode, "en/index.html") for mode in (MD, HTML)]
    return root, build, scopes


def render_body(root: Path, build, scopes, body: str) -> None:
    """Write ``body`` as the index page's body (after ``CONTENT_FRONT``) and render it in both scopes."""
    from vramsite.render.content import page_meta, read_content, render_content

    path = root / CONTENT_NAME
    path.write_text(CONTENT_FRONT + body, encoding="utf-8")
    source = read_content(path, CONTENT_NAME, build.content_env)
    for scope in scopes:
        page_meta(source, scope.content_context())
        render_content(source, source.template, scope.content_context())
