"""Memory per layer kind: what a real model's layers keep for each sequence.

A catalogue model lists its layers in groups of one kind and shape
(load/model.py ``LayerGroup``). Each kind here reads its group's sizes and
answers three questions, with ``b`` the bytes of one cached element:

    bytes_per_token(b)    bytes one token of a sequence adds in these layers
    tokens_held(context)  how many of a sequence's tokens these layers keep
    state()               bytes a sequence keeps whatever its length
    on_one_card(cards)    the same layers as one card holds them when ``cards``
                          cards split the model by tensor (by heads)

A new kind is one class here, listed in ``KINDS``, and its entry in
vramsite/schemas/catalogue.schema.json. A reference shape of data/models.yaml
is one ``full`` group (``reference_layers``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache
from typing import ClassVar, Protocol

from ..load.model import CatalogueModel, LayerGroup, Method, Model, Precision
from ..units import BYTES_PER_GB
from .figure import COUNT, FACTOR, KV_CACHE, MEMORY, WEIGHTS, Figure, Formula, given, product, total
from . import memory
from .memory import KEYS_AND_VALUES, MemoryNeed, Sizing, precision_bytes

DEFAULT_STATE_BYTES = Decimal(4)
"""A recurrent state is kept in FP32 unless its layer group says otherwise."""

NO_BYTES = given(0, "B", COUNT, "nothing")


class LayerKind(Protocol):
    kind: ClassVar[str]
    count: int

    def bytes_per_token(self, b: Figure) -> Figure: ...
    def tokens_held(self, context: Figure) -> Figure: ...
    def state(self) -> Figure: ...
    def on_one_card(self, cards: int) -> "LayerKind": ...


def heads_per_card(heads: int, cards: int) -> int:
    """Heads one card holds when ``cards`` cards share ``heads``: where there are more cards than heads,
    a head is copied onto several cards, so every card holds at least one."""
    return -(-heads // cards)


def _layers(count: int) -> Figure:
    return given(count, "layers", COUNT, "layers")


def _count(value: int, label: str) -> Figure:
    return given(value, "", COUNT, label)


@dataclass(frozen=True)
class FullAttention:
    """Every token's keys and values, in every layer: 2 × layers × KV heads × head dim × b per token."""

    kind: ClassVar[str] = "full"
    count: int
    kv_heads: int
    head_dim: int

    def bytes_per_token(self, b: Figure) -> Figure:
        return product(KEYS_AND_VALUES, _layers(self.count), _count(self.kv_heads, "KV heads"),
                       _count(self.head_dim, "head dim"), b, unit="B", kind=COUNT, label="full attention per token")

    def tokens_held(self, context: Figure) -> Figure:
        return context

    def state(self) -> Figure:
        return NO_BYTES

    def on_one_card(self, cards: int) -> "FullAttention":
        return replace(self, kv_heads=heads_per_card(self.kv_heads, cards))


@dataclass(frozen=True)
class SlidingAttention:
    """Keys and values as full attention, but only of the last ``window`` tokens of a sequence."""

    kind: ClassVar[str] = "sliding"
    count: int
    kv_heads: int
    head_dim: int
    window: int

    def bytes_per_token(self, b: Figure) -> Figure:
        return product(KEYS_AND_VALUES, _layers(self.count), _count(self.kv_heads, "KV heads"),
                       _count(self.head_dim, "head dim"), b, unit="B", kind=COUNT, label="sliding window per token")

    def tokens_held(self, context: Figure) -> Figure:
        window = given(self.window, "tokens", COUNT, "window")
        return Figure(min(context.value, window.value), "tokens", COUNT, "tokens held", Formula("min", (context, window)))

    def state(self) -> Figure:
        return NO_BYTES

    def on_one_card(self, cards: int) -> "SlidingAttention":
        return replace(self, kv_heads=heads_per_card(self.kv_heads, cards))


