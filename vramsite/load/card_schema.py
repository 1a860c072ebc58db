"""vramsite/schemas/gpus.schema.json, written from the card declaration (``cards.CARD``).

``python -m vramsite.load.card_schema`` writes the file; ``--check`` only says whether it is up to
date (tests/test_cards.py fails while it is not). The file stays in the repository because editors'
YAML tools read it (data/gpus.yaml names it in its first line), and the build checks gpus.yaml with
it like every other data file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .cards import FIELDS

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "schemas" / "gpus.schema.json"
WIDTH = 110


def gpus_schema() -> dict:
    """The JSON Schema of data/gpus.yaml: one entry's keys, their schemas and which are required, from ``FIELDS``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "gpus.schema.json",
        "title": "Rentable GPUs",
        "description": "Written from vramsite/load/cards.py by `python -m vramsite.load.card_schema`; edit that.",
        "type": "object",
        "additionalProperties": False,
        "required": ["gpus"],
        "properties": {
            "gpus": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": [entry.key for entry in FIELDS if entry.required],
                    "properties": {entry.key: dict(entry.schema) for entry in FIELDS},
                },
            },
        },
    }


def schema_text() -> str:
    """``gpus_schema()`` as the file holds it: each value on one line where it fits in ``WIDTH`` characters."""
    def write(value, indent: int, used: int) -> str:  # used: the characters before it on its line
        flat = json.dumps(value, ensure_ascii=False)
        if not isinstance(value, (dict, list)) or not value or used + len(flat) <= WIDTH:
            return flat
        inner = " " * (indent + 2)
        if isinstance(value, dict):
            items = []
            for key, item in value.items():
                start = f"{inner}{json.dumps(key, ensure_ascii=False)}: "
                items.append(start + write(item, indent + 2, len(start)))
        else:
            items = [inner + write(item, indent + 2, len(inner)) for item in value]
        opening, closing = "{}" if isinstance(value, dict) else "[]"
        return opening + "\n" + ",\n".join(items) + "\n" + " " * indent + closing

    return write(gpus_schema(), 0, 0) + "\n"


def main(argv: list[str]) -> int:
    text = schema_text()
    current = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else None
    if "--check" in argv:
        if current != text:
            print(f"{SCHEMA_FILE}: differs from vramsite/load/cards.py; run python -m vramsite.load.card_schema",
                  file=sys.stderr)
            return 1
        return 0
    if current != text:
        SCHEMA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
