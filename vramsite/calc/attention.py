"""What a real model's layers keep for each sequence, and what fits: its layer kinds (calc/layers/) summed.

A catalogue model lists its layers in groups of one kind and shape
(load/model.py ``LayerGroup``); each group is one of the kinds of
calc/layers/, which says what a token and a sequence cost in it. Here the
groups are summed: per token, per sequence, on one card of several, and the
longest context and the sequences that fit a room. A reference shape of
data/models.yaml is one ``full`` group (``layers.full.reference_group``).
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from ..load.model import CatalogueModel, Method, Precision
from ..units import BYTES_PER_GB
from .figure import COUNT, FACTOR, KV_CACHE, MEMORY, WEIGHTS, Figure, Formula, given, product, total
from . import memory
from .layers import LayerKind, layer_kind, model_layers
from .layers.base import NO_BYTES, element_bytes, heads_per_card
from .memory import MemoryNeed, Sizing, precision_bytes

__all__ = ["LayerKind", "element_bytes", "heads_per_card", "layer_kind", "model_layers"]


def on_one_card(layers: tuple[LayerKind, ...], cards: int) -> tuple[LayerKind, ...]:
    """The layers as each of ``cards`` cards holds them under tensor parallelism."""
    return tuple(group.on_one_card(cards) for group in layers)


# -- per token and per sequence ----------------------------------------------


@lru_cache(maxsize=8192)
def kv_bytes_per_token(layers: tuple[LayerKind, ...], b: Figure) -> Figure:
    """What one token costs in every layer that caches it, while every window still holds it (B)."""
    return total(*(group.bytes_per_token(b) for group in layers), unit="B", kind=COUNT, label="KV cache per token")


def kv_bytes_per_token_beyond_windows(layers: tuple[LayerKind, ...], b: Figure) -> Figure:
    """What each token past the longest window still adds: the layers that keep every token (B)."""
    kept = [group.bytes_per_token(b) for group in layers if group.window_tokens() is None]
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


def decode_read(model: CatalogueModel, precision: Precision) -> Figure:
    """The weights one decoded token reads: active parameters × bytes per parameter = GB."""
    params = given(model.active_params_billion, "B params", FACTOR, "active parameters")
    return product(params, precision_bytes(precision), unit="GB", kind=WEIGHTS, label="weights read per token")


# -- what fits ---------------------------------------------------------------


def room(memory: Figure, weights: Figure, overhead: Figure) -> Figure:
    """The memory left for sequences beside the weights and the runtime overhead, in GB."""
    return Figure(value=memory.value - weights.value - overhead.value, unit="GB", kind=MEMORY,
                  label="room for sequences", formula=Formula("−", (memory, weights, overhead)))


def _in_bytes(gb: Figure) -> Figure:
    return product(gb, given(BYTES_PER_GB, "B/GB", FACTOR, "bytes per GB"), unit="B", kind=COUNT, label=gb.label)


def concurrent_sequences(layers: tuple[LayerKind, ...], b: Figure, room_gb: Figure, context: int) -> Figure | None:
    """How many sequences of ``context`` tokens fit the room, each with its cache and state; None: not one."""
    each = sequence_bytes(layers, b, context)
    room_bytes = _in_bytes(room_gb)
    count = (room_bytes.value / each.value).to_integral_value(rounding="ROUND_FLOOR")
    if count < 1:
        return None
    return Figure(value=count, unit="sequences", kind=COUNT, label="concurrent sequences",
                  formula=Formula("⌊÷⌋", (room_bytes, each)))


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
    return Figure(value=tokens, unit="tokens", kind=COUNT, label="longest context",
                  formula=Formula("⌊÷⌋", (left, per_token)))


def _segments(layers: tuple[LayerKind, ...], b: Figure) -> list[tuple[Decimal, Decimal, int | None]]:
    """(bytes the filled windows hold, bytes each further token adds, the context where it changes), from 0 up."""
    segments, start = [], 0
    for end in sorted({group.window_tokens() for group in layers} - {None}) + [None]:
        filled = sum((group.bytes_per_token(b).value * group.window_tokens() for group in layers
                      if _window_full(group, start)), Decimal(0))
        growing = sum((group.bytes_per_token(b).value for group in layers if not _window_full(group, start)),
                      Decimal(0))
        segments.append((filled, growing, end))
        start = end
    return segments


def _window_full(group: LayerKind, tokens: int) -> bool:
    """Whether ``tokens`` tokens fill the group's window, so that a further token adds nothing there."""
    window = group.window_tokens()
    return window is not None and window <= tokens


def _segment_holding(segments, budget: Decimal) -> tuple[Decimal, Decimal] | None:
    """The segment where a sequence's cache outgrows ``budget``; None: it never does."""
    for filled, growing, end in segments:
        if end is not None and filled + growing * end <= budget:
            continue
        return None if growing == 0 else (filled, growing)
    return None  # pragma: no cover - the last segment has no end
