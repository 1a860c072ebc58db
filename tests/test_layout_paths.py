"""Site paths: a page's link to another site file is what ``posixpath.relpath`` gives."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from vramsite.layout import relative_url

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
