"""Which data records a page read while it rendered, for rebuilds that re-render only what an edit touched.

A record is named ``(kind, id)``: ``("gpu", "a40")`` (its row in gpus.yaml),
``("price", "a40")`` (its price in prices.yaml), ``("model", "7B")``,
``("catalogue", "qwen3-8b")``; the id ``"*"`` means every record of that kind
(something walked the whole list). ``tracked_data`` wraps a site's data so
that taking a record by id, walking a list of records or looking up a price
notes it; the other parts of the data (sizing rules, discounts, the site's
settings) are not tracked, and a rebuild renders every page when they change.

Results that are worked out once and kept (the lookup grid, tables, facts)
remember what computing them read (``ReadCache``, ``cached_reads``) and note
it again each time they are handed out, so a page that takes the grid from
the cache reads every price just as the page that first computed it did.
A cached result records what it read wherever it is computed, inside a
page or not (a kept page's tables are counted again before the next page
renders).

A value worked out from many records that a page reads whole can stand for
them as a derived read of its own (``DerivedCache``): the cells of the lookup
grid a card wins read every price, but the page of a card that wins the same
cells after a price edit shows the same things. Such a page notes
``("wins", "a40")``; its record keeps the value's digest and the records behind
the value, and a rebuild keeps the page when the records behind it did not
change or the value's digest is what it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from .model import SiteData

Read = tuple[str, str]
EVERY = "*"

_open: list[set[Read]] = []
"""The read sets being filled, innermost last: a page, and the cached results it is computing."""


def reading():
    """Collect the records read inside the block (and by the cached results handed out in it); they are
    read by the enclosing block too."""
    return _collecting(True)


def apart(compute: Callable[[], object]):
    """``compute()``, with what it reads kept from the enclosing page: for the site's own files (a language's
    calculator data), which every build makes afresh."""
    with _apart():
        return compute()


def _apart():
    """Collect the records read inside the block for the block alone: they are not the enclosing page's."""
    return _collecting(False)


@contextmanager
def _collecting(enclosing_reads_them: bool) -> Iterator[set[Read]]:
    found: set[Read] = set()
    _open.append(found)
    try:
        yield found
    finally:
        _open.pop()
        if enclosing_reads_them and _open:
            _open[-1].update(found)


def note(kind: str, record_id: str) -> None:
    if _open:
        _open[-1].add((kind, record_id))


def _note_all(reads: set[Read]) -> None:
    if _open and reads:
        _open[-1].update(reads)


_read_sets: dict[frozenset, frozenset] = {}


def _shared(reads: set[Read]) -> frozenset[Read]:
    """One copy of each distinct read set: the grid's many cells each read every price, the same set."""
    frozen = frozenset(reads)
    return _read_sets.setdefault(frozen, frozen)


class ReadCache(dict):
    """A dict of results that replays what each one read whenever it is handed out."""

    def __init__(self):
        super().__init__()
        self._reads: dict = {}

    def fetch(self, key, compute: Callable[[], object]):
        if key in self:
            _note_all(self._reads[key])
            return self[key]
        # Recorded even where no page is reading (a kept page's tables counted again, a download): a page
        # that takes the value from here later reads what computing it read.
        with reading() as found:
            value = compute()
        self[key] = value
        self._reads[key] = _shared(found)
        return value


@dataclass
class DerivedState:
    """One derived value of this build, the records computing it read, and its digest once asked for."""

    value: object
    behind: frozenset[Read]
    digest: str | None = None


class DerivedCache:
    """Derived values of one kind, by id: a page reading one notes ``(kind, id)``, not the records behind it.

    ``compute(id)`` works the value out; ``digest(value)`` gives a text that two builds share exactly when
    the values are equal (a different text for equal values only costs the page its shortcut).
    """

    def __init__(self, kind: str, compute: Callable[[str], object], digest: Callable[[object], str]):
        self.kind, self._compute, self._digest = kind, compute, digest
        self._states: dict[str, DerivedState] = {}

    def get(self, record_id: str):
        note(self.kind, record_id)
        return self._state(record_id).value

    def state(self, record_id: str) -> tuple[str, frozenset[Read]]:
        """The value's digest and the records behind it, for a page's record."""
        state = self._state(record_id)
        if state.digest is None:
            state.digest = self._digest(state.value)
        return state.digest, state.behind

    def _state(self, record_id: str) -> DerivedState:
        state = self._states.get(record_id)
        if state is None:
            with _apart() as behind:
                value = self._compute(record_id)
            state = self._states[record_id] = DerivedState(value, _shared(behind))
        return state


