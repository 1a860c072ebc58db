"""Read one YAML file safely, keeping the line of every value.

PyYAML's composer gives a node tree with positions; we build plain Python
values from it ourselves so that we can refuse what ``safe_load`` would
silently accept (duplicate keys) and remember where each value stood.
Floats become ``Decimal`` from their source text, so 0.1 stays 0.1.

Every file is bounded before a node is built: its size, its nesting depth,
and no anchors or aliases at all (an alias bomb of a few KB expands to
gigabytes; a recursive alias never ends). The check walks the parser's
event stream, which is linear in the text, so such a file is refused at
once. Everything in vramsite that reads YAML goes through ``parse_yaml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

import yaml

from ..errors import InputError, Problem
from .source_read import DATA, read_source_text
from .text import excerpt, shown, text_problem

# libyaml's parser where PyYAML was built with it: the same nodes, several times faster;
# on a syntax error the file is read again by PyYAML's parser for its clearer message.
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 16
"""Deepest nesting of lists and mappings; the data files need six levels."""
MAX_DIGITS = 100
"""Longest number, in characters: Python refuses to read an int of over 4,300 digits."""

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
    """Parse ``path``; ``name`` is how messages call the file (read as ``source_read`` reads a data file)."""
    return parse_yaml(read_source_text(path, name, DATA), name)


def parse_yaml(text: str, name: str, first_line: int = 1) -> YamlDocument:
    """Parse YAML ``text`` that starts at line ``first_line`` of the file ``name``."""
    offset = first_line - 1
    if not text.strip():
        raise InputError([Problem(name, first_line, "", "the file is empty")])
    _check_bounds(text, name, offset)
    node = yaml.compose(text, Loader=_COMPOSER)  # parsed once already: no syntax error, alias or deep nesting
    if node is None:
        raise InputError([Problem(name, first_line, "", "the file holds no data, only comments")])
    builder = _Builder(name, offset, last_line=text.count("\n") + first_line)
    try:
        value = builder.build(node, ())
    finally:
        builder.dispose()
    document = YamlDocument(name, value, builder.lines)
    if builder.problems:
        raise InputError([Problem(name, line, readable_path(document, path), message)
                          for path, line, message in builder.problems])
    return document


def _check_bounds(text: str, name: str, offset: int) -> None:
    """Refuse anchors, aliases and deep nesting from the event stream, before any node exists."""
    try:
        _scan_events(text, name, offset, _COMPOSER)
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1 + offset
        raise InputError([Problem(name, line, "", f"the control character U+{error.character:04X} "
                                                  "cannot stand in a YAML file; delete it")]) from None
    except yaml.MarkedYAMLError:
        # Scan again with PyYAML's own parser: its messages and marks read better than libyaml's.
        try:
            _scan_events(text, name, offset, yaml.SafeLoader)
        except yaml.MarkedYAMLError as error:
            last_line = text.count("\n") + 1 + offset  # libyaml may mark the end of the stream one line past it
            problem = _syntax_problem(error, name, offset)
            raise InputError([replace(problem, line=min(problem.line, last_line)) if problem.line else problem]) from None
        raise InputError([Problem(name, None, "", "YAML syntax error")]) from None  # pragma: no cover
    except yaml.YAMLError as error:  # pragma: no cover - both parsers mark their errors
        raise InputError([Problem(name, None, "", f"YAML error: {error}")]) from None


def _scan_events(text: str, name: str, offset: int, loader: type) -> None:
    path = _EventPath()
    for event in yaml.parse(text, Loader=loader):
        line = event.start_mark.line + 1 + offset
        if isinstance(event, yaml.AliasEvent):
            raise InputError([Problem(name, line, path.text(),
                                      f"YAML alias *{event.anchor} is not allowed; write the value out")])
        if getattr(event, "anchor", None) is not None:
            raise InputError([Problem(name, line, path.text(),
                                      f"YAML anchor &{event.anchor} is not allowed; write the value out where it is used")])
        path.step(event)
        if path.depth > MAX_DEPTH:
            raise InputError([Problem(name, line, path.text(),
                                      f"nested more than {MAX_DEPTH} levels deep; data files are flat lists of entries")])


class _EventPath:
    """Where the parser is (gpus[3].name), followed one event at a time."""

    def __init__(self):
        self._stack: list[list] = []
        """One [kind, position, expecting_key] per open collection; position is a key or an index."""

    @property
    def depth(self) -> int:
        return len(self._stack)

    def step(self, event: yaml.Event) -> None:
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._stack.append(["map" if isinstance(event, yaml.MappingStartEvent) else "seq", None, True])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self._stack.pop()
            self._advance(None)
        elif isinstance(event, yaml.ScalarEvent):
            self._advance(event.value)

    def _advance(self, scalar: str | None) -> None:
        """A value ended: in a mapping it was a key or a value; in a list it was an item."""
        if not self._stack:
            return
        top = self._stack[-1]
        if top[0] == "seq":
            top[1] = 0 if top[1] is None else top[1] + 1
        elif top[2]:
            top[1], top[2] = scalar, False
        else:
            top[2] = True

    def text(self) -> str:
        text = ""
        for kind, position, expecting_key in self._stack:
            if kind == "seq":
                text += f"[{0 if position is None else position + 1}]"
            elif not expecting_key and position is not None:
                text += f".{shown(position)}" if text else shown(position)
        return text


def _syntax_problem(error: yaml.MarkedYAMLError, name: str, offset: int = 0) -> Problem:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 + offset if mark else None
    problem = error.problem or "invalid YAML"
    if mark is not None and mark.buffer and mark.pointer < len(mark.buffer) and mark.buffer[mark.pointer] == "\t":
        problem = "a tab character; indent YAML with spaces"
    elif "\t" in problem or "'\\t'" in problem:
        problem = "a tab character; indent YAML with spaces"
    elif error.context and error.context_mark is not None and error.context_mark.line + 1 + offset != line:
        problem += f" ({error.context} that starts at line {error.context_mark.line + 1 + offset})"
    return Problem(name, line, "", f"YAML syntax error: {problem}")


class _Builder:
    """Turns a composed node tree into dicts, lists and scalars."""

    def __init__(self, name: str, offset: int, last_line: int):
        self.name = name
        self.offset = offset
        self.last_line = last_line
        """An empty document's node is marked past the end of its text."""
        self.lines: dict[tuple, int] = {}
        self.problems: list[tuple[tuple, int, str]] = []
        """(path, line, message): fields are named once the whole file is built (gpus[a40].name)."""
        self._scalars = yaml.SafeLoader("")

    def dispose(self) -> None:
        """Break the loader's references to itself, so that it and the nodes it constructed go as soon as the
        builder does, not at the cycle collector's next pass (which a build does not make)."""
        self._scalars.dispose()

    def build(self, node: yaml.Node, path: tuple) -> object:
        self.lines.setdefault(path, self._line(node))
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
            self.lines[child] = self._line(key_node)
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
        if tag == _BOOL and not _YAML_1_2_BOOL.fullmatch(node.value):
            return node.value  # yes, no, on, off: text, as YAML 1.2 reads them (country: NO stays "NO")
        if tag in (_INT, _FLOAT) and not _YAML_1_2_NUMBER[tag].fullmatch(node.value):
            self._problem(path, node, self._yaml_1_1_problem(node))
            return None
        if tag in (_INT, _FLOAT) and len(node.value) > MAX_DIGITS:
            self._problem(path, node, f"a number of more than {MAX_DIGITS} characters; is it a typo?")
            return None
        if tag == _FLOAT:
            return self._decimal(node, path)
        if tag in (_INT, _BOOL, _NULL):
            return self._scalars.construct_object(node, deep=True)
        self._problem(path, node, f"YAML tag {_short_tag(tag)!r} is not allowed; data files take plain values only")
        return None

    def _yaml_1_1_problem(self, node: yaml.ScalarNode) -> str:
        """What to write instead of a number only YAML 1.1 reads as one, saying what it reads."""
        shown = excerpt(node.value, 40)
        try:
            old = self._scalars.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError):
            old = None
        return (f"{shown} is read as {old} by YAML 1.1's rules for octal, base-60, hexadecimal and _ numbers, which "
                "YAML 1.2 and people do not share; write the number in plain decimal digits, or quote it as text")

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
        self.problems.append((path, self._line(node), message))

    def _line(self, node: yaml.Node) -> int:
        return min(node.start_mark.line + 1 + self.offset, self.last_line)


