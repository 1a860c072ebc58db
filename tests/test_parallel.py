"""A build's shares rendered side by side in forked workers: the same bytes, the same problems, no stray processes."""

from __future__ import annotations

import os
import time

import pytest

from cli_support import copy_sources, named_models_only
from conftest import ROOT
from vramsite.errors import InputError
from vramsite.publish import site as site_module
from vramsite.publish.parallel import WorkerFailed, can_fork, map_in_fresh_workers
from vramsite.publish.site import SiteBuild

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform cannot fork")


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _square_and_pid(number: int) -> tuple[int, int]:
    return number * number, os.getpid()


def _fail_on_three(number: int) -> int:
    if number == 3:
        raise ValueError("three is not allowed")
    return number


def _pid_and_times(number: int) -> tuple[int, int, float, float]:
    started = time.monotonic()
    time.sleep(0.05)
    return number * number, os.getpid(), started, time.monotonic()


@needs_fork
@pytest.mark.parametrize("workers", [2, 3])
def test_each_item_runs_in_a_child_of_its_own_at_most_workers_at_a_time(workers):
    assert can_fork(), "a test left a thread running, so nothing here would fork"
    results = map_in_fresh_workers(_pid_and_times, range(7), workers)
    assert [square for square, *_ in results] == [n * n for n in range(7)]
    pids = {pid for _, pid, _, _ in results}
    assert len(pids) == 7 and os.getpid() not in pids  # a child per item; this process only collects
    moments = sorted([(start, 1) for *_, start, _ in results] + [(end, -1) for *_, end in results])
    running = [sum(step for _, step in moments[:index + 1]) for index in range(len(moments))]
    assert max(running) <= workers
    assert _no_children_left()


def test_one_worker_computes_every_item_here():
    results = map_in_fresh_workers(_pid_and_times, range(3), 1)
    assert {pid for _, pid, _, _ in results} == {os.getpid()}


@needs_fork
def test_a_failure_in_a_worker_carries_its_traceback():
    with pytest.raises(WorkerFailed, match="three is not allowed") as failure:
        map_in_fresh_workers(_fail_on_three, [1, 3, 5, 7], 2)
    assert "ValueError" in str(failure.value)
    assert _no_children_left()


@needs_fork
@pytest.mark.parametrize("name", ["default", "quick"])
def test_side_by_side_renders_the_same_bytes(name, monkeypatch, tmp_path):
    """The default site with its catalogue cut to the models its other data names: every page kind, layer kind,
    format and engine, in shares of four items."""
    site = named_models_only(copy_sources(tmp_path)) if name == "default" else ROOT / "sites" / "quick"
    alone = SiteBuild(site).render(workers=1)
    monkeypatch.setattr(site_module, "ITEMS_PER_SHARE", 4)  # many shares, as a large catalogue makes
    build = SiteBuild(site)
    assert len(build.shares()) > 4
    side_by_side = build.render(workers=2)
    assert sorted(alone) == sorted(side_by_side)
    assert [path for path in alone if alone[path] != side_by_side[path]] == []


@needs_fork
def test_problems_found_by_a_worker_are_reported(site_copy):
    """Every share renders in a forked worker: the problems found there still reach the report."""
    named_models_only(site_copy)  # the problems are the shares', not the catalogue's
    page = site_copy / "content" / "en" / "gpus.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n{{ broken(\n", encoding="utf-8")
    index = site_copy / "content" / "en" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + '\n{{ _("A string no catalog has") }}\n', encoding="utf-8")
    with pytest.raises(InputError) as error:
        SiteBuild(site_copy).render(workers=2)
    reported = [str(problem) for problem in error.value.problems]
    assert any(line.startswith("content/en/gpus.md:") and "syntax error" in line for line in reported), reported
    assert any("'A string no catalog has'" in line and "locales/en/" in line for line in reported), reported
    assert _no_children_left()
