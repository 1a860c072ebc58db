"""calc/model_kinds.py: which kind each model is, and what each kind hands the code that takes a model of either
(the calculator's answers and data)."""

from __future__ import annotations

from dataclasses import replace

from calculator_support import SCRIPT
from vramsite.calc import attention, memory
from vramsite.calc.model_kinds import LAYERS, REFERENCE, kind_of
from vramsite.calc.model_views import CatalogueView, ModelView

CONTEXT, BATCH = 8192, 2


def test_each_model_is_of_the_kind_its_data_file_makes_it(guide):
    assert guide.data.models and {kind_of(model) for model in guide.data.models} == {REFERENCE}
    assert guide.data.catalogue and {kind_of(model) for model in guide.data.catalogue} == {LAYERS}


def test_the_page_script_reads_each_kind_by_its_shape_name():
    script = SCRIPT.read_text(encoding="utf-8")
    for kind in (REFERENCE, LAYERS):
        assert f'shape === "{kind.shape}"' in script, kind.shape


def test_only_a_real_model_is_sized_by_a_serving_engine():
    assert LAYERS.served and not REFERENCE.served


def test_a_reference_shapes_need_is_one_need_on_any_number_of_cards(guide):
    method = guide.inference_method(guide.data.precisions[0].id)
    for model in guide.data.models:
        needs = {REFERENCE.method_memory(model, method, guide.sizing, CONTEXT, BATCH, cards).total.value
                 for cards in (1, 2, 8)}
        assert needs == {memory.method_memory(model, method, guide.sizing, CONTEXT, BATCH).total.value}, model.id


def test_a_real_models_need_is_sized_for_the_cards_that_hold_it(guide):
    method = guide.inference_method(guide.data.precisions[0].id)
    for model in guide.data.catalogue:
        for cards in (1, 8):
            need = LAYERS.method_memory(model, method, guide.sizing, CONTEXT, BATCH, cards)
            assert need == attention.method_memory(model, method, guide.sizing, CONTEXT, BATCH, cards), model.id


def test_the_kv_cache_one_token_adds_is_in_each_kinds_own_unit(guide):
    kv = guide.data.inference.kv_precision
    shape = guide.data.models[0]
    assert REFERENCE.kv_per_token(shape, kv).unit == "MB"
    assert REFERENCE.kv_per_token(replace(shape, layers=None), kv) is None, "a shape of parameters alone"
    for model in guide.data.catalogue:
        assert LAYERS.kv_per_token(model, kv).unit == "B", model.id


def test_each_kind_makes_its_own_view(guide):
    assert isinstance(REFERENCE.view(guide, guide.data.models[0]), ModelView)
    assert isinstance(LAYERS.view(guide, guide.data.catalogue[0]), CatalogueView)


def test_the_readers_own_shape_is_a_reference_shape_and_no_engine_sizes_it(guide):
    from decimal import Decimal

    from vramsite.render.calculator.case import CUSTOM, INFERENCE, Case, Custom, model_of, serving_format

    case = Case(CUSTOM, INFERENCE, guide.data.precisions[0].id, custom=Custom(Decimal(7), 32, 8, 128))
    assert guide.serves, "the live site serves its real models: the custom shape's answer is the one to tell apart"
    assert kind_of(model_of(guide, case)) is REFERENCE and serving_format(guide, case) is None
