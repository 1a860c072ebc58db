"""data/price_history.yaml with one more dated price list, written as text at its end.

The file is the editors' too: they prune it by deleting old entries, and may
comment it. So an entry is added as text, never by dumping the whole file
again, which would drop their comments and layout: appended after the last
line, or put in the place of the last entry where that one has the same time
(a snapshot imported again). The text is then read back, as ``check`` reads
it (``load.yaml_source.parse_yaml``, which keeps numbers exact and dates as
written), and must give the lists it held plus the new one; a file laid out so
that text added at its end lands elsewhere (``snapshots: []``, another key
after the list) is refused with what to do, and nothing is written.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import yaml

from ..errors import InputError, Problem
from ..load.model import PriceSnapshot
from ..load.price_history import moment_key
from ..load.yaml_source import YamlDocument, parse_yaml

HISTORY_FILE = "data/price_history.yaml"
ITEM_INDENT = 2
"""The data files' layout: "  - at: ..." under "snapshots:"."""
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()/+-]*[A-Za-z0-9._()]|[A-Za-z0-9]")
"""Text written without quotes where YAML also reads it back as this text (checked); any other is quoted."""
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
SCHEMA_LINE = re.compile(r"# yaml-language-server: \$schema=(\S*)prices\.schema\.json\n")
HEADER = """# The past price lists, oldest first: the pages chart each card's price over
# time from them, say when a model's pick last changed, and list in a feed
# what each list changed. `build.py prices import` adds the snapshot it
# imports; after editing prices.yaml by hand (a price and its updated: date),
# `build.py prices record` adds prices.yaml's list. A list dated as
# prices.yaml's updated: stands for it while their prices agree.
#
# Prune by deleting old entries: each runs from its "- at:" line to the next.

snapshots:
"""
"""A new file's text before its first entry (after the schema line that prices.yaml has, where it has one)."""


def read_history(text: str | None) -> YamlDocument | None:
    """The file as ``check`` reads it; None where there is no file. InputError where it cannot be read."""
    return None if text is None else parse_yaml(text, HISTORY_FILE)


def lists_of(document: YamlDocument | None) -> list:
    return [] if document is None else list(document.value.get("snapshots") or [])


def later_problem(document: YamlDocument | None, at: str, what: str, advice: str) -> Problem | None:
    """Where the file's last list is later than ``at``, the time of the list about to be added (``what`` words
    it, ``advice`` says what to do): a list added after it would break the order, oldest first."""
    lists = lists_of(document)
    if not lists:
        return None
    last = str(lists[-1]["at"])
    if moment_key(last) <= moment_key(at):
        return None
    index = len(lists) - 1
    return Problem(HISTORY_FILE, document.line_of(("snapshots", index, "at")), f"snapshots[{index}].at",
                   f"the last list, of {last}, is later than {what} ({at}), and the lists are kept oldest first: "
                   f"{advice}")


def same_time(document: YamlDocument | None, entry: PriceSnapshot) -> bool:
    """Whether the file's last list has ``entry``'s time: ``entry`` replaces it."""
    lists = lists_of(document)
    return bool(lists) and moment_key(str(lists[-1]["at"])) == moment_key(entry.at)


def holds(document: YamlDocument | None, entry: PriceSnapshot) -> bool:
    """Whether the file's last list already is ``entry``: its time, each card's price and the snapshot's counts
    (medians and listing counts, which only an import knows, are not compared)."""
    if not same_time(document, entry):
        return False
    last = lists_of(document)[-1]
    usd = {price["gpu"]: price["usd"] for price in last["prices"]}
    return usd == {gpu: price.usd for gpu, price in entry.cards.items()} and last.get("snapshot") == _counts(entry)


def with_entry(text: str | None, entry: PriceSnapshot, schema_line: str = "") -> tuple[str, str]:
    """``text`` with ``entry`` appended, or in the place of the last list where that has its time; and what was
    done ("created", "appended", "replaced its last list"). None: no file yet, made with HEADER."""
    if text is None:
        new_text, done, kept = schema_line + HEADER + entry_text(entry, ITEM_INDENT), "created", []
    else:
        document = read_history(text)
        lists = lists_of(document)
        span = _last_item(text) if lists else None
        indent = ITEM_INDENT if span is None else span[2]
        if same_time(document, entry) and span is not None:
            new_text, done, kept = text[:span[0]] + entry_text(entry, indent) + text[span[1]:], \
                "replaced its last list", lists[:-1]
        else:
            new_text, done, kept = _ended(text) + entry_text(entry, indent), "appended", lists
    _check_reads_back(new_text, kept + [plain_entry(entry)])
    return new_text, done


