"""A committed or planted .cache runs nothing: every cache file a build reads back is signed with a key kept
outside the site (vramsite/signed_cache.py), checked before anything is unpickled or unmarshalled.

A site's .cache is ignored by git, but ``git add -f`` commits it: the pages kept for incremental builds
(pages.pickle), the compiled content (.code, marshalled) and layouts (Jinja's bytecode, a pickled checksum
then marshalled code) and the build stamp. Planted, each would run its author's code, or skip the build, for
whoever builds or checks the change. Signed, each is read as absent: the build runs cold, succeeds, and
replaces it with a signed one.
"""

from __future__ import annotations

import json
import marshal
import os
import pickle
import shutil
import stat
from pathlib import Path

import pytest
from jinja2.bccache import bc_magic

from cli_support import ROOT, copy_sources, hashes, run_build, run_cli
from vramsite import signed_cache
from vramsite.layout import SiteLayout
from vramsite.publish import stamp
from vramsite.signed_cache import KEY_BYTES, cache_key, read_signed, write_signed


class RunsOnLoad:
    """Unpickled, writes ``marker``: what a planted pickle can do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


def code_that_writes(marker: Path) -> bytes:
    """A marshalled code object that writes ``marker`` when run: what a planted .code file can hold."""
    return marshal.dumps(compile(f"open({str(marker)!r}, 'w').write('ran')", "<planted>", "exec"))


def plant(site: Path, marker: Path) -> list[Path]:
    """Every cache file a build reads, replaced by one whose load writes ``marker``; the stamp removed (kept,
    it would skip the build and read nothing). The files planted."""
    layout = SiteLayout(site)
    layout.build_stamp.unlink(missing_ok=True)
    pages = layout.cache / "pages.pickle"
    pages.write_bytes(pickle.dumps(RunsOnLoad(marker)))
    planted = [pages]
    for path in sorted(layout.code_cache.iterdir()):
        if path.suffix == ".code":
            path.write_bytes(code_that_writes(marker))
        else:  # Jinja's layout bytecode: its magic, then a pickled checksum (here one that runs), then code
            path.write_bytes(bc_magic + pickle.dumps(RunsOnLoad(marker), 2) + code_that_writes(marker))
        planted.append(path)
    return planted


@pytest.fixture(scope="module")
def quick_site(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The quick site's sources, built once (its caches genuine), and the files that build published."""
    site = copy_sources(tmp_path_factory.mktemp("quick") / "src", ROOT / "sites" / "quick")
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    return site, hashes(site / "site")


@pytest.fixture
def planted(quick_site, tmp_path) -> tuple[Path, Path, list[Path]]:
    """The built quick site with its caches all planted: the site, the marker, the planted files. Planted in
    place, not in a copy: a layout's bytecode is named by the template's path, which a copy would change."""
    site = quick_site[0]
    marker = tmp_path / "code-ran"
    return site, marker, plant(site, marker)


@pytest.mark.parametrize("command", [("build",), ("build", "--force"), ("check",)],
                         ids=["incremental build", "full build", "check"])
def test_planted_caches_run_nothing_and_are_replaced_by_signed_ones(quick_site, planted, command):
    site, marker, files = planted
    out = ["--out", str(site / "site")] if command[0] == "build" else []
    run = run_cli(*command, "--site", str(site), *out)
    assert not marker.exists(), f"a planted cache ran code on build.py {' '.join(command)}"
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    if command[0] == "build":
        assert hashes(site / "site") == quick_site[1]
    written = files if command == ("build",) else files[1:]  # only an incremental build keeps its pages
    assert [path.name for path in written if read_signed(path) is None] == []


