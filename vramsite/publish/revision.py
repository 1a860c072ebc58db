"""A site's sources as they were at a git revision: one file (``file_at``) or its source folders
(``sources_at``), read from git without touching the working tree."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

from ..layout import SOURCE_FOLDERS


class DiffError(Exception):
    """The comparison could not be made: not a git repository, an unknown revision, a base that does not build."""


def _git(args: list[str], cwd: Path, binary: bool = False):
    try:
        run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise DiffError("git is not installed") from None
    if run.returncode != 0:
        raise DiffError(run.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return run.stdout if binary else run.stdout.decode("utf-8").strip()


def repository_top(site: Path) -> Path:
    return Path(_git(["rev-parse", "--show-toplevel"], Path(site))).resolve()


def _revision(site: Path, rev: str) -> tuple[Path, PurePosixPath, str]:
    """The repository's top, the site's folder inside it, and the commit ``rev`` names."""
    site = Path(site).resolve()
    top = repository_top(site)
    prefix = PurePosixPath(site.relative_to(top).as_posix()) if site != top else PurePosixPath("")
    try:
        commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], site)
    except DiffError:
        raise DiffError(f"no commit {rev!r} in the repository at {top}") from None
    return top, prefix, commit


def _exists(site: Path, commit: str, path: PurePosixPath) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=site, capture_output=True).returncode == 0


def file_at(site: Path, rev: str, name: str) -> bytes | None:
    """The bytes of the site's file ``name`` (data/prices.yaml) at ``rev``; None where it did not exist."""
    site = Path(site).resolve()
    _top, prefix, commit = _revision(site, rev)
    path = prefix / name
    return _git(["cat-file", "blob", f"{commit}:{path}"], site, binary=True) if _exists(site, commit, path) else None


def sources_at(site: Path, rev: str, into: Path) -> Path | None:
    """Extract the site's source folders as they were at ``rev`` under ``into``; return the site's folder there.

    None when the site had none of its sources at ``rev`` (it is new since).
    """
    site = Path(site).resolve()
    top, prefix, commit = _revision(site, rev)
    present = [str(prefix / name) for name in SOURCE_FOLDERS if _exists(site, commit, prefix / name)]
    if not present:
        return None
    into.mkdir(parents=True, exist_ok=True)
    archive = _git(["archive", "--format=tar", commit, "--", *present], top, binary=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        try:
            tar.extractall(into, filter="data")
        except TypeError:  # Python before 3.11.4: no filters; git archive holds plain files and folders
            tar.extractall(into)
        except tarfile.FilterError as error:  # a link out of the sources: refused, never followed
            raise DiffError(f"at {rev}, {error.tarinfo.name} is a link to {error.tarinfo.linkname!r}, outside the "
                            "site's folders; diff does not follow such links") from None
    root = into / prefix
    root.mkdir(parents=True, exist_ok=True)
    return root
