"""What a card is: every field of a data/gpus.yaml entry, declared once, and where each shows.

``CARD`` lists, in the catalogue's order, each ``CardField`` (a key of a gpus.yaml
entry) and each ``CardFigure`` (a column derived from the fields or the prices:
FP8, the price, the price per GB). An entry says

- how a field is read: its JSON Schema, whether it is required, the value the
  model holds (``read``) and what an entry that leaves it out stands for
  (``absent``), whether two cards may share it (``unique``), and the checks that
  need more than the value (``check``: another field, site.yaml);
- what the pages call it: ``label``, the msgid of its column and of its row on
  the card's page (translated in locales/*/LC_MESSAGES/messages.po);
- the figure it makes (``figure``: unit, kind, the figure's own label), or how
  its cell is drawn otherwise (``cell``);
- where it shows: ``catalogue`` (``SHOWN``: a column of the catalogue, and so of
  its downloads; ``ON_REQUEST``: only where a page names it,
  ``table("catalogue", columns=[...])``) and ``page`` (a row of the
  specifications table on the card's own page).

Everything else follows: the loader (``assemble.py``) reads and checks each
field, ``GpuView`` (``calc/card_view.py``) gives each by its ``view`` name (a
``Figure`` where it has a unit), the catalogue, its downloads and each card's
specifications table (``tables/gpus.py``) are drawn from it, and
vramsite/schemas/gpus.schema.json is written from it
(``python -m vramsite.load.card_schema``). ``tests/test_cards.py`` holds ``Gpu``
(``load/model.py``), the schema file and the header comment of data/gpus.yaml
to it. docs/editing.md, "Add a card field", is the recipe.

It lives in ``load/`` because the loader reads it first and every layer above
(calc, tables, facts) already reads the data model from here; it imports
nothing but ``load/model.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..units import BYTES_PER_GB, BYTES_PER_MIB
from .model import DenseTflops, Interconnect, Region, ReportedMemory, SiteConfig

SHOWN = "shown"
"""A column of the catalogue: shown where a page names no columns, and in the catalogue's downloads."""
ON_REQUEST = "on request"
"""A column of the catalogue only where a page names it: ``table("catalogue", columns=["launched", ...])``."""

FIGURE = "figure"
"""The cell is the figure (``figure`` of a field; a figure the view gives, for a ``CardFigure``)."""
TEXT = "text"
"""The value as it is written in the data (a name): never translated."""
YES_NO = "yes/no"
"""A true or false value, worded "yes" or "no"."""
WORDS = "words"
"""A value from a closed list, worded by the msgid ``words`` + value ("stack:cuda" -> "CUDA")."""
OWN = "own"
"""A cell drawn by its own function in tables/gpus.py (``OWN_CELLS``, by key): the link, the regions."""

Problems = Iterable[tuple[tuple, str]]
"""(path below the field, message) for each problem a check finds."""


@dataclass(frozen=True)
class AsFigure:
    """How a field's value becomes a ``Figure`` (calc/card_view.py): ``given(value, unit, kind, label)``."""

    unit: str
    kind: str
    """A kind of calc/figure.py: the site's ``display`` (site.yaml) sets its decimals."""
    label: str
    """The figure's own label (its formula's tooltip names it), not the column's."""


@dataclass(frozen=True, kw_only=True)
class CardEntry:
    """What shows about a card: its key (the column's key in downloads), label and places."""

    key: str
    view: str | None = None
    """The ``GpuView`` attribute that gives the value; None: not on the view (read ``view.gpu``)."""
    label: str | None = None
    """msgid of its catalogue column and its row on the card's page."""
    label_hourly: str | None = None
    """msgid of the label where prices are per GPU-hour (data/prices.yaml period: hour), if it differs."""
    catalogue: str | None = None
    """SHOWN, ON_REQUEST or None."""
    page: bool = False
    """A row of the card page's specifications table (left out for a card without the value)."""
    cell: str = TEXT
    words: str = ""
    """For WORDS cells: the msgid's prefix."""
    period: bool = False
    """For money: printed with its period ($1,590/month)."""
    numeric: bool = False
    """A number column (right-aligned; downloads say so)."""

    def label_for(self, period: str) -> str:
        """The column's msgid on a site whose prices are per ``period`` (month, hour)."""
        return self.label_hourly if period == "hour" and self.label_hourly else self.label


@dataclass(frozen=True, kw_only=True)
class CardField(CardEntry):
    """A key of a data/gpus.yaml entry."""

    schema: Mapping = field(compare=False)
    """The JSON Schema of the value (vramsite/schemas/gpus.schema.json is written from these)."""
    required: bool = False
    read: Callable[[Any], Any] | None = None
    """The model's value from the checked YAML value; None: the value as it is."""
    absent: Any = None
    """The YAML value an entry that leaves the key out stands for (read like a written one); None: ``None``."""
    unique: bool = False
    """No two cards may share it."""
    check: Callable[[Any, dict, SiteConfig], Problems] | None = None
    """Problems of a schema-valid value that the schema cannot see: (value, the whole entry, site.yaml)."""
    figure: AsFigure | None = None
    on_gpu: bool = True
    """Whether ``Gpu`` (load/model.py) holds it; False: read from the file by the one command that needs it."""

    def value(self, entry: dict):
        """The model's value of this field in a schema-valid gpus.yaml entry."""
        if self.key in entry:
            raw = entry[self.key]
        elif self.absent is None:
            return None
        else:
            raw = self.absent
        return raw if self.read is None else self.read(raw)