@dataclass(frozen=True)
class LatentAttention:
    """Multi-head latent attention: one compressed latent and one rotary key per token per layer,
    (kv_lora_rank + rope head dim) × b, not keys and values per head (so no factor 2, no heads)."""

    kind: ClassVar[str] = "latent"
    count: int
    kv_lora_rank: int
    rope_head_dim: int

    def bytes_per_token(self, b: Figure) -> Figure:
        width = total(_count(self.kv_lora_rank, "KV latent rank"), _count(self.rope_head_dim, "rotary head dim"),
                      unit="", kind=COUNT, label="latent width")
        return product(_layers(self.count), width, b, unit="B", kind=COUNT, label="latent per token")

    def tokens_held(self, context: Figure) -> Figure:
        return context

    def state(self) -> Figure:
        return NO_BYTES

    def on_one_card(self, cards: int) -> "LatentAttention":
        """The latent is shared by every head: each card keeps all of it."""
        return self


@dataclass(frozen=True)
class LinearAttention:
    """Gated DeltaNet linear attention: no per-token cache, a fixed state per sequence and layer:

        convolution  (2 × key heads × key head dim + value heads × value head dim) × (kernel − 1)
        recurrent    value heads × value head dim × key head dim

    elements, at ``state_bytes`` each.
    """

    kind: ClassVar[str] = "linear"
    count: int
    key_heads: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int
    state_bytes: Decimal = DEFAULT_STATE_BYTES

    def bytes_per_token(self, b: Figure) -> Figure:
        return NO_BYTES

    def tokens_held(self, context: Figure) -> Figure:
        return given(0, "tokens", COUNT, "tokens held")

    def conv_elements(self) -> Figure:
        keys = product(KEYS_AND_VALUES, _count(self.key_heads, "key heads"), _count(self.key_head_dim, "key head dim"),
                       unit="", kind=COUNT, label="query and key channels")
        values = product(_count(self.value_heads, "value heads"), _count(self.value_head_dim, "value head dim"),
                         unit="", kind=COUNT, label="value channels")
        channels = total(keys, values, unit="", kind=COUNT, label="convolution channels")
        return product(channels, _count(self.conv_kernel - 1, "kernel − 1"), unit="", kind=COUNT,
                       label="convolution state")

    def recurrent_elements(self) -> Figure:
        return product(_count(self.value_heads, "value heads"), _count(self.value_head_dim, "value head dim"),
                       _count(self.key_head_dim, "key head dim"), unit="", kind=COUNT, label="recurrent state")

    def state(self) -> Figure:
        elements = total(self.conv_elements(), self.recurrent_elements(), unit="", kind=COUNT,
                         label="state elements per layer")
        return product(_layers(self.count), elements, given(self.state_bytes, "B", FACTOR, "bytes per state element"),
                       unit="B", kind=COUNT, label="linear attention state")

    def on_one_card(self, cards: int) -> "LinearAttention":
        return replace(self, key_heads=heads_per_card(self.key_heads, cards),
                       value_heads=heads_per_card(self.value_heads, cards))


KINDS: dict[str, type] = {kind.kind: kind for kind in (FullAttention, SlidingAttention, LatentAttention, LinearAttention)}


def layer_kind(group: LayerGroup) -> LayerKind:
    return KINDS[group.kind](count=group.count, **dict(group.sizes))


@lru_cache(maxsize=4096)
def model_layers(model: CatalogueModel) -> tuple[LayerKind, ...]:
    """The model's layer groups as kinds, made once per model: every verdict on every card asks for them."""
    return tuple(layer_kind(group) for group in model.layers)


def on_one_card(layers: tuple[LayerKind, ...], cards: int) -> tuple[LayerKind, ...]:
    """The layers as each of ``cards`` cards holds them under tensor parallelism."""
    return tuple(group.on_one_card(cards) for group in layers)


def reference_layers(model: Model) -> tuple[LayerKind, ...]:
    """A reference shape of data/models.yaml: every layer full attention."""
    return (FullAttention(model.layers, model.kv_heads, model.head_dim),)


def element_bytes(precision: Precision) -> Figure:
    """b: the bytes of one cached element in this format."""
    return given(precision.bytes_per_param, "B", FACTOR, f"{precision.label} bytes per element")


