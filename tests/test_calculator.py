"""The in-page calculator cannot disagree with the tables: templates/static/calculator.js, run in Node,
against every cell of every table both sites publish that it shows too, and against the build's own
answer (vramsite/render/calculator/) for those cases and a few thousand random ones, in every language.
Every string is compared exactly: values, units, rounding, grouping, the arithmetic, the markup.
"""

from __future__ import annotations

import gzip
from collections import Counter
from decimal import Decimal

import pytest

from calculator_support import NODE, SCRIPT, SITES, SiteCalculator, pick, run_node, state_of
from vramsite.load.model import MethodKind
from vramsite.render.calculator import CUSTOM, INFERENCE, Case, Custom
from vramsite.render.calculator.case import SCALED_CONTEXT

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed (.ci/run installs it)")

RANDOM_CASES = 1000
"""Per site and language."""


@pytest.fixture(scope="module", params=sorted(SITES))
def site(request):
    return SiteCalculator(request.param)


def _locales(site):
    return [(locale, site.data(locale)) for locale in site.locales()]


def test_every_table_cell_the_calculator_shows_reads_the_same_in_the_script(site):
    for locale, data in _locales(site):
        expected = site.expectations(locale)
        # Each kind of table the calculator covers gives cells: a mapping gone wrong would give none.
        kinds = Counter(e.path[0] for e in expected)
        assert kinds["line"] and kinds["choice"], kinds
        if site.name == "default":
            assert kinds["per_token"] and kinds["offer"], kinds
            # the engine's verdicts: where each format starts, as the model pages give it
            assert sum(e.where.startswith("model-serving-") for e in expected) >= 2 * len(site.build.data.catalogue)
        answers = run_node(data, [state_of(e.case) for e in expected])
        wrong = [f"{e.where} {e.path}: table {e.text!r}, calculator {pick(found, e.path)!r}"
                 for e, found in zip(expected, answers) if pick(found, e.path) != e.text]
        assert not wrong, f"{len(wrong)} of {len(expected)} cells differ ({locale.segment}):\n" + "\n".join(wrong[:20])


def test_the_script_answers_as_the_build_does_for_every_table_case_and_random_ones(site):
    for index, (locale, data) in enumerate(_locales(site)):
        cases = list(dict.fromkeys(e.case for e in site.expectations(locale)))
        cases += site.random_cases(RANDOM_CASES, seed=1000 + index)
        scripted = run_node(data, [state_of(case) for case in cases])
        wrong = [(case, found) for case, found in zip(cases, scripted) if found != site.answer(locale, case)]
        assert not wrong, f"{len(wrong)} of {len(cases)} answers differ ({locale.segment}), first: {wrong[0][0]}\n" \
                          f"script: {wrong[0][1]}\nbuild:  {site.answer(locale, wrong[0][0])}"


def test_the_answer_markup_is_the_builds_character_for_character(site):
    for index, (locale, data) in enumerate(_locales(site)):
        cases = site.random_cases(150, seed=7 + index)
        scripted = run_node(data, [state_of(case) for case in cases], what="html")
        for case, html in zip(cases, scripted):
            assert html == site.html(locale, case, data), case


def test_every_engine_answers_in_the_script_as_the_build_does():
    """Each catalogue model in each format it offers under each engine (the format's own, one that loads it
    elsewhere, one that does not load it), at the site's context and a long one, BF16 and FP8 KV cache: the
    script, from the page's data and the fetched serving file, gives the build's answer; and every engine that
    loads a format starts some model on some configuration. In the other languages, whose answers differ
    from the first's in their words alone, the first model of each format."""
    site = SiteCalculator("default")
    guide = site.guide
    engines = [engine.id for engine in guide.data.engines.engines]
    started = set()
    for index, (locale, data) in enumerate(_locales(site)):
        pairs = [(view, weight_format) for view in guide.catalogue for weight_format in view.formats()]
        if index:
            pairs = list({weight_format.id: (view, weight_format) for view, weight_format in reversed(pairs)}.values())
        cases = [Case(view.id, INFERENCE, data["defaults"]["precision"], kv, context, 1, weight_format=weight_format.id,
                      engine=engine)
                 for view, weight_format in pairs for engine in engines
                 for kv, context in (("bf16", 8192), ("fp8", 32768))]
        scripted = run_node(data, [state_of(case) for case in cases])
        for case, found in zip(cases, scripted):
            assert found == site.answer(locale, case), case
            if found["offers"]:
                started.add((case.engine, case.weight_format))
    loaded = {(engine.id, weight_format.id) for engine in guide.data.engines.engines for view in guide.catalogue
              for weight_format in view.formats() if engine.loads(weight_format.id)}
    assert started == loaded


