"""A model's parameter count from its config: total, and read per token.

One rule for every family, each part counted as the transformers modules
of that family hold it: the token embeddings, each layer's attention
(q, k, v, o with their biases where the family has them; MLA's low-rank
projections and norms; Gated DeltaNet's projections, convolution and
gates), its MLP (a gated MLP is three matrices; experts, shared experts and
the router), its norms, the final norm, and the output head unless it is
tied to the embeddings. Vision towers and multi-token-prediction modules are
not the text model and are not counted.

Each parameter belongs to one tensor class (load/model.py ``ParameterClasses``): the
embedding table, the output head (0 where tied), attention, dense MLPs, the
routed experts, shared experts, routers, and the rest (norms). Formats keep
some classes at 16 bits and split them differently over cards
(calc/weight_formats.py), so the catalogue records each class exactly.

Per token a model reads one row of the embedding table, not the table (as
gpt-oss's published active count leaves it out), and of a mixture of
experts only the experts it routes to: the active count is the total less
the embedding table (plus the one row) and less the experts not used.

A checkpoint's index says how many bytes its tensors take; divided by the
bytes of the one dtype they are stored in, that is the total itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.layers import LatentAttention, LinearAttention
from ..errors import InputError, Problem
from ..load.model import ParameterClasses
from .hf_config import Experts, LayerFields, ModelConfig
from .json_file import JsonFile

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
"""Bytes per parameter of the dtypes a whole checkpoint is stored in."""


@dataclass(frozen=True)
class ParameterCount:
    total: int
    active: int


def parameter_count(config: ModelConfig) -> ParameterCount:
    classes = tensor_classes(config)
    return ParameterCount(classes.total, classes.active(config.hidden_size))


def tensor_classes(config: ModelConfig) -> ParameterClasses:
    embeddings, hidden = config.vocab_size * config.hidden_size, config.hidden_size
    layers, experts = len(config.layer_kinds), config.experts
    moe_layers = layers - experts.dense_layers if experts else 0
    everywhere = config.family.biases_everywhere
    norm = hidden * (2 if everywhere else 1)  # a LayerNorm's bias beside its weight
    return ParameterClasses(
        embedding=embeddings,
        output_head=0 if config.tied_embeddings else embeddings + (config.vocab_size if everywhere else 0),
        attention=sum(_attention(config, group) * config.layer_kinds.count(group.kind)
                      for group in config.layer_fields),
        dense_mlp=_dense_mlps(config),
        experts=moe_layers * experts.total * _gated_mlp(config, experts.size) if experts else 0,
        experts_active=moe_layers * experts.active * _gated_mlp(config, experts.size) if experts else 0,
        shared_experts=moe_layers * _shared_experts(config, experts) if experts else 0,
        router=moe_layers * (hidden * experts.total + (experts.total if config.family.expert_bias else 0))
        if experts else 0,
        other=layers * config.family.norms_per_layer * norm + norm)  # the final norm


def _attention(config: ModelConfig, group: LayerFields) -> int:
    """The attention parameters of one layer of the group's kind: projections per KV head, or the kind's own."""
    if group.kind.projects_kv_heads:
        return _grouped_query_attention(config)
    if group.kind in OWN_PROJECTIONS:
        return OWN_PROJECTIONS[group.kind](config, group.fields)
    raise ValueError(f"no parameter rule for {group.kind.kind} layers")


def _grouped_query_attention(config: ModelConfig) -> int:
    family, hidden = config.family, config.hidden_size
    queries, keys = config.attention_heads * config.head_dim, config.kv_heads * config.head_dim
    weights = hidden * queries * (2 if family.gated_attention else 1) + 2 * hidden * keys + queries * hidden
    biases = 0
    if family.qkv_bias or config.attention_bias or family.biases_everywhere:
        biases += queries + 2 * keys
    if (config.attention_bias and family.output_bias) or family.biases_everywhere:
        biases += hidden
    norms = 2 * config.head_dim if config.qk_norm else 0
    sinks = config.attention_heads if family.attention_sinks else 0
    return weights + biases + norms + sinks


def _latent_attention(config: ModelConfig, fields: dict) -> int:
    """DeepSeek-V3: queries through a low-rank q_lora_rank (with its norm), keys and values through one
    compressed latent of kv_lora_rank plus a shared RoPE key, then expanded per head."""
    latent, hidden, heads = config.latent, config.hidden_size, config.attention_heads
    rank, rope_head_dim = fields["kv_lora_rank"], fields["rope_head_dim"]
    query_width = heads * (latent.nope_head_dim + rope_head_dim)
    if latent.q_lora_rank:
        queries = hidden * latent.q_lora_rank + latent.q_lora_rank + latent.q_lora_rank * query_width
    else:
        queries = hidden * query_width
    compressed = hidden * (rank + rope_head_dim) + rank
    expanded = rank * heads * (latent.nope_head_dim + latent.v_head_dim)
    output = heads * latent.v_head_dim * hidden
    return queries + compressed + expanded + output


def _gated_delta_net(config: ModelConfig, fields: dict) -> int:
    """Qwen3-Next's linear attention: one projection to q, k, v and the gate z, one to the decay terms b and
    a, a depthwise convolution over q, k and v, per value head a time step bias and a decay, a gated norm of
    one value head, and the output projection."""
    hidden = config.hidden_size
    keys = fields["key_heads"] * fields["key_head_dim"]
    values = fields["value_heads"] * fields["value_head_dim"]
    projections = hidden * (2 * keys + 2 * values) + hidden * 2 * fields["value_heads"]
    convolution = (2 * keys + values) * fields["conv_kernel"]
    per_head = 2 * fields["value_heads"]
    return projections + convolution + per_head + fields["value_head_dim"] + values * hidden


OWN_PROJECTIONS = {LatentAttention: _latent_attention, LinearAttention: _gated_delta_net}
"""The kinds whose layers are not projected per KV head, each with the count of its layers' own projections."""


