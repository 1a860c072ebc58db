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
    Shape("7b-gqa", 32, 32, 8, 4096, 14336, 32000, like="Mistral 7B", model="7B"),
    Shape("13b-mha", 40, 40, 40, 5120, 13824, 32000, like="Llama 2 13B", model="13B"),
)
"""What a GPU run builds: a grouped-query 7B and a multi-head 13B, the guide's 7B and 13B rows."""

TINY_SHAPE = Shape("tiny-gqa", 2, 4, 2, 64, 128, 256, like="a tiny grouped-query model")
"""What a CPU run builds: every code path in seconds."""
