"""Content that makes the sandbox do too much: refused where the work is spent, within seconds and a little memory.

Filter pipelines, repeats, joins and comparisons over big values used to run
for minutes or grow memory without end, because the bounds were checked only
at calls and loop rounds. Each case here is rendered in-process (the seed
site's index page, both formats) and must fail with one located line saying
the expression does too much, in a few seconds and without a jump in the
process's peak memory; the issue's own payloads also go through
``build.py check`` under a memory limit.
"""

from __future__ import annotations

import resource
import time

import pytest

from fuzz_support import CONTENT_FRONT, CONTENT_NAME, content_page, render_body
from own_time import own_processor_time
from vramsite.errors import InputError
from vramsite.render import sandbox

TOO_MUCH = "expression does too much"
SECONDS = 8
"""How long a refusal may take in-process (the guards refuse most in well under a second)."""
MEMORY_MB = 300
"""How much a refusal may raise the process's peak memory."""
DOUBLING = "{% set ns = namespace(a=('x',), b=('x',)) %}{% for i in range(60) %}" \
           "{% set ns.a = (ns.a, ns.a) %}{% set ns.b = (ns.b, ns.b) %}{% endfor %}"
"""Two distinct tuples of 2**60 leaves each, made in 120 steps: whatever walks one all through never ends."""

PAYLOADS = {
    # the issue's three
    "map over a repeated megabyte": "{{ (['x' * 1000000] * 30000) | map('upper') | map('length') | sum }}",
    "print a million megabytes": "{{ ['x' * 1000000] * 1000000 }}",
    "join 1,500 megabytes": "{{ (['x'*1000000]*1500) | join | length }}",
    # variants
    "join with a long separator": "{{ (['x'*1000]*900) | join('y'*100000) | length }}",
    "string of a nested repeat": "{{ ([['x'*1000]*900]*1000) | string | length }}",
    "sum of lists": "{{ ([['x']*900]*1000) | sum(start=[]) | length }}",
    "nested map pipelines": "{{ ([range(10000)|list]*100) | map('list') | map('string') | map('length') | sum }}",
    "a repeat in a loop": "{% for i in range(10000) %}{% set s = 'x' * 999999 %}{% endfor %}",
    "a filter in a loop": "{% for i in range(10000) %}{{ ('x'*999999) | upper | length }}{% endfor %}",
    "a slice in a loop": "{% set s = 'x'*999999 %}{% for i in range(10000) %}{% set t = s[::-1] %}{% endfor %}",
    "~ doubling": "{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "~ of two long texts": "{{ 'x'*999999 ~ 'y'*999999 }}",
    "+ of two long lists": "{{ (['x']*300000) + (['y']*300000) }}",
    "records repeated then joined": "{{ ([g.data] * 10000) | join | length }}",
    "a namespace grown after its list was made": "{% set ns = namespace(x=1) %}{% set l = [ns]*100000 %}"
                                                 "{% set ns.x = 'y'*100000 %}{{ l | join | length }}",
    "comparing shared trees": DOUBLING + "{{ ns.a == ns.b }}",
    "hashing a shared tree": DOUBLING + "{{ [ns.a] | unique | list | length }}",
    "a shared tree as a dict key": DOUBLING + "{{ {ns.a: 1} | length }}",
    "a shared tree as an item key": DOUBLING + "{{ {'k': 1}[ns.a] }}",
    "a shared tree counted": DOUBLING + "{{ [ns.a].count(ns.b) }}",
    "a shared tree tested": DOUBLING + "{{ ns.a is sameas ns.b }}{{ [ns.a] | select('in', [ns.b]) | list }}",
    "a shared tree printed": DOUBLING + "{{ ns.a }}",
    "a million brackets for the Markdown parser": "{% for i in range(10000) %}" + "[" * 100 + "{% endfor %}",
    "steps of a lazy pipeline": "{% for i in range(10000) %}{{ range(10000) | map('string') | select('string')"
                                " | list | length }}{% endfor %}",
}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    return content_page(tmp_path_factory.mktemp("hostile-sandbox") / "site")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("body", PAYLOADS.values(), ids=list(PAYLOADS))
def test_a_payload_is_refused_quickly_with_a_located_message(page, body):
    before, start = peak_mb(), time.monotonic()
    with pytest.raises(InputError) as refused:
        render_body(*page, "text\n" + body + "\n")
    took = time.monotonic() - start
    line = CONTENT_FRONT.count("\n") + 2
    assert str(refused.value).startswith(f"{CONTENT_NAME}:{line}: {TOO_MUCH}: "), str(refused.value)
    assert "\n" not in str(refused.value)
    assert took < SECONDS, f"refused after {took:.1f} s"
    assert peak_mb() - before < MEMORY_MB, f"peak memory rose by {peak_mb() - before:.0f} MB"