def test_nothing_fits_gives_the_nodes_it_would_take(site):
    """A need past every offer: the answer names the nodes (or none) and 'talk to sales', never a blank."""
    locale = site.locales()[0]
    data = site.data(locale)
    case = Case(CUSTOM, INFERENCE, data["precisions"][0]["id"], data["defaults"]["kv_precision"],
                data["defaults"]["context"], data["defaults"]["batch"],
                Custom(Decimal(50000), *((80, 8, 128) if data["kv_precisions"] else ())))
    [found] = run_node(data, [state_of(case)])
    assert found == site.answer(locale, case)
    assert found["offers"] == [] and found["choice"]["nodes"] not in ("", None)
    assert found["choice"]["sales"] == site.catalog(locale).gettext("talk to sales")


def test_the_answer_names_the_cheapest_configuration_beside_the_rules_pick(site):
    """Where the site's rule (one card first, or the smallest fit) picks a dearer configuration than another that
    holds the need, the answer names that cheaper one too, as the lookup grid does, and the script agrees."""
    locale = site.locales()[0]
    data = site.data(locale)
    cases, expected = [], []
    for model, method, found in site.guide.grid_cells():
        if method.kind != MethodKind.INFERENCE:
            continue
        case = site.case(model.id, method)
        result = site.answer(locale, case)
        offers = {offer["key"]: offer for offer in result["offers"]}
        cheapest = found.cheapest and offers[f"{found.cheapest.count}x-{found.cheapest.gpu.id}"]
        assert result["choice"].get("cheapest") == (cheapest and {"config": cheapest["config"],
                                                                  "price": cheapest["price"]}), case
        cases.append(state_of(case))
        expected.append(result)
    assert any("cheapest" in result["choice"] for result in expected), "no case with a cheaper configuration"
    assert run_node(data, cases) == expected


BAD_INPUT = [
    ("context", "", "Enter a number."),
    ("context", "-5", "Enter a number above zero."),
    ("context", "0", "Enter a number above zero."),
    ("context", "12.5", "Enter a whole number."),
    ("context", "abc", "Enter a number."),
    ("context", "1e9", "Enter a number."),
    ("context", "NaN", "Enter a number."),
    ("batch", "99999999999999999999999", "At most {max}."),
    ("params", "", "Enter a number."),
    ("params", "-1", "Enter a number above zero."),
    ("params", "7,5", "Enter a number."),
    ("layers", "2.5", "Enter a whole number."),
    ("context", "8,19", "Enter a number."),
    ("context", "81,92", "Enter a number."),
    ("context", ",192", "Enter a number."),
    ("context", "0.3k", "Enter a whole number."),
    ("context", "0k", "Enter a number above zero."),
    ("context", "k", "Enter a number."),
    ("context", "8kk", "Enter a number."),
    ("context", "-8k", "Enter a number."),
    ("params", "7k", "Enter a number."),
]

TYPED_AS_PRINTED = [  # what a reader may type for a context, and the tokens it means
    ("8192", 8192), (" 8192 ", 8192), ("8,192", 8192), ("131,072", 131072), ("1,048,576", 1048576),
    ("8k", 8192), ("8K", 8192), ("128k", 131072), ("32 k", 32768), ("1.5k", 1536),
]


def test_bad_input_gets_a_message_beside_its_field_never_an_answer():
    site = SiteCalculator("default")
    for locale, data in _locales(site):
        base = {"model": CUSTOM, "method": INFERENCE, "precision": data["defaults"]["precision"],
                "kv_precision": data["defaults"]["kv_precision"], "context": "8192", "batch": "1",
                "params": "7", "layers": "32", "kv_heads": "8", "head_dim": "128"}
        states = [{**base, field: value} for field, value, _ in BAD_INPUT]
        for (field, value, msgid), checked in zip(BAD_INPUT, run_node(data, states, what="check")):
            message = data["ui"][msgid].replace("{max}", "100,000")
            assert checked["errors"] == {field: message}, (field, value, checked)
            assert checked["state"] is None


