"""Dates an editor writes in data: YYYY-MM-DD, optionally with a UTC time."""

from __future__ import annotations

import re
from datetime import date, datetime

_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?) ?(?:UTC|Z)?)?")


def parse_moment(text: str) -> date | datetime:
    """The date (or UTC date and time) ``text`` names; ValueError if it names none."""
    found = _MOMENT.fullmatch(text.strip())
    if found is None:
        raise ValueError("must be a date, YYYY-MM-DD, optionally followed by a time HH:MM UTC")
    day, clock = found.groups()
    try:
        return date.fromisoformat(day) if clock is None else datetime.fromisoformat(f"{day}T{clock}")
    except ValueError as error:
        raise ValueError(f"is not a real date or time ({error})") from None


def machine_date(text: str) -> str:
    """A date from data as HTML's ``datetime`` attribute takes it: 2026-09-01, or 2026-10-31T17:40Z."""
    moment = parse_moment(text)
    return f"{moment:%Y-%m-%dT%H:%MZ}" if isinstance(moment, datetime) else moment.isoformat()