def test_a_planted_build_stamp_does_not_skip_the_build(quick_site, tmp_path):
    """A stamp that claims the (absent) output is current, as a committed one would: the build still runs."""
    site = tmp_path / "site"
    shutil.copytree(quick_site[0], site, symlinks=True)
    out = tmp_path / "public"
    SiteLayout(site).build_stamp.write_text(json.dumps({"digest": stamp.input_digest(site), "out": str(out),
                                                        "files": {}}), encoding="utf-8")
    run = run_cli("build", "--site", str(site), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "no input changed" not in run.stdout
    assert hashes(out) == quick_site[1]


# -- the key ---------------------------------------------------------------------------


@pytest.fixture
def own_key(tmp_path, monkeypatch):
    """This process's key taken afresh from an empty XDG_CACHE_HOME under tmp_path, and forgotten afterwards."""
    monkeypatch.delenv(signed_cache.KEY_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache_key.cache_clear()
    yield tmp_path / "xdg" / "vramsite" / "cache.key"
    cache_key.cache_clear()


def test_the_key_is_made_once_for_its_owner_alone(own_key):
    key = cache_key()
    assert len(key) == KEY_BYTES and own_key.read_bytes() == key
    assert stat.S_IMODE(own_key.stat().st_mode) == 0o600
    cache_key.cache_clear()
    assert cache_key() == key, "the next build signs with the same key"


def test_a_file_signed_with_another_key_reads_as_absent(own_key, tmp_path, monkeypatch):
    kept = tmp_path / "pages.pickle"
    assert write_signed(kept, b"pages")
    assert read_signed(kept) == b"pages"
    moved = tmp_path / "other.code"
    shutil.copy(kept, moved)
    assert read_signed(moved) is None, "the signature covers the file's name"
    monkeypatch.setenv(signed_cache.KEY_VARIABLE, "another machine's secret")
    cache_key.cache_clear()
    assert read_signed(kept) is None
    assert write_signed(kept, b"pages") and read_signed(kept) == b"pages"


def test_an_empty_key_variable_means_none_given(own_key, monkeypatch):
    """What a fork's pull request gets for a secret: the user's key file is used."""
    monkeypatch.setenv(signed_cache.KEY_VARIABLE, "")
    assert cache_key() == own_key.read_bytes()


def test_a_key_file_inside_a_site_is_not_used(own_key, tmp_path, monkeypatch, capsys):
    """A cache folder inside the site (XDG_CACHE_HOME or HOME there): a committed key would sign its pickles."""
    site = copy_sources(tmp_path / "site", ROOT / "sites" / "quick")
    planted_key = site / ".cache" / "vramsite" / "cache.key"
    planted_key.parent.mkdir(parents=True)
    planted_key.write_bytes(b"k" * KEY_BYTES)
    planted_key.chmod(0o600)
    monkeypatch.setenv("XDG_CACHE_HOME", str(site / ".cache"))
    assert cache_key() is None
    assert f"warning: {planted_key}: cannot serve as the cache key (it lies inside the site {site})" in \
        capsys.readouterr().err
    assert not write_signed(site / ".cache" / "pages.pickle", b"pages")
    assert read_signed(site / ".cache" / "pages.pickle") is None


def test_a_key_file_others_may_read_is_not_used(own_key, capsys):
    own_key.parent.mkdir(parents=True)
    own_key.write_bytes(os.urandom(KEY_BYTES))
    own_key.chmod(0o644)
    assert cache_key() is None
    assert "another user may read or write it" in capsys.readouterr().err


def test_a_planted_link_in_place_of_a_cache_file_is_not_followed(tmp_path):
    kept = tmp_path / "pages.pickle"
    kept.symlink_to("/dev/zero")
    assert read_signed(kept) is None


@pytest.mark.parametrize("linked", [".cache", ".cache/jinja"])
def test_a_cache_folder_committed_as_a_link_is_neither_written_nor_pruned(quick_site, tmp_path, linked):
    """A link in place of .cache (or .cache/jinja) would have the build write its files and remove compiled
    content unused for a month wherever it points: the build keeps no cache instead."""
    site = tmp_path / "site"
    shutil.copytree(quick_site[0], site, symlinks=True)
    shutil.rmtree(site / ".cache")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "jinja").mkdir(parents=True)
    for name in ("pages.pickle", "build-stamp.json", "jinja/old.code"):
        (elsewhere / name).write_bytes(b"not the build's")
    os.utime(elsewhere / "jinja" / "old.code", (0, 0))
    before = hashes(elsewhere)
    (site / linked).parent.mkdir(exist_ok=True)
    (site / linked).symlink_to(elsewhere if linked == ".cache" else elsewhere / "jinja")
    run = run_cli("build", "--force", "--site", str(site), "--out", str(site / "site"))
    assert run.returncode == 0, run.stderr
    assert hashes(site / "site") == quick_site[1]
    assert hashes(elsewhere) == before
