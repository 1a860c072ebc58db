"""Weight formats (data/weight_formats.yaml, calc/weight_formats.py): bits per weight from each storage's
layout, llama.cpp's mixes, tensor parallelism, and the weights figure against real checkpoints' sizes."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.calc.weight_formats import (bits_per_weight, decode_read, format_by_id, more_bits, native_format,
                                          stored_as, weight_bytes)
from vramsite.errors import InputError, UnknownId
from vramsite.load import load_site
from vramsite.units import BYTES_PER_GIB

ROOT = Path(__file__).resolve().parent.parent
DATA = load_site(ROOT)
STORAGE = {storage.id: storage for fmt in DATA.weight_formats for _, storage in fmt.tensors} | {
    rule.storage.id: rule.storage for fmt in DATA.weight_formats for rule in fmt.rules}


def model(model_id: str):
    return DATA.catalogue_model(model_id)


def fmt(format_id: str):
    return format_by_id(DATA.weight_formats, format_id)


def within(figure, published: Decimal, tolerance: str) -> bool:
    return abs(figure.value / published - 1) <= Decimal(tolerance)


# ---- bits per weight from the block layout (ggml-common.h, OCP MX, bitsandbytes) ---------------------------

@pytest.mark.parametrize("storage, bits", [
    ("q4_k", Decimal(144 * 8) / 256),   # block_q4_K: d, dmin (2 × 2 bytes) + 12 bytes of scales + 128 of nibbles
    ("q5_k", Decimal(176 * 8) / 256),   # + 32 bytes of high bits
    ("q6_k", Decimal(210 * 8) / 256),   # ql 128 + qh 64 + scales 16 + d 2
    ("q8_0", Decimal(34 * 8) / 32),     # d 2 + 32 int8
    ("q4_0", Decimal(18 * 8) / 32),     # d 2 + 16 bytes of nibbles
    ("mxfp4", Decimal(17 * 8) / 32),    # 32 E2M1 elements + one E8M0 scale: 4.25
    ("nvfp4", Decimal("4.5")),          # 16 E2M1 elements + one E4M3 scale
    ("fp8-block", 8 + Decimal(32) / (128 * 128)),
    ("int4-group128", 4 + Decimal(16 + 4) / 128),  # FP16 scale and a 4-bit zero per group of 128
    ("nf4-double", 4 + Decimal(8) / 64 + Decimal(32) / (64 * 256)),
    ("bf16", Decimal(16)),
])
def test_bits_per_weight_follow_from_the_block_layout(storage, bits):
    assert bits_per_weight(STORAGE[storage], row=4096) == bits


def test_per_channel_scales_are_shared_by_a_row():
    assert bits_per_weight(STORAGE["int8-channel"], row=4096) == 8 + Decimal(32) / 4096


def test_a_row_that_is_not_whole_blocks_falls_back_as_llama_cpp_does():
    """gpt-oss's hidden size 2880 is not a multiple of 256: Q4_K falls back to Q5_0, Q6_K to Q8_0."""
    assert stored_as(STORAGE["q4_k"], 2880).id == "q5_0"
    assert stored_as(STORAGE["q6_k"], 2880).id == "q8_0"
    assert stored_as(STORAGE["q6_k"], 4096).id == "q6_k"


def test_more_bits_picks_llama_cpps_layers():
    """use_more_bits(i, 32): layers 0-3 and 28-31, and 6, 9, ..., 27 between: half of them."""
    picked = [layer for layer in range(32) if more_bits(layer, 32)]
    assert picked == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]


def test_q4_k_m_is_a_mix_whose_bits_follow_from_the_shape():
    """Llama 3.1 8B in Q4_K_M: above Q4_K's 4.5 bits (attn_v and ffn_down at Q6_K in half the layers, the output
    head at Q6_K, norms at F32), and not the same bits as a model of another shape."""
    llama, qwen = model("llama-3.1-8b"), model("qwen2.5-7b")
    bits = [weight_bytes(m, fmt("gguf-q4_k_m")).value * 8 / m.parameters.total for m in (llama, qwen)]
    assert all(Decimal("4.7") < value < Decimal("5.0") for value in bits)
    assert bits[0] != bits[1]


