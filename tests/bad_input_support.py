"""Broken input through the real command line: a built site copy, an edit, and the refusal it must give.

A case (``Bad``) is a list of edits, the file, line and field the message must
name, and words it must contain. ``assert_refused`` holds a run to that: exit
status 1, one line per problem naming its file, no traceback.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_support import SOURCES, hashes, run_build
from seed_sites import assemble_seed_site
from vramsite.publish.writer import versions_folder


def built_seed_site(folder: Path, seed: str = "000") -> Path:
    """The seed site's sources in ``folder`` and a first, successful build of them into its site/."""
    site = assemble_seed_site(folder, seed)
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    return site


def fresh_copy(built: Path, target: Path) -> Path:
    """A copy of a built site for one case, keeping its files' times."""
    shutil.copytree(built, target, copy_function=shutil.copy2)
    return target


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    """The seed 000 site's sources and a first, successful build of them."""
    return built_seed_site(tmp_path_factory.mktemp("pristine") / "site", "000")


@pytest.fixture
def site(built_site, tmp_path) -> Path:
    """A fresh copy of the built site for one case."""
    return fresh_copy(built_site, tmp_path / "site-src")


# -- edits ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (once) by ``new`` in ``file``; ``new`` may be bytes; ``old`` None: replace the whole file."""

    file: str
    old: str | None
    new: str | bytes | None

    def apply(self, site: Path) -> int:
        """Apply the edit; return the line where it starts."""
        path = site / self.file
        if self.new is None:
            path.unlink()
            return 0
        if self.old is None:
            path.write_bytes(self.new if isinstance(self.new, bytes) else self.new.encode("utf-8"))
            return 1
        text = path.read_text(encoding="utf-8")
        assert text.count(self.old) == 1, f"{self.old!r} must occur once in {self.file}"
        before = text.index(self.old)
        new = self.new if isinstance(self.new, bytes) else self.new.encode("utf-8")
        path.write_bytes(text[:before].encode("utf-8") + new + text[before + len(self.old):].encode("utf-8"))
        return text[:before].count("\n") + 1


@dataclass(frozen=True)
class At:
    """The line of the first occurrence of ``text`` in the file reported, plus ``offset``; text None: the edited line."""

    text: str | None = None
    offset: int = 0


EDITED = At()


@dataclass(frozen=True)
class Bad:
    name: str
    edits: tuple[Edit, ...]
    file: str
    """The file the message must name."""
    line: At | int | None
    field: str
    """The field the message must name ('' where the problem is the whole file or a template line)."""
    words: str


def edit(file, old, new):
    return (Edit(file, old, new),)

def expected_line(case: Bad, site: Path, edited: int) -> int | None:
    if not isinstance(case.line, At):
        return case.line
    if case.line.text is None:
        return edited + case.line.offset
    text = (site / case.file).read_text(encoding="utf-8")
    assert case.line.text in text, f"{case.line.text!r} not in {case.file}"
    return text[: text.index(case.line.text)].count("\n") + 1 + case.line.offset


def assert_refused(run, case: Bad, line: int | None) -> None:
    """The command failed with a line naming the case's file, line and field, and nothing else went wrong."""
    assert run.returncode == 1, f"the command should fail:\n{run.stdout}{run.stderr}"
    assert "Traceback" not in run.stderr, run.stderr
    where = case.file if line is None else f"{case.file}:{line}"
    start = f"{where}: {case.field}: " if case.field else f"{where}: "
    lines = run.stderr.splitlines()
    matching = [text for text in lines if text.startswith(start) and case.words in text]
    assert matching, f"expected a line starting {start!r} containing {case.words!r}; got:\n{run.stderr}"
    assert lines[-1].endswith("nothing was written.")
    assert all(text.startswith(SOURCES) for text in lines[:-1]), "one line per problem, each naming its file"


def check_refused_and_kept(site: Path, case: Bad) -> None:
    """Apply the case's edits to a built site and build: refused as the case says, the previous site kept.

    Kept means byte for byte, and without a new (half-filled) version beside it.
    """
    before, versions = hashes(site / "site"), _versions(site / "site")
    edited = 0
    for change in case.edits:
        edited = change.apply(site)
    assert_refused(run_build(site), case, expected_line(case, site, edited))
    assert hashes(site / "site") == before, "the previous site changed"
    assert _versions(site / "site") == versions, "the failed build left a version behind"


def _versions(out: Path) -> list[str]:
    folder = versions_folder(out)
    return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []
