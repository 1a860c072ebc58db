"""content/pages.yaml: which pages there are, and the named inputs (params) of each.

Each entry becomes one ``PageSpec`` (one per card for ``each: card``, one per real model of
data/catalogue.yaml for ``each: model``); two
pages that would write one file are refused, each at the line that makes
the clash. The schema checks each param's type and range, and marks with ``x-refers``
what a value names: a model id, a card id, a card count. Whether the data
has it is asked here, each problem at the line of the param.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, Problem
from .model import SiteData
from .schema import schema_problems
from .yaml_source import YamlDocument, read_yaml, readable_path

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


@dataclass(frozen=True)
class PageSpec:
    """One page of the site, as content/pages.yaml declares it (a page made once per card: one per card)."""

    id: str
    """The page key: <segment>/<id>.html."""
    source: str
    """Content file: content/<segment>/<source>.md."""
    template: str
    nav: str | None
    """Menu label (a UI string), or None to keep the page out of the menu."""
    params: dict
    card: str | None = None
    """For pages made once per card: the card's id (the content sees it as `card`)."""
    model: str | None = None
    """For pages made once per real model (``each: model``): its id in data/catalogue.yaml (the content sees
    it as `model`)."""
    line: int | None = None
    entry: str = ""
    """Where content/pages.yaml declares the page (line, and its entry: pages[pricing]), for messages."""
    facts: str | None = None
    """The page-facts builder the content reads as `facts` (vramsite/facts), if any."""


def read_page_specs(root: Path, data: SiteData, gpus: YamlDocument,
                    has_template: Callable[[str], bool]) -> tuple[PageSpec, ...]:
    """Every page of the site at ``root``, or InputError with every problem of content/pages.yaml.

    ``gpus``: the document data/gpus.yaml was read from, where a card whose id makes two pages clash
    is pointed at; ``has_template``: whether templates/ has a layout of that name.
    """
    document = read_pages(root, data)
    pages: list[PageSpec] = []
    problems: list[Problem] = []
    claimed: dict[str, PageSpec] = {}
    for index, item in enumerate(document.value["pages"]):
        entry = readable_path(document, ("pages", index))
        for page in _specs_of(item, document.line_of(("pages", index)), entry, data):
            if page.id in claimed:  # two pages would write one file in every language
                problems.append(_clash(page, claimed[page.id], document, index, entry, gpus))
            else:
                claimed[page.id] = page
                pages.append(page)
        if not has_template(item["template"]):
            problems.append(Problem(document.name, document.line_of(("pages", index, "template")), f"{entry}.template",
                                    f"no template {item['template']!r} in templates/"))
    if problems:
        raise InputError(problems)
    return tuple(pages)


def _specs_of(item: dict, line: int | None, entry: str, data: SiteData) -> list[PageSpec]:
    """The pages one entry of pages.yaml makes: itself, one per card (``each: card``) or one per real model
    (``each: model``)."""
    source, params, facts = item.get("source", item["id"]), item.get("params", {}), item.get("facts")
    if item.get("each") == "card":
        return [PageSpec(item["id"].replace("{card}", gpu.id), source, item["template"], None, params, gpu.id,
                         line=line, entry=entry, facts=facts) for gpu in data.gpus]
    if item.get("each") == "model":  # none where the site has no data/catalogue.yaml
        return [PageSpec(item["id"].replace("{model}", model.id), source, item["template"], None, params,
                         model=model.id, line=line, entry=entry, facts=facts) for model in data.catalogue]
    return [PageSpec(item["id"], source, item["template"], item.get("nav"), params, line=line, entry=entry,
                     facts=facts)]


def _clash(page: PageSpec, first: PageSpec, document: YamlDocument, index: int, entry: str,
           gpus: YamlDocument) -> Problem:
    clash = (f"{first.entry} (content/pages.yaml line {first.line}); "
             f"two pages cannot write <language>/{page.id}.html")
    if page.card:  # the card's id makes the clash: say so where the id is
        card = next(i for i, item in enumerate(gpus.value["gpus"]) if item.get("id") == page.card)
        return Problem(gpus.name, gpus.line_of(("gpus", card, "id")), f"gpus[{page.card}].id",
                       f"its page {page.id!r} is already made by {clash}")
    return Problem(document.name, document.line_of(("pages", index, "id")), f"{entry}.id",
                   f"page {page.id!r} is already made by {clash}")