# ---- the weights figure against published checkpoint sizes ------------------------------------------------

def test_llama_3_1_8b_in_bf16_is_its_checkpoint():
    """thamada/modelQuery@5d5967b README.md: "Llama-3.1-8B | 8030261248 | 8.0303 | 16060522496", the bytes of
    Meta's released BF16 checkpoint summed tensor by tensor (src/modelQuery.py: numel × element_size); the same
    16060522496 is the metadata.total_size of meta-llama/Llama-3.1-8B's model.safetensors.index.json."""
    assert within(weight_bytes(model("llama-3.1-8b"), fmt("bf16")), Decimal(16060522496), "0.03")


def test_llama_3_1_70b_instruct_in_bf16_is_its_checkpoint():
    """Held out (no figure was set by it). thamada/modelQuery@5d5967b README.md: "Llama-3.1-70B-Instruct |
    70562938880 | 70.5629 | 141125877760". Ours: 141,107,412,992 (-0.01 %)."""
    assert within(weight_bytes(model("llama-3.1-70b-instruct"), fmt("bf16")), Decimal(141125877760), "0.03")


def test_deepseek_v3_in_its_fp8_block_checkpoint():
    """deepseek-ai/DeepSeek-V3 at afb92e1: its safetensors weigh 688,586,727,753 bytes (the artifact's bytes as a
    public registry quotes them; the importer's tests use the same figure). The checkpoint also holds the
    multi-token-prediction layer (about 11.5 B FP8 parameters and its own BF16 embedding and head) that the
    catalogue's 671B leaves out, so ours is 2.2 % lower: 673,150,... bytes."""
    figure = weight_bytes(model("deepseek-v3"), fmt("fp8-block"))
    assert within(figure, Decimal(688586727753), "0.08")
    assert figure.value < 688586727753


def test_gpt_oss_120b_in_mxfp4_is_the_published_file():
    """Held out. ollama/ollama#16416 (https://github.com/ollama/ollama/issues/16416), llama.cpp's load log of
    gpt-oss 120B: "type  f32:  433 tensors / type bf16:  146 tensors / type mxfp4:  108 tensors ... file size =
    60.87 GiB (4.48 BPW)": the experts MXFP4, attention, router, embeddings and head BF16, as the checkpoint's
    modules_to_not_convert (its norms, biases and sinks F32 there). Ours: 60.71 GiB (-0.3 %)."""
    assert within(weight_bytes(model("gpt-oss-120b"), fmt("mxfp4")), Decimal("60.87") * BYTES_PER_GIB, "0.08")


def test_deepseek_v3_in_gguf_q8_0_is_the_published_file():
    """Held out. ikawrakow/ik_llama.cpp#285 (https://github.com/ikawrakow/ik_llama.cpp/issues/285), the load log
    of unsloth's Q8_0 of a DeepSeek-V3-architecture model (arch deepseek2, n_layer 61, n_embd 7168, n_head 128):
    "type  f32:  361 tensors / type q8_0:  664 tensors ... file size = 664.29 GiB (8.50 BPW)". The GGUF has
    no multi-token-prediction layer, as the catalogue's count has none. Ours: 664.29 GiB."""
    assert within(weight_bytes(model("deepseek-v3"), fmt("gguf-q8_0")), Decimal("664.29") * BYTES_PER_GIB, "0.08")


def test_llama_3_1_8b_in_gguf_q4_k_m_is_the_published_file():
    """Held out. runyard.dev, "Q4_K_M vs Q5_K_M vs Q6_K vs Q8_0": "A 16-bit Llama-3.1-8B weighs 14.96 GB. The
    Q4_K_M build of the exact same model is 4.57 GB" (GiB: 16,060,522,496 B is 14.96 GiB). Ours: 4.58 GiB."""
    assert within(weight_bytes(model("llama-3.1-8b"), fmt("gguf-q4_k_m")), Decimal("4.57") * BYTES_PER_GIB, "0.08")


