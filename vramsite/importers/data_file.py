"""A site's data file that a command rewrites (``prices import``, ``model add``): read once, checked as
``build.py check`` reads it, and replaced only if it is still what was read.

The command holds the site's edit lock (``publish.lock.editing_sources``)
from its first read to its write, so another command waits for it. An
editor's save takes no lock: the bytes on disk are compared with the bytes
read just before the new file replaces them, and a file that changed is
refused, keeping the editor's save.

A data file that is a link is written through to its target when the target
lies in the site's folders (a build reads through links, so the link keeps
its meaning); a link leading out of them is refused, as ``build.py diff``
refuses such links: a command writes only inside the site.

ruamel.yaml's round-trip reader, which keeps comments and layout, expands
anchors and follows no bound on nesting: ``round_trip_load`` hands it a text
only after ``check``'s own reader (``load.yaml_source.parse_yaml``) took it,
so a file ``check`` refuses is refused with the same message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

from ..errors import InputError, Problem
from ..layout import SOURCE_FOLDERS
from ..load.source_read import DATA, read_source
from ..load.text import decode_utf8
from ..load.yaml_source import parse_yaml
from ..source_files import replace_text


@dataclass(frozen=True)
class DataFile:
    """A data file as a command read it: where it is written, how messages call it, and its bytes."""

    site: Path
    path: Path
    """The file replaced: the link's target where the data file is a link inside the site."""
    name: str
    original: bytes | None
    """None: there was no such file."""
    text: str | None

    def replace(self, text: str, command: str) -> None:
        """Write ``text`` in one step, unless the file changed since it was read (InputError: nothing written)."""
        if _current(self.site, self.path, self.name) != self.original:
            raise InputError([Problem(self.name, None, "", f"changed on disk while {command} ran (saved by an "
                                                           "editor?); your change is kept and nothing was written: "
                                                           f"run {command} again")])
        replace_text(self.path, text)


def read_data_file(site: Path, relative: str, name: str) -> DataFile:
    """``site``'s data file at ``relative`` (data/prices.yaml), read within the bounds ``check`` applies."""
    path = _written_path(Path(site), relative, name)
    original = _current(Path(site), path, name)
    return DataFile(site=Path(site), path=path, name=name, original=original,
                    text=None if original is None else decode_utf8(original, name))


def _current(site: Path, path: Path, name: str) -> bytes | None:
    """The file's bytes, read as ``check`` reads a data file (``load.source_read``); None where there is none."""
    if not path.exists():
        return None
    return read_source(path, name, DATA, root=site)


def _written_path(site: Path, relative: str, name: str) -> Path:
    """Where writing ``site/relative`` lands: the file, or its link's target inside the site's folders."""
    path = site / relative
    if not path.is_symlink():
        return path
    try:
        target = path.resolve(strict=False)
    except (OSError, RuntimeError):  # a loop of links
        raise InputError([Problem(name, None, "", "is a link that leads round in a loop")]) from None
    folders = [site.resolve()] + [(site / folder).resolve() for folder in SOURCE_FOLDERS]
    if not any(target.is_relative_to(folder) for folder in folders):
        raise InputError([Problem(name, None, "", f"is a link to {str(target)!r}, outside the site's folders; "
                                                  "a command writes only inside the site: put the file itself "
                                                  "there")])
    return target


def round_trip_load(yaml: YAML, text: str, name: str):
    """ruamel's round-trip document of data file ``name``'s ``text``, once ``check``'s reader accepted it:
    InputError with ``check``'s message (an anchor, an alias, deep nesting, a tag, a repeated key) if not."""
    parse_yaml(text, name)
    return yaml.load(text)
