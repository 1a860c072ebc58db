"""Every figure the pages show, derived from the data. Pure: Decimal in,
Figure out; no I/O, no rounding for display, no locale."""

from .figure import Figure, Formula
from .guide import Guide

__all__ = ["Figure", "Formula", "Guide"]
