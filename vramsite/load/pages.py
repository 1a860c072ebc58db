"""content/pages.yaml: which pages there are, and the named inputs (params) of each.

Each entry becomes one ``PageSpec``, or one per record of a collection for ``each: <collection>``
(``each: card``: one per card; the collections are in vramsite/page_collections.py); two
pages that would write one file are refused, each at the line that makes
the clash. The schema checks each param's type and range, and marks with ``x-refers``
what a value names: a model id, a card id, a card count. Whether the data
has it is asked here, each problem at the line of the param.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, Problem
from ..page_collections import COLLECTIONS, Collection
from .model import SiteData
from .schema import schema_problems
from .yaml_source import YamlDocument, read_yaml, readable_path

PAGES_FILE = "content/pages.yaml"
PLACEHOLDER = re.compile(r"\{[a-z]+\}")
"""Where a record's key goes in the id of a page made once per item: {card}."""


def read_pages(root: Path, data: SiteData | None = None) -> YamlDocument:
    """The checked pages.yaml of the site at ``root``; with ``data``, its params are checked against it."""
    path = Path(root) / PAGES_FILE
    if not path.is_file():
        raise InputError([Problem(PAGES_FILE, None, "", "file is missing")])
    document = read_yaml(path, PAGES_FILE)
    problems = schema_problems(document, "pages.schema.json")
    if not problems:
        problems = collection_problems(document)
    if not problems and data is not None:
        problems = param_problems(document, data)
    if problems:
        raise InputError(problems)
    return document


def collection_problems(document: YamlDocument) -> list[Problem]:
    """Each entry whose ``each:`` names no collection, or whose id lacks its collection's placeholder or holds
    one without ``each:``."""
    problems = []
    for index, item in enumerate(document.value["pages"]):
        found = _collection_problem(item)
        if found is not None:
            field, message = found
            problems.append(Problem(document.name, document.line_of(("pages", index, field)),
                                    f"{readable_path(document, ('pages', index))}.{field}", message))
    return problems


def _collection_problem(item: dict) -> tuple[str, str] | None:
    """(field, message) of what is wrong with an entry's ``each:`` and its id's placeholder; None if nothing."""
    each, placeholders = item.get("each"), PLACEHOLDER.findall(item["id"])
    if each is not None and each not in COLLECTIONS:
        return "each", f"no page collection {each!r} (known: {', '.join(COLLECTIONS)})"
    if each is not None and placeholders != [COLLECTIONS[each].placeholder]:
        placeholder = COLLECTIONS[each].placeholder
        return "id", f"a page made once per {each} needs {placeholder} in its id, where each {each}'s key goes"
    if each is None and placeholders:
        return "id", (f"{placeholders[0]} stands for an item, but the page is not made once per item: "
                      f"add each: {placeholders[0][1:-1]}")
    return None


def param_problems(document: YamlDocument, data: SiteData) -> list[Problem]:
    """Ids in params that name nothing in data/ (models, cards, sizing methods), card counts the lookup rules do not rent."""
    return schema_problems(document, "pages.schema.json", referees={
        "model": lambda wanted: _unknown("model", wanted, [model.id for model in data.models], "data/models.yaml"),
        "card": lambda wanted: _unknown("card", wanted, [gpu.id for gpu in data.gpus], "data/gpus.yaml"),
        "method": lambda wanted: _unknown("method", wanted, [method.id for method in data.methods],
                                          "data/sizing.yaml"),
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
    """One page of the site, as content/pages.yaml declares it (a page made once per item: one per item)."""

    id: str
    """The page key: <segment>/<id>.html."""
    source: str
    """Content file: content/<segment>/<source>.md."""
    template: str
    nav: str | None
    """Menu label (a UI string), or None to keep the page out of the menu."""
    params: dict
    collection: str | None = None
    """For a page made once per item (``each: card``): the collection's name (vramsite/page_collections.py)."""
    item: str | None = None
    """For a page made once per item: its record's key (a card's id; the content sees its view as ``card``)."""
    line: int | None = None
    entry: str = ""
    """Where content/pages.yaml declares the page (line, and its entry: pages[pricing]), for messages."""
    facts: str | None = None
    """The page-facts builder the content reads as `facts` (vramsite/facts), if any."""
    pattern: str | None = None
    """For a page made once per item: the id pages.yaml gives every page of its entry ("models/{model}")."""


def read_page_specs(root: Path, data: SiteData, documents: dict[str, YamlDocument],
                    has_template: Callable[[str], bool]) -> tuple[PageSpec, ...]:
    """Every page of the site at ``root``, or InputError with every problem of content/pages.yaml.

    ``documents``: the data files ``data`` was read from, by name ("gpus"), where a record whose key makes two
    pages clash is pointed at; ``has_template``: whether templates/ has a layout of that name.
    """
    document = read_pages(root, data)
    pages: list[PageSpec] = []
    problems: list[Problem] = []
    claimed: dict[str, PageSpec] = {}
    for index, item in enumerate(document.value["pages"]):
        entry = readable_path(document, ("pages", index))
        for page in _specs_of(item, document.line_of(("pages", index)), entry, data):
            if page.id in claimed:  # two pages would write one file in every language
                problems.append(_clash(page, claimed[page.id], document, index, entry, documents))
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
    """The pages one entry of pages.yaml makes: itself, or one per record of its collection (``each:``)."""
    source, params, facts = item.get("source", item["id"]), item.get("params", {}), item.get("facts")
    if "each" in item:
        collection = COLLECTIONS[item["each"]]
        return [PageSpec(id=collection.page_id(item["id"], key), source=source, template=item["template"], nav=None,
                         params=params, collection=collection.name, item=key, line=line, entry=entry,
                         facts=facts, pattern=item["id"]) for key in collection.keys(data)]
    return [PageSpec(id=item["id"], source=source, template=item["template"], nav=item.get("nav"), params=params,
                     line=line, entry=entry, facts=facts)]


def _clash(page: PageSpec, first: PageSpec, document: YamlDocument, index: int, entry: str,
           documents: dict[str, YamlDocument]) -> Problem:
    clash = (f"{first.entry} (content/pages.yaml line {first.line}); "
             f"two pages cannot write <language>/{page.id}.html")
    if page.collection is not None:  # the record's key makes the clash: say so where the key is
        data_file, path = _key_of(COLLECTIONS[page.collection], page.item, documents)
        return Problem(data_file.name, data_file.line_of(path), readable_path(data_file, path),
                       f"its page {page.id!r} is already made by {clash}")
    return Problem(document.name, document.line_of(("pages", index, "id")), f"{entry}.id",
                   f"page {page.id!r} is already made by {clash}")


def _key_of(collection: Collection, key: str, documents: dict[str, YamlDocument]) -> tuple[YamlDocument, tuple]:
    """The data file of ``collection`` and the path in it of the field holding the record ``key``'s key."""
    data_file = documents[collection.data_file]
    records = data_file.value[collection.entries]
    index = next(i for i, record in enumerate(records) if str(record.get(collection.key)) == key)
    return data_file, (collection.entries, index, collection.key)
