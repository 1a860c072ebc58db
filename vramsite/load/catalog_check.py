"""A strict reading of a gettext .po catalog, before babel reads its values.

babel's reader forgives what would publish a wrong page: a string missing
its closing quote is cut short, a stray line is skipped, a second entry for
one msgid silently wins. Here each of those is a problem at its line, and
so is a translation whose placeholders ({card}, {json}) are not the ones of
its msgid: the page would print a wrong value, or none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import Problem

_KEYWORD = re.compile(r"(msgctxt|msgid|msgid_plural|msgstr|msgstr\[(\d+)\])[ \t]+(.*)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"[ \t]*')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class _Entry:
    line: int
    fuzzy: bool
    parts: dict[str, str] = field(default_factory=dict)
    """msgctxt, msgid, msgid_plural, msgstr, msgstr[0], ...: the unescaped text of each."""
    lines: dict[str, int] = field(default_factory=dict)
    """The line each part starts at."""


def catalog_problems(text: str, name: str) -> list[Problem]:
    """Syntax errors, duplicate msgids and mismatched placeholders in the catalog ``text``."""
    entries, problems = _entries(text, name)
    return problems + _duplicates(entries, name) + _placeholder_problems(entries, name)


def _entries(text: str, name: str) -> tuple[list[_Entry], list[Problem]]:
    entries: list[_Entry] = []
    problems: list[Problem] = []
    unreadable: list[Problem] = []
    current: _Entry | None = None
    last_part: str | None = None
    fuzzy = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            last_part = None
            continue
        if line.startswith("#"):
            fuzzy = fuzzy or (line.startswith("#,") and "fuzzy" in line[2:].replace(",", " ").split())
            continue
        keyword = _KEYWORD.fullmatch(line)
        if keyword:
            part, rest = keyword.group(1), keyword.group(3)
            starts = part in ("msgctxt", "msgid") and (current is None or _complete(current) or part in current.parts)
            if starts or current is None:
                current = _Entry(number, fuzzy)
                entries.append(current)
                fuzzy = False
            if part in current.parts or not _follows(part, current):
                problems.append(Problem(name, number, "", f"{part} is out of place (a msgid comes first, then its msgstr)"))
            value = _string(rest, number, name, problems)
            current.parts[part] = value if value is not None else ""
            current.lines[part] = number
            last_part = part
            continue
        if line.startswith('"') and current is not None and last_part is not None:
            value = _string(line, number, name, problems)
            current.parts[last_part] += value or ""
            continue
        unreadable.append(Problem(name, number, "", f"cannot read this line: {_clip(line)} "
                                                    "(lines are #comments, msgid, msgstr or \"text\")"))
    problems += _at_most_some(unreadable, name)
    for entry in entries:
        if not _complete(entry):
            problems.append(Problem(name, entry.line, _field(entry), "has no msgstr"))
    return entries, problems


MAX_UNREADABLE = 5
"""Unreadable lines quoted one by one: a file that is no catalog at all is not printed back line by line."""


def _at_most_some(unreadable: list[Problem], name: str) -> list[Problem]:
    if len(unreadable) <= MAX_UNREADABLE:
        return unreadable
    rest = unreadable[MAX_UNREADABLE]
    return unreadable[:MAX_UNREADABLE] + [Problem(name, rest.line, "", f"and {len(unreadable) - MAX_UNREADABLE} more "
                                                                      "lines no catalog holds; is it the right file?")]


def _follows(part: str, entry: _Entry) -> bool:
    """Whether ``part`` may come after what ``entry`` holds so far."""
    held = set(entry.parts)
    if part == "msgctxt":
        return not held
    if part == "msgid":
        return held <= {"msgctxt"}
    if part == "msgid_plural":
        return "msgid" in held and not any(key.startswith("msgstr") for key in held)
    if part == "msgstr":
        return "msgid" in held and "msgid_plural" not in held
    return "msgid_plural" in held  # msgstr[n]


def _complete(entry: _Entry) -> bool:
    return any(key.startswith("msgstr") for key in entry.parts)


def _string(text: str, number: int, name: str, problems: list[Problem]) -> str | None:
    """The unescaped text of one quoted string, or None (with a problem) if it is not one."""
    found = _STRING.fullmatch(text)
    if found is None:
        if text.startswith('"') and not _STRING.match(text):
            problems.append(Problem(name, number, "", 'a string is not closed: end it with " on the same line'))
        else:
            problems.append(Problem(name, number, "", f"expected one \"quoted\" string, got {_clip(text)}"))
        return None
    body = found.group(1)
    bad = re.search(r"\\([^ntr\"\\abfv])", body)
    if bad:
        problems.append(Problem(name, number, "", f"unknown escape \\{bad.group(1)} in a string"))
    return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match.group(1), match.group(1)), body)


def _duplicates(entries: list[_Entry], name: str) -> list[Problem]:
    seen: dict[tuple[str, str], int] = {}
    problems = []
    for entry in entries:
        if "msgid" not in entry.parts:
            continue
        key = (entry.parts.get("msgctxt", ""), entry.parts["msgid"])
        if key in seen:
            problems.append(Problem(name, entry.line, _field(entry), f"is listed twice (first at line {seen[key]}); keep one"))
        else:
            seen[key] = entry.line
    return problems


def _placeholder_problems(entries: list[_Entry], name: str) -> list[Problem]:
    problems = []
    for entry in entries:
        source = entry.parts.get("msgid", "")
        if not source or entry.fuzzy:
            continue
        wanted = _placeholders(source) | _placeholders(entry.parts.get("msgid_plural", ""))
        for part, text in entry.parts.items():
            if not part.startswith("msgstr") or not text:
                continue
            found = _placeholders(text)
            if found != wanted:
                problems.append(Problem(name, entry.lines[part], _field(entry), _mismatch(part, wanted, found)))
    return problems


def _placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def _mismatch(part: str, wanted: set[str], found: set[str]) -> str:
    pieces = []
    if wanted - found:
        pieces.append("lacks " + ", ".join(f"{{{name}}}" for name in sorted(wanted - found)))
    if found - wanted:
        pieces.append("has " + ", ".join(f"{{{name}}}" for name in sorted(found - wanted)) + ", which the msgid does not")
    return f"{part} {' and '.join(pieces)}; keep the msgid's placeholders as they are"


def _field(entry: _Entry) -> str:
    return f"msgid {entry.parts.get('msgid', '')!r}"


def _clip(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")
