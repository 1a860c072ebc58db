"""Multi-head latent attention (MLA, DeepSeek-V3): one compressed latent and one rotary key per token per layer,
(kv_lora_rank + rope head dim) × b, not keys and values per head (so no factor 2, no heads)."""

from __future__ import annotations

from dataclasses import dataclass

from ..figure import COUNT, Figure, product, total
from .base import LayerKind, count_figure, layers_figure


@dataclass(frozen=True)
class LatentAttention(LayerKind):
    """The latent is shared by every head: split across cards, each card keeps all of it."""

    kind = "latent"
    words = "layers:latent"
    per_token_label = "latent per token"
    schema = {"kv_lora_rank": {"$ref": "#/$defs/dim"}, "rope_head_dim": {"$ref": "#/$defs/dim"}}
    config_keys = {"kv_lora_rank": "kv_lora_rank", "rope_head_dim": "qk_rope_head_dim"}

    count: int
    kv_lora_rank: int
    rope_head_dim: int

    def bytes_per_token(self, b: Figure) -> Figure:
        width = total(count_figure(self.kv_lora_rank, "KV latent rank"),
                      count_figure(self.rope_head_dim, "rotary head dim"), unit="", kind=COUNT, label="latent width")
        return product(layers_figure(self.count), width, b, unit="B", kind=COUNT, label=self.per_token_label)
