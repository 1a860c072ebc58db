"""Page facts: every figure and claim a page's prose states, computed once per page.

A builder is a pure function, the same for every page::

    def facts(guide, params, subject=None) -> Facts

``guide`` is the ``vramsite.calc.guide.Guide`` of the site's data, ``params``
the page's named inputs from ``content/pages.yaml`` (a dict), and ``subject``
the view of the item a page made once per item is about (the ``GpuView`` of a
card, the ``CatalogueView`` of a real model: vramsite/page_collections.py), or
``None`` on any other page. A builder names it for what it is (``model``).
It returns a frozen dataclass tree of Figures, card and model views, names and
booleans: no I/O, no formatting, no locale. Every language's prose reads the
same tree as ``facts`` (``{{ facts.x | fig }}``, ``{% if facts.claim %}``),
so a language file holds words only.

A page names its builder in ``content/pages.yaml`` with ``facts: <name>``;
``FACTS`` maps each name to its builder; a module in this package adds its
builders with the ``@register("name")`` decorator.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable

from .base import Facts

Builder = Callable[..., Any]

FACTS: dict[str, Builder] = {}


def register(name: str):
    """Add a builder to ``FACTS`` under ``name``."""
    def add(builder: Builder) -> Builder:
        FACTS[name] = builder
        return builder
    return add


def _load_builders() -> None:
    """Import every module of this package: each registers its builders with ``@register``."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


_load_builders()

__all__ = ["FACTS", "Facts", "register"]
