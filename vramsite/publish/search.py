"""The site's search: an index of every page, made by Pagefind over the pages a build writes, and read by the
search page in the reader's browser with no server.

Pagefind (`pagefind[extended]` on PyPI: its extended binary splits Chinese text into words) reads each HTML page's
``data-pagefind-body`` (the article; the calculator, which only a script shows, and the tables, whose figures
are looked up rather than searched and at 2,000 models made Pagefind's memory 2 GB, are left out) and writes one
index per language (``<html lang>``) with the script that searches it, under ``pagefind/``. The index is made by
``build.py build`` alone, after the pages: the preview and the tests' in-memory builds go without it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

SEARCH_PAGE = "search"
"""The id in content/pages.yaml of the page that searches: a site that has one gets a search box in every
page's header and the index; one without has neither."""

ENTRY_FILE = "pagefind-entry.json"
"""The index's table of contents: its version and each language's index."""

INDEX_FOLDER = "pagefind"
"""Where the index and its script are published, from the site's root."""


class SearchError(RuntimeError):
    """Pagefind could not index the pages."""


def has_search(page_ids) -> bool:
    return SEARCH_PAGE in page_ids


def search_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """The index of the HTML pages among ``files`` (site path -> bytes), as files to publish beside them."""
    with tempfile.TemporaryDirectory(prefix="vramsite-search-") as folder:
        root = Path(folder)
        for path, content in files.items():
            if path.endswith(".html"):
                target = root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
        command = [sys.executable, "-m", "pagefind", "--site", str(root), "--output-subdir", INDEX_FOLDER]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise SearchError(f"Pagefind could not index the pages: {(run.stderr or run.stdout).strip()[-500:]}")
        index = root / INDEX_FOLDER
        return {f"{INDEX_FOLDER}/{path.relative_to(index).as_posix()}": _settled(path)
                for path in sorted(index.rglob("*")) if path.is_file()}


def _settled(path: Path) -> bytes:
    """A file of the index as the same pages always give it: Pagefind writes its entry file's languages in no
    fixed order, so that one is written again with its keys sorted."""
    if path.name != ENTRY_FILE:
        return path.read_bytes()
    return json.dumps(json.loads(path.read_bytes()), sort_keys=True, separators=(",", ":")).encode()
