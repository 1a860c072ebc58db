"""Real architectures: memory per layer kind, checked against configs and published figures.

The models are tests/fixtures/catalogue/catalogue.yaml, written from published
config.json copies (each entry names its source). Every expected figure is
worked out here by hand from those config values, in plain integer arithmetic,
and where a runtime or a vendor published a figure for the same shapes, the
figure is quoted with its source and reproduced.
"""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from bad_input_support import Bad, Edit, built_site, check_refused_and_kept, site  # noqa: F401
from seed_sites import FIXTURES, seed_data_root
from vramsite.calc import Guide
from vramsite.calc import attention, memory
from vramsite.calc.layers import LatentAttention, LinearAttention
from vramsite.calc.layers.full import reference_group
from vramsite.calc.figure import given
from vramsite.errors import InputError
from vramsite.load import load_site

CATALOGUE = FIXTURES / "catalogue" / "catalogue.yaml"
KV_PRECISIONS = """
kv_precisions:
  - {id: bf16, label: BF16, bytes: 2}
  - {id: fp8, label: FP8, bytes: 1}
  - {id: int8, label: INT8, bytes: 1}
  - {id: int4, label: INT4, bytes: 0.5}
"""
GB = 10 ** 9
MIB = 2 ** 20
OVERHEAD = 2 * GB
"""inference.overhead_gb of the seed 000 sizing.yaml."""


