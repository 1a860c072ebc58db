"""Pages made once per item of a collection (``each:`` in content/pages.yaml): declared, routed and refused.

Each test edits a copy of the main site's content/pages.yaml the way an editor would and reads the pages
as a build does (``read_page_specs``); the router is the build's, made from those pages alone.
"""

from __future__ import annotations

import pytest

from vramsite.errors import InputError, UnknownId
from vramsite.load.assemble import load_site_sources
from vramsite.load.pages import read_page_specs
from vramsite.page_collections import COLLECTIONS
from vramsite.publish.router import Router

PAGES = "content/pages.yaml"


def replace_once(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def pages_of(root):
    data, documents = load_site_sources(root)
    return data, read_page_specs(root, data, documents, lambda name: True)


def problems_of(root) -> list:
    with pytest.raises(InputError) as raised:
        pages_of(root)
    return raised.value.problems


def line_of(path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(number for number, line in enumerate(lines, 1) if line.endswith(text))


def test_every_collection_makes_a_page_per_record_filled_in_from_its_key(site_copy):
    data, pages = pages_of(site_copy)

    made = {(page.collection, page.item): page.id for page in pages if page.collection}

    assert made == {**{("card", gpu.id): f"gpus/{gpu.id}" for gpu in data.gpus},
                    **{("model", model.id): f"models/{model.id}" for model in data.catalogue}}


def test_a_link_to_an_item_follows_the_pattern_pages_yaml_gives_its_pages(site_copy):
    replace_once(site_copy / PAGES, '- id: "gpus/{card}"', '- id: "cards/{card}"')
    data, pages = pages_of(site_copy)
    router, locale, card = Router(pages), data.site.locales[0], data.gpus[0].id

    assert router.path(("gpu", card), locale) == f"{locale.segment}/cards/{card}.html"
    assert router.path(("gpus", "index"), locale) == f"{locale.segment}/gpus/index.html"
    model = data.catalogue[0].id
    assert router.path(("model", model), locale) == f"{locale.segment}/models/{model}.html"
    with pytest.raises(UnknownId, match="unknown page 'gpus/"):
        router.path(("gpus", card), locale)  # no such page any more: the card's page moved


def test_each_must_name_a_collection(site_copy):
    replace_once(site_copy / PAGES, "    each: card\n", "    each: cards\n")

    [problem] = problems_of(site_copy)

    assert (problem.file, problem.line, problem.field) == (PAGES, line_of(site_copy / PAGES, "each: cards"),
                                                           "pages[gpus/{card}].each")
    assert problem.message == f"no page collection 'cards' (known: {', '.join(COLLECTIONS)})"


def test_a_page_made_once_per_item_holds_its_collections_placeholder(site_copy):
    replace_once(site_copy / PAGES, "    each: card\n", "    each: model\n")

    [problem] = problems_of(site_copy)

    assert (problem.file, problem.line, problem.field) == (PAGES, line_of(site_copy / PAGES, '"gpus/{card}"'),
                                                           "pages[gpus/{card}].id")
    assert problem.message == "a page made once per model needs {model} in its id, where each model's key goes"


def test_a_placeholder_without_each_is_refused(site_copy):
    replace_once(site_copy / PAGES, "    each: card\n", "")

    [problem] = problems_of(site_copy)

    assert (problem.file, problem.field) == (PAGES, "pages[gpus/{card}].id")
    assert problem.message == "{card} stands for an item, but the page is not made once per item: add each: card"


def test_a_model_whose_page_is_taken_is_reported_at_its_id_in_the_catalogue(site_copy):
    data, _ = pages_of(site_copy)
    model = next(view.id for view in reversed(data.catalogue) if "." not in view.id)  # a page id has no dots
    replace_once(site_copy / PAGES, '  - id: "models/{model}"\n',
                 f'  - id: models/{model}\n    source: models\n    template: page.html\n\n'
                 '  - id: "models/{model}"\n')

    [problem] = problems_of(site_copy)

    catalogue = site_copy / "data" / "catalogue.yaml"
    assert (problem.file, problem.line, problem.field) == ("data/catalogue.yaml",
                                                           line_of(catalogue, f"- id: {model}"), f"models[{model}].id")
    assert problem.message.startswith(f"its page 'models/{model}' is already made by pages[models/{model}] "
                                      f"(content/pages.yaml line {line_of(site_copy / PAGES, f'id: models/{model}')})")
