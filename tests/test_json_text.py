"""The downloads' indented JSON is json.dumps's, character for character."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from vramsite.publish.json_text import dumps_indented

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(values, st.integers(min_value=0, max_value=4))
def test_any_json_value_is_written_as_json_dumps_writes_it(value, indent):
    assert dumps_indented(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_text_that_needs_escapes_and_text_beyond_ascii():
    value = {"名称": "A40 “48 GB”", "quote": 'say "hi"\\', "control": "\x00\x1f\x7f\u2028", "emoji": "🙂",
             "nested": {"empty": {}, "list": [], "deep": [[{}], [[]]]}}
    assert dumps_indented(value, 2) == json.dumps(value, ensure_ascii=False, indent=2)


def test_values_json_alone_knows_go_to_it_whole():
    value = {"n": math.nan, "inf": [math.inf], 1: "an int key", True: "a bool key", None: "no key"}
    assert dumps_indented(value, 2) == json.dumps(value, ensure_ascii=False, indent=2)


def test_what_json_refuses_is_refused_alike():
    import pytest

    with pytest.raises(TypeError):
        dumps_indented({"a": {1, 2}}, 2)
