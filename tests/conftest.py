"""Shared fixtures: the repository's own site, loaded once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vramsite.calc import Guide
from vramsite.load import load_site

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"


@pytest.fixture(scope="session")
def site_data():
    return load_site(ROOT)


@pytest.fixture(scope="session")
def guide(site_data):
    return Guide(site_data)


@pytest.fixture
def site_copy(tmp_path):
    """A throw-away copy of the site's sources, for tests that edit data."""
    for name in ("data", "content", "templates", "locales"):
        source = ROOT / name
        if source.exists():
            shutil.copytree(source, tmp_path / name)
    return tmp_path
