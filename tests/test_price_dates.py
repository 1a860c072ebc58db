"""`build.py check --base REV` warns when a price changed since REV but data/prices.yaml's `updated:` did not."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from cli_support import run_cli
from seed_sites import assemble_seed_site

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Editor", "GIT_AUTHOR_EMAIL": "editor@example.invalid",
           "GIT_COMMITTER_NAME": "Editor", "GIT_COMMITTER_EMAIL": "editor@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    """A repository holding the seed 000 site at its top and the seed 003 site in sites/quick, committed."""
    assemble_seed_site(tmp_path, "000")
    assemble_seed_site(tmp_path / "sites" / "quick", "003")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "prices as checked")
    return tmp_path


def replace(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path, start: str) -> int:
    return next(number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if line.startswith(start))


def check(site, *options: str) -> subprocess.CompletedProcess:
    return run_cli("check", "--site", str(site), "--jobs", "1", *options)


def test_a_price_changed_under_an_old_date_is_a_warning(repo):
    prices = repo / "data" / "prices.yaml"
    replace(prices, "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    replace(prices, "{gpu: l4, usd: 250}", "{gpu: l4, usd: 260}")
    run = check(repo, "--base", "HEAD")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("no problems found")
    assert run.stderr == (f"data/prices.yaml:{line_of(prices, 'updated:')}: updated: prices changed since HEAD "
                          "(a40, l4) but updated: is still 2026-09-01\n")


def test_a_new_date_with_the_new_price_is_quiet(repo):
    prices = repo / "data" / "prices.yaml"
    replace(prices, "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    replace(prices, "updated: 2026-09-01", "updated: 2026-12-01")
    run = check(repo, "--base", "HEAD")
    assert (run.returncode, run.stderr) == (0, "")


def test_the_same_prices_are_quiet(repo):
    replace(repo / "data" / "prices.yaml", "hours_per_month: 720", "hours_per_month: 730")
    run = check(repo, "--base", "HEAD")
    assert (run.returncode, run.stderr) == (0, "")


def test_without_a_base_nothing_is_compared(repo):
    replace(repo / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    run = check(repo)
    assert (run.returncode, run.stderr) == (0, "")


def test_a_committed_price_is_compared_with_the_revision_named(repo):
    replace(repo / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    git(repo, "commit", "-q", "-am", "A40 at $300")
    assert check(repo, "--base", "HEAD").stderr == ""
    assert "prices changed since HEAD~1 (a40)" in check(repo, "--base", "HEAD~1").stderr


def test_the_second_site_in_its_folder(repo):
    prices = repo / "sites" / "quick" / "data" / "prices.yaml"
    replace(prices, "{gpu: h100, usd: 1.65}", "{gpu: h100, usd: 1.75}")
    run = check(repo / "sites" / "quick", "--base", "HEAD")
    assert run.returncode == 0, run.stderr
    assert run.stderr == (f"data/prices.yaml:{line_of(prices, 'updated:')}: updated: prices changed since HEAD "
                          "(h100) but updated: is still 2026-10-31 17:40 UTC\n")


def test_an_unknown_base_is_one_line_and_status_2(repo):
    run = check(repo, "--base", "no-such-branch")
    assert run.returncode == 2
    assert run.stderr == f"check: --base no-such-branch: no commit 'no-such-branch' in the repository at {repo}\n"