def test_a_context_is_read_as_the_page_prints_it_or_as_model_cards_write_it():
    """"8,192" (the page's own grouping, in each language) and "128k" (thousands of 1,024 tokens) are the
    numbers they say; the answer is the one for the plain digits."""
    site = SiteCalculator("default")
    for locale, data in _locales(site):
        base = {"model": CUSTOM, "method": INFERENCE, "precision": data["defaults"]["precision"],
                "kv_precision": data["defaults"]["kv_precision"], "batch": "1", "params": "7", "layers": "32",
                "kv_heads": "8", "head_dim": "128"}
        typed = [{**base, "context": text} for text, _ in TYPED_AS_PRINTED]
        plain = [{**base, "context": str(tokens)} for _, tokens in TYPED_AS_PRINTED]
        checked = run_node(data, typed + plain, what="check")
        for (text, tokens), mine, digits in zip(TYPED_AS_PRINTED, checked, checked[len(typed):]):
            assert mine["errors"] == {} and mine["state"]["context"] == tokens, (locale, text, mine)
            assert mine["state"] == digits["state"], text
        grouped = site.fmt(locale).number(131072)
        [as_printed] = run_node(data, [{**base, "context": grouped}], what="check")
        assert as_printed["state"]["context"] == 131072, (locale, grouped)


def test_a_context_past_the_models_longest_is_refused_with_that_length():
    site = SiteCalculator("default")
    locale = site.locales()[1]
    data = site.data(locale)
    model = site.build.data.catalogue[0]
    state = {"model": model.id, "method": INFERENCE, "precision": data["defaults"]["precision"],
             "kv_precision": data["defaults"]["kv_precision"], "context": str(model.max_context + 1), "batch": "1"}
    ok = {**state, "context": str(model.max_context)}
    refused, accepted = run_node(data, [state, ok], what="check")
    longest = site.fmt(locale).number(model.max_context)
    assert refused["errors"] == {"context": data["ui"]["The model reads at most {max} tokens."].replace("{max}", longest)}
    assert accepted["errors"] == {} and accepted["state"]["context"] == model.max_context


def test_a_context_past_what_the_config_takes_is_answered_with_the_scaling_it_needs():
    """Qwen3 ships taking 40,960 tokens and reaches 131,072 with the YaRN scaling its vendor documents: the
    calculator takes 131,072 (the issue's "128k refused" case), and an answer past 40,960 says the engine must be
    started with the scaling, in the script as in the build; one within it says nothing of it."""
    site = SiteCalculator("default")
    scaled = [view for view in site.guide.catalogue if view.model.context_scaling]
    assert scaled, "the catalogue has a model whose context needs its vendor's scaling"
    view = next(v for v in scaled if v.id == "qwen3-30b-a3b")
    shipped = view.model.context_scaling.as_shipped
    assert (shipped, view.model.max_context) == (40960, 131072)
    for locale, data in _locales(site):
        cases = [Case(view.id, INFERENCE, data["defaults"]["precision"], "bf16", context, 1,
                      weight_format=view.model.native_format)
                 for context in (shipped, shipped + 1, view.model.max_context)]
        within, past, longest = run_node(data, [state_of(case) for case in cases])
        for case, found in zip(cases, (within, past, longest)):
            assert found == site.answer(locale, case), case
        note = site.catalog(locale).gettext(SCALED_CONTEXT).replace("{tokens}", site.fmt(locale).number(shipped))
        assert "scaling" not in within
        assert past["scaling"] == longest["scaling"] == note
        assert longest["offers"], "a card starts it at 131,072 tokens"
        [html] = run_node(data, [state_of(cases[-1])], what="html")
        assert html == site.html(locale, cases[-1], data)
        shown = note.replace("'", "&#39;")
        assert f'<p class="calc-note">{shown}</p>' in html


def test_fields_a_case_does_not_read_are_not_checked():
    """The quick site counts no KV cache: no context or batch to get wrong; a known model needs no shape."""
    site = SiteCalculator("quick")
    data = site.data(site.locales()[0])
    state = {"model": data["models"][0]["id"], "method": INFERENCE, "precision": data["defaults"]["precision"],
             "kv_precision": None, "context": "nonsense", "batch": "", "params": "", "layers": "x"}
    [checked] = run_node(data, [state], what="check")
    assert checked["errors"] == {} and checked["state"] is not None
    assert not checked["fields"]["context"] and not checked["fields"]["params"]


def test_the_script_is_small():
    script = SCRIPT.read_bytes()
    style = SCRIPT.with_name("calculator.css").read_bytes()
    assert len(gzip.compress(script, 9)) + len(gzip.compress(style, 9)) <= 15 * 1024
    assert b"http" not in script, "the script names no other host"