def schema_line_of(prices_text: str) -> str:
    """prices.yaml's editor hint for its schema, pointed at the history's schema; "" where it has none."""
    found = SCHEMA_LINE.match(prices_text)
    return f"# yaml-language-server: $schema={found[1]}price_history.schema.json\n#\n" if found else ""


# -- the entry as text, and as reading it back gives it ---------------------------------------------


def entry_text(entry: PriceSnapshot, indent: int = ITEM_INDENT) -> str:
    """The entry in the data files' layout: "- at:", its snapshot's counts, then one flow mapping per card."""
    pad = " " * indent
    lines = [f"{pad}- at: {_at(entry.at)}"]
    counts = _counts(entry)
    if counts is not None:
        lines.append(f"{pad}  snapshot: {_flow(counts)}")
    lines.append(f"{pad}  prices:")
    lines += [f"{pad}    - {_flow(card)}" for card in plain_entry(entry)["prices"]]
    return "\n".join(lines) + "\n"


def plain_entry(entry: PriceSnapshot) -> dict:
    """The entry as the file's reader gives it back: a mapping of plain values, Decimal numbers."""
    plain: dict = {"at": entry.at}
    counts = _counts(entry)
    if counts is not None:
        plain["snapshot"] = counts
    plain["prices"] = [_card(gpu, price) for gpu, price in entry.cards.items()]
    return plain


def _card(gpu: str, price) -> dict:
    card = {"gpu": gpu, "usd": price.usd}
    if price.median is not None:
        card["median"] = price.median
    if price.listings is not None:
        card["listings"] = price.listings
    return card


def _counts(entry: PriceSnapshot) -> dict | None:
    counts = entry.snapshot
    return None if counts is None else {"source": counts.source, "gpus": counts.gpus, "machines": counts.machines}


def _at(at: str) -> str:
    """A date as prices.yaml's updated: writes one, bare; a date and time quoted."""
    return at if DATE.fullmatch(at) else json.dumps(at, ensure_ascii=False)


def _flow(mapping: dict) -> str:
    return "{" + ", ".join(f"{key}: {_scalar(value)}" for key, value in mapping.items()) + "}"


def _scalar(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, Decimal):
        return format(value, "f")  # as written: 1.90 stays 1.90, never 1.9E+0
    if isinstance(value, int):
        return str(value)
    if PLAIN.fullmatch(value) and yaml.safe_load(f"[{value}]") == [value]:  # no number, date, null or true
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


# -- the file's text ------------------------------------------------------------------------------------


def _ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _last_item(text: str) -> tuple[int, int, int] | None:
    """Where the last list's text starts (its line with the "-") and ends (the end of its last value's line),
    and the column of its "-"; None where the file's lists are not a block list under ``snapshots``."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    lists = next((value for key, value in root.value if key.value == "snapshots"), None)
    if not isinstance(lists, yaml.SequenceNode) or lists.flow_style or not lists.value:
        return None
    last = lists.value[-1]
    dash = text.rfind("-", 0, last.start_mark.index)
    start = text.rfind("\n", 0, dash) + 1
    end = text.find("\n", max(_ends(last)))
    return start, len(text) if end < 0 else end + 1, dash - start


def _ends(node: yaml.Node):
    """Where each of the node's values ends in the text. A block collection's own end mark lies past the
    comments that follow it, so only its values' ends are taken."""
    if isinstance(node, yaml.ScalarNode) or node.flow_style:
        yield node.end_mark.index
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield from _ends(key)
            yield from _ends(value)
    else:
        for item in node.value:
            yield from _ends(item)


def _check_reads_back(text: str, expected: list) -> None:
    """``text`` must read as the file's lists ``expected`` and nothing else."""
    try:
        document = parse_yaml(text, HISTORY_FILE)
    except InputError:
        document = None
    if document is None or document.value != {"snapshots": expected}:
        raise InputError([Problem(HISTORY_FILE, None, "",
                                  "a new list is added as text at the end of this file, and here it would not "
                                  "read as one more list: keep 'snapshots:' the file's only key, its lists as "
                                  "'  - at: ...' entries under it, not [...] (where it holds no list, delete the "
                                  "file: the command makes it again); then run the command again")])
