"""Where a site's sources and the engine's shared files are: the one place their folders are named.

A site is a folder holding ``data/``, ``content/``, ``templates/`` and
``locales/``; the engine (this repository) holds the ``templates/`` and
``locales/`` every site falls back on. Every module that needs one of these
paths asks a ``SiteLayout`` rather than spelling it. ``download_path`` is
the one rule for where a table's downloads are in the built site, which
pages link to and the build writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ENGINE_ROOT = Path(__file__).resolve().parent.parent
"""The repository: its templates/ and locales/ back any site's own."""

SOURCE_FOLDERS = ("data", "content", "templates", "locales")
"""A site's sources, as folders of its root: what a build reads, a rebuild watches and a diff compares."""

STATIC_FOLDER = "templates/static"
"""The engine's and a site's assets, copied to assets/ (``SiteLayout.layers``)."""


@dataclass(frozen=True)
class SiteLayout:
    root: Path
    engine: Path = ENGINE_ROOT

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root))

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def locales(self) -> Path:
        return self.root / "locales"

    @property
    def cache(self) -> Path:
        """What a build keeps for the next (ignored by git)."""
        return self.root / ".cache"

    @property
    def code_cache(self) -> Path:
        """Where compiled templates are kept between builds."""
        return self.cache / "jinja"

    @property
    def cache_is_linked(self) -> bool:
        """Whether .cache or .cache/jinja is a link. A build then keeps no cache: a committed link would have
        it write cache files, and remove old compiled ones, wherever the link points."""
        return self.cache.is_symlink() or self.code_cache.is_symlink()

    @property
    def kept_code_cache(self) -> Path | None:
        """Where compiled content and layouts are kept: ``code_cache``, or None where the cache is linked."""
        return None if self.cache_is_linked else self.code_cache

    @property
    def build_stamp(self) -> Path:
        """The digest of the inputs the site was last built from (``publish/stamp.py``)."""
        return self.cache / "build-stamp.json"

    @property
    def site_file(self) -> Path:
        """data/site.yaml: every site has one."""
        return self.data / "site.yaml"

    @property
    def source_folders(self) -> list[Path]:
        return [self.root / name for name in SOURCE_FOLDERS]

    def layers(self, relative: str) -> list[Path]:
        """The engine's copy of a shared path (templates/static, a catalog), then the site's, whose files win:
        once when the two are one, as for the engine's own site however its root is spelled (".")."""
        engine, site = (base.joinpath(relative).resolve() for base in (self.engine, self.root))
        return [engine] if engine == site else [engine, site]

    def watched_folders(self, engine_folders: tuple[str, ...]) -> list[Path]:
        """The site's source folders, then the engine's folders named (templates, locales ...): each folder once
        (the engine's own site holds the engine's), resolved."""
        folders: list[Path] = []
        for folder in (*self.source_folders, *(self.engine / name for name in engine_folders)):
            folder = folder.resolve()
            if folder not in folders:
                folders.append(folder)
        return folders

    @staticmethod
    def content_name(segment: str, source: str) -> str:
        """A page's text in one language, as messages name it: content/en/vram.md."""
        return f"content/{segment}/{source}.md"

    def content_file(self, segment: str, source: str) -> Path:
        return self.root / self.content_name(segment, source)


def page_path(segment: str, key: str) -> str:
    """Where a page in one language lives in the built site: en/gpus/a40.html (its twin: that + ".md")."""
    return f"{segment}/{key}.html"


def download_path(table_id: str, ext: str, segment: str) -> str:
    """Where a table's file in one language lives in the built site: data/en/lookup.json."""
    return f"data/{segment}/{table_id}.{ext}"


def bundle_path(folder: str, item: str, segment: str) -> str:
    """Where the tables about one item live together in one language: data/en/models/llama-3.1-8b.json."""
    return f"data/{segment}/{folder}/{item}.json"


def relative_url(path: str, folder: str) -> str:
    """The URL of the site file ``path`` from a page in ``folder`` ("" or "." for the site's root), both
    plain paths inside the site: ``posixpath.relpath``'s answer without its two calls for the working folder."""
    parts = path.split("/")
    here = [] if folder in ("", ".") else folder.split("/")
    common = 0
    while common < len(here) and common < len(parts) and here[common] == parts[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + parts[common:]) or "."