def _dense_mlps(config: ModelConfig) -> int:
    experts, layers = config.experts, len(config.layer_kinds)
    if experts is None:
        return layers * _mlp(config, config.intermediate_size)
    return experts.dense_layers * 3 * config.hidden_size * config.intermediate_size


def _shared_experts(config: ModelConfig, experts: Experts) -> int:
    """One MoE layer's shared experts, with Qwen3-Next's one-output gate on them."""
    return experts.shared * _gated_mlp(config, experts.shared_size) + (config.hidden_size if experts.shared_gate else 0)


def _mlp(config: ModelConfig, size: int) -> int:
    """A dense model's MLP: gated, or up and down projections (with their biases where the family has them)."""
    if config.family.gated_mlp:
        return _gated_mlp(config, size)
    biases = size + config.hidden_size if config.family.biases_everywhere else 0
    return 2 * config.hidden_size * size + biases


def _gated_mlp(config: ModelConfig, size: int) -> int:
    """Gate and up projections (hidden -> size) and the down projection; gpt-oss's experts add biases."""
    biases = 2 * size + config.hidden_size if config.family.expert_bias else 0
    return 3 * config.hidden_size * size + biases


def count_from_index(config: ModelConfig, config_name: str, index: JsonFile) -> ParameterCount:
    """The total from a safetensors index (its metadata.total_size ÷ the bytes of the stored dtype); the active
    count less what a token does not read (the embedding table but one row, the experts not routed to), by the
    config."""
    problems = []
    if config.quantized:
        problems.append(Problem(config_name, None, "quantization_config",
                                "the checkpoint stores its tensors in several formats: its size does not give "
                                "a parameter count; leave out --index"))
    elif config.stored_dtype not in DTYPE_BYTES:
        shown = repr(config.stored_dtype) if config.stored_dtype else "none"
        problems.append(Problem(config_name, None, "torch_dtype",
                                f"stored dtype {shown}: the bytes per parameter are known for "
                                f"{', '.join(DTYPE_BYTES)} only; leave out --index"))
    size = _total_size(index, problems)
    if problems:
        raise InputError(problems)
    bytes_per_parameter = DTYPE_BYTES[config.stored_dtype]
    if size % bytes_per_parameter:
        raise InputError([Problem(index.name, index.line_of(("metadata", "total_size")), "metadata.total_size",
                                  f"{size} bytes is not a whole number of {config.stored_dtype} parameters")])
    total = size // bytes_per_parameter
    classes = tensor_classes(config)
    return ParameterCount(total, total - (classes.total - classes.active(config.hidden_size)))


def _total_size(index: JsonFile, problems: list[Problem]) -> int | None:
    metadata = index.value.get("metadata")
    size = metadata.get("total_size") if isinstance(metadata, dict) else None
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        line = index.line_of(("metadata", "total_size"))
        message = "missing" if size is None else f"must be a positive whole number of bytes, got {size!r}"
        problems.append(Problem(index.name, line, "metadata.total_size", message))
        return None
    return size
