"""Put a rendered site into its output folder in one atomic step.

The output path is a symbolic link to one complete version of the site,
kept in a folder beside it: ``site -> site.versions/site.<pid>-<random>``.
A build that changes anything fills a new version (unchanged files are
hard-linked from the current one, so they keep their bytes, inode and
modification time), makes a new link to it and renames that link over the
output path with ``os.replace``. That one rename is atomic on every POSIX
file system: a reader, or a build killed at any moment, finds the old site
or the new one, never a mix or nothing. Swapping two real folders in one
step needs a call each system spells its own way (Linux ``renameat2`` with
RENAME_EXCHANGE, macOS ``renamex_np``), and not every file system has it; a
link also lets a site deployed as a link stay one: its new version is
written beside the link's old target. The first build into a real folder left by an older
release moves that folder aside before the link takes its place, the one
step that is two renames.

Every build then removes the versions of this output other than the current
one and stale links: every old version in OUT.versions (the one just
replaced, or a half-filled one a killed build left), but in a folder of
releases that a deployed link points into, only the version this build
replaced: other versions there may be another output's. A version is a
folder named OUT.<pid>-<random>; nothing else is ever removed.
The caller holds the output's lock (``lock.locked``), so no other build is
filling a version meanwhile. A build that fails before the swap, or a no-op
rebuild, leaves the output untouched. Nothing is synced to disk: the
guarantee covers a killed build, not a power cut.
"""

from __future__ import annotations

import os
import posixpath
import re
import secrets
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import InputError, Problem
from .output import MARKER, MARKER_TEXT, check_own_versions, own_versions


class SiteFiles(dict):
    """Output path -> bytes; refuses a second writer of one path and paths outside the site."""

    def add(self, path: str, content: bytes, source: str) -> None:
        clean = check_output_path(path, source)
        if clean in self:
            raise InputError([Problem(source, None, "", f"two pages write {clean!r}")])
        self[clean] = content


def check_output_path(path: str, source: str) -> str:
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\\" in path:
        raise InputError([Problem(source, None, "", f"output path {path!r} escapes the site folder")])
    if str(pure) == MARKER:
        raise InputError([Problem(source, None, "", f"output path {path!r} is reserved for the build's own mark")])
    return str(pure)


@dataclass(frozen=True)
class WriteReport:
    written: tuple[str, ...]
    removed: tuple[str, ...]
    unchanged: int

    @property
    def changed(self) -> bool:
        return bool(self.written or self.removed)


def plan(files: dict[str, bytes], out: Path) -> WriteReport:
    """What writing ``files`` to ``out`` would change."""
    existing = set(_files_under(out)) - {MARKER} if out.is_dir() else set()
    folder = str(out)
    written = tuple(sorted(path for path, content in files.items() if not _same(os.path.join(folder, path), content)))
    removed = tuple(sorted(existing - set(files)))
    return WriteReport(written, removed, len(files) - len(written))


def write_site(files: dict[str, bytes], out: Path) -> WriteReport:
    """Publish ``files`` as the site at ``out``; the caller holds the output's lock."""
    out = Path(os.path.abspath(out))  # site/../site names site, not a folder beside the link's target
    check_own_versions(out)
    report = plan(files, out)
    marked = _same(out / MARKER, MARKER_TEXT)
    replaced = None
    if report.changed or not marked:  # unmarked: new, or a site from before the mark, which this takes over
        before = Path(os.path.realpath(out)) if out.is_symlink() else None
        version = _new_version(out)
        try:
            changed = {*report.written, *([] if marked else [MARKER])}
            _fill(version, {MARKER: MARKER_TEXT, **files}, out, changed)
            _point(out, version)
        except BaseException:  # a full disk, an interrupt: the output stays as it was
            if Path(os.path.realpath(out)) != version:
                _remove(version)
            raise
        replaced = before
    tidy(out, replaced)
    return report


def versions_folder(out: Path) -> Path:
    """Where the versions of ``out`` live: beside the target of a link, else in OUT.versions."""
    if out.is_symlink():
        return Path(os.path.realpath(out)).parent
    return own_versions(out)


