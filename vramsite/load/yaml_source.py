"""Read one YAML file safely, keeping the line of every value.

PyYAML's composer gives a node tree with positions; we build plain Python
values from it ourselves so that we can refuse what ``safe_load`` would
silently accept (duplicate keys) and remember where each value stood.
Floats become ``Decimal`` from their source text, so 0.1 stays 0.1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

import yaml

from ..errors import InputError, Problem

# libyaml's parser where PyYAML was built with it: the same nodes, several times faster;
# on a syntax error the file is read again by PyYAML's parser for its clearer message.
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


@dataclass
class YamlDocument:
    """A parsed file: its value and the line (1-based) of each path in it."""

    name: str
    value: object
    lines: dict[tuple, int] = field(default_factory=dict)

    def line_of(self, path: tuple) -> int | None:
        """The line of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get(())


def read_yaml(path: Path, name: str) -> YamlDocument:
    """Parse ``path``; ``name`` is how messages call the file."""
    raw = path.read_bytes()
    text = _decode(raw, name)
    if not text.strip():
        raise InputError([Problem(name, 1, "", "the file is empty")])
    try:
        node = yaml.compose(text, Loader=_COMPOSER)
    except yaml.MarkedYAMLError:
        # Parse again with PyYAML's own parser: its messages and marks read better than libyaml's.
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as error:
            raise InputError([_syntax_problem(error, name)]) from None
    except yaml.YAMLError as error:  # pragma: no cover - marked errors cover PyYAML's parser
        raise InputError([Problem(name, None, "", f"YAML error: {error}")]) from None
    if node is None:
        raise InputError([Problem(name, 1, "", "the file holds no data, only comments")])
    builder = _Builder(name)
    value = builder.build(node, ())
    document = YamlDocument(name, value, builder.lines)
    if builder.problems:
        from .schema import readable_path  # schema.py imports this module

        raise InputError([Problem(name, line, readable_path(document, path), message)
                          for path, line, message in builder.problems])
    return document


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(
            [Problem(name, line, "", f"not UTF-8 text (byte 0x{raw[error.start]:02x}); save the file as UTF-8")]
        ) from None


def _syntax_problem(error: yaml.MarkedYAMLError, name: str) -> Problem:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else None
    problem = error.problem or "invalid YAML"
    if mark is not None and mark.buffer and mark.pointer < len(mark.buffer) and mark.buffer[mark.pointer] == "\t":
        problem = "a tab character; indent YAML with spaces"
    elif "\t" in problem or "'\\t'" in problem:
        problem = "a tab character; indent YAML with spaces"
    elif error.context and error.context_mark is not None and error.context_mark.line + 1 != line:
        problem += f" ({error.context} that starts at line {error.context_mark.line + 1})"
    return Problem(name, line, "", f"YAML syntax error: {problem}")


class _Builder:
    """Turns a composed node tree into dicts, lists and scalars."""

    def __init__(self, name: str):
        self.name = name
        self.lines: dict[tuple, int] = {}
        self.problems: list[tuple[tuple, int, str]] = []
        """(path, line, message): fields are named once the whole file is built (gpus[a40].name)."""
        self._scalars = yaml.SafeLoader("")

    def build(self, node: yaml.Node, path: tuple) -> object:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return self._sequence(node, path)
        return self._scalar(node, path)

    def _refuse_tag(self, node: yaml.Node, path: tuple, expected: str) -> bool:
        if node.tag == expected:
            return False
        self._problem(path, node, f"YAML tag {_short_tag(node.tag)!r} is not allowed; data files take plain values only")
        return True

    def _mapping(self, node: yaml.MappingNode, path: tuple) -> dict | None:
        if self._refuse_tag(node, path, _MAP):
            return None
        result: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self._problem(path, key_node, "YAML merge keys (<<) are not supported; write the fields out")
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self._problem(path, key_node, "a key must be a plain name")
                continue
            key = key_node.value
            child = path + (key,)
            if key in result:
                first = self.lines.get(child)
                self._problem(child, key_node, f"duplicate key {key!r} (first at line {first})")
                continue
            self.lines[child] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, child)
        return result

    def _sequence(self, node: yaml.SequenceNode, path: tuple) -> list | None:
        if self._refuse_tag(node, path, _SEQ):
            return None
        return [self.build(item, path + (index,)) for index, item in enumerate(node.value)]

    def _scalar(self, node: yaml.ScalarNode, path: tuple) -> object:
        tag = node.tag
        if tag in (_STR, _TIMESTAMP):
            return node.value
        if tag == _FLOAT:
            return self._decimal(node, path)
        if tag in (_INT, _BOOL, _NULL):
            return self._scalars.construct_object(node, deep=True)
        self._problem(path, node, f"YAML tag {_short_tag(tag)!r} is not allowed; data files take plain values only")
        return None

    def _decimal(self, node: yaml.ScalarNode, path: tuple) -> Decimal | None:
        text = node.value.replace("_", "")
        try:
            number = Decimal(text)
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite():
            self._problem(path, node, f"{node.value!r} is not a finite number")
            return None
        return number

    def _problem(self, path: tuple, node: yaml.Node, message: str) -> None:
        self.problems.append((path, node.start_mark.line + 1, message))


def _short_tag(tag: str) -> str:
    """'tag:yaml.org,2002:python/object' as written in the file: '!!python/object'."""
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix):] if tag.startswith(prefix) else tag
