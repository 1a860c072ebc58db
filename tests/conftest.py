"""Shared fixtures: the live sites, and the seed sites built from frozen data (tests/seed_sites.py)."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from seed_sites import assemble_seed_site, seed_data_root
from vramsite.calc import Guide
from vramsite.load import load_site
from vramsite.publish.site import SiteBuild

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"

# Hundreds of tests run build.py in a fresh interpreter. Where the machine sets PYTHONDONTWRITEBYTECODE, each
# of them compiled the engine's modules from source again (0.3 s a run); they keep their bytecode outside
# the repository and the sites the tests hash.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), "vramsite-tests-pycache"))


@pytest.fixture(scope="session")
def site_data():
    """The live data/ of the main site (whatever the editors made of it)."""
    return load_site(ROOT)


@pytest.fixture(scope="session")
def guide(site_data):
    """The calculation over the live data/: assert properties of it, never particular figures."""
    return Guide(site_data)


@pytest.fixture
def site_copy(tmp_path):
    """A throw-away copy of the live site's sources, for tests that edit data."""
    for name in ("data", "content", "templates", "locales"):
        source = ROOT / name
        if source.exists():
            shutil.copytree(source, tmp_path / name)
    return tmp_path


# -- the seed sites: frozen data, so particular figures can be asserted -------------------


@pytest.fixture(scope="session")
def seed_000_guide():
    """The calculation over the data that reproduces seed 000 (the full VRAM guide)."""
    return Guide(load_site(seed_data_root("000")))


@pytest.fixture(scope="session")
def seed_003_guide():
    """The calculation over the data that reproduces seed 003 (the quick site)."""
    return Guide(load_site(seed_data_root("003")))


@pytest.fixture(scope="session")
def seed_000_root(tmp_path_factory) -> Path:
    """The main site's sources with the frozen seed 000 data. Read it; copy it to edit it."""
    return assemble_seed_site(tmp_path_factory.mktemp("seed-000"), "000")


@pytest.fixture(scope="session")
def seed_003_root(tmp_path_factory) -> Path:
    """The quick site's sources with the frozen seed 003 data. Read it; copy it to edit it."""
    return assemble_seed_site(tmp_path_factory.mktemp("seed-003"), "003")


@pytest.fixture(scope="session")
def seed_000_built(seed_000_root):
    """(SiteBuild, every file it renders) of the seed 000 site, built once for the session."""
    build = SiteBuild(seed_000_root)
    return build, build.render()


@pytest.fixture(scope="session")
def seed_003_built(seed_003_root):
    build = SiteBuild(seed_003_root)
    return build, build.render()


@pytest.fixture
def seed_000_copy(tmp_path) -> Path:
    """A throw-away seed 000 site (frozen data, live content), for tests that edit it."""
    return assemble_seed_site(tmp_path / "seed-000", "000")


@pytest.fixture
def seed_003_copy(tmp_path) -> Path:
    return assemble_seed_site(tmp_path / "seed-003", "003")


# -- tests that time the product: run while no other test does ------------------------------------

ALONE = "alone"
"""The marker of a test that times the product against a target on this machine: under -n, the other workers
finish the test they are in and wait while it runs, so that it measures the product, not the other tests."""


def pytest_configure(config):
    config.addinivalue_line("markers", f"{ALONE}: run while no other test worker runs a test (a timed target)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each test with its fixtures' setup and teardown: alone (``ALONE``), or beside the other workers' tests."""
    with _turn(item):
        yield


@contextmanager
def _turn(item):
    workers = getattr(item.config, "workerinput", None)
    if workers is None:  # one process: nothing runs beside the test
        yield
        return
    folder = Path(tempfile.gettempdir()) / f"vramsite-tests-{workers['testrunuid']}"
    folder.mkdir(exist_ok=True)
    me = workers["workerid"]
    with (folder / "lock").open("a") as lock:
        if item.get_closest_marker(ALONE):
            flag = folder / f"{me}.alone"
            flag.touch()  # the others take no new test while it is there
            fcntl.flock(lock, fcntl.LOCK_EX)  # once the tests they are in have ended
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
                flag.unlink()
        else:
            while any(flag.name != f"{me}.alone" for flag in folder.glob("*.alone")):
                time.sleep(0.05)
            fcntl.flock(lock, fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
