"""Reading golden files: every published figure with the expression behind it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import yaml

from vramsite.calc.figure import Figure
from vramsite.render.numbers import quantize

GOLDEN = Path(__file__).resolve().parent / "golden"


def load_golden(name: str) -> dict:
    return yaml.safe_load((GOLDEN / name).read_text(encoding="utf-8"))


def evaluate(expr: str, guide) -> object:
    names = {"g": guide, "model": guide.model, "gpu": guide.gpu, "cell": guide.cell, "len": len, "dict": dict}
    return eval(expr, {"__builtins__": {}}, names)  # noqa: S307 - test data written by us


def as_printed(value: object, published: object, decimals: int | None) -> object:
    """``value`` rounded as the page printed ``published`` (its decimals unless told)."""
    if isinstance(value, Figure):
        value = value.value
    if isinstance(published, bool) or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, Decimal)):
        places = decimals if decimals is not None else max(0, -Decimal(str(published)).as_tuple().exponent)
        return quantize(Decimal(value), places)
    return value


def expected(published: object) -> object:
    if isinstance(published, (bool, str)) and not _is_number(published):
        return published
    return Decimal(str(published))


def _is_number(text: object) -> bool:
    try:
        Decimal(str(text))
    except ArithmeticError:
        return False
    return not isinstance(text, bool)


def figure_id(entry: dict) -> str:
    return f"{entry['where']}: {entry['expr']}"


def check_published(entry: dict, guide) -> None:
    """The calculation gives the published figure, or the listed computed one with its reason."""
    shown = as_printed(evaluate(entry["expr"], guide), entry["published"], entry.get("decimals"))
    if "computed" in entry:
        assert entry.get("reason"), "a listed difference needs its reason"
        assert shown == expected(entry["computed"])
        assert shown != expected(entry["published"]), "no longer a difference: drop computed/reason"
    else:
        assert shown == expected(entry["published"])


def _normal(spec: dict) -> dict:
    return {key: Decimal(str(value)) if key in ("need", "price", "nodes") else value for key, value in spec.items()}


def check_cell(summary: dict, spec: dict) -> None:
    """A lookup cell's summary equals the golden spec, or its listed computed value (with a reason)."""
    if "computed" in spec:
        assert spec.get("reason"), "a listed difference needs its reason"
        assert summary == _normal(spec["computed"])
        assert summary != _normal(spec["published"]), "no longer a difference: drop computed/reason"
    else:
        assert summary == _normal(spec)
