"""Skip a rebuild whose inputs and output are exactly as the last build left them.

A stamp in <site>/.cache/build-stamp.json records a digest of every input
(the site's data, content, templates and catalogs, the engine's code,
schemas, templates and catalogs, and the versions of Python and the
libraries) and the size and modification time of every file the build
left in the output folder. When both still match, the build has nothing to
do and does not even load the renderer. Anything else, a touched output
file included, means a full build. The stamp is signed (``signed_cache.py``):
one this machine did not write, a committed one, never skips a build.
Imports here are cheap on purpose.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

from ..errors import InputError
from ..layout import SiteLayout
from ..load.source_read import ASSET, read_source
from ..signed_cache import read_signed, write_signed

ENGINE_FOLDERS = ("vramsite", "templates", "locales")
LIBRARIES = ("jinja2", "markdown-it-py", "mdit-py-plugins", "pyyaml", "babel", "jsonschema")


def input_digest(site_root: Path) -> str:
    digest = _environment_digest()
    for _, name, content in _input_files(site_root):
        digest.update(name.encode() + b"\0" + content + b"\0")
    return digest.hexdigest()


def source_digests(site_root: Path) -> tuple[str, dict[str, str]]:
    """The digest of every input but the data files and the pages' content files, and each content file's
    own digest by its name (content/en/vram.md): what a rebuild compares to keep pages (incremental.py)."""
    layout = SiteLayout(site_root)
    data, content = layout.data.resolve(), layout.content.resolve()
    rest, contents = _environment_digest(), {}
    for path, name, text in _input_files(site_root):
        if path.parent == data:
            continue
        if path.suffix == ".md" and path.parent.parent == content:
            contents[f"content/{path.parent.name}/{path.name}"] = hashlib.sha256(text).hexdigest()
            continue
        rest.update(name.encode() + b"\0" + text + b"\0")
    return rest.hexdigest(), contents


def _environment_digest():
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    for installed in library_versions():
        digest.update(installed.encode() + b"\0")
    return digest


def _input_files(site_root: Path):
    """(path, name, bytes) of every file of the site's and the engine's sources, in a fixed order."""
    for folder in SiteLayout(site_root).watched_folders(ENGINE_FOLDERS):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                name = str(path.relative_to(folder.parent))
                yield path, name, _bytes_of(path, name, folder.parent)


def _bytes_of(path: Path, name: str, root: Path) -> bytes:
    """The file as the build reads a source (bounded, inside the site); for a file the build refuses, the refusal,
    which the build reports in its turn."""
    try:
        return read_source(path, name, ASSET, root)
    except InputError as error:
        return str(error).encode()


def library_versions() -> list[str]:
    """The metadata folders of the installed libraries (jinja2-3.1.6.dist-info): each name carries a version.

    Read from the import path rather than through importlib.metadata, whose
    import alone costs more than the rest of a no-op rebuild.
    """
    wanted = {_distribution(name) for name in LIBRARIES}
    found = set()
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        found.update(entry for entry in entries
                     if entry.endswith((".dist-info", ".egg-info")) and _distribution(entry.split("-")[0]) in wanted)
    return sorted(found)


def _distribution(name: str) -> str:
    """A distribution's normalized name (PEP 503): PyYAML, markdown_it_py -> pyyaml, markdown-it-py."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _output_state(out: Path, paths) -> dict[str, list[int]]:
    state = {}
    for path in paths:
        try:
            info = (out / path).stat()
        except FileNotFoundError:
            continue
        state[path] = [info.st_size, info.st_mtime_ns]
    return state


def is_current(site_root: Path, out: Path, digest: str) -> bool:
    """True when the last build of these inputs into ``out`` is still there, untouched."""
    layout = SiteLayout(site_root)
    kept = None if layout.cache_is_linked else read_signed(layout.build_stamp)  # a committed one must skip nothing
    try:
        stamp = json.loads(kept) if kept is not None else {}
    except ValueError:
        return False
    if stamp.get("digest") != digest or stamp.get("out") != str(out.resolve()):
        return False
    recorded = stamp.get("files", {})
    if _output_state(out, recorded) != recorded:
        return False
    present = {str(p.relative_to(out).as_posix()) for p in out.rglob("*") if p.is_file()}
    return present == set(recorded)


def record(site_root: Path, out: Path, digest: str, paths) -> None:
    """Remember this build; a stamp that cannot be written only costs the next build its shortcut."""
    stamp = {"digest": digest, "out": str(out.resolve()), "files": _output_state(out, sorted(paths))}
    layout = SiteLayout(site_root)
    if layout.cache_is_linked:
        return
    target = layout.build_stamp
    try:
        write_signed(target, json.dumps(stamp, sort_keys=True).encode("utf-8"))
    except OSError:
        pass


def forget(site_root: Path) -> None:
    layout = SiteLayout(site_root)
    if not layout.cache_is_linked:
        layout.build_stamp.unlink(missing_ok=True)
