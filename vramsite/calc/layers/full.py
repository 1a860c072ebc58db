"""Full attention: every token's keys and values, in every layer. The generic KV cache formula, and the kind a
reference shape of data/models.yaml is made of."""

from __future__ import annotations

from dataclasses import dataclass

from ...load.model import Model
from ..figure import COUNT, Figure, product
from .base import KEYS_AND_VALUES, LayerKind, count_figure, layers_figure


@dataclass(frozen=True)
class FullAttention(LayerKind):
    """2 × layers × KV heads × head dim × b per token."""

    kind = "full"
    words = "layers:full"
    per_token_label = "full attention per token"
    schema = {"kv_heads": {"$ref": "#/$defs/heads"}, "head_dim": {"$ref": "#/$defs/dim"}}
    config_layer_type = "full_attention"
    config_keys = {"kv_heads": "num_key_value_heads", "head_dim": "head_dim"}
    split_over_cards = ("kv_heads",)
    projects_kv_heads = True

    count: int
    kv_heads: int
    head_dim: int

    def kv_width(self) -> Figure:
        """KV heads × head dimension: the width of one layer's keys (or values)."""
        return product(self._kv_heads(), self._head_dim(), unit="", kind=COUNT, label="KV width")

    def per_token_terms(self, b: Figure) -> tuple[Figure, ...]:
        """The factors of what one token keeps in these layers: 2 × layers × KV heads × head dim × b."""
        return KEYS_AND_VALUES, layers_figure(self.count), self._kv_heads(), self._head_dim(), b

    def bytes_per_token(self, b: Figure) -> Figure:
        return product(*self.per_token_terms(b), unit="B", kind=COUNT, label=self.per_token_label)

    def _kv_heads(self) -> Figure:
        return count_figure(self.kv_heads, "KV heads", unit="KV heads")

    def _head_dim(self) -> Figure:
        return count_figure(self.head_dim, "head dim", unit="head dim")


def reference_group(model: Model) -> FullAttention:
    """A reference shape of data/models.yaml: all its layers one group of full attention (``Model.layers``)."""
    group, = model.layers
    return FullAttention(group.count, **dict(group.sizes))
