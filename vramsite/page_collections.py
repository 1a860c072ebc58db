"""The collections a page can be made once per item of: ``each: <name>`` in content/pages.yaml.

A collection is a list of records in the site's data (the cards of data/gpus.yaml, the real
models of data/catalogue.yaml). For a page made once per record it says:

- ``name``: what ``each:`` says, the placeholder of the page's id (``gpus/{card}``), and the
  name the page's content knows its record by (``card``);
- where the records are: the data file, the list in it and the field whose value is a record's
  key (a card's ``id``). The key fills the placeholder (``gpus/a40``), and a page that clashes
  with another because of its key is reported at the line of that field;
- ``view``: what the page gets of its record, from its key: content sees it by ``name``, and
  the page's facts builder gets it as its subject;
- ``link``: the word a link to one of its pages starts with, ``link("gpu", "a40")``; the link
  leads to the page content/pages.yaml makes for that record (the first, if several entries
  are made once per item of the collection).

A new collection is one entry of ``COLLECTIONS``, with its data (docs/editing.md, "Add a page kind").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .load.model import SiteData


@dataclass(frozen=True)
class Collection:
    name: str
    link: str
    data_file: str
    """The data file's name: "gpus" for data/gpus.yaml."""
    entries: str
    """The list of records in that file: "gpus"."""
    records: Callable[[SiteData], tuple]
    """The records, as the site's data holds them, in file order."""
    view: Callable[[object, str], object]
    """The record's view from the build's ``calc.Guide`` and the record's key (the guide is not named here: the
    loader, below the calculation, reads the collections too)."""
    key: str = "id"
    """The field whose value is a record's key: in the file, and an attribute of each record."""

    @property
    def placeholder(self) -> str:
        """What a page's id holds where a record's key goes: {card}."""
        return "{" + self.name + "}"

    def keys(self, data: SiteData) -> list[str]:
        """Each record's key, in file order."""
        return [str(getattr(record, self.key)) for record in self.records(data)]

    def page_id(self, pattern: str, key: str) -> str:
        """The id of the page made for the record ``key`` by the entry whose id is ``pattern``."""
        return pattern.replace(self.placeholder, key)


COLLECTIONS: dict[str, Collection] = {collection.name: collection for collection in (
    Collection("card", link="gpu", data_file="gpus", entries="gpus",
               records=lambda data: data.gpus, view=lambda guide, key: guide.gpu(key)),
    Collection("model", link="model", data_file="catalogue", entries="models",
               records=lambda data: data.catalogue, view=lambda guide, key: guide.catalogue_model(key)),
)}
"""Every collection, by name."""
