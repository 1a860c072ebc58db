"""How much memory a model needs: weights, KV cache, and whole methods.

Sizes are decimal GB: billions of parameters × bytes per parameter = GB.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from ..units import BYTES_PER_GB, BYTES_PER_MB
from ..load.model import Finetune, Inference, Method, Model, Precision
from .figure import (
    COUNT,
    Formula,
    FACTOR,
    KV_CACHE,
    KV_PER_TOKEN,
    MEMORY,
    PERCENT,
    WEIGHTS,
    Figure,
    given,
    product,
    total,
)
from .layers.base import element_bytes
from .layers.full import reference_group


def params(model: Model) -> Figure:
    return given(model.params_billion, "B params", FACTOR, "parameters")


def weights(model: Model, bytes_per_param: Figure) -> Figure:
    """Parameters (billions) × bytes per parameter = GB."""
    return product(params(model), bytes_per_param, unit="GB", kind=WEIGHTS, label="weights")


def precision_bytes(precision: Precision) -> Figure:
    return given(precision.bytes_per_param, "B/param", FACTOR, precision.label)


def training_state_bytes(finetune: Finetune) -> Figure:
    """Bytes per parameter that full fine-tuning keeps: the sum of its items."""
    items = [given(value, "B/param", FACTOR, name.replace("_", " ")) for name, value in finetune.training_state_bytes]
    return total(*items, unit="B/param", kind=FACTOR, label="training state")


# A reference shape's KV cache is full attention's (calc/layers/full.py), its factors laid out as one product.


def kv_width(model: Model) -> Figure:
    """KV heads × head dimension: the width of one layer's keys (or values)."""
    return reference_group(model).kv_width()


def kv_bytes_per_token(model: Model, kv_precision: Precision) -> Figure:
    """2 × layers × KV heads × head dim × bytes per element, in bytes."""
    return product(*_per_token_terms(model, kv_precision), unit="B", kind=COUNT, label="KV cache per token")


def kv_per_token_mb(model: Model, kv_precision: Precision) -> Figure:
    per_token = kv_bytes_per_token(model, kv_precision)
    return Figure(value=per_token.value / BYTES_PER_MB, unit="MB", kind=KV_PER_TOKEN, label="KV cache per token",
                  formula=per_token.formula)


def kv_cache(model: Model, kv_precision: Precision, context_tokens: int, batch: int) -> Figure:
    """2 × layers × KV heads × head dim × bytes × context × batch, in GB."""
    return product(
        *_per_token_terms(model, kv_precision),
        given(context_tokens, "tokens", COUNT, "context"),
        given(batch, "batch", COUNT, "batch"),
        unit="GB", kind=KV_CACHE, label="KV cache", scale=1 / BYTES_PER_GB,
    )


def _per_token_terms(model: Model, kv_precision: Precision) -> tuple[Figure, ...]:
    return reference_group(model).per_token_terms(element_bytes(kv_precision))


@dataclass(frozen=True, slots=True)
class NeedLine:
    """A method's memory formula as a straight line in its KV cache, in GB:

        (weights + adapter + KV cache) × (1 + margin) + overhead
          = fixed + KV cache × growth,
        fixed = (weights + adapter) × (1 + margin) + overhead,   growth = 1 + margin

    ``method_memory`` takes its total from ``total``, and the longest context
    from ``kv_room``: the one line, read in both directions.
    """

    fixed: Decimal
    growth: Decimal

    def total(self, kv_cache_gb: Decimal) -> Decimal:
        return self.fixed + kv_cache_gb * self.growth

    def kv_room(self, memory_gb: Decimal) -> Decimal:
        """The largest KV cache whose total still fits ``memory_gb`` (negative when the rest alone does not)."""
        return (memory_gb - self.fixed) / self.growth


def margin_growth(method: Method) -> Decimal:
    """1 + margin: what each GB of weights, adapter and KV cache takes once the margin is added."""
    return 1 + method.margin_percent / 100


def need_line(weights: Figure, adapter: Figure, overhead: Figure, method: Method) -> NeedLine:
    growth = margin_growth(method)
    return NeedLine((weights.value + adapter.value) * growth + overhead.value, growth)


@dataclass(frozen=True, slots=True)
class MemoryNeed:
    """A method's memory, term by term; ``total`` is what must fit."""

    weights: Figure
    adapter: Figure
    kv_cache: Figure
    margin: Figure
    overhead: Figure
    total: Figure
    line: NeedLine
    """The formula behind ``total``, as fixed part and growth with the KV cache."""


