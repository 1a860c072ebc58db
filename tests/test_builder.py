"""The preview's builder process: the same files as a build in this process, on every core, while threads run."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from seed_sites import assemble_seed_site
from vramsite.errors import InputError
from vramsite.publish.builder import Builder, render_kept
from vramsite.publish.parallel import WorkerFailed, can_fork
from vramsite.publish.site import render_site
from vramsite.render.calculator import calculator_path

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform cannot fork")


def _where_it_ran(root, first=(), early=None) -> dict[str, bytes]:
    return {"pid": str(os.getpid()).encode(), "forks": str(can_fork()).encode()}


def _slow(root, first=(), early=None) -> dict[str, bytes]:
    time.sleep(5)
    return {"late": b"answer"}


class _Interrupted(Exception):
    """Raised by a timer in this process, as Ctrl-C raises KeyboardInterrupt."""


def _crash(root, first=(), early=None) -> dict[str, bytes]:
    raise ValueError(f"no build of {root.name} today")


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def builder():
    assert can_fork(), "a test left a thread running, so no builder would start"
    made: list[Builder] = []
    yield lambda *args, **kwargs: made.append(Builder(*args, **kwargs)) or made[-1]
    for each in made:
        each.close()


@needs_fork
def test_builds_in_a_single_threaded_child_while_this_process_runs_threads(builder):
    build = builder(render=_where_it_ran)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()  # as the preview server's request threads do
    try:
        assert not can_fork()
        ran = build(None)
    finally:
        stop.set()
        thread.join()
    assert int(ran["pid"]) != os.getpid()
    assert ran["forks"] == b"True", "the builder itself may fork its workers"


@needs_fork
def test_the_same_files_as_a_build_in_this_process_and_again_after_an_edit(builder, tmp_path):
    site = assemble_seed_site(tmp_path / "a", "000")
    copy = assemble_seed_site(tmp_path / "b", "000")
    build = builder()
    assert build(site) == render_site(copy)
    for folder in (site, copy):
        _edit(folder / "data" / "prices.yaml", "usd: 240}", "usd: 255}")
    rebuilt = build(site)
    assert rebuilt == render_site(copy)
    assert any(b"255" in body for body in rebuilt.values())


@needs_fork
def test_the_pages_asked_for_first_come_back_before_the_whole_site_with_its_bytes(builder, tmp_path):
    site = assemble_seed_site(tmp_path, "000")
    early: list[dict[str, bytes]] = []
    first = ("en/pricing.html", "zh-cn/vram.html.md", "index.html", "en/no-such-page.html")
    files = builder()(site, first, early.append)
    assert len(early) == 1, "one hand-over, before the whole site"
    pages = {"en/pricing.html", "en/pricing.html.md", "zh-cn/vram.html", "zh-cn/vram.html.md",
             calculator_path("en"), calculator_path("zh-cn")}  # the languages' calculator data, which pages fetch
    assert set(early[0]) == pages | {path for path in files if path.startswith("assets/") and "/charts/" not in path}
    assert all(early[0][path] == files[path] for path in early[0])
    assert files == render_site(site)


@needs_fork
def test_problems_come_back_as_the_input_error_of_this_process(builder, tmp_path):
    site = assemble_seed_site(tmp_path / "a", "000")
    copy = assemble_seed_site(tmp_path / "b", "000")
    for folder in (site, copy):
        _edit(folder / "data" / "prices.yaml", "usd: 240}", "usd: -240}")
    with pytest.raises(InputError) as here:
        render_kept(copy)
    with pytest.raises(InputError) as there:
        builder()(site)
    assert [str(problem) for problem in there.value.problems] == [str(problem) for problem in here.value.problems]
    assert there.value.problems, "the edit must be refused"


@needs_fork
def test_a_crash_comes_back_with_the_builders_traceback_and_the_builder_lives_on(builder, tmp_path):
    build = builder(render=_crash)
    for _ in range(2):
        with pytest.raises(WorkerFailed, match="ValueError: no build of site today") as failure:
            build(tmp_path / "site")
        assert "Traceback" in failure.value.worker_traceback and "_crash" in failure.value.worker_traceback
    assert build.running


@needs_fork
def test_a_killed_builder_is_replaced_by_builds_in_this_process(builder, tmp_path):
    site = assemble_seed_site(tmp_path, "000")
    build = builder()
    os.kill(build._pid, signal.SIGKILL)
    time.sleep(0.1)
    assert build(site) == render_site(site)
    assert not build.running


@needs_fork
def test_closing_stops_the_child(builder):
    build = builder(render=_where_it_ran)
    pid = int(build(None)["pid"])
    build.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@needs_fork
def test_a_build_interrupted_here_stops_the_builder_so_no_late_answer_is_read_as_the_next(builder):
    build = builder(render=_slow)
    pid = build._pid

    def interrupt(*_):
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(_Interrupted):
            build(None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not build.running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
