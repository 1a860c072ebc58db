"""The model shapes a measuring run builds: the reference shapes of a GPU run, and a tiny one for the CPU."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Shape:
    id: str
    layers: int
    attention_heads: int
    kv_heads: int
    hidden_size: int
    intermediate_size: int
    vocab_size: int
    like: str | None = None
    model: str | None = None
    """The reference model of data/models.yaml with this shape."""

    def as_data(self) -> dict:
        """The shape as the measurement file states it (shapes[])."""
        return {key: value for key, value in asdict(self).items() if value is not None}


REFERENCE_SHAPES = (
    Shape(id="7b-gqa", layers=32, attention_heads=32, kv_heads=8, hidden_size=4096, intermediate_size=14336,
          vocab_size=32000, like="Mistral 7B", model="7B"),
    Shape(id="13b-mha", layers=40, attention_heads=40, kv_heads=40, hidden_size=5120, intermediate_size=13824,
          vocab_size=32000, like="Llama 2 13B", model="13B"),
)
"""What a GPU run builds: a grouped-query 7B and a multi-head 13B, the guide's 7B and 13B rows."""

TINY_SHAPE = Shape(id="tiny-gqa", layers=2, attention_heads=4, kv_heads=2, hidden_size=64, intermediate_size=128,
                   vocab_size=256, like="a tiny grouped-query model")
"""What a CPU run builds: every code path in seconds."""
