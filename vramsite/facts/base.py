"""The marker base class of page facts (what content may read)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Facts:
    """Base of every facts dataclass: a frozen record content reads by attribute."""
