"""The layer groups of data/catalogue.yaml's schema, written from the layer kinds (calc/layers/).

vramsite/schemas/catalogue.schema.json is read by the build and by an editor's YAML extension alike, so the file
holds the whole schema; its ``$defs.layer_group`` is what the kinds say of their fields, assembled here. After a
kind is added or its fields change, run

    .venv/bin/python -m vramsite.importers.catalogue_schema

which rewrites that part of the file and nothing else (tests/test_layer_kinds.py fails until the file agrees).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..calc.layers import KINDS, LayerKind

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "schemas" / "catalogue.schema.json"
LAYER_GROUP = '"layer_group": '
WIDTH = 120
"""The longest line the file is written with, where a value fits on one."""


def layer_group_schema() -> dict:
    """A layer group: ``kind`` one of the kinds, ``count``, and the fields of its kind (those without a default
    required, no others allowed)."""
    return {
        "type": "object",
        "required": ["kind", "count"],
        "properties": {"kind": {"enum": [kind.kind for kind in KINDS]}, "count": {"$ref": "#/$defs/count"}},
        "allOf": [_kind_clause(kind) for kind in KINDS],
    }


def _kind_clause(kind: type[LayerKind]) -> dict:
    return {"if": {"properties": {"kind": {"const": kind.kind}}, "required": ["kind"]},
            "then": {"additionalProperties": False, "required": list(kind.required_fields()),
                     "properties": {"kind": True, "count": True, **kind.schema}}}


def schema_text(text: str) -> str:
    """The schema file's ``text`` with its layer group written from the kinds, the rest as it is."""
    start = text.index(LAYER_GROUP) + len(LAYER_GROUP)
    _, end = json.JSONDecoder().raw_decode(text, start)
    column = start - text.rindex("\n", 0, start) - 1
    written = _written(layer_group_schema(), column - len(LAYER_GROUP), column)
    return text[:start] + written + text[end:]


def _written(value, indent: int, column: int) -> str:
    """``value`` as JSON starting at ``column``: on one line where it fits, else one item a line at ``indent`` + 2."""
    flat = json.dumps(value, ensure_ascii=False)
    if column + len(flat) + 1 <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = indent + 2
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            prefix = f"{json.dumps(key, ensure_ascii=False)}: "
            items.append(" " * inner + prefix + _written(item, inner, inner + len(prefix)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [" " * inner + _written(item, inner, inner) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def main() -> None:
    SCHEMA_FILE.write_text(schema_text(SCHEMA_FILE.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
