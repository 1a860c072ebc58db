"""Sliding-window attention: keys and values as full attention, but only of a sequence's last ``window`` tokens."""

from __future__ import annotations

from dataclasses import dataclass

from .full import FullAttention


@dataclass(frozen=True)
class SlidingAttention(FullAttention):
    kind = "sliding"
    words = "layers:sliding"
    per_token_label = "sliding window per token"
    schema = {**FullAttention.schema,
              "window": {"type": "integer", "minimum": 1, "maximum": 100000000,
                         "description": "Tokens a sequence keeps in these layers."}}
    config_layer_type = "sliding_attention"
    config_keys = {**FullAttention.config_keys, "window": "sliding_window"}

    window: int

    def window_tokens(self) -> int:
        return self.window
