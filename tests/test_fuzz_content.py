"""Fuzz: random expressions and template tokens in a content file's body, rendered in-process.

Whatever the body holds, rendering the page either succeeds or fails with
``InputError`` whose every problem names the content file and a line inside
it: never another exception, never a hang, never a write outside the site.
The second target chains filters and operators over big values: each page
renders or is refused within seconds and without a jump in memory.
"""

from __future__ import annotations

import resource
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_support import (CONTENT_FRONT, CONTENT_NAME, content_page, fuzz_settings, no_hang, render_body,
                          watch_writes)
from vramsite.errors import InputError

NAME, FRONT = CONTENT_NAME, CONTENT_FRONT

TOKENS = [
    "{{", "}}", "{%", "%}", "{#", "#}", "{##", "##}", "(", ")", "[", "]", ",", ".", "|", "~", "+", "*", "**", "%",
    "-", "/", "//", "==", "<", "=", ":", "'", '"', "'x'", "\n", " ", "0", "1", "3", "10", "100000", "9" * 30, "1.5",
    "if", "else", "endif", "for", "in", "endfor", "set", "endset", "macro", "endmacro", "call", "endcall", "block",
    "endblock", "with", "endwith", "filter", "endfilter", "raw", "endraw", "include", "import", "extends", "from",
    "not", "and", "or", "is", "defined", "none", "true", "recursive", "loop", "loop.index", "caller", "self", "super",
    "namespace", "range", "lipsum", "cycler", "joiner", "dict", "scope", "inline", "g", "g.models", "g.gpus",
    "g.data", "g.data.gpus", "model", "gpu", "cell", "'70B'", "'a40'", "params", "card", "site", "site.name",
    "pricing", "locale", "facts", "table", "chart", "stats", "link", "gpu_link", "msg", "_", "ngettext",
    "fig", "num", "usd", "names", "date", "explain", "tokens", "join", "map", "attribute", "list", "length",
    "attr", "format", "safe", "e", "upper", "sort", "first", ".name", ".memory", ".value", ".__class__",
    ".__globals__", ".__init__", ".mro", "._scope", ".append", ".update", ".format", ".gi_frame", "x", "ns", "ns.x",
    "![](https://evil.example/t.png)", "<script>", "&amp;", "# ", "- ", "1. ", "{#evil}", "`", "\\",
]

FRAGMENTS = [
    "{{ g.card_count | fig }}", "{% for m in g.models %}{{ m.name }}{% endfor %}", "{{ gpu_link(gpu('a40')) }}",
    "{{ 2 ** 100000 }}", "{{ 'x' * 10 ** 8 }}", "{% for i in range(10000) %}{% for j in range(10000) %}"
    "{% endfor %}{% endfor %}", "{% set ns = namespace(x='a') %}", "{% macro f(n) %}{{ f(n) }}{% endmacro %}",
    "{{ table('cost') }}", "{{ g.__class__ }}", "{{ scope.build }}",
]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A build of the seed site, and the English index page's two scopes."""
    return content_page(tmp_path_factory.mktemp("fuzz-content") / "site")


render = render_body


@fuzz_settings(max_examples=100)
@given(st.lists(st.one_of(st.sampled_from(TOKENS), st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=30))
def test_any_content_body_renders_or_fails_with_a_located_problem(page, pieces):
    root, build, scopes = page
    body = " ".join(pieces)
    lines = (FRONT + body).replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1  # as the file reads back
    with no_hang(), watch_writes(root) as writes:
        try:
            render(root, build, scopes, body)
        except InputError as error:
            for problem in error.problems:
                assert problem.file == NAME, str(error)
                assert problem.line is not None and 1 <= problem.line <= lines, str(error)
                assert "\n" not in str(problem), str(error)
                assert "Hang" not in problem.message, "rendering ran past the hang guard"
    assert writes == []


def test_the_fuzz_target_renders_a_plain_body(page):
    root, build, scopes = page
    render(root, build, scopes, "Plain {{ g.card_count | fig }} text.\n")
    with pytest.raises(InputError, match=r"content/en/index\.md:6: not allowed in content"):
        render(root, build, scopes, "one\n{{ g.__class__ }}\n")


# -- pipelines over big values ------------------------------------------------------------

BIG_VALUES = [
    "'x' * 999999", "['x' * 1000] * 999", "range(10000) | list", "range(10000)", "[g.data] * 100", "g.models",
    "namespace(a='x' * 500000)", "['ab'] * 100000", "[range(10000) | list] * 50", "{'k': 'v' * 500000}",
]
STEPS = [
    "| map('upper')", "| map('string')", "| map('length')", "| map('list')", "| select('string')",
    "| reject('none')", "| list", "| string", "| join", "| join('" + "z" * 1000 + "')", "| unique", "| sort",
    "| reverse", "| sum", "| length", "| upper", "| first", "| last", "| e", "| truncate(10)", "| wordcount",
    "| urlencode", "| dictsort", "| items", "| max", "| sum(start=[])", "* 1000", "* 2", "+ ['x']", "~ 'x'",
    "== ['x']", "in ['x']", "is sameas 1", "| default('x')",
]
PEAK_MB = 500
"""How far the process's peak memory may rise over all the examples."""


def _pipeline(start: str, steps: list[str], loop: bool) -> str:
    expression = start
    for step in steps:
        expression = f"({expression}) {step}"
    body = "{{ " + expression + " }}"
    return "{% for i in range(10000) %}" + body + "{% endfor %}" if loop else body


@fuzz_settings(max_examples=30)
@given(st.sampled_from(BIG_VALUES), st.lists(st.sampled_from(STEPS), min_size=1, max_size=5), st.booleans())
def test_a_pipeline_over_big_values_renders_or_is_refused_within_bounds(page, start, steps, loop):
    root, build, scopes = page
    body = "big\n" + _pipeline(start, steps, loop) + "\n"
    before, began = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, time.monotonic()
    with no_hang(10):
        try:
            render(root, build, scopes, body)
        except InputError as error:
            assert [problem.line for problem in error.problems] == [FRONT.count("\n") + 2], str(error)
            assert all(problem.file == NAME and "\n" not in str(problem) for problem in error.problems)
    assert time.monotonic() - began < 5, body
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before < PEAK_MB, body
