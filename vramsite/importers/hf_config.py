"""A Hugging Face config.json read into one model's shape, by the rules of its architecture.

Each known architecture (config.json ``architectures[0]``) names a family:
where its text model's keys are, which keys its published configs leave
out and what the library then assumes, which layers attend to a sliding
window or keep a linear-attention state, and what its layers hold (biases,
norms, experts) for the parameter count. A rule is written once, here, and
names the source it follows. What each layer kind is called in a config's
``layer_types``, and the config keys its fields are read from, are the
kind's own (calc/layers/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..calc.layers import KINDS, FullAttention, LatentAttention, LayerKind, LinearAttention, SlidingAttention
from ..errors import InputError, Problem
from ..load.model import WeightFormat
from .config_values import ConfigSection
from .json_file import JsonFile
from .rope import Context, longest_context

LAYER_TYPES = {kind.config_layer_type: kind for kind in KINDS if kind.config_layer_type}
"""config.json ``layer_types`` -> the layer kinds."""
Kinds = tuple[type[LayerKind], ...]


@dataclass(frozen=True)
class Experts:
    """A mixture of experts: per MoE layer ``total`` routed experts, ``active`` of them used per token, and
    ``shared`` experts every token uses."""

    total: int
    active: int
    shared: int
    size: int
    """intermediate size of one routed expert"""
    shared_size: int
    """intermediate size of one shared expert"""
    dense_layers: int
    """layers whose MLP is one dense block of ``intermediate_size`` instead"""
    shared_gate: bool
    """a sigmoid gate of one output on the shared expert (Qwen3-Next's shared_expert_gate)"""


@dataclass(frozen=True)
class LatentProjections:
    """Multi-head latent attention (DeepSeek-V3): the widths of its projections beside the latent it caches."""

    q_lora_rank: int | None
    nope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class LayerFields:
    """The layers of one kind: their kind and the catalogue fields read from the config (``config_keys``)."""

    kind: type[LayerKind]
    fields: dict


@dataclass(frozen=True)
class Family:
    """What an architecture's configs and layers hold beyond the common keys."""

    name: str
    layer_rule: Callable[[ConfigSection, int], Kinds | None]
    """each layer's kind when the config has no ``layer_types``"""
    qkv_bias: bool = False
    """q, k and v projections always carry a bias (Qwen2); otherwise the config's attention_bias says"""
    qk_norm: bool = False
    """a norm of head_dim on queries and keys (Qwen3, Gemma 3)"""
    qk_norm_key: str | None = None
    """the config key that turns that norm on, where the family's configs choose (GLM-4.5's use_qk_norm)"""
    output_bias: bool = True
    """the config's attention_bias also gives the output projection a bias (Llama); GLM's has none"""
    norms_per_layer: int = 2
    gated_attention: bool = False
    """the query projection also yields an output gate (Qwen3-Next): twice as wide"""
    attention_sinks: bool = False
    """a learned sink logit per head (gpt-oss)"""
    expert_bias: bool = False
    """biases on the experts' projections and the router (gpt-oss)"""
    text_config: bool = False
    """the text model's keys sit under ``text_config`` (a multimodal config)"""
    defaults: dict = field(default_factory=dict)
    """values the library assumes for keys the published configs leave out"""
    tied_default: bool = False
    reads_layer_types: bool = True
    """whether a ``layer_types`` list in the config says each layer's kind"""
    gated_mlp: bool = True
    """the MLP is gate, up and down projections; otherwise up and down only (Phi-2)"""
    biases_everywhere: bool = False
    """every projection, every norm (LayerNorm: a weight and a bias) and the output head carry a bias (Phi-2)"""
    context_is_scaled: bool = False
    """max_position_embeddings already counts the config's RoPE scaling, so the scaling does not lengthen it again
    (Gemma 3's 131,072 with its linear factor of 8: vLLM skips it, "Gemma3's max_model_len (128K) is already scaled
    by RoPE scaling", vllm/config/model.py@18ec662 _get_and_verify_max_len)"""

    @property
    def text_path(self) -> tuple[str, ...]:
        """Where the text model's keys are in the config."""
        return ("text_config",) if self.text_config else ()


def _all(kind: type[LayerKind]) -> Callable[[ConfigSection, int], Kinds]:
    return lambda section, count: (kind,) * count


def _windowed_when_set(section: ConfigSection, count: int) -> Kinds | None:
    """Mistral: one window for every layer, when sliding_window is set and use_sliding_window is not false
    (transformers MistralConfig; mistral-inference rolls a buffer of the window on each layer)."""
    windowed = section.given("sliding_window") and section.value.get("use_sliding_window") is not False
    return (SlidingAttention if windowed else FullAttention,) * count


def _qwen_window(section: ConfigSection, count: int) -> Kinds | None:
    """Qwen2/Qwen3: use_sliding_window false (every published Qwen2.5 and Qwen3 config) means no window,
    whatever sliding_window says. Which layers slide when it is true is not a published rule."""
    if section.flag("use_sliding_window", False):
        section.problem("use_sliding_window", "true, but the config has no layer_types saying which layers "
                                              "slide; add layer_types")
        return None
    return (FullAttention,) * count


def _every_nth(key: str, default: int, between: type[LayerKind]) -> Callable[[ConfigSection, int], Kinds | None]:
    """Layer i is full attention when (i + 1) is a multiple of the config's ``key``, ``between`` otherwise."""
    def kinds(section: ConfigSection, count: int) -> Kinds | None:
        interval = section.size(key, default)
        if interval is None:
            return None
        return tuple(FullAttention if (index + 1) % interval == 0 else between for index in range(count))
    return kinds


def _even_layers_slide(section: ConfigSection, count: int) -> Kinds:
    """gpt-oss and Gemma 2: even layers slide, odd ones are full (openai/gpt-oss model.py: layer_idx % 2 == 0)."""
    return tuple(SlidingAttention if index % 2 == 0 else FullAttention for index in range(count))


def _letter_pattern(section: ConfigSection, count: int) -> Kinds | None:
    """EXAONE 4.0: sliding_window_pattern spells a repeating run of local (L) and global (G) layers ("LLLG");
    no window at all where sliding_window is null (llama.cpp, llama/llama.cpp/src/llama-model.cpp in
    ollama/ollama@f63eea3: the 32B slides three layers in four)."""
    if not section.given("sliding_window"):
        return (FullAttention,) * count
    pattern = section.value.get("sliding_window_pattern")
    if not isinstance(pattern, str) or not pattern or set(pattern) - {"L", "G"}:
        section.problem("sliding_window_pattern", "must spell its local and global layers in L and G (\"LLLG\"), "
                                                  "or give layer_types")
        return None
    return tuple(SlidingAttention if pattern[index % len(pattern)] == "L" else FullAttention
                 for index in range(count))


_LLAMA = Family("Llama", _all(FullAttention))
_MISTRAL = Family("Mistral", _windowed_when_set)
_QWEN2 = Family("Qwen2", _qwen_window, qkv_bias=True)
_QWEN3 = Family("Qwen3", _qwen_window, qk_norm=True)
_GEMMA3 = Family(
    "Gemma 3", _every_nth("sliding_window_pattern", 6, SlidingAttention), qk_norm=True, norms_per_layer=4,
    # transformers Gemma3TextConfig.__init__ (src/transformers/models/gemma3/configuration_gemma3.py @008f5c8):
    # the 27B's config sets neither vocabulary nor context, the 4B's not its heads either
    defaults={"vocab_size": 262208, "max_position_embeddings": 131072, "num_attention_heads": 8,
              "num_key_value_heads": 4, "head_dim": 256}, tied_default=True, context_is_scaled=True)
# transformers Phi3 (src/transformers/models/phi3/modeling_phi3.py @00d4b3d): q, k and v in one qkv_proj and
# gate and up in one gate_up_proj, Llama's sizes and no biases; every layer's attention takes config.sliding_window
_PHI3 = Family("Phi-3", _windowed_when_set)
# EXAONE 4.0 (ollama/ollama@f63eea3 llama/llama.cpp/src/llama-model.cpp, LLM_ARCH_EXAONE4): Llama's projections
# without biases, a norm of head_dim on queries and keys, and two norms per layer, both after their block
_EXAONE4 = Family("EXAONE 4.0", _letter_pattern, qk_norm=True)
# Phi-2 (llama.cpp's LLM_ARCH_PHI2 tensors, ollama/ollama@f63eea3): one LayerNorm per layer before attention and
# MLP side by side, biases on every projection and on the output head, an MLP of up and down projections only
_PHI2 = Family("Phi-2", _all(FullAttention), norms_per_layer=1, gated_mlp=False, biases_everywhere=True)
# Gemma 2 (transformers src/transformers/models/gemma2/modeling_gemma2.py @9a80143: a layer's window is
# config.sliding_window "if not bool(layer_idx % 2)"): every even layer slides; four norms per layer, and no norm
# on queries and keys
_GEMMA2 = Family("Gemma 2", _even_layers_slide, norms_per_layer=4, tied_default=True)
# GLM-4.5 (transformers src/transformers/models/glm4_moe/modular_glm4_moe.py @008c726): Glm4MoeAttention is
# Glm4Attention (glm4/modular_glm4.py @f2cfc94), which is GlmAttention, whose o_proj has no bias
# (glm/modular_glm.py @ffd4c83), so attention_bias biases q, k and v alone; a norm on queries and keys where
# use_qk_norm says (GLM-4.5 yes, GLM-4.5-Air no); DeepSeek-V3's router, the shared expert
# moe_intermediate_size × n_shared_experts wide, the first first_k_dense_replace layers dense
_GLM4_MOE = Family("GLM-4.5", _all(FullAttention), qk_norm_key="use_qk_norm", output_bias=False)
_GPT_OSS = Family("gpt-oss", _even_layers_slide, attention_sinks=True, expert_bias=True)
# DeepSeek-V2 and V3 are one architecture to llama.cpp (LLM_ARCH_DEEPSEEK2, as vendored at ollama/ollama@f63eea3):
# V2-Lite projects queries at full rank (q_lora_rank null), the others through q_lora_rank
_DEEPSEEK_V3 = Family("DeepSeek-V2/V3", _all(LatentAttention), reads_layer_types=False)
# transformers Qwen3NextConfig: full_attention_interval defaults to 4 (layers 3, 7, ... full)
_QWEN3_NEXT = Family("Qwen3-Next", _every_nth("full_attention_interval", 4, LinearAttention), qk_norm=True,
                     gated_attention=True)

ARCHITECTURES: dict[str, Family] = {
    "LlamaForCausalLM": _LLAMA,
    "MistralForCausalLM": _MISTRAL,
    "MixtralForCausalLM": _MISTRAL,
    "Qwen2ForCausalLM": _QWEN2,
    "Qwen3ForCausalLM": _QWEN3,
    "Qwen3MoeForCausalLM": _QWEN3,
    "DeepseekV2ForCausalLM": _DEEPSEEK_V3,
    "DeepseekV3ForCausalLM": _DEEPSEEK_V3,
    "Gemma2ForCausalLM": _GEMMA2,
    "Gemma3ForCausalLM": _GEMMA3,
    "Gemma3ForConditionalGeneration": replace(_GEMMA3, text_config=True),
    "PhiForCausalLM": _PHI2,
    "Phi3ForCausalLM": _PHI3,
    "GptOssForCausalLM": _GPT_OSS,
    "Exaone4ForCausalLM": _EXAONE4,
    "Qwen3NextForCausalLM": _QWEN3_NEXT,
    "Glm4MoeForCausalLM": _GLM4_MOE,
}


@dataclass(frozen=True)
class ModelConfig:
    """What the catalogue entry and the parameter count need from a config, checked."""

    architecture: str
    family: Family
    hidden_size: int
    attention_heads: int
    kv_heads: int | None
    head_dim: int | None
    """the shape of the layers with projections per KV head; None where the model has none"""
    vocab_size: int
    context: Context | None
    """the longest context an engine takes: max_position_embeddings, lengthened by the RoPE scaling (rope.py)"""
    intermediate_size: int
    layer_kinds: Kinds
    """each layer's kind, in order"""
    layer_fields: tuple[LayerFields, ...]
    """the fields of each kind the model has, in the order the kinds first appear"""
    tied_embeddings: bool
    attention_bias: bool
    """q, k and v projections carry a bias, and o where the family's ``output_bias`` says (the config's
    attention_bias)"""
    qk_norm: bool
    """a norm of head_dim on queries and keys: the family's, or its config's ``qk_norm_key``"""
    experts: Experts | None
    latent: LatentProjections | None
    stored_dtype: str | None
    quantized: bool
    native_format: str | None
    """The weight format the checkpoint ships in (data/weight_formats.yaml's id), from quantization_config or
    else torch_dtype; None where the config does not say, or the site has no weight formats"""

    @property
    def max_context(self) -> int | None:
        return self.context.tokens if self.context else None


def read_model_config(file: JsonFile, formats: tuple[WeightFormat, ...],
                      rope_override: JsonFile | None = None) -> ModelConfig:
    """``file`` read by its architecture's rules, its native format one of the site's ``formats``, its RoPE
    scaling replaced by ``rope_override`` where one is given (as an engine's override would); InputError listing
    every problem found."""
    problems: list[Problem] = []
    top = ConfigSection(file, (), problems)
    architecture = _architecture(top)
    if architecture is None:
        raise InputError(problems)
    family = ARCHITECTURES[architecture]
    if family.text_config and not isinstance(file.value.get("text_config"), dict):
        top.problem("text_config", "missing: this architecture keeps its text model's keys there")
        raise InputError(problems)
    section = ConfigSection(file, family.text_path, problems, family.defaults)
    rope = ConfigSection(rope_override, (), problems) if rope_override else None
    config = _read(architecture, family, top, section, formats, rope)
    if problems:
        raise InputError(problems)
    return config


def _architecture(top: ConfigSection) -> str | None:
    names = top.text_list("architectures")
    if names is None:
        if not top.problems:
            top.problem("architectures", "missing: a Hugging Face config.json names its architecture there")
        return None
    if not names or names[0] not in ARCHITECTURES:
        shown = repr(names[0]) if names else "none"
        top.problem("architectures", f"unknown architecture {shown} (known: {', '.join(ARCHITECTURES)})")
        return None
    return names[0]


def _read(architecture: str, family: Family, top: ConfigSection, section: ConfigSection,
          formats: tuple[WeightFormat, ...], rope_override: ConfigSection | None) -> ModelConfig:
    """The config's values; a field is None where its key has a problem (noted in ``section``)."""
    hidden = section.size("hidden_size")
    heads = section.size("num_attention_heads")
    count = section.size("num_hidden_layers")
    kinds = _layer_kinds(family, section, count) if count else None
    present = tuple(dict.fromkeys(kinds or ()))
    latent = _latent(section) if LatentAttention in present else None
    per_head = any(kind.projects_kv_heads for kind in present)
    kv_heads = _kv_heads(section, heads) if per_head else None
    head_dim = _head_dim(section, hidden, heads) if per_head else None
    context = longest_context(section, rope_override, family.context_is_scaled)
    return ModelConfig(
        architecture=architecture, family=family, hidden_size=hidden, attention_heads=heads, kv_heads=kv_heads,
        head_dim=head_dim, vocab_size=section.size("vocab_size"), context=context,
        intermediate_size=section.size("intermediate_size"), layer_kinds=kinds or (),
        layer_fields=tuple(_fields(section, kind, {"num_key_value_heads": kv_heads, "head_dim": head_dim})
                           for kind in present),
        tied_embeddings=section.flag("tie_word_embeddings", family.tied_default),
        attention_bias=section.flag("attention_bias", False),
        qk_norm=family.qk_norm or bool(family.qk_norm_key and section.flag(family.qk_norm_key, False)),
        experts=_experts(section, count), latent=latent,
        stored_dtype=top.text("torch_dtype", None) or section.text("torch_dtype", None),
        quantized=top.given("quantization_config"),
        native_format=_native_format(top, section, formats))


def _native_format(top: ConfigSection, section: ConfigSection, formats: tuple[WeightFormat, ...]) -> str | None:
    """The format of ``formats`` the checkpoint's weights are stored in, by the ``checkpoint`` each format says a
    config names it with (data/weight_formats.yaml): its quantization_config where it has one, else its torch_dtype.
    None where the config does not say, or the site has no weight formats to name."""
    if not formats:
        return None
    if top.given("quantization_config"):
        quantization = top.value["quantization_config"]
        if not isinstance(quantization, dict):
            top.problem("quantization_config", "must be a mapping (a quant_method and its settings)")
            return None
        return _quantized_format(top, quantization, formats)
    dtype = top.text("torch_dtype", None) or section.text("torch_dtype", None)
    if dtype is None:
        return None  # not stated (or a bad value, already a problem): the entry names no native format
    named = {weight_format.checkpoint.torch_dtype: weight_format.id for weight_format in formats
             if weight_format.checkpoint and weight_format.checkpoint.torch_dtype}
    if dtype not in named:
        top.problem("torch_dtype", f"unknown dtype {dtype!r} (known: {', '.join(named)})")
        return None
    return named[dtype]


def _quantized_format(top: ConfigSection, quantization: dict, formats: tuple[WeightFormat, ...]) -> str | None:
    method = quantization.get("quant_method")
    quantized = [weight_format for weight_format in formats
                 if weight_format.checkpoint and weight_format.checkpoint.quant_method]
    for weight_format in quantized:
        checkpoint = weight_format.checkpoint
        if checkpoint.quant_method == method and all(quantization.get(key) == value
                                                     for key, value in checkpoint.settings):
            return weight_format.id
    known = sorted({_described(weight_format) for weight_format in quantized})
    top.problem("quantization_config", f"quant_method {method!r} with these settings is not a known weight format "
                                       f"(known: {'; '.join(known)})")
    return None


def _described(weight_format: WeightFormat) -> str:
    checkpoint = weight_format.checkpoint
    shown = ", ".join(f"{key} {value!r}" for key, value in checkpoint.settings)
    return f"{checkpoint.quant_method}{' (' + shown + ')' if shown else ''} -> {weight_format.id}"


def _fields(section: ConfigSection, kind: type[LayerKind], shape: dict) -> LayerFields:
    """The kind's fields, each from its config key; the KV heads and head dimension as the model's shape has them
    (checked and derived once for every kind that has them)."""
    return LayerFields(kind, {field: shape[key] if key in shape else section.size(key)
                              for field, key in kind.config_keys.items()})


def _layer_kinds(family: Family, section: ConfigSection, count: int) -> Kinds | None:
    """Each layer's kind: from ``layer_types`` where the config has it, else by the family's rule."""
    if family.reads_layer_types:
        types = section.text_list("layer_types")
        if types is not None:
            return _from_layer_types(section, types, count)
    return family.layer_rule(section, count)


def _from_layer_types(section: ConfigSection, types: list[str], count: int) -> Kinds | None:
    if len(types) != count:
        section.problem("layer_types", f"lists {len(types)} layers, but num_hidden_layers is {count}")
        return None
    unknown = sorted({name for name in types if name not in LAYER_TYPES})
    if unknown:
        section.problem("layer_types", f"unknown layer type {unknown[0]!r} (known: {', '.join(LAYER_TYPES)})")
        return None
    return tuple(LAYER_TYPES[name] for name in types)


def _kv_heads(section: ConfigSection, heads: int | None) -> int | None:
    kv_heads = section.size("num_key_value_heads")
    if heads and kv_heads and heads % kv_heads:
        section.problem("num_key_value_heads", f"{kv_heads} does not divide num_attention_heads ({heads}): "
                                               "each KV head serves a whole number of query heads")
        return None
    return kv_heads


def _head_dim(section: ConfigSection, hidden: int | None, heads: int | None) -> int | None:
    """The config's explicit head_dim or its family's default, else hidden_size ÷ heads (the library's rule when
    the key is absent)."""
    if section.given("head_dim") or "head_dim" in section.defaults:
        return section.size("head_dim")
    if hidden and heads:
        if hidden % heads:
            section.problem("hidden_size", f"{hidden} is not a multiple of num_attention_heads ({heads}) and the "
                                           "config has no head_dim")
            return None
        return hidden // heads
    return None


def _latent(section: ConfigSection) -> LatentProjections:
    return LatentProjections(q_lora_rank=section.size("q_lora_rank", None),
                             nope_head_dim=section.size("qk_nope_head_dim"), v_head_dim=section.size("v_head_dim"))


EXPERT_COUNT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")
"""Mixtral and gpt-oss, Qwen3-MoE and Qwen3-Next, DeepSeek-V3: the routed experts per MoE layer."""


def expert_count_key(section: ConfigSection) -> str | None:
    """The key of EXPERT_COUNT_KEYS the config sets, to other than 0; None for a dense model."""
    return next((key for key in EXPERT_COUNT_KEYS if section.given(key) and section.value[key] != 0), None)


def _experts(section: ConfigSection, layers: int | None) -> Experts | None:
    key = expert_count_key(section)
    if key is None:
        return None  # no expert count, or 0 (a dense model's config may say so)
    total, active = section.size(key), section.size("num_experts_per_tok")
    if total and active and active > total:
        section.problem("num_experts_per_tok", f"{active} is more than the {total} experts ({key})")
    shared_sized = _has_shared_size(section)
    shared = section.count("n_shared_experts", 1 if shared_sized else 0)
    moe_size = "moe_intermediate_size" if section.given("moe_intermediate_size") else "intermediate_size"
    return Experts(total=total, active=active, shared=shared,
                   size=section.size(moe_size),
                   shared_size=_shared_size(section, shared),
                   dense_layers=_dense_layers(section, layers),
                   shared_gate=shared_sized)


def _has_shared_size(section: ConfigSection) -> bool:
    """Whether the config sizes a shared expert (Qwen2-MoE, Qwen3-Next). Qwen3-MoE configs that carry the key
    set it to 0 (Qwen3-Coder-480B): the family has no shared expert."""
    return section.given("shared_expert_intermediate_size") and section.value["shared_expert_intermediate_size"] != 0


def _shared_size(section: ConfigSection, shared: int | None) -> int:
    if not shared:
        return 0
    if _has_shared_size(section):
        return section.size("shared_expert_intermediate_size")
    return section.size("moe_intermediate_size")  # DeepSeek-V3: a shared expert is as wide as a routed one


def _dense_layers(section: ConfigSection, layers: int | None) -> int:
    """Layers with a dense MLP instead of experts: DeepSeek's first_k_dense_replace, Qwen's mlp_only_layers and
    decoder_sparse_step (a layer is sparse when (i + 1) is a multiple of the step)."""
    if not layers:
        return 0
    first = section.count("first_k_dense_replace", 0) or 0
    dense_only = set(section.whole_list("mlp_only_layers") or [])
    step = section.size("decoder_sparse_step", 1) or 1
    return sum(1 for index in range(layers)
               if index < first or index in dense_only or (index + 1) % step)