# -- per token and per sequence ----------------------------------------------


@lru_cache(maxsize=8192)
def kv_bytes_per_token(layers: tuple[LayerKind, ...], b: Figure) -> Figure:
    """What one token costs in every layer that caches it, while every window still holds it (B)."""
    return total(*(group.bytes_per_token(b) for group in layers), unit="B", kind=COUNT, label="KV cache per token")


def kv_bytes_per_token_beyond_windows(layers: tuple[LayerKind, ...], b: Figure) -> Figure:
    """What each token past the longest window still adds: the layers that keep every token (B)."""
    kept = [group.bytes_per_token(b) for group in layers if not isinstance(group, SlidingAttention)]
    return total(*kept, NO_BYTES, unit="B", kind=COUNT, label="KV cache per token beyond the windows")


def kv_cache_bytes(layers: tuple[LayerKind, ...], b: Figure, context: int) -> Figure:
    """One sequence's cache at ``context`` tokens: each group's bytes per token × the tokens it holds (B)."""
    tokens = given(context, "tokens", COUNT, "context")
    terms = [product(group.bytes_per_token(b), group.tokens_held(tokens), unit="B", kind=COUNT,
                     label=f"{group.kind} layers")
             for group in layers]
    return total(*terms, NO_BYTES, unit="B", kind=COUNT, label="KV cache per sequence")


def state_per_sequence(layers: tuple[LayerKind, ...]) -> Figure:
    """What a sequence keeps whatever its length: the recurrent state of linear layers (B)."""
    return total(*(group.state() for group in layers), NO_BYTES, unit="B", kind=COUNT, label="state per sequence")


@lru_cache(maxsize=8192)
def sequence_bytes(layers: tuple[LayerKind, ...], b: Figure, context: int) -> Figure:
    """Everything one sequence of ``context`` tokens keeps: its KV cache and its state (B)."""
    return total(kv_cache_bytes(layers, b, context), state_per_sequence(layers), unit="B", kind=COUNT,
                 label="memory per sequence")


def kv_cache(layers: tuple[LayerKind, ...], b: Figure, context: int, batch: int) -> Figure:
    """The KV cache of ``batch`` sequences of ``context`` tokens, in GB (state not included)."""
    return product(kv_cache_bytes(layers, b, context), given(batch, "sequences", COUNT, "batch"),
                   unit="GB", kind=KV_CACHE, label="KV cache", scale=1 / BYTES_PER_GB)


def sequences_memory(layers: tuple[LayerKind, ...], b: Figure, context: int, batch: int) -> Figure:
    """What ``batch`` sequences of ``context`` tokens keep, KV cache and state, in GB."""
    return product(sequence_bytes(layers, b, context), given(batch, "sequences", COUNT, "batch"),
                   unit="GB", kind=KV_CACHE, label="KV cache and state", scale=1 / BYTES_PER_GB)


def method_memory(model: CatalogueModel, method: Method, sizing: Sizing, context: int | None = None,
                  batch: int | None = None, cards: int = 1) -> MemoryNeed:
    """A method's memory for a real model on ``cards`` cards split by tensor, as the total the cards
    share: memory.method_memory with the KV cache and state of the layers each card holds, × cards.

    On one card, or where every group splits evenly, that is the model's own cache; a latent cache,
    or KV heads fewer than the cards, is kept whole on every card, and the total grows with it.
    """
    layers = on_one_card(model_layers(model), cards)

    def cache_of(kv_precision: Precision, context_tokens: int, batch_size: int) -> Figure:
        per_card = sequences_memory(layers, element_bytes(kv_precision), context_tokens, batch_size)
        if cards == 1:
            return per_card
        return product(per_card, given(cards, "cards", COUNT, "cards"), unit="GB", kind=KV_CACHE,
                       label="KV cache and state on every card")

    return memory.method_memory(model, method, sizing, context, batch, cache_of)


# -- weights -----------------------------------------------------------------


def weights(model: CatalogueModel, precision: Precision) -> Figure:
    """Every parameter, every expert included, × bytes per parameter = GB."""
    params = given(model.params_billion, "B params", FACTOR, "parameters")
    return product(params, precision_bytes(precision), unit="GB", kind=WEIGHTS, label="weights")


