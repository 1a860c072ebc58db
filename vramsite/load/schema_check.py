"""Whether a parsed file conforms to its schema: yes or no, without importing jsonschema.

Most builds read valid files, and jsonschema takes longer to import than checking every data file takes.
``conforms`` answers exactly as the validator of ``schema.py`` would (the same keywords, the same types,
the same rules of this project's own keywords); where a file does not conform, ``schema.py`` asks
jsonschema for the errors and phrases them. A keyword or value this module does not know the answer
for raises ``Unsupported``, and jsonschema decides.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping
from decimal import Decimal, localcontext

from .dates import parse_moment
from .text import text_problem

MAX_EXPONENT = 40
"""Largest power of ten ``multipleOf`` computes with; every field's maximum is far below it."""
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "x-message", "x-unit"})
"""Keywords that say what a field is, not what it may hold."""


class Unsupported(Exception):
    """A schema keyword or value whose verdict is left to jsonschema."""


def not_multiple(instance, divisor) -> bool:
    """``multipleOf`` for Decimal values of any exponent (``%`` cannot divide 1E+31 by 1024)."""
    value = Decimal(instance)
    if value.adjusted() > MAX_EXPONENT:
        return False  # too large for any field; its ``maximum`` says so
    with localcontext() as context:
        context.prec = 2 * MAX_EXPONENT
        return bool(value % Decimal(divisor))


def is_number(instance) -> bool:
    return isinstance(instance, numbers.Number) and not isinstance(instance, bool)


_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    "number": is_number,
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


def conforms(schema, instance, referees: Mapping[str, Callable] | None = None) -> bool:
    """Whether ``instance`` is valid against ``schema`` (and every ``x-refers`` value names something)."""
    return _Check(schema, referees or {}).valid(schema, instance)


class _Check:
    def __init__(self, root: dict, referees: Mapping[str, Callable]):
        self.root, self.referees = root, referees

    def valid(self, schema, instance) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict) or ("$id" in schema and schema is not self.root):
            raise Unsupported(schema)  # another $id would move the base that "#/$defs/..." is read from
        for keyword, value in schema.items():
            if keyword in ANNOTATIONS or keyword in ("then", "else"):
                continue
            rule = _KEYWORDS.get(keyword)
            if rule is None:
                raise Unsupported(keyword)
            if not rule(self, value, instance, schema):
                return False
        return True

    def ref(self, reference: str):
        if not reference.startswith("#/$defs/") or "/" in reference[len("#/$defs/"):]:
            raise Unsupported(reference)
        defs = self.root.get("$defs", {})
        name = reference[len("#/$defs/"):]
        if "~" in name or "%" in name or name not in defs:
            raise Unsupported(reference)
        return defs[name]


def _type(check, expected, instance, schema) -> bool:
    names = expected if isinstance(expected, list) else [expected]
    if any(name not in _TYPES for name in names):
        raise Unsupported(expected)
    if not any(_TYPES[name](instance) for name in names):
        return False
    return not (isinstance(instance, str) and "string" in names and text_problem(instance))


def _properties(check, properties, instance, schema) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(check.valid(sub, instance[name]) for name, sub in properties.items() if name in instance)


def _additional(check, additional, instance, schema) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        raise Unsupported("patternProperties")
    known = schema.get("properties", {})
    return all(check.valid(additional, value) for key, value in instance.items() if key not in known)


def _required(check, names, instance, schema) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in names)


def _items(check, items, instance, schema) -> bool:
    if not isinstance(instance, list):
        return True
    return all(check.valid(items, item) for item in instance[len(schema.get("prefixItems", ())):])


def _prefix_items(check, prefix, instance, schema) -> bool:
    return not isinstance(instance, list) or all(check.valid(sub, item) for sub, item in zip(prefix, instance))


def _unique(check, wanted, instance, schema) -> bool:
    if not wanted or not isinstance(instance, list):
        return True
    if all(isinstance(item, str) for item in instance) or all(
            isinstance(item, int) and not isinstance(item, bool) for item in instance):
        return len(set(instance)) == len(instance)
    raise Unsupported("uniqueItems")


def _one_of_kind(options: list, instance) -> bool:
    """``enum``: plain values only, where Python's equality is JSON Schema's (1 is not true, nor 1.0)."""
    if all(isinstance(option, str) for option in options):  # text equals text alone
        return isinstance(instance, str) and instance in options
    plain = (str, int, bool, type(None))
    if type(instance) not in plain or any(type(option) not in plain for option in options):
        raise Unsupported("enum")
    return any(type(option) is type(instance) and option == instance for option in options)


def _if(check, condition, instance, schema) -> bool:
    if check.valid(condition, instance):
        return check.valid(schema.get("then", True), instance)
    return check.valid(schema.get("else", True), instance)


def _refers(check, kind, instance, schema) -> bool:
    referee = check.referees.get(kind)
    if referee is None or not isinstance(instance, (str, int)) or isinstance(instance, bool):
        return True
    return not referee(instance)


def _real_date(check, wanted, instance, schema) -> bool:
    if not wanted or not isinstance(instance, str):
        return True
    try:
        parse_moment(instance)
    except ValueError:
        return False
    return True


def _on_numbers(test: Callable[[object, object], bool]):
    return lambda check, limit, instance, schema: not is_number(instance) or test(instance, limit)


def _on(kind: type, test: Callable[[object, object], bool]):
    return lambda check, limit, instance, schema: not isinstance(instance, kind) or test(instance, limit)


_KEYWORDS: dict[str, Callable] = {
    "type": _type,
    "$ref": lambda check, reference, instance, schema: check.valid(check.ref(reference), instance),
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "prefixItems": _prefix_items,
    "uniqueItems": _unique,
    "enum": lambda check, options, instance, schema: _one_of_kind(options, instance),
    "const": lambda check, value, instance, schema: _one_of_kind([value], instance),
    "if": _if,
    "allOf": lambda check, subs, instance, schema: all(check.valid(sub, instance) for sub in subs),
    "oneOf": lambda check, subs, instance, schema: sum(check.valid(sub, instance) for sub in subs) == 1,
    "x-refers": _refers,
    "x-date": _real_date,
    "maximum": _on_numbers(lambda value, limit: not value > limit),
    "minimum": _on_numbers(lambda value, limit: not value < limit),
    "exclusiveMaximum": _on_numbers(lambda value, limit: value < limit),
    "exclusiveMinimum": _on_numbers(lambda value, limit: value > limit),
    "multipleOf": _on_numbers(lambda value, divisor: not not_multiple(value, divisor)),
    "maxLength": _on(str, lambda value, limit: len(value) <= limit),
    "minLength": _on(str, lambda value, limit: len(value) >= limit),
    "maxItems": _on(list, lambda value, limit: len(value) <= limit),
    "minItems": _on(list, lambda value, limit: len(value) >= limit),
    "minProperties": _on(dict, lambda value, limit: len(value) >= limit),
    "pattern": _on(str, lambda value, pattern: re.search(pattern, value) is not None),
}
