"""Check a parsed file against its JSON Schema and phrase what is wrong.

The schemas in ``vramsite/schemas`` are the same ones an editor's YAML
extension reads (each data file names its schema in its first line), so the
build and the editor agree on what is valid.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache
from importlib import resources

import jsonschema

from ..errors import Problem
from .yaml_source import YamlDocument


@lru_cache(maxsize=None)
def _validator(schema_name: str) -> jsonschema.Draft202012Validator:
    text = resources.files("vramsite.schemas").joinpath(schema_name).read_text(encoding="utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def schema_problems(document: YamlDocument, schema_name: str) -> list[Problem]:
    """Every schema violation of ``document``, one Problem each."""
    validator = _validator(schema_name)
    problems = []
    for error in validator.iter_errors(document.value):
        path, message = _explain(error)
        problems.append(Problem(document.name, document.line_of(path), readable_path(document, path), message))
    return problems


def readable_path(document: YamlDocument, path: tuple) -> str:
    """Name list items by their id where they have one: gpus[a40].memory_gb."""
    text = ""
    node = document.value
    for part in path:
        if isinstance(part, int):
            item = node[part] if isinstance(node, list) and part < len(node) else None
            label = _item_label(item)
            text += f"[{part if label is None else label}]"
            node = item
        else:
            text += f".{part}" if text else str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return text


def _item_label(item: object) -> str | None:
    if isinstance(item, dict):
        for key in ("id", "gpu", "symbol", "segment", "cards"):
            value = item.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
                return str(value)
    return None


def _explain(error: jsonschema.ValidationError) -> tuple[tuple, str]:
    """The path a message is about, and the message in an editor's words."""
    path = tuple(error.absolute_path)
    kind = error.validator
    instance = error.instance
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
    if kind == "exclusiveMinimum":
        return path, f"must be greater than {error.validator_value}, got {_describe(instance)}"
    if kind == "minimum":
        return path, f"must be at least {error.validator_value}, got {_describe(instance)}"
    if kind in ("maximum", "exclusiveMaximum"):
        word = "at most" if kind == "maximum" else "less than"
        return path, f"must be {word} {error.validator_value}, got {_describe(instance)} (a typo?)"
    if kind in ("enum", "const"):
        options = error.validator_value if kind == "enum" else [error.validator_value]
        return path, f"must be one of {', '.join(map(str, options))}; got {_describe(instance)}"
    if kind == "pattern":
        reason = error.schema.get("x-message", f"must match {error.validator_value}")
        return path, f"{_describe(instance)} {reason}"
    if kind in ("minLength", "minItems", "minProperties"):
        return path, "must not be empty"
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
        return f"text {value!r}" if value else "empty text"
    if isinstance(value, (int, Decimal, float)):
        return str(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)