def test_a_4_bit_format_keeps_the_embeddings_and_head_at_16_bits():
    """The issue's case: Qwen2.5 7B's 1.09 B embedding and head parameters stay BF16/FP16, so a group-128 4-bit
    checkpoint is 45-51 % above 0.5 bytes per parameter."""
    qwen = model("qwen2.5-7b")
    flat = Decimal(qwen.parameters.total) / 2
    for format_id in ("gptq-int4", "awq-int4"):
        assert Decimal("1.45") <= weight_bytes(qwen, fmt(format_id)).value / flat <= Decimal("1.51")


def test_mxfp4_quantizes_only_gpt_oss_experts():
    """openai/gpt-oss-120b quantization_config: modules_to_not_convert self_attn, router, embed_tokens, lm_head."""
    gpt_oss = model("gpt-oss-120b")
    classes = gpt_oss.parameters
    experts = Decimal(classes.experts) * Decimal("4.25") / 8
    rest = Decimal(classes.total - classes.experts) * 2
    assert weight_bytes(gpt_oss, fmt("mxfp4")).value == experts + rest


# ---- per card under tensor parallelism --------------------------------------------------------------------

def test_tensor_parallel_splits_all_but_the_replicated_classes():
    """Llama 3.1 8B over 2 cards: every class halves but the norms, kept whole on each card."""
    llama = model("llama-3.1-8b")
    one, two = weight_bytes(llama, fmt("bf16")), weight_bytes(llama, fmt("bf16"), cards=2)
    norms = Decimal(llama.parameters.other) * 2
    assert two.value == (one.value - norms) / 2 + norms


def test_each_card_keeps_a_whole_kv_head_when_cards_outnumber_them():
    """Qwen2.5 7B has 4 KV heads: over 8 cards each card holds one (vLLM replicates), not half of one."""
    qwen = model("qwen2.5-7b")
    even = weight_bytes(qwen, fmt("bf16"), cards=8).value
    keys_and_values = 2 * 28 * 3584 * 4 * 128 * 2  # bytes of k and v projections, all layers
    shared = Decimal(qwen.parameters.total - qwen.parameters.other) * 2 / 8 + qwen.parameters.other * 2
    assert even == shared + keys_and_values * (Decimal(1) / 4 - Decimal(1) / 8)


def test_decode_reads_one_embedding_row_and_the_routed_experts():
    mixtral = model("mixtral-8x7b-v0.1")
    classes = mixtral.parameters
    read = decode_read(mixtral, fmt("bf16")).value
    assert read == 2 * (classes.total - classes.embedding + mixtral.hidden_size - classes.experts
                        + classes.experts_active)


def test_an_unknown_format_lists_the_known_ids():
    with pytest.raises(UnknownId) as unknown:
        fmt("int3")
    assert str(unknown.value).startswith("unknown weight format 'int3' (known: bf16, fp16, fp32, fp8, fp8-block, ")


def test_the_required_formats_are_all_there():
    wanted = {"bf16", "fp16", "fp8", "fp8-block", "int8-w8a8", "gptq-int4", "awq-int4", "bnb-nf4", "gguf-q8_0",
              "gguf-q6_k", "gguf-q5_k_m", "gguf-q4_k_m", "gguf-q4_0", "mxfp4", "nvfp4"}
    assert wanted <= {weight_format.id for weight_format in DATA.weight_formats}
    assert fmt("nvfp4").requires_feature == "fp4" and fmt("fp8").requires_feature == "fp8"
    assert {gpu.id for gpu in DATA.gpus if "fp4" in gpu.features} == {"b200", "rtx-5090"}