PIPELINES = {
    "{{ range(5) | map('string') | map('upper') | join('+') }}": "0+1+2+3+4",
    "{{ [1, 2, 3] | sum }}": "6",
    "{{ ['b', 'a', 'b'] | unique | sort | join }}": "ab",
    "{{ ('x' * 3) ~ ('y' * 2) }}": "xxxyy",
    "{{ [[1], [2]] == [[1], [2]] }}": "True",
    "{{ {'k': 2}['k'] }}": "2",
    "{{ (['ab'] * 3) | join(', ') }}": "ab, ab, ab",
}


@pytest.mark.parametrize("body, shown", PIPELINES.items(), ids=list(PIPELINES))
def test_small_pipelines_still_render(page, body, shown):
    root, build, scopes = page
    render_body(root, build, scopes, body + "\n")
    from vramsite.render.content import read_content, render_content
    source = read_content(root / CONTENT_NAME, CONTENT_NAME, build.content_env)
    assert render_content(source, source.template, scopes[0].content_context()).strip() == shown


def test_sum_refuses_a_list_to_add_to(page):
    with pytest.raises(InputError, match="not allowed in content: sum adds numbers"):
        render_body(*page, "{{ [[1], [2]] | sum(start=[]) }}\n")


# -- weight ------------------------------------------------------------------------------


def test_a_shared_list_is_weighed_once_and_refused_past_the_cap():
    shared = ["x" * 1000]
    for _ in range(9):
        shared = [shared, shared]
    item = sandbox.ITEM_WEIGHT
    assert sandbox.weight(shared) == 512 * (2 + item + 1000) + 511 * (2 + 2 * item)  # 512 leaves, 511 pairs
    for _ in range(60):
        shared = [shared, shared]
    start = time.monotonic()
    with pytest.raises(sandbox.LimitExceeded, match=f"more than {sandbox.MAX_TEXT:,}"):
        sandbox.weight(shared)
    assert time.monotonic() - start < 1


def test_a_record_weighs_as_its_text_only_where_it_becomes_text():
    from vramsite.calc.figure import COUNT, given
    figure = given(1, "", COUNT)
    assert sandbox.weight(figure) == 1
    assert sandbox.weight(figure, as_text=True) == len(str(figure))


def test_work_is_charged_each_time_a_value_is_weighed():
    budget = sandbox.Budget()
    text = "x" * (sandbox.MAX_TEXT // 2)
    with pytest.raises(sandbox.LimitExceeded, match="characters and items made or compared"):
        for _ in range(100):
            budget.weigh(text)


# -- through the command line ------------------------------------------------------------

CHECK_SECONDS = 30
CHECK_MEMORY = 2 << 30
"""Address space ``build.py check`` is given: the payloads below took minutes or gigabytes before."""


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (CHECK_MEMORY, CHECK_MEMORY))