@dataclass(frozen=True, kw_only=True)
class CardFigure(CardEntry):
    """A column derived from the fields or the price list; ``view`` names the ``GpuView`` attribute giving it."""


# -- reading and checking -------------------------------------------------------------------------


def decimal(value) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(value)


PLAUSIBLE_SHARE = (Decimal("0.85"), Decimal("1.10"))
"""Reported memory ÷ sold size outside this range is a typo (MB for MiB, a wrong card), not ECC."""


def plausible_report(memory_gb: Decimal, reported_mib: int) -> bool:
    """Whether a reported size can belong to a card sold as ``memory_gb``."""
    share = Decimal(reported_mib) * BYTES_PER_MIB / BYTES_PER_GB / Decimal(memory_gb)
    low, high = PLAUSIBLE_SHARE
    return low <= share <= high


def _rates_for_features(rates: dict, entry: dict, _site: SiteConfig) -> Problems:
    """A rate for each number format the card computes in beyond BF16, and none for one it lacks."""
    for feature in ("fp8", "fp4"):
        has = feature in entry.get("features", ())
        if has and feature not in rates:
            yield (), f"no {feature} rate, though the card's features list {feature}"
        elif not has and feature in rates:
            yield (feature,), f"a {feature} rate, though the card's features do not list {feature}"


def _interconnect(link: dict) -> Interconnect:
    peer = link.get("per_peer_gbps")
    return Interconnect(kind=link["kind"], gbps=decimal(link["gbps"]), all_to_all_cards=link.get("all_to_all_cards"),
                        per_peer_gbps=decimal(peer) if peer is not None else None, source=link["source"])


def _peer_within_link(link: dict, _card: dict, _site: SiteConfig) -> Problems:
    if "per_peer_gbps" in link and link["per_peer_gbps"] > link["gbps"]:
        yield ("per_peer_gbps",), f"{link['per_peer_gbps']} GB/s to one peer exceeds the card's {link['gbps']} GB/s"


def _known_regions(regions: list, card: dict, site: SiteConfig) -> Problems:
    known = {region.id for region in site.regions}
    for index, region in enumerate(regions):
        if known and region["id"] not in known:
            yield (index, "id"), f"unknown region {region['id']!r} (site.yaml lists {', '.join(sorted(known))})"


def _known_languages(notes: dict, card: dict, site: SiteConfig) -> Problems:
    for key in sorted(set(notes) - {locale.segment for locale in site.locales}):
        yield (key,), f"{key!r} is not a language of the site"


def _plausible(reported: dict, card: dict, site: SiteConfig) -> Problems:
    if not plausible_report(decimal(card["memory_gb"]), reported["mib"]):
        yield ("mib",), (f"{reported['mib']} MiB does not fit a card sold as {card['memory_gb']} GB "
                         "(give MiB, as nvidia-smi prints memory.total)")


# -- the declaration ------------------------------------------------------------------------------

