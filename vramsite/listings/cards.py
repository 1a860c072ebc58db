"""Which card of data/gpus.yaml a listing's GPU name means.

A card is known by its printed ``name`` and by the ``listing_names`` it lists
("NVIDIA H100 80GB HBM3"); case and runs of spaces do not matter. The schema
checks each card's list (`build.py check`); that no name means two cards is
checked here, where names are matched.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import Problem
from ..load.yaml_source import readable_path
from ..load.yaml_source import read_yaml

GPUS_FILE = "data/gpus.yaml"


def listing_key(name: str) -> str:
    """The form names are matched in: "nvidia  H100" and "NVIDIA h100" are one name."""
    return " ".join(name.split()).casefold()


def card_names(site: Path) -> tuple[dict[str, str], list[Problem]]:
    """Every name a listing may give a card (as ``listing_key``) -> the card's id; and names that mean two cards."""
    document = read_yaml(Path(site) / GPUS_FILE, GPUS_FILE)
    names: dict[str, tuple[str, tuple]] = {}
    problems = []
    for index, card in enumerate(document.value["gpus"]):
        paths = [("gpus", index, "name")] + [("gpus", index, "listing_names", n)
                                              for n in range(len(card.get("listing_names", ())))]
        for path in paths:
            text = card["name"] if path[-1] == "name" else card["listing_names"][path[-1]]
            key = listing_key(text)
            first = names.setdefault(key, (card["id"], path))
            if first[0] != card["id"]:
                problems.append(Problem(document.name, document.line_of(path), readable_path(document, path),
                                        f"{text!r} also names the card {first[0]!r} (line "
                                        f"{document.line_of(first[1])}); a listing name must mean one card"))
    return {key: card_id for key, (card_id, _path) in names.items()}, problems
