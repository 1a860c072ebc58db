"""Languages rendered side by side in forked workers: the same bytes, the same problems, no stray processes."""

from __future__ import annotations

import os

import pytest

from conftest import ROOT
from vramsite.errors import InputError
from vramsite.publish.parallel import WorkerFailed, can_fork, map_in_workers
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


@needs_fork
@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_results_come_back_in_order_from_several_processes(workers):
    assert can_fork(), "a test left a thread running, so nothing here would fork"
    results = map_in_workers(_square_and_pid, range(7), workers)
    assert [square for square, _ in results] == [n * n for n in range(7)]
    assert len({pid for _, pid in results}) == min(workers, 7)
    assert results[0][1] == os.getpid()  # the first share runs in this process
    assert _no_children_left()


@needs_fork
def test_a_failure_in_a_worker_carries_its_traceback():
    with pytest.raises(WorkerFailed, match="three is not allowed") as failure:
        map_in_workers(_fail_on_three, [1, 3], 2)  # 3 is the second share: a child's
    assert "ValueError" in str(failure.value)
    assert _no_children_left()


@needs_fork
def test_a_failure_here_stops_and_reaps_the_workers():
    with pytest.raises(ValueError, match="three is not allowed"):
        map_in_workers(_fail_on_three, [3, 1], 2)  # 3 is in this process's share
    assert _no_children_left()


@needs_fork
@pytest.mark.parametrize("site", [ROOT, ROOT / "sites" / "quick"], ids=["default", "quick"])
def test_side_by_side_renders_the_same_bytes(site):
    alone = SiteBuild(site).render(workers=1)
    side_by_side = SiteBuild(site).render(workers=2)
    assert sorted(alone) == sorted(side_by_side)
    assert [path for path in alone if alone[path] != side_by_side[path]] == []


@needs_fork
def test_problems_found_by_a_worker_are_reported(site_copy):
    """English renders in the forked worker (it is the second language): its problems still reach the report."""
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