def test_each_catalogue_model_names_a_known_native_format_and_sums_its_classes():
    for entry in DATA.catalogue:
        assert entry.native_format in {weight_format.id for weight_format in DATA.weight_formats}
        assert weight_bytes(entry, fmt(entry.native_format)).value > 0


# ---- the data file's own checks ---------------------------------------------------------------------------

def site_with(tmp_path: Path, name: str, old: str, new: str) -> Path:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "data", site / "data")
    path = site / "data" / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return site


def problems(site: Path) -> list[str]:
    with pytest.raises(InputError) as refused:
        load_site(site)
    return [str(problem) for problem in refused.value.problems]


def test_a_model_naming_no_native_format_ships_in_the_one_assumed(tmp_path):
    site = site_with(tmp_path, "catalogue", "    native_format: mxfp4\n", "")
    data = load_site(site)
    model = data.catalogue_model("gpt-oss-120b")
    assert model.native_format is None and data.assumed_native_format == "bf16"
    assert native_format(data, model).id == "bf16"
    assert native_format(DATA, DATA.catalogue_model("gpt-oss-120b")).id == "mxfp4"


def test_a_model_naming_no_native_format_needs_one_assumed(tmp_path):
    site = site_with(tmp_path, "catalogue", "    native_format: mxfp4\n", "")
    formats = site / "data" / "weight_formats.yaml"
    formats.write_text(formats.read_text(encoding="utf-8").replace("assumed_native: bf16\n", ""), encoding="utf-8")
    found = problems(site)
    assert len(found) == 1 and found[0].startswith("data/catalogue.yaml:")
    assert found[0].endswith("models[gpt-oss-120b]: names no native_format, and data/weight_formats.yaml assumes none "
                             "(assumed_native)")


@pytest.mark.parametrize("name, old, new, message", [
    ("weight_formats", "tensors: {experts: mxfp4, rest: bf16}", "tensors: {experts: mxfp5, rest: bf16}",
     "formats[mxfp4].tensors.experts: unknown storage 'mxfp5' (known: f32, bf16, "),
    ("weight_formats", "      - {part: attn_v, storage: q6_k, layers: more_bits}",
     "      - {part: attn_v, storage: q7_k, layers: more_bits}",
     "formats[gguf-q5_k_m].rules[0].storage: unknown storage 'q7_k' (known: f32, "),
    ("weight_formats", "    block_bits: 20\n", "",
     "storage[int4-group128].block: block needs block_bits beside it"),
    ("catalogue", "native_format: mxfp4", "native_format: mxfp3",
     "models[gpt-oss-120b].native_format: unknown weight format 'mxfp3' (known: awq-int4, bf16, "),
    ("catalogue", "parameters: {embedding: 525336576,", "parameters: {embedding: 625336576,",
     "models[llama-3.1-8b].parameters: the classes sum to 8,130,261,248 parameters (8.13 billion), but "
     "params_billion is 8.03"),
    ("weight_formats", "assumed_native: bf16", "assumed_native: bf17",
     "assumed_native: unknown weight format 'bf17' (known: bf16, fp16, "),
    ("weight_formats", "checkpoint: {torch_dtype: float16,", "checkpoint: {torch_dtype: bfloat16,",
     "formats[fp16].checkpoint: a config that names this format names 'bf16' too"),
    ("weight_formats", "      quant_method: mxfp4\n", "      quant_method: mxfp4\n      torch_dtype: bfloat16\n",
     "formats[mxfp4].checkpoint: give a torch_dtype or a quant_method (with its settings), not both"),
    ("weight_formats", "checkpoint: {torch_dtype: float32,", "checkpoint: {torch_dtype: float32, settings: {bits: 32},",
     "formats[fp32].checkpoint.settings: settings belong to a quant_method"),
])
def test_bad_weight_format_data_is_one_located_line(tmp_path, name, old, new, message):
    found = problems(site_with(tmp_path, name, old, new))
    assert len(found) == 1 and message in found[0], found
    assert found[0].startswith(f"data/{name}.yaml:")
