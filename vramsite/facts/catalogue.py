"""The GPU catalogue (``facts: catalogue``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.figure import Figure
from ..calc.guide import Guide
from . import register
from .base import Facts


@dataclass(frozen=True)
class Catalogue(Facts):
    card_count: Figure


@register("catalogue")
def catalogue(guide: Guide, params: dict, subject=None) -> Catalogue:
    return Catalogue(guide.card_count)
