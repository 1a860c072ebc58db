"""The data each seed page was made from, frozen under tests/fixtures/, and sites assembled from it.

The golden tests, and every test that checks a particular figure, run on these
copies: data/ and sites/quick/data/ are the editors' to change. A seed site is
the frozen data with the live content/, templates/ and locales/ of the site it
belongs to, so the engine and the prose are tested as they are today.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_support import ROOT, SOURCES

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SEED_SITES = {"000": ROOT, "003": ROOT / "sites" / "quick"}
"""Seed -> the site folder whose content, templates and translations it is shown with."""


def seed_data_root(seed: str) -> Path:
    """A folder holding only the seed's frozen data/ (enough for ``load_site``)."""
    return FIXTURES / f"seed_{seed}"


def assemble_seed_site(target: Path, seed: str = "000") -> Path:
    """Frozen data/ of ``seed`` plus the live content/, templates/ and locales/ of its site, in ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(seed_data_root(seed) / "data", target / "data")
    for name in SOURCES:
        if name != "data":
            shutil.copytree(SEED_SITES[seed] / name, target / name)
    return target