class EveryCardRead(dict):
    """A cache of results worked out from every card and every price (the lookup's offers): looking a result
    up reads them all, however the cache is used."""

    def __contains__(self, key):
        _note_every_card()
        return super().__contains__(key)

    def __getitem__(self, key):
        _note_every_card()
        return super().__getitem__(key)

    def get(self, key, default=None):
        _note_every_card()
        return super().get(key, default)


def _note_every_card() -> None:
    note("gpu", EVERY)
    note("price", EVERY)


class cached_reads:  # noqa: N801 - used as a decorator, like functools.cached_property
    """``functools.cached_property`` that replays what computing the value read."""

    def __init__(self, function):
        self.function, self.name = function, function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        cache = instance.__dict__.setdefault("_cached_reads", ReadCache())
        return cache.fetch(self.name, lambda: self.function(instance))


class TrackedRecords(tuple):
    """A list of records of one kind: walking it, or indexing it, reads every record."""

    kind: str = ""

    def __new__(cls, records, kind: str):
        made = super().__new__(cls, records)
        made.kind = kind
        return made

    def __iter__(self):
        note(self.kind, EVERY)
        return super().__iter__()

    def __getitem__(self, index):
        note(self.kind, EVERY)
        return super().__getitem__(index)

    def __contains__(self, item):
        note(self.kind, EVERY)
        return super().__contains__(item)

    def __reversed__(self):
        note(self.kind, EVERY)
        return super().__reversed__()

    def __add__(self, other):
        note(self.kind, EVERY)
        return tuple(super().__iter__()) + tuple(other)

    def index(self, *args):
        note(self.kind, EVERY)
        return super().index(*args)

    def count(self, item):
        note(self.kind, EVERY)
        return super().count(item)

    def by_id(self, record_id: str):
        """The record ``record_id`` (None if there is none), noted as read alone."""
        note(self.kind, record_id)
        return next((record for record in super().__iter__() if record.id == record_id), None)


class TrackedPrices(dict):
    """prices.yaml's price per card: looking one up reads that card's price; walking them reads all."""

    def get(self, key, default=None):
        note("price", key)
        return super().get(key, default)

    def __getitem__(self, key):
        note("price", key)
        return super().__getitem__(key)

    def __contains__(self, key):
        note("price", key)
        return super().__contains__(key)

    def __iter__(self):
        note("price", EVERY)
        return super().__iter__()

    def keys(self):
        note("price", EVERY)
        return super().keys()

    def values(self):
        note("price", EVERY)
        return super().values()

    def items(self):
        note("price", EVERY)
        return super().items()


@dataclass(frozen=True)
class TrackedSiteData(SiteData):
    """SiteData whose cards, models, real models and prices note what is read of them."""

    def gpu(self, gpu_id: str):
        return self._by_id(self.gpus, gpu_id) or super().gpu(gpu_id)

    def model(self, model_id: str):
        return self._by_id(self.models, model_id) or super().model(model_id)

    def catalogue_model(self, model_id: str):
        return self._by_id(self.catalogue, model_id) or super().catalogue_model(model_id)

    @staticmethod
    def _by_id(records, record_id: str):
        return records.by_id(record_id) if isinstance(records, TrackedRecords) else None


TRACKED_KINDS = {"gpus": "gpu", "models": "model", "catalogue": "catalogue"}
"""SiteData's lists of records, and the kind each read is noted as."""


def tracked_data(data: SiteData) -> TrackedSiteData:
    """The data of a new build, with its reads noted (the read sets of earlier builds are let go)."""
    _read_sets.clear()
    fields = {name: TrackedRecords(getattr(data, name), kind) for name, kind in TRACKED_KINDS.items()}
    pricing = replace(data.pricing, usd=TrackedPrices(data.pricing.usd))
    plain = {name: getattr(data, name) for name in data.__dataclass_fields__}
    return TrackedSiteData(**{**plain, **fields, "pricing": pricing})


# A message about a value names its type (the sandbox's "content cannot read 'update' of a dict"): each
# tracked container is named as what it stands for, so that a build that notes reads words them the same.
TrackedRecords.__name__ = "tuple"
TrackedPrices.__name__ = "dict"
TrackedSiteData.__name__ = "SiteData"
