"""The compiled content kept in .cache/jinja between builds: reused, and not piling up as content is edited."""

from __future__ import annotations

import os
import time
from pathlib import Path

import jinja2

from cli_support import copy_sources, run_build, run_cli
from vramsite.layout import SiteLayout
from vramsite.publish.site import SiteBuild
from vramsite.render.content import COMPILED_SUFFIX, UNUSED_FOR_S, HeldCode, compile_cached, prune_unused_once
from vramsite.render.environments import content_env, layout_environment

QUICK = Path(__file__).resolve().parents[1] / "sites" / "quick"
GUIDE = Path("content") / "en" / "vram.md"


def compiled(site: Path) -> set[str]:
    return {path.name for path in SiteLayout(site).code_cache.glob(f"*{COMPILED_SUFFIX}")}


def age(site: Path, seconds: float) -> None:
    then = time.time() - seconds
    for path in SiteLayout(site).code_cache.iterdir():
        os.utime(path, (then, then))


def edit(site: Path, sentence: str) -> None:
    path = site / GUIDE
    path.write_text(path.read_text(encoding="utf-8") + f"\n{sentence}\n", encoding="utf-8")


def built(site: Path) -> set[str]:
    result = run_build(site)
    assert result.returncode == 0, result.stderr
    return compiled(site)


def test_edited_content_leaves_no_compiled_copies_behind_once_unused(tmp_path):
    site = copy_sources(tmp_path / "site", QUICK)
    first = built(site)
    assert first

    edit(site, "One more sentence.")
    second = built(site)
    # the old source's code stays while it was used recently: an editor may undo the edit
    assert first < second
    added = second - first

    age(site, UNUSED_FOR_S + 3600)
    edit(site, "Another sentence.")
    third = built(site)
    assert not third & added, "the first edit's code, unused for a month, is removed"
    assert len(third) <= len(first)

    result = run_cli("build", "--site", str(site), "--out", str(site / "site"), "--force")
    assert result.returncode == 0, result.stderr
    cold = copy_sources(tmp_path / "cold", QUICK)
    (cold / GUIDE).write_text((site / GUIDE).read_text(encoding="utf-8"), encoding="utf-8")
    assert compiled(site) == built(cold), "what is left is what a cold build of the same sources compiles"


def test_taking_compiled_code_marks_it_used(tmp_path, monkeypatch):
    env, cache = content_env(), tmp_path / "cache"
    compile_cached(env, "Hello {{ 1 + 1 }}", cache)
    (entry,) = cache.iterdir()
    month_ago = time.time() - UNUSED_FOR_S - 60
    os.utime(entry, (month_ago, month_ago))

    def compile_again(source):
        raise AssertionError("compiled again instead of taken from the cache")

    monkeypatch.setattr(env, "compile", compile_again)
    compile_cached(env, "Hello {{ 1 + 1 }}", cache)
    assert entry.stat().st_mtime > month_ago + 60


def test_pruning_removes_only_old_compiled_content_and_once_per_process(tmp_path):
    cache = tmp_path / "jinja"
    cache.mkdir()
    now = time.time()
    old = now - UNUSED_FOR_S - 60
    for name, mtime in ((f"old{COMPILED_SUFFIX}", old), (f"recent{COMPILED_SUFFIX}", now),
                        ("__jinja2_layout.cache", old)):
        (cache / name).write_bytes(b"")
        os.utime(cache / name, (mtime, mtime))
    assert prune_unused_once(cache, now) == [f"old{COMPILED_SUFFIX}"]
    assert sorted(path.name for path in cache.iterdir()) == ["__jinja2_layout.cache", f"recent{COMPILED_SUFFIX}"]
    (cache / f"later{COMPILED_SUFFIX}").write_bytes(b"")
    os.utime(cache / f"later{COMPILED_SUFFIX}", (old, old))
    assert prune_unused_once(cache, now) == [], "a cold build writes many entries: the folder is read once"
    assert prune_unused_once(tmp_path / "absent", now) == []


def test_a_second_site_rendered_in_one_process_compiles_nothing_again(tmp_path, monkeypatch):
    """The import renders a copy of the site beside it: the copy's cache folder is empty, and what this process
    compiled for the site serves it (the engine's layouts, and content of the same text)."""
    first, second = (copy_sources(tmp_path / name, QUICK) for name in ("first", "second"))
    SiteBuild(first).render()
    compiled_now = counted_compiles(monkeypatch)
    files = SiteBuild(second).render()
    assert files and not compiled_now, f"compiled again: {compiled_now[:3]}"
    assert compiled(second) == compiled(first), "the second site's cache holds its code for its next build"


def counted_compiles(monkeypatch) -> list[str]:
    """The sources Jinja compiles from now on."""
    sources, real_compile = [], jinja2.Environment.compile

    def counted(self, source, *args, **kwargs):
        sources.append(source)
        return real_compile(self, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    return sources


def test_code_held_in_the_process_is_that_of_the_source_given(tmp_path, monkeypatch):
    env = content_env()
    compiled_now = counted_compiles(monkeypatch)
    for source in ("{{ 1 + 1 }} apples", "{{ 1 + 1 }} apples", "{{ 2 + 2 }} apples"):
        compile_cached(env, source, None)
    assert compiled_now == ["{{ 1 + 1 }} apples", "{{ 2 + 2 }} apples"]

    layouts = tmp_path / "templates"
    layouts.mkdir()
    (layouts / "page.html").write_text("one", encoding="utf-8")
    site = SiteLayout(tmp_path)
    assert layout_environment(site).get_template("page.html").render() == "one"
    (layouts / "page.html").write_text("two", encoding="utf-8")
    assert layout_environment(site).get_template("page.html").render() == "two", "an edited layout compiles again"


def test_the_code_a_process_holds_is_bounded_the_oldest_dropped_first():
    held = HeldCode(size=2)
    held["a"], held["b"], held["a"], held["c"] = 1, 2, 3, 4
    assert held == {"b": 2, "c": 4}, "replacing an entry drops nothing; a new one drops the first held"
