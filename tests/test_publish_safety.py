"""Publishing safely: the output folder is checked before anything is removed, and a site is swapped in
under a lock in one atomic step, so that a refused, concurrent, read-only or killed build leaves a
complete site (the old one or the new one) and every other folder byte for byte as it was."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ROOT, hashes, run_build, run_cli
from seed_sites import assemble_seed_site
from vramsite.errors import InputError
from vramsite.publish import writer
from vramsite.publish.lock import lock_path, locked
from vramsite.publish.output import MARKER, MARKER_TEXT, check_location
from vramsite.publish.writer import SiteFiles, write_site

PRICE = re.compile(r"(\{gpu: [\w.-]+, usd: )[\d.]+(\})")
PRICES = ("1111", "2222")
"""Two prices for the first card: the two sites a build may leave."""


def set_price(site: Path, usd: str) -> None:
    prices = site / "data" / "prices.yaml"
    text, count = PRICE.subn(rf"\g<1>{usd}\g<2>", prices.read_text(encoding="utf-8"), count=1)
    assert count == 1, "data/prices.yaml lists no {gpu: ..., usd: ...} entry"
    prices.write_text(text, encoding="utf-8")


def build_process(site: Path) -> subprocess.Popen:
    """``run_build`` started, not waited for."""
    return subprocess.Popen([sys.executable, str(ROOT / "build.py"), "build", "--site", str(site),
                             "--out", str(site / "site")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def leftovers(site: Path) -> list[str]:
    """Versions beside the current one and links a build left behind."""
    current = os.path.realpath(site / "site")
    versions = [str(path) for path in (site / "site.versions").iterdir() if os.path.realpath(path) != current]
    return versions + [path.name for path in site.glob("site.*.link")]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, dict[str, str]], float]:
    """Sources built at each of PRICES: the folder, the site each price gives, and how long a build takes."""
    site = assemble_seed_site(tmp_path_factory.mktemp("built") / "src", "000")
    expected, started = {}, time.monotonic()
    for usd in PRICES:
        set_price(site, usd)
        run = run_build(site)
        assert run.returncode == 0, run.stderr
        expected[usd] = hashes(site / "site")
    assert expected[PRICES[0]] != expected[PRICES[1]]
    return site, expected, (time.monotonic() - started) / len(PRICES)


@pytest.fixture
def site(built, tmp_path) -> Path:
    """A copy of the built sources, its site (a link to its one version) built at the last of PRICES."""
    copy = tmp_path / "src"
    shutil.copytree(built[0], copy, symlinks=True)
    return copy


@pytest.fixture
def expected(built) -> dict[str, dict[str, str]]:
    return built[1]


def assert_refused(run: subprocess.CompletedProcess, out: Path, reason: str) -> None:
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [f"{out}: output folder: {reason}", "1 problem; nothing was written."]


# -- where a build may publish -------------------------------------------------------


@pytest.mark.parametrize("name", ["data", "content", "templates", "locales"])
def test_a_source_folder_is_refused_and_kept(site, name):
    before = hashes(site)
    run = run_cli("build", "--site", str(site), "--out", str(site / name))
    assert_refused(run, site / name, f"is the site's {name} folder; choose another with --out")
    assert hashes(site) == before


def test_a_folder_inside_the_data_is_refused_and_not_made(site):
    before = hashes(site)
    run = run_cli("build", "--site", str(site), "--out", str(site / "data" / "out"))
    assert_refused(run, site / "data" / "out", f"is inside the site's data folder ({site / 'data'}); "
                                                "choose another with --out")
    assert hashes(site) == before and not (site / "data" / "out").exists()


def test_a_link_to_the_data_is_refused(site, tmp_path):
    link = tmp_path / "public"
    link.symlink_to(site / "data")
    before = hashes(site)
    run = run_cli("build", "--site", str(site), "--out", str(link))
    assert_refused(run, link, "is the site's data folder; choose another with --out")
    assert hashes(site) == before and os.readlink(link) == str(site / "data")


def test_the_site_folder_itself_is_refused(site):
    before = hashes(site)
    run = run_cli("build", "--site", str(site), "--out", str(site))
    assert_refused(run, site, "is the site's folder; choose another with --out")
    assert hashes(site) == before


def test_a_parent_of_the_site_folder_is_refused(site):
    parent = site.parent
    before = hashes(parent)
    run = run_cli("build", "--site", str(site), "--out", str(parent))
    assert_refused(run, parent, f"holds the site's folder ({site}); choose another with --out")
    assert hashes(parent) == before


def test_the_repository_is_refused(site):
    entries, build_py = sorted(os.listdir(ROOT)), (ROOT / "build.py").read_bytes()
    run = run_cli("build", "--site", str(site), "--out", str(ROOT))
    assert_refused(run, ROOT, "is the repository; choose another with --out")
    assert sorted(os.listdir(ROOT)) == entries and (ROOT / "build.py").read_bytes() == build_py
    assert (ROOT / ".git").is_dir() and not lock_path(ROOT).exists()


@pytest.mark.parametrize("out, reason", [
    (ROOT / "vramsite" / "calc", f"is inside the engine's vramsite folder ({ROOT / 'vramsite'})"),
    (ROOT / "templates", "is the engine's templates folder"),
    (ROOT / ".git" / "refs" / "tags", f"is inside the repository's .git folder ({ROOT / '.git'})"),
])
def test_the_engines_own_folders_are_refused(site, out, reason):
    with pytest.raises(InputError) as refused:
        check_location(out, site)
    assert str(refused.value) == f"{out}: output folder: {reason}; choose another with --out"


def test_a_folder_beside_or_inside_the_site_is_accepted(site, tmp_path):
    for out in (site / "site", site / "public" / "en", tmp_path / "elsewhere", ROOT / "site"):
        check_location(out, site)


def test_the_root_of_the_file_system_is_refused(site):
    entries = sorted(os.listdir("/"))
    run = run_cli("build", "--site", str(site), "--out", "/")
    assert_refused(run, Path("/"), "is the root of the file system; choose another with --out")
    assert sorted(os.listdir("/")) == entries


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "users" / "editor"
    home.mkdir(parents=True)
    (home / "notes.txt").write_text("mine", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    return home


def test_the_home_folder_is_refused(site, home):
    before = hashes(home.parent)
    run = run_cli("build", "--site", str(site), "--out", str(home))
    assert_refused(run, home, "is the home folder; choose another with --out")
    assert hashes(home.parent) == before


def test_a_folder_holding_the_home_folder_is_refused(site, home):
    before = hashes(home.parent)
    run = run_cli("build", "--site", str(site), "--out", str(home.parent))
    assert_refused(run, home.parent, f"holds the home folder ({home}); choose another with --out")
    assert hashes(home.parent) == before


def test_a_folder_of_other_files_is_refused_and_nothing_made_beside_it(site, tmp_path):
    foreign = tmp_path / "photos"
    (foreign / "2026").mkdir(parents=True)
    (foreign / "2026" / "beach.jpg").write_bytes(b"\xff\xd8 not a page")
    entries = sorted(os.listdir(tmp_path))
    before = hashes(foreign)
    run = run_cli("build", "--site", str(site), "--out", str(foreign))
    assert_refused(run, foreign, "holds files build.py did not write, such as '2026/beach.jpg'; "
                                 "empty the folder or choose another with --out")
    assert hashes(foreign) == before and sorted(os.listdir(tmp_path)) == entries


def test_a_file_is_refused(site, tmp_path):
    file = tmp_path / "site.html"
    file.write_text("a page of mine", encoding="utf-8")
    run = run_cli("build", "--site", str(site), "--out", str(file))
    assert_refused(run, file, "is a file, not a folder; choose another with --out")
    assert file.read_text(encoding="utf-8") == "a page of mine"


def test_an_empty_folder_becomes_a_link_to_a_complete_site(site, expected, tmp_path):
    out = tmp_path / "public"
    out.mkdir()
    run = run_cli("build", "--site", str(site), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert out.is_symlink() and hashes(out) == expected[PRICES[1]]


def legacy_site(site: Path, target: Path) -> Path:
    """The site as an older release left it: a real folder, no mark."""
    shutil.copytree(site / "site", target, copy_function=os.link)
    (target / MARKER).unlink()
    return target


def test_a_site_from_before_the_mark_is_taken_over_keeping_its_files(site, expected, tmp_path):
    out = legacy_site(site, tmp_path / "old-site")
    inodes = {path: (out / path).stat().st_ino for path in hashes(out)}
    run = run_cli("build", "--site", str(site), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert out.is_symlink() and hashes(out) == expected[PRICES[1]]
    assert all((out / path).stat().st_ino == inode for path, inode in inodes.items()), "a file was rewritten"
    assert [path.name for path in (tmp_path / "old-site.versions").iterdir()] == [Path(os.readlink(out)).name]


def test_a_site_from_before_the_mark_with_a_file_of_its_own_is_refused(site, tmp_path):
    out = legacy_site(site, tmp_path / "old-site")
    (out / "en" / "draft.html").write_text("not from a build", encoding="utf-8")
    before = hashes(out)
    run = run_cli("build", "--site", str(site), "--out", str(out))
    assert_refused(run, out, "holds files build.py did not write, such as 'en/draft.html'; "
                             "empty the folder or choose another with --out")
    assert hashes(out) == before and not out.is_symlink()


def test_the_mark_is_in_the_folder_but_not_a_page_of_the_site(site):
    out = site / "site"
    assert (out / MARKER).read_bytes() == MARKER_TEXT
    for listing in ("sitemap.xml", "llms.txt"):
        assert MARKER not in (out / listing).read_text(encoding="utf-8")
    with pytest.raises(InputError, match="reserved"):
        SiteFiles().add(MARKER, b"x", "content/pages.yaml")


# -- one atomic, locked step ----------------------------------------------------------


def test_a_site_deployed_as_a_link_stays_a_link_to_a_complete_site(site, expected, tmp_path):
    releases = tmp_path / "releases"
    (releases / "first").mkdir(parents=True)
    out = tmp_path / "public"
    out.symlink_to(releases / "first")
    for usd in PRICES:
        set_price(site, usd)
        run = run_cli("build", "--site", str(site), "--out", str(out))
        assert run.returncode == 0, run.stderr
        assert out.is_symlink() and os.path.isabs(os.readlink(out))
        assert Path(os.readlink(out)).parent == releases and hashes(out) == expected[usd]
    assert sorted(path.name for path in releases.iterdir()) == sorted(["first", Path(os.readlink(out)).name])


def test_dot_dot_after_the_link_still_means_the_site(site, expected):
    set_price(site, PRICES[0])
    run = run_cli("build", "--site", str(site), "--out", str(site / "site" / ".." / "site"))
    assert run.returncode == 0, run.stderr
    assert hashes(site / "site") == expected[PRICES[0]] and leftovers(site) == []


def test_a_read_only_old_site_is_replaced_without_a_crash(site, expected):
    old = Path(os.path.realpath(site / "site"))
    for path in sorted(old.rglob("*"), reverse=True) + [old]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    set_price(site, PRICES[0])
    run = run_build(site)
    for path in [old, *old.rglob("*")] if old.exists() else []:
        path.chmod(stat.S_IRWXU)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert hashes(site / "site") == expected[PRICES[0]]
    assert not old.exists() or "could not remove an old version" in run.stderr


def test_an_old_version_that_cannot_be_removed_is_left_with_a_warning(tmp_path, monkeypatch, capsys):
    out = tmp_path / "site"
    write_site({"index.html": b"old"}, out)
    old = Path(os.path.realpath(out))

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(writer.shutil, "rmtree", refuse)
    write_site({"index.html": b"new"}, out)
    assert (out / "index.html").read_bytes() == b"new" and old.is_dir()
    assert f"warning: {old}: could not remove an old version of the site (Permission denied)" in capsys.readouterr().err


def test_leftovers_of_a_killed_build_are_tidied_by_the_next(site, expected):
    stale = site / "site.versions" / "site.4242-deadbeef"
    (stale / "en").mkdir(parents=True)
    (stale / "en" / "vram.html").write_bytes(b"half a page")
    (site / "site.4242-0badf00d.link").symlink_to("site.versions/site.4242-0badf00d")
    unrelated = site / "site.versions" / "notes"
    unrelated.write_text("not a version", encoding="utf-8")
    before = {path: (site / "site" / path).stat().st_ino for path in expected[PRICES[1]]}
    run = run_cli("build", "--force", "--site", str(site), "--out", str(site / "site"))
    assert run.returncode == 0 and ": 0 written, 0 removed" in run.stdout, run.stdout + run.stderr
    assert leftovers(site) == [str(unrelated)]
    assert hashes(site / "site") == expected[PRICES[1]]
    assert {path: (site / "site" / path).stat().st_ino for path in before} == before


def test_a_held_lock_makes_a_build_wait_then_refuse(tmp_path):
    out = tmp_path / "site"
    with locked(out):
        started = time.monotonic()
        with pytest.raises(InputError) as refused, locked(out, wait_s=0.3):
            pytest.fail("took a held lock")
        assert time.monotonic() - started >= 0.3
    assert str(refused.value) == (f"{out}: output folder: another build was still publishing here after 0.3 s of "
                                  "waiting (it holds site.lock); try again when it has finished")
    with locked(out, wait_s=0):
        pass  # released by the holder: free again


def test_a_build_waits_for_the_lock_and_then_publishes(site, expected):
    set_price(site, PRICES[0])
    with locked(site / "site"):
        build = build_process(site)
        time.sleep(2.0)
        assert build.poll() is None, "the build did not wait for the lock"
        assert hashes(site / "site") == expected[PRICES[1]]
    stdout, stderr = build.communicate(timeout=120)
    assert build.returncode == 0, stderr
    assert hashes(site / "site") == expected[PRICES[0]]


def test_two_builds_at_once_both_publish_a_complete_site(site, expected):
    for round, usd in enumerate(PRICES * 2):
        set_price(site, usd)
        builds = [build_process(site) for _ in range(2)]
        for build in builds:
            stdout, stderr = build.communicate(timeout=120)
            assert build.returncode == 0, f"round {round}: {stderr}"
            assert "Traceback" not in stderr
        assert hashes(site / "site") == expected[usd], f"round {round}"
        assert leftovers(site) == [], f"round {round}"


def test_a_build_killed_at_any_moment_leaves_the_old_or_the_new_site(built, site, expected):
    chance = random.Random(20261201)
    duration = built[2]
    sites = [expected[usd] for usd in PRICES]
    for kill in range(15):  # each at most 1.2 builds long
        set_price(site, PRICES[kill % 2])
        build = build_process(site)
        time.sleep(chance.uniform(0, duration * 1.2))
        build.send_signal(signal.SIGKILL)
        build.communicate(timeout=60)
        assert (site / "site").is_symlink(), f"kill {kill}: no site"
        assert hashes(site / "site") in sites, f"kill {kill}: the site is neither the old nor the new one"
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    assert hashes(site / "site") == expected[PRICES[0]] and leftovers(site) == []
