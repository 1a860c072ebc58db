"""The calculator's formulas as data (vramsite/render/calculator/formulas.py): each template is what the calculation
builds with named inputs, a template the script could not follow is refused, and the script itself holds no
sizing formula. That the script's answers from the templates equal the build's for every table cell and random
cases is tests/test_calculator.py."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from calculator_support import SCRIPT
from vramsite.calc import attention
from vramsite.calc.figure import COUNT, Figure, Formula, Input, Variable, given, product
from vramsite.load import load_site
from vramsite.render.calculator.formulas import Pool
from cli_support import ROOT


def test_an_input_makes_a_named_figure_and_equals_no_plain_number():
    context = Input(8192, "context")
    figure = given(context, "tokens", COUNT, "context")
    assert isinstance(figure, Variable) and figure.name == "context" and figure.value == 8192
    assert context != 8192 and figure != given(8192, "tokens", COUNT, "context")


def test_a_cached_answer_for_a_plain_number_is_not_handed_out_for_an_input():
    model = load_site(ROOT).catalogue_model("gemma-3-27b-it")
    layers, b = attention.model_layers(model), given(2, "B", COUNT, "bytes per element")
    plain = attention.sequence_bytes(layers, b, 8192)
    named = attention.sequence_bytes(layers, b, Input(8192, "context"))
    assert plain.value == named.value and _names(named) == {"context"} and _names(plain) == set()


def _names(figure: Figure) -> set[str]:
    if isinstance(figure, Variable):
        return {figure.name}
    return set().union(*(_names(term) for term in figure.formula.terms)) if figure.formula else set()


def test_a_template_is_written_once_per_node_with_its_scale():
    pool = Pool()
    context = given(Input(10, "context"), "tokens", COUNT, "context")
    gb = product(context, given(4, "B", COUNT, "bytes"), unit="GB", kind=COUNT, label="cache",
                 scale=Decimal("1e-9"))
    first, again = pool.add(gb), pool.add(product(context, given(4, "B", COUNT, "bytes"), unit="GB", kind=COUNT,
                                                  label="cache", scale=Decimal("1e-9")))
    assert first == again and len(pool.nodes) == 3
    assert pool.nodes[first]["s"] == "0.000000001" and pool.nodes[first]["o"] == "×"
    assert {"n": "context", "u": "tokens", "k": COUNT, "l": "context"} in pool.nodes


def test_a_formula_that_does_not_give_its_value_is_refused():
    context = given(Input(2, "context"), "tokens", COUNT, "context")
    wrong = Figure(Decimal(5), "tokens", COUNT, "sum", Formula("+", (context, given(2))))
    with pytest.raises(ValueError, match="does not give its value"):
        Pool().add(wrong)


SIZING_WORDS = ["keys and values", "KV heads", "head dim", "sliding", "latent", "linear", "kv_lora_rank",
                "training state", "adapter share", "discount", "combined bandwidth", "node memory", "card memory"]
"""Words of the calculation's formulas: the script evaluates what it is handed and names none of them."""


def test_the_script_holds_no_sizing_formula():
    script = SCRIPT.read_text(encoding="utf-8")
    code = re.sub(r"//[^\n]*", "", script)  # its comments may say where a rule comes from
    assert [word for word in SIZING_WORDS if word in code] == []
