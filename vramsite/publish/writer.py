"""Put a rendered site into its output folder, all or nothing.

The site is rendered completely in memory first. Then, only if something
differs from what is on disk, a staging folder beside the output is filled
(unchanged files are hard-linked, so they keep their bytes, inode and
modification time) and swapped in with two renames. A build that fails
before this point, or a no-op rebuild, never touches the output folder.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import InputError, Problem


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
    existing = set(_files_under(out)) if out.is_dir() else set()
    written = tuple(sorted(path for path, content in files.items() if not _same(out / path, content)))
    removed = tuple(sorted(existing - set(files)))
    return WriteReport(written, removed, len(files) - len(written))


def write_site(files: dict[str, bytes], out: Path) -> WriteReport:
    report = plan(files, out)
    if not report.changed:
        return report
    staging = out.with_name(out.name + ".staging")
    old = out.with_name(out.name + ".previous")
    for leftover in (staging, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    staging.mkdir(parents=True)
    changed = set(report.written)
    folders = {staging}
    try:
        for path in sorted(files):
            target = staging / path
            if target.parent not in folders:
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            if path in changed:
                target.write_bytes(files[path])
            else:
                os.link(out / path, target)
    except BaseException:  # a full disk, an interrupt: the output folder stays as it was
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if out.exists():
        out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        if old.exists() and not out.exists():
            old.rename(out)
        raise
    if old.exists():
        shutil.rmtree(old)
    return report


def _files_under(folder: Path) -> list[str]:
    return [str(path.relative_to(folder).as_posix()) for path in folder.rglob("*") if path.is_file()]


def _same(path: Path, content: bytes) -> bool:
    try:
        return path.stat().st_size == len(content) and path.read_bytes() == content
    except FileNotFoundError:
        return False
