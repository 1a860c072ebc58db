"""The tables drawn in Python (render/fast_tables.py) give the characters of the Jinja partials they stand for,
for every table both sites publish, in both formats and every language; a site's own partial still wins."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vramsite.layout import SiteLayout
from vramsite.publish.site import SiteBuild
from vramsite.render import fast_tables
from vramsite.render.environments import layout_environment
from vramsite.render.fast_tables import LOOKUP_CELLS, TABLES, partial_is_specified
from vramsite.render.scope import Scope

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "sites" / "quick"
MODES = ("html", "md")
PAGE_PATHS = ("index.html", "gpu/a40.html")
"""A page at the top and one a folder down: links and download paths are relative to the page."""


@pytest.fixture(scope="module", params=[ROOT, QUICK], ids=["main", "quick"])
def built(request) -> SiteBuild:
    build = SiteBuild(request.param)
    build.render()
    assert build.shown_tables(), "the site publishes tables"
    return build


def _scopes(build: SiteBuild):
    for locale in build.data.site.locales:
        for mode in MODES:
            for page_path in PAGE_PATHS:
                yield Scope(build.scope_services, locale, mode, page_path)


def _jinja_table(scope: Scope, table) -> str:
    template = scope.services.layout.get_template(f"partials/table.{scope.mode}")
    return template.render(scope.template_context(table=table, cell=scope.cell))


def test_every_published_table_is_drawn_as_its_partial_draws_it(built):
    compared = 0
    for scope in _scopes(built):
        for table in built.shown_tables():
            fast = TABLES[scope.mode](table, scope.inline, scope.cell, scope.download)
            assert fast == _jinja_table(scope, table), (table.id, scope.locale.segment, scope.mode)
            compared += 1
    assert compared >= len(built.shown_tables()) * 4


def test_every_published_lookup_cell_is_worded_as_the_engine_partial_words_it(built):
    lookups = [cell.lookup for table in built.shown_tables() for row in table.rows for cell in row.cells
               if cell.lookup is not None]
    assert lookups, "the site's tables answer lookups"
    kinds = {(found.choice is None, found.choice is not None and found.choice.count > 1,
              found.choice is not None and found.choice.tight) for found in lookups}
    assert len(kinds) >= 2, "lookups of more than one wording are compared"
    engine = layout_environment(SiteLayout(ROOT))
    for scope in _scopes(built):
        template = engine.get_template(f"partials/lookup_cell.{scope.mode}")
        macro = template.make_module(scope.template_context()).lookup_cell
        for found in lookups:
            fast = LOOKUP_CELLS[scope.mode](found, scope.pieces, scope.catalog.gettext)
            assert str(fast) == str(macro(found)), (scope.locale.segment, scope.mode)


def test_the_engine_partials_are_the_ones_the_fast_path_reproduces():
    env = layout_environment(SiteLayout(ROOT))
    for name in fast_tables.SPECIFIED:
        assert partial_is_specified(env, name), f"{name} changed: update render/fast_tables.py and its digest"


def test_a_site_with_its_own_lookup_cell_gets_its_partial():
    env = layout_environment(SiteLayout(QUICK))
    assert not partial_is_specified(env, "partials/lookup_cell.html")
    assert not partial_is_specified(env, "partials/lookup_cell.md")
    assert partial_is_specified(env, "partials/table.html")


def test_a_site_edited_copy_of_an_engine_partial_is_drawn_by_jinja(tmp_path):
    for name in ("data", "content", "locales"):
        shutil.copytree(ROOT / name, tmp_path / name)
    partials = tmp_path / "templates" / "partials"
    partials.mkdir(parents=True)
    source = (ROOT / "templates" / "partials" / "table.md").read_text(encoding="utf-8")
    (partials / "table.md").write_text(source.replace("**{{ inline(table.caption) }}**", "### {{ inline(table.caption) }}"),
                                       encoding="utf-8")
    build = SiteBuild(tmp_path)
    assert not partial_is_specified(build.layout_env, "partials/table.md")
    locale = build.data.site.locales[0]
    scope = Scope(build.scope_services, locale, "md", "index.html")
    drawn = scope.table("lookup")
    assert drawn.startswith("### "), drawn[:40]


def test_a_site_unchanged_copy_of_the_engine_partials_is_drawn_in_python(tmp_path):
    """A site made by copying the engine's templates draws its tables as fast as the engine, and the same."""
    for name in ("data", "content", "locales", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    copy = SiteBuild(tmp_path)
    for name in fast_tables.SPECIFIED:
        assert copy.layout_env.loader.get_source(copy.layout_env, name)[1].startswith(str(tmp_path)), name
        assert partial_is_specified(copy.layout_env, name), name
    engine = SiteBuild(ROOT)
    assert copy.render() == engine.render()


def test_an_engine_partial_that_changed_is_drawn_by_jinja(monkeypatch):
    monkeypatch.setitem(fast_tables.SPECIFIED, "partials/table.html", "0" * 16)
    env = layout_environment(SiteLayout(ROOT))
    assert not partial_is_specified(env, "partials/table.html")
    assert partial_is_specified(env, "partials/table.md")