def catalogue_root(folder: Path, catalogue_text: str | None = None, kv_precisions: str = KV_PRECISIONS) -> Path:
    """The frozen seed 000 data with KV cache precisions and a catalogue (the fixture's unless given)."""
    shutil.copytree(seed_data_root("000") / "data", folder / "data")
    with (folder / "data" / "sizing.yaml").open("a", encoding="utf-8") as sizing:
        sizing.write(kv_precisions)
    text = CATALOGUE.read_text(encoding="utf-8") if catalogue_text is None else catalogue_text
    (folder / "data" / "catalogue.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def guide(tmp_path_factory) -> Guide:
    return Guide(load_site(catalogue_root(tmp_path_factory.mktemp("catalogue"))))


def value(figure) -> Decimal:
    return figure.value


# -- the loader --------------------------------------------------------------


def test_the_catalogue_is_read_in_file_order_with_its_layer_groups(guide):
    ids = [model.id for model in guide.catalogue]
    assert ids == ["llama-3.1-8b", "qwen3-32b", "mistral-7b-v0.1", "gemma-3-27b", "gpt-oss-120b", "deepseek-v3",
                   "qwen3-next-80b-a3b", "mixtral-8x7b-v0.1"]
    gemma = guide.catalogue_model("gemma-3-27b").model
    assert [(group.kind, group.count) for group in gemma.layers] == [("full", 10), ("sliding", 52)]
    assert gemma.layers[1].size("window") == 1024
    assert gemma.layer_count == 62
    assert guide.catalogue_model("deepseek-v3").model.experts.shared == 1
    assert guide.catalogue_model("llama-3.1-8b").model.experts is None


def test_a_site_without_a_catalogue_has_an_empty_one():
    data = load_site(seed_data_root("000"))
    assert data.catalogue == () and data.kv_precisions == ()
    assert Guide(data).catalogue == ()


def test_the_live_sizing_lists_the_kv_cache_precisions():
    data = load_site(Path(__file__).resolve().parent.parent)
    assert [(p.id, p.bytes_per_param) for p in data.kv_precisions] == [
        ("bf16", 2), ("fp8", 1), ("int8", 1), ("int4", Decimal("0.5"))]


def test_the_default_kv_precision_is_the_one_the_guide_uses(guide):
    assert guide.data.inference.kv_precision.id == "bf16"
    assert guide.kv_precision().id == "bf16"
    assert guide.kv_precision("int4").bytes_per_param == Decimal("0.5")


# -- full attention ----------------------------------------------------------


def test_llama_3_1_8b_full_gqa(guide):
    llama = guide.catalogue_model("llama-3.1-8b")
    # config: 32 layers, 8 KV heads, head_dim = hidden 4096 / 32 heads = 128
    per_token = 2 * 32 * 8 * 128 * 2
    assert per_token == 131_072
    assert value(llama.kv_per_token()) == per_token
    assert value(llama.kv_per_token("fp8")) == 2 * 32 * 8 * 128 * 1
    assert value(llama.kv_per_token("int4")) == 2 * 32 * 8 * 128 // 2
    assert value(llama.kv(context=8192, batch=4)) == Decimal(per_token * 8192 * 4) / GB
    assert value(llama.weights("bf16")) == Decimal("16.06")
    # 24 GB card, BF16 weights: room = 24 GB − 16.06 GB − 2 GB overhead
    room = 24 * GB - 16_060_000_000 - OVERHEAD
    assert value(llama.longest_context(24, "bf16")) == room // per_token == 45_318
    assert value(llama.longest_context(24, "bf16", batch=3)) == room // 3 // per_token
    assert value(llama.sequences(24, "bf16", context=8192)) == room // (per_token * 8192) == 5


def test_llama_3_1_8b_matches_llama_cpp_and_a_published_calculator(guide):
    llama = guide.catalogue_model("llama-3.1-8b")
    # llama.cpp, f16 KV at 2048 tokens, "Meta-Llama-3-8B-Instruct | (8B) | 256 MiB | 128 MiB | 128 MiB"
    # (https://huggingface.co/dranger003/c4ai-command-r-v01-iMat.GGUF/discussions/6; Llama 3 has the 3.1 geometry)
    assert value(llama.kv(context=2048, batch=1)) * GB == 256 * MIB
    # docs.rs kv-cache-size 0.1.1 README: "KvCacheConfig::new(32, 8, 128) ... bytes_per_token(KvPrecision::Bf16), 131_072.0"
    assert value(llama.kv_per_token("bf16")) == 131_072


def test_qwen3_32b_takes_its_head_dim_from_the_config_not_from_hidden_over_heads(guide):
    qwen = guide.catalogue_model("qwen3-32b")
    # config: 64 layers, 8 KV heads, head_dim 128 explicit; hidden 5120 / 64 heads would say 80
    assert value(qwen.kv_per_token()) == 2 * 64 * 8 * 128 * 2 == 262_144
    assert value(qwen.kv_per_token()) != 2 * 64 * 8 * (5120 // 64) * 2
    # the model's own limit, 40960 tokens, caps what a roomy card would allow
    assert value(qwen.longest_context(141, "fp8")) == 40_960


def test_a_reference_shape_is_one_full_group():
    data = load_site(seed_data_root("000"))
    bf16 = data.inference.kv_precision
    for model in data.models:
        layers = (reference_group(model),)
        b = attention.element_bytes(bf16)
        assert value(attention.kv_bytes_per_token(layers, b)) == value(memory.kv_bytes_per_token(model, bf16))
        assert value(attention.kv_cache(layers, b, 8192, 2)) == value(memory.kv_cache(model, bf16, 8192, 2))


# -- sliding windows ---------------------------------------------------------


def test_mistral_7b_keeps_only_its_window(guide):
    mistral = guide.catalogue_model("mistral-7b-v0.1")
    per_token = 2 * 32 * 8 * 128 * 2  # every one of the 32 layers slides over 4096 tokens
    assert value(mistral.kv_per_token()) == per_token
    assert value(mistral.kv_per_token_beyond_windows()) == 0
    assert value(mistral.kv(context=2048, batch=1)) * GB == per_token * 2048
    # mistral-inference src/mistral_inference/cache.py get_cache_sizes: "elif isinstance(sliding_window, int):
    # return n_layers * [sliding_window]": a rolling buffer of 4096 tokens per layer, 512 MiB at BF16
    assert value(mistral.kv(context=32768, batch=1)) * GB == 32 * 4096 * 2 * 8 * 128 * 2 == 512 * MIB
    assert value(mistral.kv(context=32768)) == value(mistral.kv(context=4096))
    # once the window fits, any context up to the model's 32768 fits
    assert value(mistral.longest_context(10, "fp8")) == 32_768
    room = int(Decimal("9.5") * GB) - 7_240_000_000 - OVERHEAD  # FP8 weights: 7.24 GB
    assert room // per_token == 1983 < 4096
    assert value(mistral.longest_context(Decimal("9.5"), "fp8")) == 1983


def test_gemma_3_27b_ten_global_and_fifty_two_local_layers(guide):
    gemma = guide.catalogue_model("gemma-3-27b")
    full = 2 * 10 * 16 * 128 * 2  # layers 5, 11, ..., 59: 81,920 B/token
    sliding = 2 * 52 * 16 * 128 * 2  # the other 52, window 1024
    assert value(gemma.kv_per_token()) == full + sliding == 2 * 62 * 16 * 128 * 2 == 507_904
    assert value(gemma.kv_per_token_beyond_windows()) == full == 81_920
    assert value(gemma.kv(context=512, batch=1)) * GB == (full + sliding) * 512
    assert value(gemma.kv(context=32768, batch=2)) * GB == 2 * (full * 32768 + sliding * 1024)
    weights = 54_020_000_000  # 27.01 B × 2 B
    # inside the first 1024 tokens every layer grows
    room = int(Decimal("56.3") * GB) - weights - OVERHEAD
    assert room < (full + sliding) * 1024
    assert value(gemma.longest_context(Decimal("56.3"), "bf16")) == room // (full + sliding) == 551
    # past the window only the global layers grow
    room = 60 * GB - weights - OVERHEAD
    assert value(gemma.longest_context(60, "bf16")) == (room - sliding * 1024) // full == 43_259
    assert value(gemma.longest_context(60, "bf16", batch=4)) == (room // 4 - sliding * 1024) // full == 6_821


def test_gpt_oss_120b_all_layers_against_the_windowed_cache(guide):
    oss = guide.catalogue_model("gpt-oss-120b")
    per_layer = 2 * 8 * 64 * 2  # 8 KV heads, head_dim 64 (explicit), f16: 2,048 B per token per layer
    # LM Studio / llama.cpp log loading gpt-oss-120b-MXFP4 with a full-size SWA cache at 4096 cells:
    # "size =  144.00 MiB (  4096 cells,  18 layers,  1/1 seqs), K (f16):   72.00 MiB, V (f16):   72.00 MiB"
    # for the non-SWA cache and the same for the SWA one: all 36 layers, 73,728 B/token
    assert 18 * 4096 * per_layer == 144 * MIB
    assert value(oss.kv_per_token()) == 36 * per_layer == 73_728
    # what the windows actually keep: the 18 full layers every token, the 18 sliding layers 128 tokens
    assert value(oss.kv_per_token_beyond_windows()) == 18 * per_layer == 36_864
    assert value(oss.kv(context=4096, batch=1)) * GB == 18 * per_layer * 4096 + 18 * per_layer * 128
    assert value(oss.kv(context=4096, batch=1)) * GB < 288 * MIB
    # MoE: 117 B in total, 5.1 B read per token (openai/gpt-oss README: "117B parameters with 5.1B active")
    assert value(oss.weights("int4")) == Decimal("58.5")
    assert value(oss.decode_read("int4")) == Decimal("2.55")


# -- latent attention --------------------------------------------------------


def test_deepseek_v3_caches_one_latent_per_token_and_layer(guide):
    deepseek = guide.catalogue_model("deepseek-v3")
    # 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64, one copy (no K and V, no heads)
    assert value(deepseek.kv_per_token()) == 61 * (512 + 64) * 2 == 70_272
    assert value(deepseek.kv(context=163840, batch=1)) * GB == 61 * 576 * 2 * 163840
    # LMCache PR #694 counted 2 × layers × 512 × bytes: twice the latent and no rotary part
    assert value(deepseek.kv_per_token()) != 2 * 61 * 512 * 2


def test_deepseek_v3_matches_ik_llama_cpp_mla_cache():
    # ikawrakow/ik_llama.cpp PR #259, a DeepSeek 671B-class model in MLA mode, q8_0 cache, one slot of 32768:
    # "llama_new_context_with_model: KV self size  = 1166.62 MiB, c^KV (q8_0): 1166.62 MiB, kv^T: not used"
    # q8_0 stores 32 elements in 34 bytes
    layers = (LatentAttention(count=61, kv_lora_rank=512, rope_head_dim=64),)
    q8_0 = given(Decimal(34) / 32, "B")
    cache = value(attention.kv_cache_bytes(layers, q8_0, 32768))
    assert cache == 61 * (512 + 64) * 32768 * 34 // 32 == 1_223_294_976
    assert f"{float(cache / MIB):.2f}" == "1166.62"  # 1166.625, printed as printf does


# -- linear attention --------------------------------------------------------


def test_qwen3_next_keeps_a_fixed_state_beside_its_full_layers(guide):
    nxt = guide.catalogue_model("qwen3-next-80b-a3b")
    full = 2 * 12 * 2 * 256 * 2  # 12 full layers, 2 KV heads, head_dim 256
    conv = (2 * 16 * 128 + 32 * 128) * (4 - 1)  # key heads 16, value heads 32, dims 128, kernel 4
    recurrent = 32 * 128 * 128
    state = 36 * (conv + recurrent) * 4  # 36 linear layers, FP32 state
    assert value(nxt.kv_per_token()) == full == 24_576
    assert value(nxt.state_per_sequence) == state == 79_036_416
    assert state == int(Decimal("75.375") * MIB)
    assert value(nxt.kv(context=8192, batch=1)) * GB == full * 8192  # the state is not KV cache
    # 200 GB, BF16 weights 160 GB: each sequence of 8192 tokens costs its cache and its state
    room = 200 * GB - 160 * GB - OVERHEAD
    assert value(nxt.sequences(200, "bf16", context=8192)) == room // (full * 8192 + state) == 135
    room = 170 * GB - 160 * GB - OVERHEAD
    assert value(nxt.longest_context(170, "bf16", batch=16)) == (room // 16 - state) // full == 17_129
    assert value(nxt.longest_context(170, "bf16")) == 262_144  # (room − state) // full is larger


def test_the_gated_deltanet_state_matches_llama_cpp():
    # JamePeng/llama-cpp-python issue #78, a 32-layer hybrid with every 4th layer full (24 Gated DeltaNet layers):
    # "llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs), R (f32):    2.25 MiB,
    # S (f32):   48.00 MiB"
    gdn = LinearAttention(count=24, key_heads=16, value_heads=32, key_head_dim=128, value_head_dim=128,
                                    conv_kernel=4)
    assert 24 * value(gdn.conv_elements()) * 4 == 24 * (2 * 16 * 128 + 32 * 128) * 3 * 4 == int(Decimal("2.25") * MIB)
    assert 24 * value(gdn.recurrent_elements()) * 4 == 24 * 32 * 128 * 128 * 4 == 48 * MIB
    assert value(attention.state_per_sequence((gdn,))) == int(Decimal("50.25") * MIB)


def test_a_linear_group_may_state_its_state_precision():
    bf16_state = LinearAttention(count=1, key_heads=1, value_heads=2, key_head_dim=4, value_head_dim=8,
                                           conv_kernel=3, state_bytes=Decimal(2))
    assert value(bf16_state.state()) == ((2 * 1 * 4 + 2 * 8) * 2 + 2 * 8 * 4) * 2


# -- tensor parallelism ------------------------------------------------------


def _kv_per_token_per_card(view, cards: int):
    """What one card of ``cards`` keeps of a token when they split the model by tensor, in the 16-bit cache."""
    bf16 = attention.element_bytes(view.guide.kv_precision(None))
    return attention.kv_bytes_per_token(attention.on_one_card(view.layers, cards), bf16)


def test_cards_split_kv_heads_but_each_keeps_the_whole_latent(guide):
    llama = guide.catalogue_model("llama-3.1-8b")
    assert value(_kv_per_token_per_card(llama, 2)) == 2 * 32 * (8 // 2) * 128 * 2
    assert value(_kv_per_token_per_card(llama, 8)) == 2 * 32 * 1 * 128 * 2
    assert value(_kv_per_token_per_card(llama, 16)) == 2 * 32 * 1 * 128 * 2  # 8 heads on 16 cards: one each, copied
    # deepseek-ai/DeepSeek-V3 inference/model.py caches kv_cache [.., kv_lora_rank] and pe_cache
    # [.., qk_rope_head_dim] with no n_local_heads dimension: every card keeps the whole latent
    assert value(_kv_per_token_per_card(guide.catalogue_model("deepseek-v3"), 8)) == 61 * (512 + 64) * 2
    gemma = guide.catalogue_model("gemma-3-27b")
    assert value(_kv_per_token_per_card(gemma, 4)) == 2 * 62 * (16 // 4) * 128 * 2


def test_cards_split_a_linear_state_by_heads():
    # vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape (vllm/model_executor/layers/mamba/mamba_utils.py):
    # "conv_dim = head_k_dim * num_k_heads * 2 + head_v_dim * num_v_heads", conv state "divide(conv_dim,
    # tp_world_size)" by "conv_kernel_size - 1", temporal state "(divide(num_v_heads, tp_world_size), head_v_dim,
    # head_k_dim)"
    gdn = LinearAttention(count=36, key_heads=16, value_heads=32, key_head_dim=128, value_head_dim=128,
                                    conv_kernel=4)
    per_card = attention.state_per_sequence(attention.on_one_card((gdn,), 4))
    assert value(per_card) == 36 * ((2 * 4 * 128 + 8 * 128) * 3 + 8 * 128 * 128) * 4


# -- mixture of experts ------------------------------------------------------


def test_mixtral_reads_its_active_experts_per_token(guide):
    mixtral = guide.catalogue_model("mixtral-8x7b-v0.1")
    assert value(mixtral.weights("bf16")) == Decimal("93.40")  # 46.70 B × 2
    assert value(mixtral.decode_read("bf16")) == Decimal("25.76")  # 12.88 B active × 2
    # third-party copies of the card: "46.7B total parameters (12.9B active parameters)"
    assert round(mixtral.params.value, 1) == Decimal("46.7")
    assert round(mixtral.active_params.value, 1) == Decimal("12.9")
    # the same llama.cpp table: "Mixtral-8x7B-Holodeck-v1 | (48B) | 256 MiB": 32 layers × 8 KV heads × 128, f16
    assert value(mixtral.kv(context=2048, batch=1)) * GB == 2 * 32 * 8 * 128 * 2 * 2048 == 256 * MIB
    # one H200 (4800 GB/s) decodes one stream at most 4800 / 25.76 tokens per second, not 4800 / 93.4
    assert value(mixtral.decode_ceiling("h200-sxm", "bf16")) == Decimal(4800) / Decimal("25.76")


# -- the solver --------------------------------------------------------------


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "mistral-7b-v0.1", "gemma-3-27b", "gpt-oss-120b",
                                      "qwen3-next-80b-a3b"])
@pytest.mark.parametrize("memory_gb", ["60.5", "141", "192", "200"])
def test_the_longest_context_is_the_last_whole_token_that_fits(guide, model_id, memory_gb):
    view = guide.catalogue_model(model_id)
    room = value(view.room(Decimal(memory_gb), "fp8")) * GB
    b = attention.element_bytes(guide.kv_precision())
    longest = view.longest_context(Decimal(memory_gb), "fp8", batch=2)

    def fits(tokens: int) -> bool:
        return 2 * value(attention.sequence_bytes(view.layers, b, tokens)) <= room

    if longest is None:
        assert not fits(1)
    elif longest.value == view.model.max_context:
        assert fits(view.model.max_context)
    else:
        assert fits(int(longest.value)) and not fits(int(longest.value) + 1)


# -- bad input ---------------------------------------------------------------


def problems_after(tmp_path: Path, old: str, new: str, kv_precisions: str = KV_PRECISIONS) -> tuple[list[str], str]:
    text = CATALOGUE.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in the fixture"
    edited = text.replace(old, new)
    with pytest.raises(InputError) as caught:
        load_site(catalogue_root(tmp_path, edited, kv_precisions))
    return [str(problem) for problem in caught.value.problems], edited


def line_of(text: str, snippet: str) -> int:
    return text[: text.index(snippet)].count("\n") + 1


BAD = [
    ("heads not divisible", "kv_heads: 8, head_dim: 128}   # head_dim = 4096", "kv_heads: 5, head_dim: 128}   # head_dim = 4096",
     "kv_heads: 5", "models[llama-3.1-8b].layers[0].kv_heads",
     "32 attention heads cannot share 5 KV heads evenly (each KV head serves a whole number of attention heads)"),
    ("zero head dim", "head_dim: 128}   # explicit", "head_dim: 0}   # explicit", "head_dim: 0",
     "models[qwen3-32b].layers[0].head_dim", "must be at least 1, got 0"),
    ("negative params", "    params_billion: 7.24", "    params_billion: -7.24", "params_billion: -7.24",
     "models[mistral-7b-v0.1].params_billion", "must be greater than 0, got -7.24"),
    ("zero window", "window: 1024}", "window: 0}", "window: 0",
     "models[gemma-3-27b].layers[1].window", "must be at least 1, got 0"),
    ("unknown kind", "{kind: latent,", "{kind: mamba,", "{kind: mamba,", "models[deepseek-v3].layers[0].kind",
     "must be one of full, sliding, latent, linear; got text 'mamba'"),
    ("missing field of its kind", "value_heads: 32, key_head_dim", "key_head_dim", "{kind: linear",
     "models[qwen3-next-80b-a3b].layers[1].value_heads", "missing required field 'value_heads'"),
    ("field of another kind", "kv_heads: 8, head_dim: 64}", "kv_heads: 8, head_dim: 64, window: 128}",
     "{kind: full, count: 18", "models[gpt-oss-120b].layers[1].window",
     "unknown key 'window' (allowed: count, head_dim, kind, kv_heads)"),
    ("more active than total", "active_params_billion: 12.88", "active_params_billion: 48",
     "active_params_billion: 48", "models[mixtral-8x7b-v0.1].active_params_billion",
     "48 billion active parameters exceed the 46.70 billion in total"),
    ("more active experts than experts", "{total: 8, active: 2, shared: 0}", "{total: 8, active: 9, shared: 0}",
     "{total: 8, active: 9", "models[mixtral-8x7b-v0.1].experts.active", "9 active experts exceed the 8 in total"),
    ("duplicate id", "  - id: mixtral-8x7b-v0.1", "  - id: llama-3.1-8b", "  - id: llama-3.1-8b\n    name: Mixtral",
     "models[llama-3.1-8b].id", "duplicate id 'llama-3.1-8b' (first at line 8)"),
]


@pytest.mark.parametrize("case", BAD, ids=[case[0] for case in BAD])
def test_bad_catalogue_input_is_one_located_line(tmp_path, case):
    _, old, new, at, field, message = case
    problems, edited = problems_after(tmp_path, old, new)
    assert problems == [f"data/catalogue.yaml:{line_of(edited, at)}: {field}: {message}"]


def test_a_catalogue_needs_kv_cache_precisions(tmp_path):
    problems, _ = problems_after(tmp_path, "name: Llama 3.1 8B", "name: Llama 3.1 8B", kv_precisions="")
    sizing = (seed_data_root("000") / "data" / "sizing.yaml").read_text(encoding="utf-8")
    first_key = line_of(sizing, "\nprecisions:") + 1  # the file has no such key: the message points at its top
    assert problems == [f"data/sizing.yaml:{first_key}: kv_precisions: missing required field 'kv_precisions' "
                        "(data/catalogue.yaml sizes KV caches in them)"]


def test_a_build_refuses_a_bad_catalogue_and_keeps_the_site(site):
    text = CATALOGUE.read_text(encoding="utf-8").replace("conv_kernel: 4}", "conv_kernel: 0}")
    case = Bad("zero kernel", (Edit("data/catalogue.yaml", None, text),
                               Edit("data/sizing.yaml", "inference:\n", KV_PRECISIONS.lstrip() + "inference:\n")),
               "data/catalogue.yaml", line_of(text, "conv_kernel: 0}"),
               "models[qwen3-next-80b-a3b].layers[1].conv_kernel", "must be at least 1, got 0")
    check_refused_and_kept(site, case)


def _numbers(text: str) -> list[re.Match]:
    return list(re.finditer(r"(?<=: )\d+(\.\d+)?(?=[,}\s])", text))


@pytest.mark.parametrize("replacement", ["0", "1000000000", "-3", "many"])
def test_any_one_size_broken_is_refused_at_its_line_or_sized(tmp_path, replacement):
    """Each number of the fixture in turn set to a bad value: a located refusal, or figures without a traceback."""
    text = CATALOGUE.read_text(encoding="utf-8")
    root = catalogue_root(tmp_path)
    target = root / "data" / "catalogue.yaml"
    assert len(_numbers(text)) > 100
    for match in _numbers(text):
        target.write_text(text[: match.start()] + replacement + text[match.end():], encoding="utf-8")
        line = text[: match.start()].count("\n") + 1
        try:
            guide = Guide(load_site(root))
        except InputError as error:
            shown = [str(problem) for problem in error.problems]
            assert any(problem.startswith(f"data/catalogue.yaml:{line}: models[") for problem in shown), (line, shown)
            continue
        for view in guide.catalogue:
            view.kv(), view.state_per_sequence, view.longest_context(80, "fp8"), view.sequences(80, "int4")