CARD: tuple[CardEntry, ...] = (
    CardField(key="id", required=True, unique=True, view="id",
              schema={"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 40,
                      "x-message": "must be a URL slug: lower-case letters and digits joined by single dashes"}),
    CardField(key="name", required=True, unique=True, view="name",
              schema={"type": "string", "minLength": 1, "maxLength": 60}),
    CardField(key="vendor", required=True, schema={"enum": ["nvidia", "amd", "intel"]}),
    CardField(key="memory_gb", required=True, read=decimal, view="memory",
              figure=AsFigure("GB", "memory", "card memory"),
              label="VRAM", catalogue=SHOWN, page=True, cell=FIGURE, numeric=True,
              schema={"type": "number", "minimum": 1, "maximum": 4096, "x-unit": "GB",
                      "description": "Memory in GB as the spec sheet states it: 1 to 4096."}),
    CardField(key="memory_type", required=True, view="memory_type",
              label="Memory", catalogue=SHOWN, page=True, cell=OWN,
              schema={"type": "string", "minLength": 1, "maxLength": 30}),
    CardField(key="ecc", absent=False, schema={"type": "boolean"}),
    CardField(key="bandwidth_gbps", required=True, read=decimal, view="bandwidth",
              figure=AsFigure("GB/s", "bandwidth", "bandwidth"),
              label="Bandwidth", catalogue=SHOWN, page=True, cell=FIGURE, numeric=True,
              schema={"type": "number", "minimum": 50, "maximum": 100000,
                      "description": "Memory bandwidth in GB/s: 50 to 100,000."}),
    CardField(key="architecture", required=True, view="architecture", label="Architecture", page=True,
              schema={"type": "string", "minLength": 1, "maxLength": 40}),
    CardField(key="launched", view="launched", figure=AsFigure("year", "count", "launched"),
              label="Launched", catalogue=ON_REQUEST, page=True, cell=FIGURE, numeric=True,
              schema={"type": "integer", "minimum": 2000, "maximum": 2040,
                      "description": "Year the card came out: 2000 to 2040."}),
    CardField(key="features", required=True, read=frozenset,
              schema={"type": "array", "uniqueItems": True, "items": {"enum": ["fp8", "fp4"]}}),
    CardFigure(key="fp8", view="fp8", label="FP8", catalogue=SHOWN, page=True, cell=YES_NO),
    CardField(key="interconnect", required=True, read=_interconnect, check=_peer_within_link,
              label="Card-to-card link, each way", catalogue=SHOWN, page=True, cell=OWN,
              schema={
                  "type": "object",
                  "additionalProperties": False,
                  "required": ["kind", "gbps", "source"],
                  "properties": {
                      "kind": {"enum": ["nvlink", "nvlink-bridge", "infinity-fabric", "pcie-gen4", "pcie-gen5"]},
                      "gbps": {"type": "number", "minimum": 1, "maximum": 10000,
                               "description": "What one card sends to the rest of its set, one way, in GB/s: "
                                              "1 to 10,000."},
                      "all_to_all_cards": {"type": "integer", "minimum": 2, "maximum": 1024},
                      "per_peer_gbps": {"type": "number", "minimum": 1, "maximum": 10000,
                                        "description": "One card-to-card link of a mesh, one way, in GB/s: "
                                                       "1 to 10,000."},
                      "source": {"type": "string", "minLength": 1, "maxLength": 600},
                  },
              }),
    CardField(key="stack", required=True, view="stack",
              label="Software", catalogue=SHOWN, page=True, cell=WORDS, words="stack:",
              schema={"enum": ["cuda", "rocm"]}),
    CardFigure(key="price", view="price", label="Price per month", label_hourly="Price per GPU-hour",
               catalogue=SHOWN, cell=FIGURE, period=True, numeric=True),
    CardFigure(key="usd_per_gb_month", view="usd_per_gb", label="$ per GB per month",
               catalogue=SHOWN, cell=FIGURE, numeric=True),
    CardField(key="regions", absent=[], view="regions", check=_known_regions,
              read=lambda regions: tuple(Region(region["id"], region.get("stock")) for region in regions),
              label="Regions and stock", catalogue=SHOWN, page=True, cell=OWN,
              schema={
                  "type": "array",
                  "items": {
                      "type": "object",
                      "additionalProperties": False,
                      "required": ["id"],
                      "properties": {
                          "id": {"type": "string", "minLength": 1, "maxLength": 20},
                          "stock": {"type": "integer", "minimum": 0, "maximum": 1000000},
                      },
                  },
              }),
    CardField(key="rentable_counts", read=lambda counts: tuple(sorted(counts)),
              schema={"type": "array", "minItems": 1, "uniqueItems": True,
                      "items": {"type": "integer", "minimum": 1, "maximum": 1024}}),
    CardField(key="notes", absent={}, read=dict, check=_known_languages,
              schema={"type": "object", "additionalProperties": {"type": "string", "maxLength": 500}}),
    CardField(key="listing_names", on_gpu=False,
              schema={"type": "array", "uniqueItems": True,
                      "items": {"type": "string", "minLength": 1, "maxLength": 120},
                      "description": "Other names a marketplace's listings give the card (\"NVIDIA H100 80GB HBM3\"); "
                                     "build.py prices import matches them, and the card's name, ignoring case and "
                                     "spacing."}),
    CardField(key="reported_memory", read=lambda reported: ReportedMemory(**reported), check=_plausible,
              schema={
                  "type": "object",
                  "additionalProperties": False,
                  "required": ["mib", "source"],
                  "properties": {
                      "mib": {"type": "integer", "minimum": 1, "maximum": 4194304},
                      "source": {"type": "string", "minLength": 1, "maxLength": 300},
                  },
              }),
    CardField(key="dense_tflops", check=_rates_for_features,
              read=lambda rates: DenseTflops(**{key: value if key == "source" else decimal(value)
                                                for key, value in rates.items()}),
              schema={
                  "type": "object",
                  "additionalProperties": False,
                  "required": ["bf16", "source"],
                  "properties": {
                      "bf16": {"type": "number", "minimum": 1, "maximum": 100000,
                               "description": "Peak dense BF16 tensor TFLOPS with FP32 accumulate, no sparsity."},
                      "fp8": {"type": "number", "minimum": 1, "maximum": 100000},
                      "fp4": {"type": "number", "minimum": 1, "maximum": 100000},
                      "source": {"type": "string", "minLength": 1, "maxLength": 400},
                  },
              }),
)

FIELDS: tuple[CardField, ...] = tuple(entry for entry in CARD if isinstance(entry, CardField))
"""The keys of a gpus.yaml entry, in order."""
BY_KEY: dict[str, CardEntry] = {entry.key: entry for entry in CARD}


def card_entry(key: str) -> CardEntry:
    return BY_KEY[key]
