"""Where each page lives: <segment>/<key>.html and its twin <key>.html.md, as content/pages.yaml declares it."""

from __future__ import annotations

from ..errors import UnknownId
from ..layout import page_path
from ..load.model import LocaleConfig
from ..load.pages import PageSpec
from ..page_collections import COLLECTIONS


class Router:
    """Link targets -> paths. A target names a page by its key, ("vram",) or ("gpus", "index"), or the page made
    for one item of a collection by the collection's link word and the item's key: ("gpu", "a40") is the page
    content/pages.yaml makes for that card (gpus/a40 where its id is gpus/{card})."""

    def __init__(self, pages: tuple[PageSpec, ...]):
        self.keys = dict.fromkeys(page.id for page in pages)
        self._items: dict[tuple[str, str], str] = {}
        self._patterns: dict[str, str] = {}
        for page in pages:
            if page.collection is not None:
                link = COLLECTIONS[page.collection].link
                self._items.setdefault((link, page.item), page.id)
                self._patterns.setdefault(link, page.pattern)

    def key_of(self, target: tuple[str, ...]) -> str:
        return self._items.get(target) or "/".join(target)

    def pattern_path(self, link: str, locale: LocaleConfig) -> str | None:
        """Where the pages a link word leads to live, the record's key as its placeholder ("en/models/{model}.html");
        None where the site makes none."""
        pattern = self._patterns.get(link)
        return None if pattern is None else page_path(locale.segment, pattern)

    def path(self, target: tuple[str, ...], locale: LocaleConfig) -> str:
        key = self.key_of(tuple(target))
        if key not in self.keys:
            raise UnknownId("page", key, tuple(self.keys))
        return page_path(locale.segment, key)
