"""calc/model_kinds.py: which kind each model is, and what each kind hands the code that takes a model of either
(the calculator's answers and data)."""

from __future__ import annotations

from dataclasses import replace

from calculator_support import SCRIPT
import yaml

from cli_support import ROOT
from vramsite.calc import attention, memory
from vramsite.calc.layers import GENERIC, FullAttention, model_layers
from vramsite.calc.layers.full import reference_group
from vramsite.calc.model_kinds import LAYERS, REFERENCE, kind_of
from vramsite.calc.model_views import CatalogueView, ModelView, SizedView, view_of
from vramsite.load.model import FULL_ATTENTION, full_attention

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
    assert REFERENCE.kv_per_token(replace(shape, layers=()), kv) is None, "a shape of parameters alone"
    for model in guide.data.catalogue:
        assert LAYERS.kv_per_token(model, kv).unit == "B", model.id


def test_each_kind_has_its_own_view_of_the_one_kind_of_view(guide):
    assert type(view_of(guide, guide.data.models[0])) is ModelView
    assert type(view_of(guide, guide.data.catalogue[0])) is CatalogueView
    assert issubclass(ModelView, SizedView) and issubclass(CatalogueView, SizedView)


def test_a_reference_shapes_record_holds_its_layers_as_one_group_of_full_attention(guide):
    """data/models.yaml writes a shape's sizes flat; the record holds them as a real model holds its layers."""
    assert FULL_ATTENTION == GENERIC.kind
    written = yaml.safe_load((ROOT / "data" / "models.yaml").read_text(encoding="utf-8"))["models"]
    for entry, model in zip(written, guide.data.models, strict=True):
        assert model.layers == full_attention(entry["layers"], entry["kv_heads"], entry["head_dim"])
        group, = model_layers(model)
        assert group == FullAttention(entry["layers"], entry["kv_heads"], entry["head_dim"]), model.id
        assert reference_group(model) == group, "the seeds' layout reads the group the layer kinds read"
    assert full_attention(32, None, 128) == (), "a shape missing a size has no layers to size"


def test_a_reference_shapes_cache_is_its_one_group_of_full_attention_summed_as_a_real_models(guide):
    """The seeds' layout (one product, in MB and GB) and the layer kinds' (a sum over groups, in bytes) of one
    reference shape agree to the byte."""
    kv = guide.data.inference.kv_precision
    b = attention.element_bytes(kv)
    for model in guide.data.models:
        layers = model_layers(model)
        assert memory.kv_bytes_per_token(model, kv).value == attention.kv_bytes_per_token(layers, b).value
        assert memory.kv_cache(model, kv, CONTEXT, BATCH).value == attention.kv_cache(layers, b, CONTEXT, BATCH).value


def test_the_one_view_answers_each_model_by_its_kinds_formulas(guide):
    method = guide.inference_method("bf16")
    bf16 = guide.data.precision("bf16")
    for model in (*guide.data.models, *guide.data.catalogue):
        kind, view = kind_of(model), view_of(guide, model)
        for cards in (1, 8):
            assert view.need(method, cards) == kind.method_memory(model, method, guide.sizing, None, None, cards)
        assert view.decode_read("bf16") == kind.decode_read(model, bf16)
        assert view.kv(CONTEXT, BATCH).value == kind.kv_cache(model, view.kv_format(None), CONTEXT, BATCH).value
        assert view.weights("bf16").value == model.params_billion * 2, model.id
    shape, real = guide.data.models[0], next(m for m in guide.data.catalogue if m.experts)
    assert view_of(guide, shape).decode_read("bf16") == view_of(guide, shape).weights("bf16"), "every weight read"
    assert view_of(guide, real).decode_read("bf16").value == real.active_params_billion * 2, "the active ones"


def test_the_readers_own_shape_is_a_reference_shape_and_no_engine_sizes_it(guide):
    from decimal import Decimal

    from vramsite.render.calculator.case import CUSTOM, INFERENCE, Case, Custom, model_of, serving_format

    case = Case(CUSTOM, INFERENCE, guide.data.precisions[0].id, custom=Custom(Decimal(7), 32, 8, 128))
    assert guide.serves, "the live site serves its real models: the custom shape's answer is the one to tell apart"
    assert kind_of(model_of(guide, case)) is REFERENCE and serving_format(guide, case) is None


def test_a_views_need_takes_a_method_or_its_id_and_names_the_known_ones_for_anything_else(guide):
    import pytest

    from vramsite.errors import UnknownId

    view = view_of(guide, guide.data.models[0])
    assert view.need("lora") == view.need(guide.method("lora"))
    with pytest.raises(UnknownId, match="lora"):
        view.need(guide)  # content passing a figure or the guide where a method id belongs
