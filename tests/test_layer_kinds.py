"""Each layer kind has one home, its module in vramsite/calc/layers/: the catalogue's schema, the importer, the
pages and the calculation take the kind from there and never name it."""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from cli_support import ROOT
from vramsite.calc import attention, memory
from vramsite.calc.figure import COUNT, given
from vramsite.calc.layers import (GENERIC, KINDS, FullAttention, LatentAttention, LinearAttention, SlidingAttention,
                                  kind_named)
from vramsite.calc.layers.base import ONE_BYTE
from vramsite.errors import UnknownId
from vramsite.importers.catalogue_schema import SCHEMA_FILE, layer_group_schema, schema_text
from vramsite.importers.hf_config import LAYER_TYPES
from vramsite.load import load_site

LAYERS_PACKAGE = ROOT / "vramsite" / "calc" / "layers"


def test_the_catalogue_schema_says_what_the_kinds_say():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$defs"]["layer_group"] == layer_group_schema(), (
        "vramsite/schemas/catalogue.schema.json is not what the layer kinds say: "
        "run .venv/bin/python -m vramsite.importers.catalogue_schema")


def test_writing_the_schema_rewrites_its_layer_groups_and_nothing_else():
    text = SCHEMA_FILE.read_text(encoding="utf-8")
    stale = json.loads(text)
    stale["$defs"]["layer_group"] = {"type": "object"}
    written = json.loads(schema_text(json.dumps(stale, indent=1)))
    assert written["$defs"]["layer_group"] == layer_group_schema()
    written["$defs"].pop("layer_group"), stale["$defs"].pop("layer_group")
    assert written == stale


def test_a_kinds_required_fields_are_those_without_a_default():
    assert SlidingAttention.required_fields() == ("kv_heads", "head_dim", "window")
    assert "state_bytes" in LinearAttention.schema and "state_bytes" not in LinearAttention.required_fields()
    for kind in KINDS:
        assert set(kind.required_fields()) <= set(kind.schema), kind.kind
        assert set(kind.config_keys) <= set(kind.schema), kind.kind


def test_each_kind_has_its_own_name_and_config_layer_type():
    assert len({kind.kind for kind in KINDS}) == len(KINDS)
    named = [kind.config_layer_type for kind in KINDS if kind.config_layer_type]
    assert len(set(named)) == len(named)
    assert LAYER_TYPES == {"full_attention": FullAttention, "sliding_attention": SlidingAttention,
                           "linear_attention": LinearAttention}
    assert kind_named("latent") is LatentAttention
    with pytest.raises(UnknownId, match="unknown layer kind 'mamba' \\(known: full, sliding, latent, linear\\)"):
        kind_named("mamba")


def _msgids(path: Path) -> set[str]:
    with path.open("rb") as handle:
        return {message.id for message in read_po(handle) if message.id}


@pytest.mark.parametrize("catalog", sorted((ROOT / "locales").glob("*/LC_MESSAGES/messages.po")),
                         ids=lambda path: path.parent.parent.name)
def test_every_kinds_words_are_in_every_catalog(catalog):
    msgids = _msgids(catalog)
    for kind in KINDS:
        assert kind.words in msgids, (kind.kind, kind.words)
        if kind.caches_tokens:
            assert kind.per_token_label in msgids, (kind.kind, kind.per_token_label)


def _named_strings() -> dict[str, str]:
    """What only a kind's module may write: its msgids, its config layer type, and its name, but for the generic
    kind's 'full', which is also the id of full fine-tuning (data/sizing.yaml) that code names."""
    named = {}
    for kind in KINDS:
        named.update({kind.words: kind.kind, kind.config_layer_type: kind.kind})
        if kind.caches_tokens:
            named[kind.per_token_label] = kind.kind
        if kind is not GENERIC:
            named[kind.kind] = kind.kind
    named.pop(None, None)
    return named


def test_no_module_outside_the_kinds_names_a_kind():
    named = _named_strings()
    found = []
    for path in sorted((ROOT / "vramsite").rglob("*.py")):
        if path.is_relative_to(LAYERS_PACKAGE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in named:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "a kind is named outside vramsite/calc/layers/:\n" + "\n".join(found)


# -- what sets a kind apart is an attribute the calculation asks ------------------------------------


B = given(2, "B", COUNT, "bytes per element")
FULL = FullAttention(count=10, kv_heads=8, head_dim=128)
SLIDING = SlidingAttention(count=20, kv_heads=8, head_dim=128, window=1024)
LATENT = LatentAttention(count=4, kv_lora_rank=512, rope_head_dim=64)
LINEAR = LinearAttention(count=6, key_heads=16, value_heads=32, key_head_dim=128, value_head_dim=128, conv_kernel=4)


def test_a_window_caps_the_tokens_held_and_the_cache_beyond_it():
    long = given(32768, "tokens", COUNT, "context")
    assert SLIDING.window_tokens() == 1024 and FULL.window_tokens() is None
    assert SLIDING.tokens_held(long).value == 1024 and FULL.tokens_held(long).value == 32768
    per_layer = 2 * 8 * 128 * 2
    layers = (FULL, SLIDING)
    assert attention.kv_bytes_per_token(layers, B).value == 30 * per_layer
    assert attention.kv_bytes_per_token_beyond_windows(layers, B).value == 10 * per_layer
    assert attention.kv_cache_bytes(layers, B, 32768).value == (10 * 32768 + 20 * 1024) * per_layer


def test_a_kind_without_a_cache_holds_no_token_but_keeps_a_state():
    assert not LINEAR.caches_tokens
    assert LINEAR.tokens_held(given(8192, "tokens", COUNT)).value == 0
    assert LINEAR.state().value > 0 and FULL.state().value == 0


def test_split_over_cards_divides_the_heads_and_a_latent_is_kept_whole():
    assert FULL.on_one_card(4).kv_heads == 2 and FULL.on_one_card(16).kv_heads == 1
    assert LATENT.on_one_card(8) is LATENT
    split = LINEAR.on_one_card(4)
    assert (split.key_heads, split.value_heads, split.key_head_dim) == (4, 8, 128)


def test_elements_per_token_count_what_a_layer_keeps_of_a_token():
    assert LATENT.bytes_per_token(ONE_BYTE).value / LATENT.count == 512 + 64
    assert FULL.bytes_per_token(ONE_BYTE).value / FULL.count == 2 * 8 * 128


def test_a_reference_shape_is_one_group_of_the_generic_kind_laid_out_flat():
    """One formula: a reference shape's KV cache is the generic kind's factors of a token, times the context and
    the batch, in one product (so its derivation reads as one line)."""
    data = load_site(ROOT)
    model = next(model for model in data.models if model.layers)
    kv = data.inference.kv_precision
    group = GENERIC(model.layer_count, model.shape("kv_heads"), model.shape("head_dim"))
    cache = memory.kv_cache(model, kv, 8192, 2)
    assert cache.formula.op == "×"
    assert cache.formula.terms[:5] == group.per_token_terms(attention.element_bytes(kv))
    assert [term.value for term in cache.formula.terms[5:]] == [8192, 2]
    assert cache.value == group.bytes_per_token(attention.element_bytes(kv)).value * 8192 * 2 / Decimal(10) ** 9
    assert memory.kv_width(model).value == model.shape("kv_heads") * model.shape("head_dim")
