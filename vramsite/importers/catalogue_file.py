"""data/catalogue.yaml with one more model appended, everything already there kept as it was.

Editors annotate the catalogue by hand, so an import must keep its
comments, order and layout: ruamel.yaml's round-trip mode does, provided the
file is laid out as it writes files (checked first: a file it would
reformat is refused rather than rewritten). A missing file is created with
its header.
"""

from __future__ import annotations

import difflib
import io
from decimal import Decimal

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from ..errors import InputError, Problem
from .data_file import round_trip_load

CATALOGUE_FILE = "data/catalogue.yaml"
HEADER = """\
# yaml-language-server: $schema=../vramsite/schemas/catalogue.schema.json
#
# Real models with their published architectures, one entry each, written by
# `build.py model add PATH/config.json` (docs/editing.md, "Add a real model").
# Each entry names the config it was read from (source) and where its parameter
# counts come from (params_from: computed from the config, index from the
# checkpoint's safetensors index, or published on the model card). The active
# count is what one token reads: all but the embedding table (one row of it)
# and the experts not routed to. native_format is the weight format the
# checkpoint ships in (data/weight_formats.yaml); parameters counts every
# parameter by tensor class, from the config.

models:
"""
FLOW_KEYS = ("experts", "parameters", "source")
"""Entry keys written on one line, {a: 1, b: 2}, as is each layer group."""


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line
    yaml.indent(mapping=2, sequence=4, offset=2)  # "  - id: ..." under "models:"
    yaml.representer.add_representer(Decimal, _decimal)
    yaml.representer.ignore_aliases = lambda data: True  # the site's reader refuses anchors and aliases
    return yaml


def _decimal(representer, value: Decimal):
    """8.03 as written; a whole 117 as a whole number (a float tag would print it as !!float '117')."""
    if value == value.to_integral_value():
        return representer.represent_scalar("tag:yaml.org,2002:int", str(int(value)))
    return representer.represent_scalar("tag:yaml.org,2002:float", format(value, "f"))


def existing_ids(document: CommentedMap) -> dict[str, int]:
    """The ids already in the catalogue ``load_catalogue`` read, each with its line."""
    ids = {}
    for item in document["models"]:
        if isinstance(item, CommentedMap) and isinstance(item.get("id"), str):
            ids[item["id"]] = item.lc.key("id")[0] + 1
    return ids


def with_entry(document: CommentedMap, entry: dict, note: str | None) -> str:
    """The text of ``document`` with ``entry`` appended to its models; ``note`` a comment after params_from."""
    document["models"].append(_commented(entry, note))
    return _dump(_yaml(), document)


def appended(text: str, entry: dict, note: str | None) -> str:
    """``with_entry`` for a catalogue laid out as ``model add`` writes one (the layout ``load_catalogue`` accepts):
    the entry's text added at the end, without reading the file into ruamel.yaml and writing it out again, which
    takes most of a second for the site's catalogue (and a page's paste runs in the browser). Nothing checks the
    layout here: on another one the text may read otherwise, or not at all, and loading it says where."""
    return (text if text.endswith("\n") else text + "\n") + entry_text(entry, note)


def entry_text(entry: dict, note: str | None) -> str:
    """The entry as the catalogue shows it, for the command to print."""
    return _dump(_yaml(), CommentedSeq([_commented(entry, note)]))


def load_catalogue(text: str | None, name: str = CATALOGUE_FILE) -> CommentedMap:
    """The catalogue's document, read once for its ids and the entry appended; a missing or blank file is a new
    one, its header alone. InputError when the file is not one we can append to."""
    text = HEADER if text is None or not text.strip() else text
    yaml = _yaml()
    try:
        document = round_trip_load(yaml, text, name)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise InputError([Problem(name, mark.line + 1 if mark else None, "",
                                  f"not YAML: {getattr(error, 'problem', None) or error}")]) from None
    if not isinstance(document, CommentedMap) or not isinstance(document.get("models"), (CommentedSeq, type(None))):
        raise InputError([Problem(name, 1, "models", "the catalogue is a mapping whose models: key holds a list")])
    if document.get("models") is None:
        document["models"] = CommentedSeq()  # "models:" with nothing under it yet, as in a new file
    else:
        _check_layout(yaml, document, text, name)
    return document


def _check_layout(yaml: YAML, document: CommentedMap, text: str, name: str) -> None:
    """Refuse a file that writing it back would change elsewhere than at its end."""
    again = _dump(yaml, document)
    if again == text:
        return
    before, after = text.splitlines(), again.splitlines()
    opcodes = difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes()
    first = next(tag for tag in opcodes if tag[0] != "equal")
    raise InputError([Problem(name, first[1] + 1, "",
                              "adding a model rewrites this file and would change this line's layout; lay it out "
                              "as the other data files are (keys indented by 2 spaces, list items as '  - ' under "
                              "models:), then add the model again")])


def _commented(entry: dict, note: str | None) -> CommentedMap:
    mapping = CommentedMap()
    for key, value in entry.items():
        if key == "layers":
            value = CommentedSeq(_flow(group) for group in value)
        elif key in FLOW_KEYS:
            value = _flow(value)
        mapping[key] = value
    if note:
        mapping.yaml_add_eol_comment(note, "params_from")
    return mapping


def _flow(values: dict) -> CommentedMap:
    mapping = CommentedMap(values)
    mapping.fa.set_flow_style()
    return mapping


def _dump(yaml: YAML, document) -> str:
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()
