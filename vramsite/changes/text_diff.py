"""Text that differs, as a report quotes it: lines paired before → after, the words of a sentence that
changed in bold, long lines cut to where they differ, quoted as code, and long lists capped."""

from __future__ import annotations

import difflib
import re

SHOWN_LINES = 10
"""At most this many changed lines or records per page or file; the rest are counted."""
LONG_LINE = 160
CONTEXT = 40
"""Characters of a long changed line shown either side of where it changed."""
CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
WORD = re.compile(rf"\s+|[{CJK}]|[^\s{CJK}]+")
"""A sentence's words, spaces and, in Chinese (written without spaces), each character and punctuation mark."""


def common_prefix(first: str, second: str) -> str:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return first[:length]


def paired_changes(old: list[str], new: list[str]):
    """Each line that differs, as (before, after): before None for an added line, after None for a removed one."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        before, after = old[i1:i2], new[j1:j2]
        for index in range(max(len(before), len(after))):
            yield (before[index] if index < len(before) else None, after[index] if index < len(after) else None)


def highlight(before: str, after: str) -> tuple[str, str]:
    """Both sentences with the words that differ in bold (in Chinese, the characters that differ)."""
    old, new = WORD.findall(before.replace("**", "")), WORD.findall(after.replace("**", ""))
    marked_old, marked_new = [], []
    for op, i1, i2, j1, j2 in _word_changes(old, new):
        if op == "equal":
            marked_old += old[i1:i2]
            marked_new += new[j1:j2]
            continue
        if i2 > i1:
            marked_old.append(_bold("".join(old[i1:i2])))
        if j2 > j1:
            marked_new.append(_bold("".join(new[j1:j2])))
    return "".join(marked_old), "".join(marked_new)


def _word_changes(old: list[str], new: list[str]) -> list[tuple]:
    """difflib's opcodes, two changes apart by only a space made one: **RTX A6000**, not **RTX** **A6000**."""
    merged: list[tuple] = []
    for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if (op[0] != "equal" and len(merged) > 1 and merged[-1][0] == "equal" and merged[-2][0] != "equal"
                and all(word.isspace() for word in old[merged[-1][1]:merged[-1][2]])):
            first = merged[-2]
            merged[-2:] = [("replace", first[1], op[2], first[3], op[4])]
        else:
            merged.append(op)
    return merged


def _bold(text: str) -> str:
    """**text**, with spaces and punctuation around it left outside: **$240/month**, not **$240/month,**; (**A40**)."""
    stripped = text.strip()
    if not stripped:
        return text
    lead, trail = text[:text.index(stripped)], text[text.index(stripped) + len(stripped):]
    core = stripped.rstrip(".,;:!?/)）。，；：、！？")
    inner = core.lstrip("(（")
    if not inner:
        return text
    return f"{lead}{core[:len(core) - len(inner)]}**{inner}**{stripped[len(core):]}{trail}"


def changed_lines(old: list[str], new: list[str], indent: str = "") -> list[str]:
    """Lines of text that differ, before → after, each quoted as code."""
    lines = []
    for before, after in paired_changes(old, new):
        if before is None:
            lines.append(f"{indent}- added: {code(after)}")
        elif after is None:
            lines.append(f"{indent}- removed: {code(before)}")
        else:
            was, now = _excerpts(before, after)
            lines.append(f"{indent}- {code(was)} → {code(now)}")
    return capped(lines, "lines", indent)


def _excerpts(before: str, after: str) -> tuple[str, str]:
    """Two long lines cut down to where they differ, with some context either side."""
    if len(before) <= LONG_LINE and len(after) <= LONG_LINE:
        return before, after
    start = len(common_prefix(before, after))
    end = min(len(common_prefix(before[::-1], after[::-1])), len(before) - start, len(after) - start)
    first, tail = max(0, start - CONTEXT), max(0, end - CONTEXT)

    def cut(text: str) -> str:
        return ("…" if first else "") + text[first:len(text) - tail] + ("…" if tail else "")

    return cut(before), cut(after)


def code(text: str) -> str:
    """Text as inline code, shortened to one readable line; a backtick inside gets a longer fence."""
    text = " ".join(text.split())
    if len(text) > LONG_LINE:
        text = text[:LONG_LINE - 1] + "…"
    if not text:
        return "(empty)"
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def capped(lines: list[str], what: str, indent: str = "") -> list[str]:
    if len(lines) <= SHOWN_LINES:
        return lines
    return lines[:SHOWN_LINES] + [f"{indent}- … and {len(lines) - SHOWN_LINES} more changed {what}"]


def plural(items) -> str:
    """The plural ending of a noun counting ``items``: "s", or "" for one."""
    return "" if len(items) == 1 else "s"
