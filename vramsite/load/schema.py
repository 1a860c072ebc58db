"""Check a parsed file against its JSON Schema and phrase what is wrong.

The schemas in ``vramsite/schemas`` are the same ones an editor's YAML
extension reads (each data file names its schema in its first line), so the
build and the editor agree on what is valid.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..errors import Problem
from .dates import parse_moment
from .schema_check import Unsupported, conforms, not_multiple
from .text import excerpt, text_problem
from .yaml_source import YamlDocument, readable_path

if TYPE_CHECKING:
    import jsonschema

PHRASED = "vramsite"
"""The keyword of errors whose message is already in an editor's words."""


def _error(message: str, **kwargs) -> "jsonschema.ValidationError":
    from jsonschema import ValidationError

    return ValidationError(message, **kwargs)


def _type_and_text(validator, expected, instance, schema):
    """JSON Schema's ``type``, and for text fields the rule of load/text.py."""
    yield from _base_class().VALIDATORS["type"](validator, expected, instance, schema)
    if isinstance(instance, str) and "string" in (expected if isinstance(expected, list) else [expected]):
        problem = text_problem(instance)
        if problem:
            yield _error(problem, validator=PHRASED)


def _real_date(validator, wanted, instance, schema):
    """``"x-date": true``: text that names a real date (the pattern checks only its shape)."""
    if wanted and isinstance(instance, str):
        try:
            parse_moment(instance)
        except ValueError as error:
            yield _error(f"{_describe(instance)} {error}", validator=PHRASED)


def _multiple_of(validator, divisor, instance, schema):
    """JSON Schema's ``multipleOf`` with the rule of ``schema_check.not_multiple``."""
    if not validator.is_type(instance, "number") or isinstance(instance, bool):
        return
    if not_multiple(instance, divisor):
        yield _error(f"{instance} is not a multiple of {divisor}")


@lru_cache(maxsize=None)
def _base_class():
    """jsonschema's Draft 2020-12 validator, imported only for a file that does not conform."""
    import jsonschema

    return jsonschema.Draft202012Validator


@lru_cache(maxsize=None)
def _validator_class():
    import jsonschema

    return jsonschema.validators.extend(_base_class(),
                                        {"type": _type_and_text, "x-date": _real_date, "multipleOf": _multiple_of})


@lru_cache(maxsize=None)
def _schema(schema_name: str) -> dict:
    return json.loads(resources.files("vramsite.schemas").joinpath(schema_name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(schema_name: str) -> "jsonschema.Draft202012Validator":
    return _validator_class()(_schema(schema_name))


Referee = Callable[[object], "str | None"]
"""Given a value an ``x-refers`` field holds, why it names nothing (None: it names something)."""


def _referring_validator(schema_name: str, referees: dict[str, Referee]) -> "jsonschema.Draft202012Validator":
    """A validator that also asks ``referees[kind]`` about each value of an ``"x-refers": kind`` field."""
    import jsonschema

    def refers(validator, kind, instance, schema):
        if kind in referees and isinstance(instance, (str, int)) and not isinstance(instance, bool):
            problem = referees[kind](instance)
            if problem:
                yield _error(problem, validator=PHRASED)

    return jsonschema.validators.extend(_validator_class(), {"x-refers": refers})(_schema(schema_name))


def schema_problems(document: YamlDocument, schema_name: str, referees: dict[str, Referee] | None = None) -> list[Problem]:
    """Every schema violation of ``document``, one Problem each; ``referees`` check what ids name."""
    try:
        if conforms(_schema(schema_name), document.value, referees):
            return []
    except (Unsupported, ArithmeticError, TypeError, ValueError):
        pass  # jsonschema decides, and says what is wrong
    validator = _validator(schema_name) if referees is None else _referring_validator(schema_name, referees)
    problems = []
    for error in validator.iter_errors(document.value):
        path, message = _explain(error)
        problems.append(Problem(document.name, document.line_of(path), readable_path(document, path), message))
    return problems


def _explain(error: "jsonschema.ValidationError") -> tuple[tuple, str]:
    """The path a message is about, and the message in an editor's words."""
    path = tuple(error.absolute_path)
    kind = error.validator
    instance = error.instance
    if kind == PHRASED:
        return path, error.message
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(instance) - set(allowed))
        hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
        return path + (extra[0],), f"unknown key {extra[0]!r}{hint}"
    if kind == "required":
        missing = error.message.split("'")[1]
        return path + (missing,), f"missing required field {missing!r}"
    if kind == "type":
        return path, f"expected {_type_words(error.validator_value)}, got {_describe(instance)}"
    unit = f" {error.schema['x-unit']}" if "x-unit" in error.schema else ""
    if kind == "exclusiveMinimum":
        return path, f"must be greater than {error.validator_value}{unit}, got {_describe(instance)}"
    if kind == "minimum":
        return path, f"must be at least {error.validator_value}{unit}, got {_describe(instance)}"
    if kind in ("maximum", "exclusiveMaximum"):
        word = "at most" if kind == "maximum" else "less than"
        return path, f"must be {word} {error.validator_value}{unit}, got {_describe(instance)} (a typo?)"
    if kind in ("enum", "const"):
        options = error.validator_value if kind == "enum" else [error.validator_value]
        return path, f"must be one of {', '.join(map(str, options))}; got {_describe(instance)}"
    if kind == "pattern":
        reason = error.schema.get("x-message", f"must match {error.validator_value}")
        return path, f"{_describe(instance)} {reason}"
    if kind == "minItems" and error.validator_value > 1:
        return path, f"must list at least {error.validator_value} values, got {len(instance)}"
    if kind in ("minLength", "minItems", "minProperties"):
        return path, "must not be empty"
    if kind == "maxItems":
        return path, f"must list at most {error.validator_value} values, got {len(instance)}"
    if kind == "multipleOf":
        return path, f"must be a whole multiple of {error.validator_value}, got {_describe(instance)}"
    if kind == "maxLength":
        return path, f"is longer than {error.validator_value} characters"
    if kind == "uniqueItems":
        return path, "lists the same value twice"
    return path, error.message


def _type_words(expected: object) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = {
        "number": "a number",
        "integer": "a whole number",
        "string": "text",
        "boolean": "true or false",
        "array": "a list",
        "object": "a mapping of keys",
        "null": "nothing",
    }
    return " or ".join(words.get(name, name) for name in names)


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"text {excerpt(value)}" if value else "empty text"
    if isinstance(value, (int, Decimal, float)):
        return str(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)