def decode_read(model: CatalogueModel, precision: Precision) -> Figure:
    """The weights one decoded token reads: active parameters × bytes per parameter = GB."""
    params = given(model.active_params_billion, "B params", FACTOR, "active parameters")
    return product(params, precision_bytes(precision), unit="GB", kind=WEIGHTS, label="weights read per token")


# -- what fits ---------------------------------------------------------------


def room(memory: Figure, weights: Figure, overhead: Figure) -> Figure:
    """The memory left for sequences beside the weights and the runtime overhead, in GB."""
    return Figure(memory.value - weights.value - overhead.value, "GB", MEMORY, "room for sequences",
                  Formula("−", (memory, weights, overhead)))


def _in_bytes(gb: Figure) -> Figure:
    return product(gb, given(BYTES_PER_GB, "B/GB", FACTOR, "bytes per GB"), unit="B", kind=COUNT, label=gb.label)


def concurrent_sequences(layers: tuple[LayerKind, ...], b: Figure, room_gb: Figure, context: int) -> Figure | None:
    """How many sequences of ``context`` tokens fit the room, each with its cache and state; None: not one."""
    each = sequence_bytes(layers, b, context)
    room_bytes = _in_bytes(room_gb)
    count = (room_bytes.value / each.value).to_integral_value(rounding="ROUND_FLOOR")
    if count < 1:
        return None
    return Figure(count, "sequences", COUNT, "concurrent sequences", Formula("⌊÷⌋", (room_bytes, each)))


def longest_context(layers: tuple[LayerKind, ...], b: Figure, room_gb: Figure, batch: int,
                    limit: int) -> Figure | None:
    """The longest context (whole tokens, at most ``limit``) at which ``batch`` sequences fit the room.

    A sequence's cache grows in straight segments between the windows of its
    sliding layers, so each segment is solved exactly: tokens = ⌊(room per
    sequence − what the filled windows hold) ÷ the bytes a token adds there⌋.
    None when the state alone, or the first token, does not fit.
    """
    per_sequence = _in_bytes(room_gb).value / batch - state_per_sequence(layers).value
    if per_sequence < 0:
        return None
    segment = _segment_holding(_segments(layers, b), per_sequence)
    ceiling = given(limit, "tokens", COUNT, "the model's longest context")
    if segment is None:
        return ceiling
    filled, growing = segment
    left = Figure(per_sequence - filled, "B", COUNT, "room per sequence beyond the filled windows")
    per_token = Figure(growing, "B", COUNT, "KV cache per further token")
    tokens = (left.value / per_token.value).to_integral_value(rounding="ROUND_FLOOR")
    if tokens >= limit:
        return ceiling
    if tokens < 1:
        return None
    return Figure(tokens, "tokens", COUNT, "longest context", Formula("⌊÷⌋", (left, per_token)))


def _segments(layers: tuple[LayerKind, ...], b: Figure) -> list[tuple[Decimal, Decimal, int | None]]:
    """(bytes the filled windows hold, bytes each further token adds, the context where it changes), from 0 up."""
    sliding = [group for group in layers if isinstance(group, SlidingAttention)]
    segments, start = [], 0
    for end in sorted({group.window for group in sliding}) + [None]:
        filled = sum((group.bytes_per_token(b).value * group.window for group in sliding if group.window <= start),
                     Decimal(0))
        growing = sum((group.bytes_per_token(b).value for group in layers
                       if not (isinstance(group, SlidingAttention) and group.window <= start)), Decimal(0))
        segments.append((filled, growing, end))
        start = end
    return segments


def _segment_holding(segments, budget: Decimal) -> tuple[Decimal, Decimal] | None:
    """The segment where a sequence's cache outgrows ``budget``; None: it never does."""
    for filled, growing, end in segments:
        if end is not None and filled + growing * end <= budget:
            continue
        return None if growing == 0 else (filled, growing)
    return None  # pragma: no cover - the last segment has no end
