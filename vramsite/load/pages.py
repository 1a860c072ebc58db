"""content/pages.yaml: which pages there are, and the named inputs (params) of each.

The schema checks each param's type and range, and marks with ``x-refers``
what a value names: a model id, a card id, a card count. Whether the data
has it is asked here, each problem at the line of the param.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, Problem
from .model import SiteData
from .schema import schema_problems
from .yaml_source import YamlDocument, read_yaml

PAGES_FILE = "content/pages.yaml"


def read_pages(root: Path, data: SiteData | None = None) -> YamlDocument:
    """The checked pages.yaml of the site at ``root``; with ``data``, its params are checked against it."""
    path = Path(root) / PAGES_FILE
    if not path.is_file():
        raise InputError([Problem(PAGES_FILE, None, "", "file is missing")])
    document = read_yaml(path, PAGES_FILE)
    problems = schema_problems(document, "pages.schema.json")
    if not problems and data is not None:
        problems = param_problems(document, data)
    if problems:
        raise InputError(problems)
    return document


def param_problems(document: YamlDocument, data: SiteData) -> list[Problem]:
    """Ids in params that name nothing in data/, card counts the lookup rules do not rent."""
    return schema_problems(document, "pages.schema.json", referees={
        "model": lambda wanted: _unknown("model", wanted, [model.id for model in data.models], "data/models.yaml"),
        "card": lambda wanted: _unknown("card", wanted, [gpu.id for gpu in data.gpus], "data/gpus.yaml"),
        "card count": lambda count: _not_rented(count, data.lookup.card_counts),
    })


def _unknown(what: str, wanted: object, known: list[str], where: str) -> str | None:
    if wanted in known:
        return None
    return f"unknown {what} {wanted!r} ({where} has {', '.join(known)})"


def _not_rented(count: object, counts: tuple[int, ...]) -> str | None:
    if count in counts:
        return None
    return f"{count} cards is not one of the lookup card_counts ({', '.join(map(str, counts))})"
