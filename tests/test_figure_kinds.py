"""A figure's kind has one home (calc/figure.FigureKind): the site's display settings name those kinds and no other."""

from __future__ import annotations

import json
from pathlib import Path

from vramsite.calc.figure import FigureKind
from vramsite.load import load_site

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "vramsite" / "schemas" / "site.schema.json"


def test_the_site_schema_asks_a_display_setting_for_each_kind_and_no_other():
    display = json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"]["display"]
    assert set(display["required"]) == set(display["properties"]) == {kind.value for kind in FigureKind}


def test_every_kind_a_site_displays_is_a_figure_kind():
    for site in (ROOT, ROOT / "sites" / "quick"):
        assert {FigureKind(name) for name in load_site(site).site.display} == set(FigureKind)
