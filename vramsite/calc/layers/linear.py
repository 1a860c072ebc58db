"""Gated DeltaNet linear attention (Qwen3-Next): no per-token cache, a fixed state per sequence and layer:

    convolution  (2 × key heads × key head dim + value heads × value head dim) × (kernel − 1)
    recurrent    value heads × value head dim × key head dim

elements, at ``state_bytes`` each.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..figure import COUNT, FACTOR, Figure, given, product, total
from .base import KEYS_AND_VALUES, NO_BYTES, LayerKind, count_figure, layers_figure

DEFAULT_STATE_BYTES = Decimal(4)
"""A recurrent state is kept in FP32 unless its layer group says otherwise."""


@dataclass(frozen=True)
class LinearAttention(LayerKind):
    kind = "linear"
    words = "layers:linear"
    schema = {"key_heads": {"$ref": "#/$defs/heads"}, "value_heads": {"$ref": "#/$defs/heads"},
              "key_head_dim": {"$ref": "#/$defs/dim"}, "value_head_dim": {"$ref": "#/$defs/dim"},
              "conv_kernel": {"type": "integer", "minimum": 1, "maximum": 1024},
              "state_bytes": {"type": "number", "minimum": 0.5, "maximum": 8,
                              "description": "Bytes per state element; 4 (FP32) when not given."}}
    config_layer_type = "linear_attention"
    config_keys = {"key_heads": "linear_num_key_heads", "value_heads": "linear_num_value_heads",
                   "key_head_dim": "linear_key_head_dim", "value_head_dim": "linear_value_head_dim",
                   "conv_kernel": "linear_conv_kernel_dim"}
    caches_tokens = False
    split_over_cards = ("key_heads", "value_heads")

    count: int
    key_heads: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int
    state_bytes: Decimal = DEFAULT_STATE_BYTES

    def bytes_per_token(self, b: Figure) -> Figure:
        return NO_BYTES

    def conv_elements(self) -> Figure:
        keys = product(KEYS_AND_VALUES, count_figure(self.key_heads, "key heads"),
                       count_figure(self.key_head_dim, "key head dim"), unit="", kind=COUNT,
                       label="query and key channels")
        values = product(count_figure(self.value_heads, "value heads"),
                         count_figure(self.value_head_dim, "value head dim"), unit="", kind=COUNT,
                         label="value channels")
        channels = total(keys, values, unit="", kind=COUNT, label="convolution channels")
        return product(channels, count_figure(self.conv_kernel - 1, "kernel − 1"), unit="", kind=COUNT,
                       label="convolution state")

    def recurrent_elements(self) -> Figure:
        return product(count_figure(self.value_heads, "value heads"), count_figure(self.value_head_dim, "value head dim"),
                       count_figure(self.key_head_dim, "key head dim"), unit="", kind=COUNT, label="recurrent state")

    def state(self) -> Figure:
        elements = total(self.conv_elements(), self.recurrent_elements(), unit="", kind=COUNT,
                         label="state elements per layer")
        return product(layers_figure(self.count), elements,
                       given(self.state_bytes, "B", FACTOR, "bytes per state element"),
                       unit="B", kind=COUNT, label="linear attention state")
