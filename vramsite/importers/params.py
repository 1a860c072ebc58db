"""A model's parameter count from its config: total, and read per token.

One rule for every family, each part counted as the transformers modules
of that family hold it: the token embeddings, each layer's attention
(q, k, v, o with their biases where the family has them; MLA's low-rank
projections and norms; Gated DeltaNet's projections, convolution and
gates), its MLP (a gated MLP is three matrices; experts, shared experts and
the router), its norms, the final norm, and the output head unless it is
tied to the embeddings. Vision towers and multi-token-prediction modules are
not the text model and are not counted.

Per token, a mixture of experts reads only the experts it routes to: the
active count is the total less the experts not used. The embedding table
stays in the active count, as it does in the published active counts of
DeepSeek-V3, Mixtral and Qwen3-MoE (gpt-oss's leaves it out), and as a dense
model's active count is its total.

A checkpoint's index says how many bytes its tensors take; divided by the
bytes of the one dtype they are stored in, that is the total itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from ..errors import InputError, Problem
from .hf_config import FULL, LATENT, LINEAR, SLIDING, Experts, ModelConfig
from .json_file import JsonFile

BILLION = Decimal(10) ** 9
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
"""Bytes per parameter of the dtypes a whole checkpoint is stored in."""


@dataclass(frozen=True)
class ParameterCount:
    total: int
    active: int


def billions(count: int) -> Decimal:
    """A parameter count in billions, to two decimals (8,030,261,248 -> 8.03)."""
    return (Decimal(count) / BILLION).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def parameter_count(config: ModelConfig) -> ParameterCount:
    embeddings = config.vocab_size * config.hidden_size
    head = 0 if config.tied_embeddings else embeddings
    layers = sum(_attention(config, kind) for kind in config.layer_kinds)
    layers += len(config.layer_kinds) * config.family.norms_per_layer * config.hidden_size
    layers += _mlps(config)
    total = embeddings + head + layers + config.hidden_size  # the final norm
    return ParameterCount(total, total - _unused_experts(config))


def _attention(config: ModelConfig, kind: str) -> int:
    if kind in (FULL, SLIDING):
        return _grouped_query_attention(config)
    if kind == LATENT:
        return _latent_attention(config)
    if kind == LINEAR:
        return _gated_delta_net(config)
    raise ValueError(f"no parameter rule for {kind} layers")


def _grouped_query_attention(config: ModelConfig) -> int:
    family, hidden = config.family, config.hidden_size
    queries, keys = config.attention_heads * config.head_dim, config.kv_heads * config.head_dim
    weights = hidden * queries * (2 if family.gated_attention else 1) + 2 * hidden * keys + queries * hidden
    biases = 0
    if family.qkv_bias or config.attention_bias:
        biases += queries + 2 * keys
    if config.attention_bias:
        biases += hidden
    norms = 2 * config.head_dim if family.qk_norm else 0
    sinks = config.attention_heads if family.attention_sinks else 0
    return weights + biases + norms + sinks


def _latent_attention(config: ModelConfig) -> int:
    """DeepSeek-V3: queries through a low-rank q_lora_rank (with its norm), keys and values through one
    compressed latent of kv_lora_rank plus a shared RoPE key, then expanded per head."""
    latent, hidden, heads = config.latent, config.hidden_size, config.attention_heads
    query_width = heads * (latent.nope_head_dim + latent.rope_head_dim)
    if latent.q_lora_rank:
        queries = hidden * latent.q_lora_rank + latent.q_lora_rank + latent.q_lora_rank * query_width
    else:
        queries = hidden * query_width
    compressed = hidden * (latent.kv_lora_rank + latent.rope_head_dim) + latent.kv_lora_rank
    expanded = latent.kv_lora_rank * heads * (latent.nope_head_dim + latent.v_head_dim)
    output = heads * latent.v_head_dim * hidden
    return queries + compressed + expanded + output


def _gated_delta_net(config: ModelConfig) -> int:
    """Qwen3-Next's linear attention: one projection to q, k, v and the gate z, one to the decay terms b and
    a, a depthwise convolution over q, k and v, per value head a time step bias and a decay, a gated norm of
    one value head, and the output projection."""
    linear, hidden = config.linear, config.hidden_size
    keys, values = linear.key_heads * linear.key_head_dim, linear.value_heads * linear.value_head_dim
    projections = hidden * (2 * keys + 2 * values) + hidden * 2 * linear.value_heads
    convolution = (2 * keys + values) * linear.conv_kernel
    per_head = 2 * linear.value_heads
    return projections + convolution + per_head + linear.value_head_dim + values * hidden


def _mlps(config: ModelConfig) -> int:
    experts, layers = config.experts, len(config.layer_kinds)
    if experts is None:
        return layers * _gated_mlp(config, config.intermediate_size)
    dense = experts.dense_layers * 3 * config.hidden_size * config.intermediate_size
    return dense + (layers - experts.dense_layers) * _mixture(config, experts)


def _mixture(config: ModelConfig, experts: Experts) -> int:
    hidden = config.hidden_size
    router = hidden * experts.total + (experts.total if config.family.expert_bias else 0)
    shared = experts.shared * _gated_mlp(config, experts.shared_size) + (hidden if experts.shared_gate else 0)
    return experts.total * _gated_mlp(config, experts.size) + shared + router


def _gated_mlp(config: ModelConfig, size: int) -> int:
    """Gate and up projections (hidden -> size) and the down projection; gpt-oss's experts add biases."""
    biases = 2 * size + config.hidden_size if config.family.expert_bias else 0
    return 3 * config.hidden_size * size + biases


def _unused_experts(config: ModelConfig) -> int:
    experts = config.experts
    if experts is None:
        return 0
    moe_layers = len(config.layer_kinds) - experts.dense_layers
    return moe_layers * (experts.total - experts.active) * _gated_mlp(config, experts.size)


def count_from_index(config: ModelConfig, config_name: str, index: JsonFile) -> ParameterCount:
    """The total from a safetensors index (its metadata.total_size ÷ the bytes of the stored dtype); the active
    count less the experts a token does not use, by the config."""
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
    return ParameterCount(total, total - _unused_experts(config))


def _total_size(index: JsonFile, problems: list[Problem]) -> int | None:
    metadata = index.value.get("metadata")
    size = metadata.get("total_size") if isinstance(metadata, dict) else None
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        line = index.line_of(("metadata", "total_size"))
        message = "missing" if size is None else f"must be a positive whole number of bytes, got {size!r}"
        problems.append(Problem(index.name, line, "metadata.total_size", message))
        return None
    return size
