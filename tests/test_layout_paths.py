"""Site paths: a page's link to another site file is what ``posixpath.relpath`` gives; the engine's shared
folders and a site's are each read once, however the engine's own site is named."""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import ROOT
from vramsite.layout import STATIC_FOLDER, SiteLayout, relative_url
from vramsite.load import source_read
from vramsite.publish.pages import Assets
from vramsite.publish.preview import PreviewSite
from vramsite.publish.stamp import ENGINE_FOLDERS

names = st.sampled_from(["en", "zh-cn", "gpus", "models", "data", "assets", "a40.html", "vram.html.md", "x"])
paths = st.lists(names, min_size=1, max_size=4).map("/".join)
folders = st.one_of(st.just(""), st.just("."), st.lists(names, min_size=1, max_size=3).map("/".join))


@settings(max_examples=500, deadline=None)
@given(path=paths, folder=folders)
def test_relative_url_is_relpath(path, folder):
    assert relative_url(path, folder) == posixpath.relpath(path, folder or ".")


def test_relative_url_examples():
    assert relative_url("en/gpus/a40.html", "en") == "gpus/a40.html"
    assert relative_url("data/en/lookup.json", "en/gpus") == "../../data/en/lookup.json"
    assert relative_url("assets/site.css", "") == "assets/site.css"
    assert relative_url("en", "en/gpus") == ".."
    assert relative_url("en", "en") == "."


QUICK = ROOT / "sites" / "quick"
ENGINE_SITE_NAMES = [".", str(ROOT), "../" + ROOT.name]


@pytest.mark.parametrize("name", ENGINE_SITE_NAMES)
def test_the_engine_site_has_one_layer_of_each_shared_path(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    layout = SiteLayout(Path(name))
    assert layout.layers(STATIC_FOLDER) == [ROOT / STATIC_FOLDER]
    watched = layout.watched_folders(ENGINE_FOLDERS)
    assert len(watched) == len(set(watched))
    assert ROOT / "vramsite" in watched and ROOT / "templates" in watched


def test_a_second_site_lays_its_own_layer_over_the_engines():
    layout = SiteLayout(QUICK)
    assert layout.layers("locales/en/LC_MESSAGES/messages.po") == [
        ROOT / "locales/en/LC_MESSAGES/messages.po", QUICK.resolve() / "locales/en/LC_MESSAGES/messages.po"]
    watched = layout.watched_folders(("templates", "locales"))
    assert watched[:4] == [QUICK.resolve() / name for name in ("data", "content", "templates", "locales")]
    assert watched[4:] == [ROOT / "templates", ROOT / "locales"]


@pytest.mark.parametrize("name", ENGINE_SITE_NAMES)
def test_the_engine_sites_assets_and_watched_files_are_read_once(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    read = []
    real_read = source_read.read_regular_file
    monkeypatch.setattr(source_read, "read_regular_file",
                        lambda path, *rest: read.append(Path(path).resolve()) or real_read(path, *rest))
    files = Assets(SiteLayout(Path(name))).files
    assert files and len(read) == len(set(read)) == len(files)
    folders = PreviewSite(Path(name)).folders()
    assert len(folders) == len(set(folders)) == len({folder.resolve() for folder in folders})