@dataclass(frozen=True)
class Sizing:
    """The assumptions a method's formula draws on."""

    inference: Inference
    finetune: Finetune


def weight_bytes(method: Method, sizing: Sizing) -> Figure:
    if method.training_state:
        return training_state_bytes(sizing.finetune)
    if method.precision is not None:
        return precision_bytes(method.precision)
    return given(method.bytes_per_param, "B/param", FACTOR, "bytes per parameter")


def adapter_memory(model: Model, sizing: Sizing) -> Figure:
    """Trainable adapter parameters × their bytes with gradient and optimizer state."""
    adapter = sizing.finetune.adapter
    share = given(adapter.share_percent / 100, "", FACTOR, "adapter share")
    return product(params(model), share, given(adapter.bytes_per_param, "B/param", FACTOR, "adapter state"),
                   unit="GB", kind=WEIGHTS, label="adapter")


KvCache = Callable[[Precision, int, int], Figure]
"""The KV cache in GB of ``batch`` sequences of ``context`` tokens in one format: (format, context, batch)."""


def method_memory(model: Model, method: Method, sizing: Sizing,
                  context_tokens: int | None = None, batch: int | None = None,
                  cache_of: KvCache | None = None) -> MemoryNeed:
    """(weights + adapter + KV cache) × (1 + margin) + overhead, in GB.

    The KV cache is the reference formula of a data/models.yaml shape (``kv_cache``), or ``cache_of``'s
    figure: a real model's, summed layer kind by layer kind (calc/attention.py).
    """
    zero = given(0, "GB", MEMORY)
    the_weights = weights(model, weight_bytes(method, sizing))
    adapter = adapter_memory(model, sizing) if method.adapter else zero
    cache = zero
    if method.kv_cache:
        cache = (cache_of or _reference_cache(model))(
            sizing.inference.kv_precision, context_tokens or sizing.inference.context_tokens,
            batch or sizing.inference.batch)
    subtotal = total(the_weights, adapter, cache, unit="GB", kind=MEMORY, label="subtotal")
    margin = product(subtotal, given(method.margin_percent, "%", PERCENT, "margin"),
                     unit="GB", kind=MEMORY, label="margin", scale=Decimal("0.01"))
    overhead = given(method.overhead_gb, "GB", MEMORY, "runtime overhead")
    line = need_line(the_weights, adapter, overhead, method)
    terms = total(the_weights, adapter, cache, margin, overhead, unit="GB", kind=MEMORY, label="total")
    need = Figure(value=line.total(cache.value), unit=terms.unit, kind=terms.kind, label=terms.label,
                  formula=terms.formula)
    return MemoryNeed(weights=the_weights, adapter=adapter, kv_cache=cache, margin=margin, overhead=overhead,
                      total=need, line=line)


def _reference_cache(model: Model) -> KvCache:
    return lambda kv_precision, context, batch: kv_cache(model, kv_precision, context, batch)


def max_context(model: Model, method: Method, sizing: Sizing, memory_gb: Decimal, batch: int | None = None) -> Figure | None:
    """The longest context (whole tokens) whose KV cache still fits ``memory_gb`` beside the rest.

    The room for the KV cache is the method's own ``NeedLine`` solved for
    ``memory_gb``; context = room ÷ (KV cache per token × batch). None when
    the method counts no KV cache, or when the rest alone does not fit.
    """
    if not method.kv_cache:
        return None
    batch = batch or sizing.inference.batch
    room = method_memory(model, method, sizing, context_tokens=1, batch=batch).line.kv_room(memory_gb)
    if room <= 0:
        return None
    room_gb = Figure(room, "GB", KV_CACHE, "room for the KV cache")
    per_token = kv_per_token_mb(model, sizing.inference.kv_precision)
    per_sequence = product(per_token, given(batch, "batch", COUNT), unit="MB", kind=KV_PER_TOKEN,
                           label="KV cache per token")
    tokens = (room * BYTES_PER_GB / BYTES_PER_MB / per_sequence.value).to_integral_value(rounding="ROUND_FLOOR")
    return Figure(value=tokens, unit="tokens", kind=COUNT, label="longest context",
                  formula=Formula("⌊÷⌋", (room_gb, per_sequence)))
