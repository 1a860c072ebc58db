"""Rebuilds that render again only the pages an edit can have changed; every other page is kept as it was.

After each build, <site>/.cache/pages.pickle keeps every page as rendered,
with what it depended on: its content file, the data records it read
(``load/reads.py``: a card, a card's price, a model, a real model, or every
one of a kind) and the tables and charts it showed. The next build compares
its inputs with the kept digests:

- the engine's code, templates, catalogs, pages.yaml, the library
  versions, or any data outside the tracked records (sizing rules,
  discounts, the site's settings, the prices' period and dates) changed,
  or a card, model or price was added or removed: every page is rendered
  (there is no record of which pages read those, so any page may show them);
- otherwise a page is rendered again when its content file changed or a
  record it read changed, and kept when neither did. A derived value the
  page read (the cells a card wins) counts as changed only when a record
  behind it changed and its digest is not what it was.

The calculator's model files are kept the same way, each with the records
it read (a real model, every card, and the order of the priced
configurations: ``Guide.configurations``). The site's other files (sitemap,
llms.txt, the root and 404 pages, downloads, chart files) are always made
afresh from the pages and the data.
A build that left UI strings missing from a catalog keeps no record (a kept
page would not ask for them again), so the next build renders everything.
The file is signed (``signed_cache.py``): one this machine did not write, a
committed or planted one, is never unpickled, and the build runs cold.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..layout import SiteLayout
from ..load.model import SiteData
from ..load.reads import EVERY, TRACKED_KINDS, Read
from ..signed_cache import read_signed, write_signed_by
from .stamp import source_digests

FORMAT = 5
"""Bumped whenever what is kept changes shape: an older file is then ignored."""


@dataclass
class PageRecord:
    """One page in one language as it was rendered, and what it depended on."""

    key: str
    segment: str
    content: str
    """Its content file, as messages name it (content/en/vram.md)."""
    reads: frozenset[Read]
    tables: list[tuple[str, dict]]
    """(name, options) of every table it showed, in the order shown."""
    charts: list[tuple[str, dict]]
    page: object
    """The RenderedPage."""
    derived: dict[Read, tuple[str, frozenset[Read]]] = dataclasses.field(default_factory=dict)
    """The digest of each derived value among ``reads``, and the records behind it."""


@dataclass
class FileRecord:
    """One file made apart from the pages (a model's calculator file) as it was made, and what it depended on."""

    path: str
    reads: frozenset[Read]
    content: bytes
    derived: dict[Read, tuple[str, frozenset[Read]]] = dataclasses.field(default_factory=dict)
    """As ``PageRecord.derived``."""


@dataclass
class Inputs:
    """Digests of what a build read: the untracked sources as one, content files and data records one each."""

    sources: str
    content: dict[str, str]
    records: dict[str, str]
    pages: tuple
    """The pages in the order rendered, (language, key) each: another list means another site."""


def inputs_of(root: Path, data: SiteData, page_keys: tuple) -> Inputs:
    sources, content = source_digests(root)
    return Inputs(_digest(sources + "\0" + _canonical(_untracked(data))), content, record_digests(data), page_keys)


def record_digests(data: SiteData) -> dict[str, str]:
    """'gpu:a40', 'price:a40', 'model:7B', 'catalogue:qwen3-8b' -> the digest of that record."""
    digests = {}
    for field, kind in TRACKED_KINDS.items():
        for record in getattr(data, field):
            digests[f"{kind}:{record.id}"] = _digest(_canonical(record))
    for gpu_id, usd in data.pricing.usd.items():
        digests[f"price:{gpu_id}"] = _digest(_canonical(usd))
    return digests


def _untracked(data: SiteData) -> SiteData:
    """The data without the tracked records: what no page's reads account for."""
    plain = {field.name: getattr(data, field.name) for field in dataclasses.fields(data)}
    plain.update({name: () for name in TRACKED_KINDS})
    plain["pricing"] = dataclasses.replace(data.pricing, usd={})
    if data.price_history:  # its last list holds prices.yaml's prices, tracked one by one
        *past, latest = data.price_history
        unpriced = {gpu: dataclasses.replace(price, usd=None) for gpu, price in latest.cards.items()}
        plain["price_history"] = (*past, dataclasses.replace(latest, cards=unpriced))
    return SiteData(**plain)


def _canonical(value) -> str:
    """A text that two equal data values share, whatever the order of their sets or the hash seed."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ",".join(f"{field.name}={_canonical(getattr(value, field.name))}"
                         for field in dataclasses.fields(value))
        return f"{type(value).__name__}({inner})"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{_canonical(key)}:{_canonical(item)}" for key, item in value.items())) + "}"
    if isinstance(value, (set, frozenset)):
        return "set(" + ",".join(sorted(_canonical(item) for item in value)) + ")"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return f"{type(value).__name__}:{value!r}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PageMemory:
    """What the last build kept, and which of its pages this build may keep."""

    def __init__(self, root: Path, data: SiteData, page_keys: tuple):
        layout = SiteLayout(root)
        self.file = None if layout.cache_is_linked else layout.cache / "pages.pickle"
        self.now = inputs_of(root, data, page_keys)
        self._kept: dict[tuple[str, str], PageRecord] = {}
        self._kept_files: dict[str, FileRecord] = {}
        self._changed: set[str] = set()
        before = self._load()
        if before is None:
            return
        inputs, records, files = before
        if (inputs.sources, inputs.pages, set(inputs.records)) != (self.now.sources, self.now.pages,
                                                                     set(self.now.records)):
            return  # something no page's record accounts for changed: render every page
        self._changed = {key for key, digest in self.now.records.items() if inputs.records[key] != digest}
        changed_content = {name for name in set(inputs.content) | set(self.now.content)
                           if inputs.content.get(name) != self.now.content.get(name)}
        self._kept = {(record.segment, record.key): record for record in records
                      if record.content not in changed_content and not self._touched(record.reads)}
        self._kept_files = {record.path: record for record in files if not self._touched(record.reads)}

    def kept(self, segment: str, key: str, digest_now: Callable[[Read], str]) -> PageRecord | None:
        """The page as the last build rendered it, if nothing it depended on changed since.

        ``digest_now``: this build's digest of a derived value, asked for only where a record behind it changed.
        """
        return self._holding(self._kept.get((segment, key)), digest_now)

    def kept_file(self, path: str, digest_now: Callable[[Read], str]) -> FileRecord | None:
        """The file at ``path`` as the last build made it, if nothing it depended on changed since."""
        return self._holding(self._kept_files.get(path), digest_now)

    def _holding(self, record, digest_now: Callable[[Read], str]):
        """``record``, unless a derived value it read is not what it was."""
        if record is None:
            return None
        for read, (digest, behind) in record.derived.items():
            if self._touched(behind) and digest_now(read) != digest:
                return None
        return record

    def _touched(self, reads: frozenset[Read]) -> bool:
        """Whether a record among ``reads`` changed (a record read by id that is not there, a card without a
        price, cannot change without an addition, which renders every page)."""
        for kind, record_id in reads:
            if record_id == EVERY:
                if any(key.startswith(kind + ":") for key in self._changed):
                    return True
            elif f"{kind}:{record_id}" in self._changed:
                return True
        return False

    def _load(self):
        if self.file is None:
            return None
        kept = read_signed(self.file)  # before unpickling: a file this machine did not sign is never loaded
        if kept is None:
            return None
        try:
            stored = pickle.loads(kept)
        except (EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("format") != FORMAT:
            return None
        return stored["inputs"], stored["records"], stored["files"]

    def save(self, records: list[PageRecord], files: list[FileRecord]) -> None:
        """Keep this build's pages and files for the next; a file that cannot be written only costs the next build
        its shortcut."""
        if self.file is None:
            return
        try:
            kept = {"format": FORMAT, "inputs": self.now, "records": records, "files": files}
            write_signed_by(self.file, lambda out: pickle.dump(kept, out, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            self.forget()

    def forget(self) -> None:
        if self.file is not None:
            self.file.unlink(missing_ok=True)
