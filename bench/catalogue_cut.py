"""A copy of a site whose catalogue keeps only the models the rest of its data names."""

from __future__ import annotations

import re
from pathlib import Path


def named_models_only(site: Path) -> Path:
    """``site``'s data/catalogue.yaml cut to the models another of its data files names (an engine log, a weight
    format's source). Such a site renders every layer kind, format and engine that data exercises, and a model only
    the catalogue names adds pages, not machinery: a build that measures or tests the machinery stays as quick
    however far the catalogue grows."""
    catalogue = site / "data" / "catalogue.yaml"
    head, *entries = catalogue.read_text(encoding="utf-8").split("\n  - id: ")
    others = "\n".join(path.read_text(encoding="utf-8") for path in sorted((site / "data").glob("*.yaml"))
                       if path != catalogue)
    kept = [entry for entry in entries
            if re.search(rf"(?<![\w.-]){re.escape(entry.split(chr(10), 1)[0].strip())}(?![\w.-])", others)]
    if not kept:
        raise ValueError("no catalogue model is named by the other data: the cut catalogue would be empty")
    catalogue.write_text("\n  - id: ".join([head, *kept]).rstrip("\n") + "\n", encoding="utf-8")
    return site
