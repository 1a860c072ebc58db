"""`build.py diff REV`: what an edit changes in the published site, as Markdown.

The site's sources (data/, content/, templates/, locales/) are taken as they
were at git revision REV (``revision.py``) and as they are in the working tree,
and both are built with the code of the working tree; vramsite/changes/
compares what the two publish, page by page and file by file.

Run on the repository's own site, the report also covers every site under
sites/ (each a folder with data/site.yaml), one section each. Such a site is
compared on its own sources: both builds lay it over the working tree's
templates/ and locales/, whose changes the first site's section shows.

The report is meant for a pull-request comment; "No figure changed." when
the two builds publish the same bytes. Where a site's sources at REV are the
working tree's byte for byte, the one build of the working tree stands for
both: the same sources built by the same code publish the same bytes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..changes import NO_CHANGE, SiteText, compare, format_report, site_text
from ..changes.text_diff import plural
from ..errors import InputError
from ..layout import SOURCE_FOLDERS, SiteLayout
from .revision import DiffError, repository_top, sources_at

SITES_FOLDER = "sites"
"""Under the repository's top: the other sites a report on the repository's own site covers too."""


def other_sites(top: Path) -> list[Path]:
    """The sites under the repository's sites/ folder: each folder there with a data/site.yaml."""
    folder = Path(top) / SITES_FOLDER
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if SiteLayout(path).site_file.is_file())


def site_report(site: Path, rev: str, name: str | None = None) -> str:
    """One site's section of the report, or "" when it publishes the same bytes as at ``rev``."""
    try:
        new = site_text(Path(site))  # problems of the working tree: InputError, reported as by build
    except InputError as error:
        if name is None:
            raise
        raise InputError([_in_folder(problem, name) for problem in error.problems]) from None
    with tempfile.TemporaryDirectory(prefix="vramsite-diff-") as folder:
        old_root = sources_at(Path(site), rev, Path(folder))
        if old_root is not None and same_sources(old_root, Path(site)):
            return ""
        try:
            old = site_text(old_root) if old_root is not None else SiteText.empty()
        except InputError as error:
            first = _in_folder(error.problems[0], name) if name else error.problems[0]
            raise DiffError(f"the site{f' {name}' if name else ''} at {rev} does not build with this code "
                            f"({len(error.problems)} problem{plural(error.problems)}; the first: {first})") from None
    report = compare(old, new)
    return format_report(report, rev, name) if report else ""


def same_sources(one: Path, other: Path) -> bool:
    """Whether two sites' source folders hold the same files with the same bytes (any other file, a link or a
    file git ignores in the working tree, makes them differ)."""
    return _source_files(one) == _source_files(other)


def _source_files(site: Path) -> dict[str, bytes | None]:
    """Each path under the site's source folders: a regular file's bytes, None for anything else."""
    return {path.relative_to(site).as_posix(): path.read_bytes() if path.is_file() and not path.is_symlink() else None
            for name in SOURCE_FOLDERS for path in sorted((site / name).rglob("*"))}


def _in_folder(problem, name: str):
    """A problem of a site under sites/, its file named from the repository's top."""
    return type(problem)(f"{name}/{problem.file}", problem.line, problem.field, problem.message)


def diff_report(site: Path, rev: str) -> str:
    """The Markdown report of ``build.py diff REV``: the site, and with the repository's own site every site under sites/."""
    site = Path(site)
    sections = [site_report(site, rev)]
    if repository_top(site) == site.resolve():
        sections += [site_report(other, rev, other.relative_to(site).as_posix()) for other in other_sites(site)]
    sections = [section for section in sections if section]
    return "\n".join(sections) if sections else NO_CHANGE + "\n"