def tidy(out: Path, replaced: Path | None = None) -> None:
    """Remove the old versions of ``out`` (every one in OUT.versions, and ``replaced``, the version this build
    replaced, wherever it is) and the links a killed build left beside it; never the current version."""
    current = Path(os.path.realpath(out))
    version = re.compile(re.escape(out.name) + r"\.\d+-[0-9a-f]{8}")
    for entry in _listed(out.parent):
        if entry.name.endswith(".link") and version.fullmatch(entry.name[:-len(".link")]) and entry.is_symlink():
            _unlink(Path(entry.path))
    versions = own_versions(out)
    old = [] if versions.is_symlink() else [Path(entry.path) for entry in _listed(versions)]  # a link: not ours
    for path in old + ([replaced] if replaced else []):
        if version.fullmatch(path.name) and path.is_dir() and not path.is_symlink() \
                and Path(os.path.realpath(path)) != current:
            _remove(path)


def _listed(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))
    except OSError:  # no such folder yet, or one this build may not list: nothing of ours to tidy
        return []


def _new_version(out: Path) -> Path:
    folder = versions_folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    version = folder / f"{out.name}.{_unique()}"
    version.mkdir()
    return version


def _unique() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _fill(version: Path, files: dict[str, bytes], current: Path, changed: set[str]) -> None:
    folders = {""}
    for path in sorted(files):
        target = os.path.join(version, path)
        parent = posixpath.dirname(path)
        if parent not in folders:
            os.makedirs(os.path.join(version, parent), exist_ok=True)
            folders.add(parent)
        if path in changed:
            with open(target, "wb") as file:
                file.write(files[path])
        else:
            _keep(os.path.join(current, path), target)


def _keep(old: str, new: str) -> None:
    """The unchanged file itself, hard-linked; a copy with its times where links are not allowed."""
    try:
        os.link(old, new)
    except OSError:
        shutil.copy2(old, new)


def _point(out: Path, version: Path) -> None:
    """Make ``out`` a link to ``version`` with one rename (two for a real folder from before)."""
    link = out.with_name(f"{version.name}.link")
    absolute = out.is_symlink() and os.path.isabs(os.readlink(out))
    os.symlink(str(version) if absolute else os.path.relpath(version, out.parent), link)
    aside = None
    try:
        if out.is_dir() and not out.is_symlink():
            aside = versions_folder(out) / f"{out.name}.{_unique()}"
            out.rename(aside)
        os.replace(link, out)
    except BaseException:
        os.unlink(link)
        if aside is not None and not os.path.lexists(out):
            aside.rename(out)
        raise


def _remove(folder: Path) -> None:
    """Remove an old version; a read-only one is made writable first; failing that, warn and leave it."""
    try:
        shutil.rmtree(folder)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    try:
        _make_writable(folder)
        shutil.rmtree(folder)
    except OSError as error:
        _warn(folder, f"could not remove an old version of the site ({error.strerror})")


def _unlink(link: Path) -> None:
    try:
        link.unlink()
    except FileNotFoundError:
        pass
    except OSError as error:
        _warn(link, f"could not remove a link a stopped build left ({error.strerror})")


def _warn(path: Path, message: str) -> None:
    print(f"warning: {path}: {message}; remove it by hand", file=sys.stderr)


def _make_writable(folder: Path) -> None:
    """Owner rwx on every folder in the tree (what removing its entries needs); files and links are left alone."""
    os.chmod(folder, 0o700)
    for parent, folders, _ in os.walk(folder):
        for name in folders:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chmod(path, 0o700)


def _files_under(folder: Path) -> list[str]:
    """The files under ``folder`` (a link to a file counts, a linked folder is not entered), by relative path."""
    found, pending = [], [("", str(folder))]
    while pending:
        prefix, path = pending.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((f"{prefix}{entry.name}/", entry.path))
                elif entry.is_file():
                    found.append(prefix + entry.name)
    return found


def _same(path: str | Path, content: bytes) -> bool:
    """Whether ``path`` is a plain file holding ``content`` (a link in its place is never the same)."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(content):
            return False
        with open(path, "rb") as file:
            return file.read() == content
    except (FileNotFoundError, NotADirectoryError):
        return False
