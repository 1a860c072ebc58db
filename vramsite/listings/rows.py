"""What each field of a listing may hold, and the typed listing a good row becomes.

Money stays ``Decimal`` from the text of the file: "0.410" is 0.410, never
a float, and is written back with the same decimals.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib import resources

from ..errors import Problem
from ..load.text import text_problem
from .read import Export, RawRow, quoted

PRICE = re.compile(r"[0-9]{1,7}(?:\.[0-9]{1,8})?")
"""A price as digits with an optional decimal point: 0.41, 1.650, 12. ASCII digits only: a regex's \\d and
``Decimal`` would take any script's ("٠.٤١", fullwidth "８")."""
WHOLE = re.compile(r"[0-9]{1,7}")
MAX_GPUS_PER_MACHINE = 1024
"""The most cards a machine's listing may hold: a whole cluster is listed as machines, not as one."""
MAX_TEXT = 200
BOOLEANS = {"true": True, "false": False}


@dataclass(slots=True)
class Listing:
    line: int
    machine_id: str
    gpu: str
    """The GPU's name as the marketplace writes it."""
    gpus: int
    price: Decimal
    """USD per GPU-hour, with the decimals the file wrote."""
    available: bool
    region: str | None


class _Bad(ValueError):
    """A field's value is not what the field takes; the message says why."""


def parse_rows(export: Export) -> tuple[list[Listing], list[Problem]]:
    listings, problems = [], []
    for row in export.rows:
        listing = _listing(row, export.name, problems)
        if listing is not None:
            listings.append(listing)
    return listings, problems


def _listing(row: RawRow, name: str, problems: list[Problem]) -> Listing | None:
    values = row.values
    try:  # most rows are good: read in one step, and field by field only to name each problem
        return Listing(row.line, *[rule(values.get(field)) for field, rule in RULES])
    except _Bad:
        pass
    for field, rule in RULES:
        try:
            rule(values.get(field))
        except _Bad as error:
            problems.append(Problem(name, row.line, field, str(error)))
    return None


def _required(text: str | None) -> str:
    if text is None or text == "":
        raise _Bad("missing value")
    return text


def _name(text: str | None) -> str:
    text = _required(text)
    _check_text(text)
    return text


@lru_cache(maxsize=4096)
def _repeated_name(text: str | None) -> str:
    """A name most rows repeat (a GPU's, a region's), checked once for all of them."""
    return _name(text)


def _check_text(text: str) -> None:
    problem = text_problem(text)
    if problem:
        raise _Bad(problem)
    if len(text) > MAX_TEXT:
        raise _Bad(f"is longer than {MAX_TEXT} characters")


@lru_cache(maxsize=4096)
def _gpu_count(text: str | None) -> int:
    text = _required(text)
    if not WHOLE.fullmatch(text):
        raise _Bad(f"{quoted(text)} is not a whole number of GPUs")
    count = int(text)
    if not 1 <= count <= MAX_GPUS_PER_MACHINE:
        raise _Bad(f"a machine lists 1 to {MAX_GPUS_PER_MACHINE} GPUs, got {count}")
    return count


@lru_cache(maxsize=65536)
def _price(text: str | None) -> Decimal:
    """A price (Decimal is immutable: rows of the same text share one)."""
    text = _required(text)
    if text.startswith("-") and PRICE.fullmatch(text[1:]):
        raise _Bad(f"{text} is negative; a price per GPU-hour is at least {hourly_bounds()[0]}")
    if not PRICE.fullmatch(text):
        raise _Bad(f"{quoted(text)} is not a price: write USD per GPU-hour as digits and a decimal point, such as 0.41")
    price = Decimal(text)
    low, high = hourly_bounds()
    if price < low:
        raise _Bad(f"must be at least {low} USD per GPU-hour, got {text}")
    if price > high:
        raise _Bad(f"must be at most {high} USD per GPU-hour, got {text} (a typo?)")
    return price


def _available(text: str | None) -> bool:
    if text is None:
        return True  # a listing says when it is not available
    flag = BOOLEANS.get(text.lower())
    if flag is None:
        raise _Bad(f"{quoted(text)} is not true or false" if text else "is empty; write true or false")
    return flag


def _region(text: str | None) -> str | None:
    return _repeated_name(text) if text else None


RULES = (("machine_id", _name), ("gpu", _repeated_name), ("gpus", _gpu_count), ("usd_per_gpu_hour", _price),
         ("available", _available), ("region", _region))
"""Each column, in the order of Listing's fields, and how its text becomes a value (or why it cannot)."""


@lru_cache(maxsize=1)
def hourly_bounds() -> tuple[Decimal, Decimal]:
    """The lowest and highest hourly price data/prices.yaml takes: its schema's, so both say the same."""
    text = resources.files("vramsite.schemas").joinpath("prices.schema.json").read_text(encoding="utf-8")
    usd = json.loads(text, parse_float=Decimal)["then"]["properties"]["prices"]["items"]["properties"]["usd"]
    return Decimal(usd["minimum"]), Decimal(usd["maximum"])
