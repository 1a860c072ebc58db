"""Where `build.py measure` may write its file: a new one, never in place of another, never among the sources.

A run takes an hour on a GPU, so where it goes is checked before it starts:
``--out`` must not exist (a measurement replaces no file, an earlier run's
least of all) and must not lie among the sources a build reads or the
engine's code (``publish/output.py``'s list, as for ``build --out``), links
followed, except the site's own data/measurements/. The file is then
written whole under a new name: the path asked for, or where another run
took it meanwhile (a second run on the same day), that name with -2, -3 ...
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from ..errors import InputError, Problem
from ..publish.output import source_folder_holding
from ..source_files import replace_text


def measurements_folder(site_root: Path) -> Path:
    """SITE/data/measurements/: where a GPU run goes unless told otherwise."""
    return site_root / "data" / "measurements"


def check_out(out: Path, site_root: Path) -> None:
    """Refuse ``out`` before anything is measured: it exists, or lies where a measurement must not go."""
    if os.path.lexists(out):
        _refuse(f"{out} exists already: a measurement never replaces a file; give a path to a new one")
    check_folder(out.parent, site_root)


def check_folder(folder: Path, site_root: Path) -> None:
    real = Path(os.path.realpath(folder))
    if real == Path(os.path.realpath(site_root / "data")) / "measurements":
        return  # the measurements' own folder, reached without a link in its place
    holding = source_folder_holding(real, site_root)
    if holding:
        _refuse(f"{folder} is inside {holding[0]} ({holding[1]}): a measurement goes in the site's "
                "data/measurements/ or outside its sources")


def write_new(path: Path, text: str) -> Path:
    """Write ``text`` whole to ``path``, or if a file is there by then to the first free ``<stem>-N<suffix>``
    beside it; the path written. Never replaces a file: the name is taken with a hard link, which fails where
    one exists."""
    staging = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}")
    replace_text(staging, text)  # whole, as readable as the data files
    try:
        for candidate in _names(path):
            try:
                os.link(staging, candidate)
                return candidate
            except FileExistsError:
                continue
    finally:
        staging.unlink(missing_ok=True)
    raise AssertionError("unreachable: the names never run out")


def _names(path: Path):
    yield path
    for number in itertools.count(2):
        yield path.with_name(f"{path.stem}-{number}{path.suffix}")


def _refuse(message: str) -> None:
    raise InputError([Problem("--out", None, "", message)])
