"""The engine's code keeps a shape a newcomer can read: a class built from many values is built with their names."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOST_POSITIONAL = 4
"""A call to a class passes at most this many values by position (the code standard: keyword arguments where a
constructor takes more than four values); past it, which value is which is read from the names, not counted from
the class's fields."""
BY_POSITION_ONLY = {"nodes.Filter"}
"""Classes that cannot be given their values by name: a Jinja node takes its fields only by position
(``Node.__init__(*fields, **attributes)`` refuses a field by name)."""


def test_classes_built_from_many_values_are_given_them_by_name():
    crowded = []
    for path in sorted((ROOT / "vramsite").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) <= MOST_POSITIONAL:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name[:1].isupper() and ast.unparse(node.func) not in BY_POSITION_ONLY:
                crowded.append(f"{path.relative_to(ROOT)}:{node.lineno} {name} with {len(node.args)} values by position")
    assert not crowded, "\n".join(crowded)
