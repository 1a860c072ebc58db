"""Which folder a build may publish into, checked before anything in it is removed.

A build replaces its output folder as a whole, so it refuses a place whose
loss would hurt: the root of the file system, the home folder, the
repository and the site's folder (or a folder holding one of them), and the
sources, the site's and the engine's (data/, content/, templates/, locales/,
the vramsite package, .git), or anything inside them. Nor may it publish among
another output's: a path that leads (through links: ``site`` a link to
``sites/quick/site``) into another output's versions folder or into a site a
build published, or whose own versions folder (OUT.versions) is a link, since
its clean-up would remove that output's current version. Anywhere else it
accepts a folder that is absent, empty, or marked as its own: every version
it publishes holds MARKER. A site built before the mark existed has none; it
is accepted when every file in it is one the build is about to write, since
replacing it then loses nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError, Problem
from ..layout import ENGINE_ROOT, SOURCE_FOLDERS
from .stamp import ENGINE_FOLDERS

MARKER = ".vramsite-site"
MARKER_TEXT = b"Written by vramsite (build.py). Each build replaces this folder as a whole.\n"
VERSIONS_SUFFIX = ".versions"


def own_versions(out: Path) -> Path:
    """OUT.versions beside ``out``: where the versions a build makes of ``out`` are kept (unless ``out`` is a
    site deployed as a link elsewhere, ``writer.versions_folder``), and the only folder whose old versions a
    build removes wholesale."""
    return out.with_name(out.name + VERSIONS_SUFFIX)


def check_location(out: Path, site_root: Path) -> None:
    """Refuse an output path that is, holds or lies inside something a build must never replace."""
    reason = _unsafe_location(out, site_root)
    if reason:
        _refuse(out, f"{reason}; choose another with --out")
    check_own_versions(out)


def check_own_versions(out: Path) -> None:
    """Refuse an output whose versions would go among another output's (``writer`` asks before writing)."""
    reason = _among_another_output(out)
    if reason:
        _refuse(out, f"{reason}; choose another with --out")


def check_contents(out: Path, files) -> None:
    """Refuse an existing output that is a file, or a folder holding files a build did not write."""
    if not os.path.exists(out):  # absent, or a link to a folder yet to be made
        return
    if not out.is_dir():
        _refuse(out, "is a file, not a folder; choose another with --out")
    if (out / MARKER).is_file():
        return
    foreign = sorted(_entries(out) - set(files))
    if foreign:
        _refuse(out, f"holds files build.py did not write, such as {foreign[0]!r}; "
                     "empty the folder or choose another with --out")


def _unsafe_location(out: Path, site_root: Path) -> str | None:
    places = {Path(os.path.abspath(out)), Path(os.path.realpath(out))}
    if any(place == Path(place.anchor) for place in places):
        return "is the root of the file system"
    for name, kept in _kept_folders(site_root):
        for place in places:
            if place == kept:
                return f"is {name}"
            if kept.is_relative_to(place):
                return f"holds {name} ({kept})"
    for name, source in _source_folders(site_root):
        for place in places:
            if place == source:
                return f"is {name}"
            if place.is_relative_to(source) or source.is_relative_to(place):
                return f"{'is inside' if place.is_relative_to(source) else 'holds'} {name} ({source})"
    return None


def source_folder_holding(path: Path, site_root: Path) -> tuple[str, Path] | None:
    """The source folder (the site's or the engine's, as ``check_location`` lists them) that is or holds
    ``path``: (its name, its path); None for a path outside them all."""
    for name, source in _source_folders(site_root):
        if path.is_relative_to(source):
            return name, source
    return None


def _among_another_output(out: Path) -> str | None:
    """Why publishing at ``out`` would put versions among another output's, or None."""
    out = Path(os.path.abspath(out))
    if out.is_symlink() and os.path.islink(out.parent / os.readlink(out)):
        return f"is a link to another link, {out.parent / os.readlink(out)}, whose versions are not this output's"
    versions = own_versions(out)
    if versions.is_symlink():
        return f"keeps its versions in {versions}, which is a link (to {os.path.realpath(versions)}), not a folder"
    real, own = Path(os.path.realpath(out)), Path(os.path.realpath(versions))
    for folder in real.parents:
        if folder == own:
            continue
        if folder.name.endswith(VERSIONS_SUFFIX):
            return f"leads to {real}, in {folder}, the versions of another output"
        if (folder / MARKER).is_file():
            return f"leads to {real}, inside {folder}, a site another build published"
    return None


def _kept_folders(site_root: Path) -> list[tuple[str, Path]]:
    kept = [("the site's folder", site_root.resolve()), ("the repository", ENGINE_ROOT)]
    try:
        kept.append(("the home folder", Path.home().resolve()))
    except RuntimeError:  # no HOME and no user entry: there is no home folder to keep
        pass
    return kept


def _source_folders(site_root: Path) -> list[tuple[str, Path]]:
    site = [(f"the site's {name} folder", (site_root / name).resolve()) for name in SOURCE_FOLDERS]
    engine = [(f"the engine's {name} folder", ENGINE_ROOT / name) for name in ENGINE_FOLDERS]
    return site + engine + [("the repository's .git folder", ENGINE_ROOT / ".git")]


def _entries(folder: Path) -> set[str]:
    """Every path under ``folder`` that is not a folder (links to folders included), relative to it."""
    found = set()
    for parent, folders, names in os.walk(folder):
        base = Path(parent).relative_to(folder)
        links = [name for name in folders if os.path.islink(os.path.join(parent, name))]
        found.update((base / name).as_posix() for name in names + links)
    return found


def _refuse(out: Path, message: str) -> None:
    raise InputError([Problem(str(out), None, "output folder", message)])
