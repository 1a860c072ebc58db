"""The quick schema check (load/schema_check.py) says "conforms" exactly when jsonschema finds nothing wrong.

Every data file of both sites and their pages.yaml, each list cut to its first entries (the rest have the same
shape), as they are and with one value replaced, one key removed or one unknown key added at each place: the
two must agree on every document the quick check decides, and it must decide nearly all of them.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.load import schema
from vramsite.load.schema_check import Unsupported, conforms
from vramsite.load.yaml_source import read_yaml

ROOT = Path(__file__).resolve().parent.parent
SITES = (ROOT, ROOT / "sites" / "quick")
FILES = [(site, f"data/{name}.yaml", f"{name}.schema.json")
         for site in SITES
         for name in ("site", "models", "gpus", "prices", "discounts", "sizing", "catalogue", "weight_formats", "engines",
                     "engine_logs")
         if (site / "data" / f"{name}.yaml").is_file()]
FILES += [(site, "content/pages.yaml", "pages.schema.json") for site in SITES]
FILES += [(site, f"data/measurements/{run.name}", "measurements.schema.json")
          for site in SITES for run in sorted((site / "data" / "measurements").glob("*.yaml"))]
CASES = [(site, file, schema_name, False) for site, file, schema_name in FILES]
CASES += [(site, file, schema_name, True) for site, file, schema_name in FILES if schema_name == "pages.schema.json"]
"""pages.yaml is checked twice: alone, and with what its ids name (``x-refers``)."""

REPLACEMENTS = (None, True, False, 0, 1, -1, 2, 8, 10 ** 9, Decimal("1.5"), Decimal("0.25"), Decimal("1E+45"),
                "", "x", "a40", "70B", "fp8", "hour", "full", "line\nbreak", "2026-02-30", "2026-09-01", [], ["x"],
                [1, 1], ["a", "a"], {}, {"kind": "full"})
"""Values of every type, at and around the limits the schemas set, and the texts their enums and patterns
name."""
FIRST_ENTRIES = 2
"""Each list of entries (mappings) keeps its first entries, as the rest have the same shape: a file's variants
then cost as much however many models, cards or logs it lists. A list of plain values stays whole (a schema may
ask for a few of them)."""
KNOWN_IDS = frozenset({"a40", "70B", "7B", "h100-sxm", 1, 2, 4, 8})


def _referees():
    return {kind: (lambda wanted: None if wanted in KNOWN_IDS else f"names no {kind}")
            for kind in ("model", "card", "card count")}


def _first_entries(value):
    """``value`` with each list of mappings in it cut to its first ``FIRST_ENTRIES`` entries."""
    if isinstance(value, dict):
        return {key: _first_entries(item) for key, item in value.items()}
    if isinstance(value, list):
        entries = all(isinstance(item, dict) for item in value)
        return [_first_entries(item) for item in (value[:FIRST_ENTRIES] if entries else value)]
    return value


def _places(value, path=()):
    """Every path into ``value`` (dict keys, list indexes), limited to the first entries of lists."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:FIRST_ENTRIES]):
            yield from _places(item, path + (index,))


def _replaced(value, path, change):
    """A copy of ``value`` with ``change`` applied to what ``path`` leads to (copied along the path only)."""
    if not path:
        return change(value)
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], rest, change)
    return copy


def _without(key):
    def change(mapping):
        copy = dict(mapping)
        del copy[key]
        return copy
    return change


def _variants(value):
    yield value
    for path in _places(value):
        for replacement in REPLACEMENTS:
            yield _replaced(value, path, lambda _, new=replacement: new)
        target = value
        for step in path:
            target = target[step]
        if isinstance(target, dict):
            yield _replaced(value, path, lambda mapping: {**mapping, "zz_unknown": 1})
            for key in target:
                yield _replaced(value, path, _without(key))


@pytest.mark.parametrize("site, file, schema_name, with_referees", CASES,
                         ids=[f"{'main' if site == ROOT else site.name}:{file}{' with referees' * refers}" for site, file, _, refers in CASES])
def test_the_quick_check_agrees_with_jsonschema(site, file, schema_name, with_referees):
    value = _first_entries(read_yaml(site / file, file).value)
    referees = _referees() if with_referees else None
    validator = schema._referring_validator(schema_name, referees) if referees else schema._validator(schema_name)
    checked = decided = invalid = 0
    for variant in _variants(value):
        checked += 1
        try:
            verdict = conforms(schema._schema(schema_name), variant, referees)
        except Unsupported:
            continue
        decided += 1
        expected = next(iter(validator.iter_errors(variant)), None) is None
        assert verdict == expected, (file, variant if len(repr(variant)) < 2000 else "(long)")
        invalid += not verdict
    assert conforms(schema._schema(schema_name), value, referees) or with_referees
    assert invalid > checked // 4, "most variants break a rule"
    assert decided >= checked * 0.9, f"the quick check decided {decided} of {checked}"
