"""Where each page lives: <segment>/<key>.html and its twin <key>.html.md."""

from __future__ import annotations

from ..errors import UnknownId
from ..layout import page_path
from ..load.model import LocaleConfig


class Router:
    """Page keys -> paths. Keys: "vram", "gpus/index", "gpus/a40"; targets: ("vram",), ("gpu", "a40"), ("model", "llama-3.1-8b")."""

    def __init__(self):
        self.keys: list[str] = []

    def add(self, key: str) -> None:
        if key in self.keys:
            raise ValueError(f"two pages claim the key {key!r}")
        self.keys.append(key)

    @staticmethod
    def key_of(target: tuple[str, ...]) -> str:
        if target and target[0] == "gpu":
            return f"gpus/{target[1]}"
        if target and target[0] == "model":
            return f"models/{target[1]}"
        return "/".join(target)

    def path(self, target: tuple[str, ...], locale: LocaleConfig) -> str:
        key = self.key_of(target)
        if key not in self.keys:
            raise UnknownId("page", key, tuple(self.keys))
        return page_path(locale.segment, key)
