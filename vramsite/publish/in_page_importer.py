"""The in-page importer: what the calculator's "Paste a config.json" runs in the reader's browser.

A pasted config is read, counted and sized by the engine's own Python (importers/in_page.py), run by Pyodide, a
CPython built for the browser. The site publishes, under ``assets/importer/`` and fetched only when a reader
pastes a config:

- Pyodide's runtime (``RUNTIME``), from the npm registry's ``pyodide`` tarball of ``PYODIDE_VERSION``, checked
  against the integrity the registry publishes for it and fetched once into the engine's ``.cache/``;
- ``engine.zip``: the engine's package and the pure-Python libraries it imports on that path (pyyaml,
  ruamel.yaml, jinja2, markupsafe, and babel with the locale data of the site's languages), the same for every
  site and build of one engine;
- ``data.zip``: the site's ``data/`` as ``site/data/``, the catalogue the pasted config joins.

Where the runtime cannot be fetched (no network, and none kept), the site is built without the paste field,
and the build says so.
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
import zipfile
from functools import lru_cache
from pathlib import Path

ENGINE_ROOT = Path(__file__).resolve().parent.parent
"""The engine's package (vramsite/)."""
PYODIDE_VERSION = "314.0.8"
PYODIDE_INTEGRITY = "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
"""dist.integrity of pyodide@314.0.8 on registry.npmjs.org."""
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
"""The runtime's files the page loads: its loader, the interpreter and its standard library, its package list."""
FOLDER = "assets/importer"
LIBRARIES = ("yaml", "ruamel.yaml", "jinja2", "markupsafe", "babel")
"""The libraries the importer and the calculation import, besides the standard library."""
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every zipped file's time: the same bytes from the same files."""


RUNTIME_CACHE = ENGINE_ROOT.parent / ".cache" / "pyodide" / PYODIDE_VERSION
"""Where the runtime is kept once fetched: beside the engine, shared by every site and test build."""


def importer_files(data_dir: Path, languages: tuple[str, ...]) -> dict[str, bytes]:
    """The in-page importer's files by site path, for a site whose data is ``data_dir`` and whose languages are
    ``languages`` (babel's names: "en", "zh_CN"); empty where Pyodide's runtime cannot be had."""
    runtime = runtime_files(RUNTIME_CACHE)
    if runtime is None:
        return {}
    return {**{f"{FOLDER}/{name}": content for name, content in runtime.items()},
            f"{FOLDER}/engine.zip": engine_zip(tuple(sorted({language.split("_")[0] for language in languages}))),
            f"{FOLDER}/data.zip": _zipped({f"site/data/{path.relative_to(data_dir).as_posix()}": path.read_bytes()
                                           for path in sorted(data_dir.rglob("*")) if path.is_file()})}


@lru_cache(maxsize=4)
def runtime_files(cache: Path) -> dict[str, bytes] | None:
    """``RUNTIME``'s files, kept in ``cache`` or fetched there first; None, said on stderr, where they cannot be."""
    if not all((cache / name).is_file() for name in RUNTIME):
        try:
            _fetch_runtime(cache)
        except (OSError, ValueError) as error:
            print(f"the calculator's 'Paste a config.json' is left out: Pyodide {PYODIDE_VERSION} could not be "
                  f"fetched ({error}); put its files ({', '.join(RUNTIME)}) in {cache}", file=sys.stderr)
            return None
    return {name: (cache / name).read_bytes() for name in RUNTIME}


def _fetch_runtime(cache: Path) -> None:
    url = f"https://registry.npmjs.org/pyodide/-/pyodide-{PYODIDE_VERSION}.tgz"
    with urllib.request.urlopen(url, timeout=120) as response:
        tarball = response.read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if digest != PYODIDE_INTEGRITY:
        raise ValueError(f"{url} is not the tarball the registry published ({digest})")
    cache.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(tarball)) as archive:
        for name in RUNTIME:
            partial = cache / f"{name}.part"
            partial.write_bytes(archive.extractfile(f"package/{name}").read())
            partial.replace(cache / name)


@lru_cache(maxsize=4)
def engine_zip(languages: tuple[str, ...]) -> bytes:
    """The engine's package and ``LIBRARIES``, as Python files and the data files they read; babel's locale data
    only for ``languages`` (and the root locale every one falls back to)."""
    files = _package_files(ENGINE_ROOT, "vramsite")
    for library in LIBRARIES:
        module = __import__(library, fromlist=["__name__"])
        folder = Path(module.__file__).parent
        files.update(_package_files(folder, library.replace(".", "/"), languages if library == "babel" else None))
    return _zipped(files)


def _package_files(folder: Path, prefix: str, languages: tuple[str, ...] | None = None) -> dict[str, bytes]:
    files = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or "__pycache__" in relative.parts or path.suffix in (".so", ".pyc", ".c", ".pyi"):
            continue
        if languages is not None and relative.parts[0] == "locale-data" and not _kept_locale(path.stem, languages):
            continue
        files[f"{prefix}/{relative.as_posix()}"] = path.read_bytes()
    return files


def _kept_locale(stem: str, languages: tuple[str, ...]) -> bool:
    return stem == "root" or stem.split("_")[0] in languages


def _zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()
