"""A model's catalogue entry (data/catalogue.yaml's format) from its checked config and parameter count."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .hf_config import FULL, LATENT, LINEAR, SLIDING, ModelConfig


@dataclass(frozen=True)
class Parameters:
    """The counts an entry states, in billions, and where they come from: computed, index or published."""

    total: Decimal
    active: Decimal
    source: str


@dataclass(frozen=True)
class Source:
    repository: str
    file: str
    revision: str


def catalogue_entry(model_id: str, name: str, config: ModelConfig, parameters: Parameters,
                    source: Source) -> dict:
    """The entry's keys in the catalogue's order."""
    entry = {
        "id": model_id, "name": name, "architecture": config.architecture,
        "params_billion": parameters.total, "active_params_billion": parameters.active,
        "params_from": parameters.source,
        "hidden_size": config.hidden_size, "attention_heads": config.attention_heads,
        "max_context": config.max_context, "vocab_size": config.vocab_size,
        "layers": layer_groups(config),
    }
    if config.experts is not None:
        experts = config.experts
        entry["experts"] = {"total": experts.total, "active": experts.active, "shared": experts.shared}
    entry["source"] = {"repository": source.repository, "file": source.file, "revision": source.revision}
    return entry


def layer_groups(config: ModelConfig) -> list[dict]:
    """One group per kind of layer, in the order the kinds first appear; the counts sum to the layers."""
    counts: dict[str, int] = {}
    for kind in config.layer_kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return [{"kind": kind, "count": count, **_fields(config, kind)} for kind, count in counts.items()]


def _fields(config: ModelConfig, kind: str) -> dict:
    if kind == FULL:
        return {"kv_heads": config.kv_heads, "head_dim": config.head_dim}
    if kind == SLIDING:
        return {"kv_heads": config.kv_heads, "head_dim": config.head_dim, "window": config.window}
    if kind == LATENT:
        return {"kv_lora_rank": config.latent.kv_lora_rank, "rope_head_dim": config.latent.rope_head_dim}
    if kind == LINEAR:
        linear = config.linear
        return {"key_heads": linear.key_heads, "value_heads": linear.value_heads,
                "key_head_dim": linear.key_head_dim, "value_head_dim": linear.value_head_dim,
                "conv_kernel": linear.conv_kernel}
    raise ValueError(f"no catalogue fields for {kind} layers")