_YAML_1_2_NUMBER = {
    _INT: re.compile(r"[-+]?(?:0|[1-9][0-9]*)"),
    _FLOAT: re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"),
}
"""The plain numbers YAML 1.2 reads as PyYAML (YAML 1.1) does. PyYAML also reads 0300 as octal 192, 1:20 as
base-60 80, 0x1F, 0b11 and 1_000 as numbers, where YAML 1.2, another tool or the editor reads 300 or text: the
file means different numbers to different readers, so such a value is refused rather than read either way."""
_YAML_1_2_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
"""The booleans of YAML 1.2. PyYAML's yes/no/on/off are read as the text they are in YAML 1.2: the schema then
refuses text where a boolean or number is due, and keeps it where text is (a country code NO)."""


def _short_tag(tag: str) -> str:
    """'tag:yaml.org,2002:python/object' as written in the file: '!!python/object'."""
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix):] if tag.startswith(prefix) else tag


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
            text += f".{shown(str(part))}" if text else shown(str(part))
            node = node.get(part) if isinstance(node, dict) else None
    return text


def _item_label(item: object) -> str | None:
    if isinstance(item, dict):
        for key in ("id", "gpu", "symbol", "segment", "cards"):
            value = item.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) and not text_problem(str(value)):
                return str(value)
    return None
