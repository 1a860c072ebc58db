"""Tables are drawn by the partials templates/partials/table.* and lookup_cell.*; a site's own partial of the
same name takes the engine's place."""

from __future__ import annotations

import shutil
from pathlib import Path

from vramsite.publish.site import SiteBuild
from vramsite.render.scope import Scope

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "sites" / "quick"


def _scope(build: SiteBuild, mode: str) -> Scope:
    english = next(locale for locale in build.data.site.locales if locale.segment == "en")
    return Scope(build.scope_services, english, mode, "index.html")


def test_a_site_own_table_partial_draws_its_tables(tmp_path):
    for name in ("data", "content", "locales"):
        shutil.copytree(ROOT / name, tmp_path / name)
    partials = tmp_path / "templates" / "partials"
    partials.mkdir(parents=True)
    source = (ROOT / "templates" / "partials" / "table.md").read_text(encoding="utf-8")
    (partials / "table.md").write_text(source.replace("**{{ inline(table.caption) }}**", "### {{ inline(table.caption) }}"),
                                       encoding="utf-8")
    build = SiteBuild(tmp_path)
    assert str(_scope(build, "md").table("lookup")).startswith("### ")
    assert str(_scope(SiteBuild(ROOT), "md").table("lookup")).startswith("**")


def test_a_site_own_lookup_cell_partial_words_its_answers():
    """The quick site words a lookup answer by its own partials: the cards of the size it needs, by the hour."""
    for mode in ("html", "md"):
        quick = str(_scope(SiteBuild(QUICK), mode).table("lookup"))
        engine = str(_scope(SiteBuild(ROOT), mode).table("lookup"))
        assert "per GPU-hour" in quick and "per GPU-hour" not in engine, mode
        assert "talk to sales" in engine and "talk to sales" not in quick, mode