@pytest.mark.parametrize("body", list(PAYLOADS.values())[:3], ids=list(PAYLOADS)[:3])
def test_check_refuses_the_issues_payloads_in_seconds(page, body):
    import subprocess
    import sys

    from cli_support import ROOT
    root = page[0]
    line = (CONTENT_FRONT + "text\n").count("\n") + 1
    (root / CONTENT_NAME).write_text(CONTENT_FRONT + "text\n" + body + "\n", encoding="utf-8")
    start = time.monotonic()
    run = subprocess.run([sys.executable, str(ROOT / "build.py"), "check", "--site", str(root)], capture_output=True,
                         text=True, timeout=CHECK_SECONDS, preexec_fn=_limited)
    took = time.monotonic() - start
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"{CONTENT_NAME}:{line}: {TOO_MUCH}: " in run.stderr, run.stderr
    assert took < CHECK_SECONDS / 2, f"check took {took:.1f} s"



# -- the size of a content file ------------------------------------------------------------


def tokens(build, text: str) -> int:
    return sum(1 for _, kind, _ in build.content_env.lex(text) if kind not in ("data", "whitespace"))


@pytest.mark.parametrize("repeated", ["{{ 1 }}\n", "{{ [1, 2, 3, 4, 5, 6, 7, 8] }}\n", "{{ x ~ x ~ x ~ x ~ x ~ x }}\n"])
def test_a_file_of_too_many_tokens_is_refused_as_it_is_compiled(page, repeated):
    from vramsite.render.sandbox import MAX_TOKENS
    per_line = tokens(page[1], repeated)
    with own_processor_time() as seconds, pytest.raises(InputError) as refused:
        render_body(*page, repeated * (MAX_TOKENS // per_line + 10))
    took = seconds()
    line = CONTENT_FRONT.count("\n") + -(-(MAX_TOKENS + 1) // per_line)  # the body's line of token MAX_TOKENS + 1
    assert str(refused.value) == (f"{CONTENT_NAME}:{line}: template syntax error: more than {MAX_TOKENS:,} names,"
                                  f" numbers and operators in expressions")
    assert took < 2, f"refused after {took:.2f} s of processor time"


def test_a_file_too_long_is_refused_before_it_is_read_whole(page):
    from vramsite.load.source_read import CONTENT, LIMITS
    with pytest.raises(InputError, match=f"is larger than {LIMITS[CONTENT] / 1_000_000:g} MB"):
        render_body(*page, ("x" * 99 + "\n") * (LIMITS[CONTENT] // 100 + 1))


# -- values a message or a file name cannot hold whole ------------------------------------------


def refusal(page, body: str) -> str:
    with pytest.raises(InputError) as refused:
        render_body(*page, body + "\n")
    return str(refused.value)


def test_a_message_quotes_only_an_excerpt_of_a_bad_value(page):
    from vramsite.load.text import MAX_QUOTED
    message = refusal(page, "{{ msg('{n} cards', n=g.data) }}")
    assert message.startswith(f"{CONTENT_NAME}:5: expression failed: cannot render SiteData(") and "…" in message
    assert len(message) < MAX_QUOTED + 60


@pytest.mark.parametrize("body, words", [
    ("{{ (1e308*10)|fig }}", "expression failed: not a finite number: inf"),
    ("{{ (-1e308*10)|num }}", "expression failed: not a finite number: -inf"),
    ("{{ 1|fig(1000000) }}", "expression failed: decimals must be a whole number from 0 to 20, not 1000000"),
    ("{{ 1|usd(-1) }}", "expression failed: decimals must be a whole number from 0 to 20, not -1"),
])
def test_a_number_that_cannot_be_shown_is_refused(page, body, words):
    assert refusal(page, body) == f"{CONTENT_NAME}:5: {words}"


def test_negative_zero_prints_as_zero(page):
    root, build, scopes = page
    render_body(root, build, scopes, "{{ (0.0*-1)|fig }} {{ (0.0*-1)|num(2) }}\n")
    from vramsite.render.content import read_content, render_content
    source = read_content(root / CONTENT_NAME, CONTENT_NAME, build.content_env)
    assert render_content(source, source.template, scopes[0].content_context()).strip() == "0 0.00"


def test_a_chart_of_many_options_has_a_file_name_a_file_system_takes():
    from vramsite.render.charts.names import MAX_SLUG, chart_file, chart_slug
    many = {"contexts": list(range(1024, 1024 * 200, 1024))}
    fewer = {"contexts": list(range(1024, 1024 * 199, 1024))}
    assert len(chart_slug("kv_context", "zh-cn", many)) == MAX_SLUG
    assert chart_slug("kv_context", "en", many) != chart_slug("kv_context", "en", fewer)
    assert chart_file("kv_context", "en", {"contexts": [1024, 2048]}) == "charts/en-kv_context--contexts-1024-2048.svg"


@pytest.mark.parametrize("body, words", [
    ("{{ chart('kv_context', contexts=(range(1024,1024*200,1024)|list)) }}", "option contexts lists 199 values"),
    ("{{ table('model_kv', model=g.catalogue[0].id, contexts=(range(1,10001)|list)) }}",
     "option contexts lists 10,000 values"),
    ("{{ table('lookup', table_id='x' * 300) }}", "table_id 'xxxxx"),
    ("{{ table('lookup', table_id='../../../evil') }}", "table_id '../../../evil' is not a short slug"),
    ("{% for i in range(20) %}{{ table('lookup', caption='x' * 999999 ~ i) }}{% endfor %}",
     "option caption holds a text of 1,000,000 characters: at most 500"),
    ("{{ stats([(1, 'x' * 99999)]) }}", "option items holds a text of 99,999 characters"),
    ("{{ stats([(1, 'x')] * 10000) }}", "option items lists 10,000 values"),
])
def test_a_table_or_chart_the_build_cannot_make_is_refused_on_its_line(page, body, words):
    message = refusal(page, body)
    assert message.startswith(f"{CONTENT_NAME}:5: expression failed: ") and words in message, message


def test_build_draws_a_chart_whose_options_spell_a_long_name(page):
    from cli_support import run_build
    from vramsite.render.scope import MAX_OPTION_VALUES
    root = page[0]
    contexts = ", ".join(str(10 ** 11 + 1024 * step) for step in range(MAX_OPTION_VALUES))  # 300 characters
    (root / CONTENT_NAME).write_text(CONTENT_FRONT + f"{{{{ chart('kv_context', contexts=[{contexts}]) }}}}\n",
                                     encoding="utf-8")
    run = run_build(root)
    assert run.returncode == 0, run.stderr
    assert len(list((root / "site" / "assets" / "charts").glob("en-kv_context--contexts-100000000000-*.svg"))) == 1


def test_the_time_bound_counts_the_rendering_s_work_not_the_machine_s_load(monkeypatch):
    """A page waits while other processes run; only the processor time it spends itself counts."""
    monkeypatch.setattr(sandbox, "MAX_SECONDS", 0.2)
    started = time.thread_time()  # before the budget's own start, so the bound lies inside what is measured here
    budget = sandbox.Budget()
    budget.step()
    time.sleep(0.4)  # the wall clock passes the bound; the rendering spent nothing
    budget.step()
    with pytest.raises(sandbox.LimitExceeded, match="took more than 0.2 seconds of processor time"):
        while True:
            sum(range(10_000))
            budget.step()
    assert 0.2 <= time.thread_time() - started < 1


def test_the_engine_s_blocks_count_apart_from_the_content_s_time_and_have_their_own_bound(monkeypatch):
    """A table's processor time moves the content's deadline on; the blocks together are stopped at theirs."""
    monkeypatch.setattr(sandbox, "MAX_SECONDS", 0.2)
    monkeypatch.setattr(sandbox, "MAX_ENGINE_SECONDS", 0.5)

    def burn(seconds: float) -> None:
        until = time.thread_time() + seconds
        while time.thread_time() < until:
            sum(range(1_000))

    budget = sandbox.Budget()
    budget.step()
    with budget.engine_work():
        burn(0.3)  # past the content's bound, inside a block
    budget.step()
    with pytest.raises(sandbox.LimitExceeded, match="tables, charts and calculator took more than 0.5 seconds"):
        with budget.engine_work():
            burn(0.3)
