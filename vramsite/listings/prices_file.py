"""data/prices.yaml with a snapshot's figures written in, everything else as it was.

The file is edited by hand too: its comments, key order, flow mappings and
quotes must survive an import. PyYAML (the loader's) forgets them all;
ruamel.yaml's round-trip mode keeps them. Only a value that changed is
replaced, so a price written 1.90 stays 1.90 while the listings still say
1.9, and a snapshot that changes nothing leaves the file's bytes alone.
"""

from __future__ import annotations

import difflib
import io
from decimal import Decimal

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import ScalarString

from ..errors import Problem
from ..importers.data_file import round_trip_load
from ..load.model import Pricing
from .snapshot import Snapshot

PRICES_FILE = "data/prices.yaml"


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line
    yaml.indent(mapping=2, sequence=4, offset=2)  # the data files' layout: "  - {gpu: ...}" under "prices:"
    yaml.representer.add_representer(Decimal, _decimal)
    yaml.representer.add_representer(type(None), _null)
    return yaml


def _decimal(representer, value: Decimal):
    return representer.represent_scalar("tag:yaml.org,2002:float", format(value, "f"))


def _null(representer, _value):
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def layout_problem(text: str) -> Problem | None:
    """Where rewriting the file would change more than its values: the first line whose layout would move."""
    yaml = _yaml()
    again = _dump(yaml, round_trip_load(yaml, text, PRICES_FILE))
    if again == text:
        return None
    before, after = text.splitlines(), again.splitlines()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    first = next(tag for tag in matcher.get_opcodes() if tag[0] != "equal")
    return Problem(PRICES_FILE, first[1] + 1, "",
                   "an import rewrites this file and would change this line's layout; lay it out as the other "
                   "data files are (keys indented by 2 spaces, list items as '  - ' under their key), "
                   "then import again")


def with_snapshot(text: str, pricing: Pricing, snapshot: Snapshot, at: str) -> str:
    """``text`` (data/prices.yaml) with the snapshot's time, counts and lowest prices where they differ."""
    yaml = _yaml()
    document = round_trip_load(yaml, text, PRICES_FILE)
    if pricing.updated != at:
        document["updated"] = _like(document["updated"], at)
    counts = document["snapshot"]
    for key, value in (("gpus", snapshot.gpus), ("machines", snapshot.machines)):
        if counts[key] != value:
            counts[key] = value
    for entry in document["prices"]:
        price = snapshot.lowest[entry["gpu"]]
        if pricing.usd[entry["gpu"]] != price:  # both Decimal or None: 1.90 equals 1.9 and stays as written
            entry["usd"] = price
    return _dump(yaml, document)


def _like(old, text: str):
    """``text`` quoted as ``old`` was."""
    return type(old)(text) if isinstance(old, ScalarString) else text


def _dump(yaml: YAML, document) -> str:
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()
