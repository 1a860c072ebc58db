"""The KV budget a serving engine leaves on each card, and whether it starts.

Each engine of data/engines.yaml names one budget rule, a function here:

    profiled_share   vLLM: memory the driver reports × gpu_memory_utilization
                     − weights − the profiling run's activation peak − memory
                     outside torch (CUDA graphs are captured afterwards, from
                     the share left above the utilization)
    static_fraction  SGLang: mem_fraction_static of the free memory holds the
                     weights and the KV cache
    free_fraction    TensorRT-LLM: free_gpu_memory_fraction of what is free
                     after the weights and activations
    request          llama.cpp: the cache the request asks for, beside the
                     weights and a compute buffer, leaving the --fit margin

Every rule works on one card, in GiB (2³⁰ bytes, as engines log them), with a
runtime overhead per process: under tensor parallelism each card runs its own
process. KV heads per card and the latent copy per card come from the layer
kinds (calc/layers/, ``on_one_card``). The entry point is ``engine_budget``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Callable, Mapping

from ..errors import UnknownId
from ..load.model import CatalogueModel, Engine, Engines, Gpu, KvCacheFormat, WeightFormat
from ..units import BYTES_PER_GB, BYTES_PER_GIB
from . import attention
from .card_memory import usable_gb
from .figure import COUNT, FACTOR, MEMORY, WEIGHTS, Figure, Formula, difference, given, product, total
from .weight_formats import class_bytes

GIB = "GiB"
MIB_PER_GIB = Decimal(1024)
BITS_PER_BYTE = Decimal(8)
V0_MIN_BATCHED_TOKENS = 2048
"""vLLM V0 without chunked prefill: max_num_batched_tokens = max(max_model_len, 2048) (vllm/config.py)."""


@dataclass(frozen=True)
class Budget:
    """What one engine leaves for the KV cache on each card, and its verdict.

    ``kv_cache_gib`` is the budget the engine keeps per card (for llama.cpp,
    which sizes the cache to the request, the cache it allocates); ``kv_tokens``
    the tokens it holds; ``starts`` whether the engine starts at this context;
    ``fits`` whether it also holds ``sequences`` sequences of ``context`` at
    once; ``headroom_gib`` what is left per card once they are held (negative:
    short); ``reason`` the engine's own words where it does not fit.
    """

    engine: str
    settings: tuple[tuple[str, Decimal], ...]
    memory_gib: Figure
    weights_gib: Figure
    kv_cache_gib: Figure
    kv_tokens: Figure
    starts: bool
    fits: bool
    headroom_gib: Figure
    reason: str | None = None
    taken: tuple[Figure, ...] = ()
    """What the engine takes per card besides the weights and the KV cache."""


@dataclass(frozen=True)
class Request:
    """What the reader asks of one engine on ``cards`` cards of ``memory_gib`` each."""

    engine: Engine
    settings: Mapping[str, Decimal | None]
    """The engine's settings: the reader's where given, else its default for this card (``engine_budget`` resolves
    every one)."""
    memory_gib: Figure
    weights_gib: Figure
    model: CatalogueModel
    cards: int
    context: int
    sequences: int
    kv_format: KvCacheFormat
    given: frozenset[str] = frozenset()
    """The settings the reader set."""

    def setting(self, name: str) -> Decimal | None:
        if name in self.settings:
            return self.settings[name]
        return self.engine.setting(name).default_for(self.memory_gib.value)  # an unknown name: the known ones

    def chosen(self, name: str) -> bool:
        """Whether the reader set ``name`` (rather than taking the engine's default)."""
        return name in self.given

    def setting_figure(self, name: str, unit: str = "") -> Figure:
        return given(self.setting(name), unit, FACTOR, name)

    def term(self, name: str, unit: str = GIB) -> Figure:
        return given(self.engine.term(name).value, unit, MEMORY if unit == GIB else FACTOR, name)

    @property
    def layers(self) -> tuple[attention.LayerKind, ...]:
        return layers_on_one_card(self.model, self.cards)

    @cached_property
    def card_free_terms(self) -> dict:
        """The terms worked out for requests that ask the same of the engine whatever the card (``card_free``)."""
        shape = (self.engine, tuple(self.settings.items()), self.model, self.cards, self.context, self.sequences,
                 self.kv_format, self.given)
        if len(_CARD_FREE) >= CARD_FREE_KEPT:
            _CARD_FREE.clear()
        return _CARD_FREE.setdefault(shape, {})


_CARD_FREE: dict[tuple, dict] = {}
CARD_FREE_KEPT = 16384
"""How many request shapes a process keeps terms for: a site asks a few hundred; a long test session starts over."""


def card_free(term: Callable[[Request], Figure]) -> Callable[[Request], Figure]:
    """``term``, worked out once per request shape: the same figure on every card the shape is asked of."""
    def once(request: Request) -> Figure:
        terms = request.card_free_terms
        found = terms.get(term)
        if found is None:
            found = terms[term] = term(request)
        return found
    once.__doc__, once.__name__, once.__wrapped__ = term.__doc__, term.__name__, term
    return once


# -- looking up ----------------------------------------------------------------


def engine_by_id(engines: Engines, engine_id: str) -> Engine:
    """The engine of that id; UnknownId names the known ones."""
    return engines.engine(engine_id)


def kv_format_by_id(engines: Engines, engine: Engine, format_id: str) -> KvCacheFormat:
    """The KV cache format of that id, where the engine can store it; UnknownId names those it can."""
    accepted = tuple(format_id for format_id, _ in engine.kv_cache_formats)
    if format_id not in accepted:
        raise UnknownId(f"KV cache format of {engine.name}", format_id, accepted)
    return engines.kv_cache_format(format_id)


# -- shared terms ----------------------------------------------------------------


@lru_cache(maxsize=1024)
def layers_on_one_card(model: CatalogueModel, cards: int) -> tuple[attention.LayerKind, ...]:
    """The model's layers as each of ``cards`` cards holds them (worked out once per model and count)."""
    return attention.on_one_card(attention.model_layers(model), cards)


def card_gib(card: Gpu | Figure) -> Figure:
    """The memory one card reports to the driver, in GiB.

    A card whose driver figure the data lacks and whose ECC takes an unknown
    share (card_memory.usable_gb is None) counts its sold size in decimal GB,
    below any figure such a card reports.
    """
    if isinstance(card, Figure):
        return card
    return _reported_gib(card)


@lru_cache(maxsize=256)
def _reported_gib(card: Gpu) -> Figure:
    gb = usable_gb(card) or given(card.memory_gb, "GB", MEMORY, "sold as")
    return product(gb, given(BYTES_PER_GB / BYTES_PER_GIB, "GiB/GB", FACTOR, "GiB per GB"), unit=GIB, kind=MEMORY,
                   label="memory the driver reports")


def element_bytes(kv_format: KvCacheFormat) -> Figure:
    """Bytes of one cached element at the format's real bits."""
    return Figure(value=kv_format.bits / BITS_PER_BYTE, unit="B", kind=FACTOR,
                  label=f"{kv_format.label} bytes per element",
                  formula=Formula("÷", (given(kv_format.bits, "bits", FACTOR, "bits per element"),
                                        given(BITS_PER_BYTE, "bits/B", FACTOR, "bits per byte"))))


@card_free
def kv_bytes_per_token(request: Request) -> Figure:
    """What one token costs on one card, in every layer that caches it (B)."""
    return attention.kv_bytes_per_token(request.layers, element_bytes(request.kv_format))


@card_free
def sequences_gib(request: Request) -> Figure:
    """What ``sequences`` sequences of ``context`` tokens keep on one card, cache and state, where the cards
    split the model by tensor (heads) (GiB)."""
    each = attention.sequence_bytes(request.layers, element_bytes(request.kv_format), request.context)
    return product(each, given(request.sequences, "sequences", COUNT, "sequences"), unit=GIB, kind=MEMORY,
                   label="the sequences' KV cache per card", scale=1 / BYTES_PER_GIB)


@card_free
def sequences_gib_by_layers(request: Request) -> Figure:
    """The same where the cards split the model by layers, as llama.cpp does: each card keeps its share
    of the layers whole, latent included (GiB)."""
    layers = attention.model_layers(request.model)
    each = attention.sequence_bytes(layers, element_bytes(request.kv_format), request.context)
    return product(each, given(request.sequences, "sequences", COUNT, "sequences"),
                   given(Decimal(1) / request.cards, "", FACTOR, "share of the layers per card"), unit=GIB,
                   kind=MEMORY, label="the sequences' KV cache per card", scale=1 / BYTES_PER_GIB)


@card_free
def runtime_overhead(request: Request) -> Figure:
    """What each card's own process takes besides weights, activations and cache (GiB)."""
    own = request.term("runtime_overhead_gib")
    if request.cards == 1:
        return own
    return total(own, request.term("tensor_parallel_overhead_gib"), unit=GIB, kind=MEMORY,
                 label="runtime overhead per process")


def mlp_width(model: CatalogueModel) -> Figure:
    """The MLP width one token passes through per layer, the experts it uses included: the MLP parameters a
    token reads (dense MLP, the experts it routes to, shared experts) over 3 × hidden × layers (gate, up and
    down projections). Llama 3.1 8B: 5,637,144,576 ÷ (3 × 4096 × 32) = 14,336, its intermediate size.

    An entry imported before parameters were recorded by tensor class has only its active count, which then
    included the embedding table: the width is estimated from it less the table and the attention projections;
    where that falls below the hidden size, the hidden size stands.
    """
    hidden = Decimal(model.hidden_size)
    classes = model.parameters
    if classes is not None:
        read = Decimal(classes.dense_mlp + classes.experts_active + classes.shared_experts)
        width = max(hidden, read / (3 * hidden * model.layer_count))
        return Figure(width.to_integral_value(rounding=ROUND_FLOOR), "", COUNT, "MLP width per token")
    projections = sum((_attention_params(model, group) * group.count for group in attention.model_layers(model)),
                      Decimal(0))
    mlp = model.active_params_billion * Decimal(10) ** 9 - model.vocab_size * hidden - projections
    width = max(hidden, mlp / (3 * hidden * model.layer_count))
    return Figure(width.to_integral_value(rounding=ROUND_FLOOR), "", COUNT, "MLP width per token")


def _attention_params(model: CatalogueModel, group: attention.LayerKind) -> Decimal:
    """Query, key, value and output projections of one layer; kinds without projections per head count
    4 × hidden²."""
    hidden = Decimal(model.hidden_size)
    if not group.projects_kv_heads:
        return 4 * hidden * hidden
    queries = Decimal(model.attention_heads * group.head_dim)
    return hidden * (2 * queries + 2 * group.kv_heads * group.head_dim)


def forward_peak(request: Request, tokens: Figure) -> Figure:
    """Activations of one forward pass of ``tokens`` tokens on one card: each token keeps hidden_copies ×
    hidden and mlp_copies × its MLP width (split across the cards) at activation_bytes each (GiB)."""
    hidden = product(request.term("hidden_copies", ""), given(request.model.hidden_size, "", COUNT, "hidden size"),
                     unit="", kind=COUNT, label="hidden values per token")
    width = Figure(mlp_width(request.model).value / request.cards, "", COUNT, "MLP width per token per card")
    mlp = product(request.term("mlp_copies", ""), width, unit="", kind=COUNT, label="MLP values per token")
    per_token = total(hidden, mlp, unit="", kind=COUNT, label="activations per token")
    return product(tokens, per_token, request.term("activation_bytes", "B"), unit=GIB, kind=MEMORY,
                   label="forward activations", scale=1 / BYTES_PER_GIB)


def _larger(first: Figure, second: Figure, label: str) -> Figure:
    return Figure(value=max(first.value, second.value), unit=first.unit, kind=first.kind, label=label,
                  formula=Formula("max", (first, second)))


def _tokens_held(kv_gib: Figure, per_token: Figure) -> Figure:
    if kv_gib.value <= 0 or per_token.value == 0:
        return Figure(0, "tokens", COUNT, "tokens the cache holds")
    held = (kv_gib.value * BYTES_PER_GIB / per_token.value).to_integral_value(rounding=ROUND_FLOOR)
    return Figure(value=held, unit="tokens", kind=COUNT, label="tokens the cache holds",
                  formula=Formula("⌊÷⌋", (kv_gib, per_token)))


# -- the rules ---------------------------------------------------------------------


def batched_tokens(request: Request) -> Figure:
    """The tokens vLLM's profiling run feeds at once: max_num_batched_tokens as set; unset, the engine's
    default where prefill is chunked (V1), else the longest sequence, at least the V0 floor of 2048."""
    if request.chosen("max_num_batched_tokens") or request.setting("chunked_prefill"):
        return request.setting_figure("max_num_batched_tokens", "tokens")
    floor = given(V0_MIN_BATCHED_TOKENS, "tokens", COUNT, "V0's least max_num_batched_tokens")
    context = given(request.context, "tokens", COUNT, "max_model_len")
    return _larger(context, floor, "max_num_batched_tokens")


MEMORY_SHARE = "gpu_memory_utilization"
"""The setting whose share of the memory the driver reports ``profiled_share`` gives the engine."""


def profiled_share(request: Request) -> Budget:
    """vLLM: KV = memory × gpu_memory_utilization − weights − activation peak − memory outside torch.

    The activation peak is the larger of the profiling run's dummy forward of
    max_num_batched_tokens tokens and its dummy sampler over min(max_num_seqs,
    max_num_batched_tokens) rows of the vocabulary (each card samples in full).
    """
    share = product(request.memory_gib, request.setting_figure(MEMORY_SHARE), unit=GIB, kind=MEMORY,
                    label="the share vLLM may use")
    taken = (profiling_peak(request), runtime_overhead(request))
    kv = difference(difference(share, request.weights_gib), total(*taken, unit=GIB, kind=MEMORY, label="taken"),
                    label="KV cache budget")
    tokens = _tokens_held(kv, kv_bytes_per_token(request))
    starts, reason = True, None
    if tokens.value <= 0:
        starts, reason = False, request.engine.error("no_room")
    elif tokens.value < request.context:
        starts = False
        reason = request.engine.error("short_context").format(context=request.context, tokens=tokens.value)
    return _verdict(request, kv, tokens, starts, reason, taken)


@card_free
def profiling_peak(request: Request) -> Figure:
    """vLLM's profiling run: the larger of its forward pass and its sampler (GiB)."""
    batched = batched_tokens(request)
    rows = Figure(min(request.setting("max_num_seqs"), batched.value), "rows", COUNT, "sampler rows")
    sampler = product(rows, given(request.model.vocab_size, "", COUNT, "vocabulary"),
                      request.term("sampler_bytes_per_logit", "B"), unit=GIB, kind=MEMORY, label="sampler peak",
                      scale=1 / BYTES_PER_GIB)
    return _larger(forward_peak(request, batched), sampler, "activation peak")


def static_fraction(request: Request) -> Budget:
    """SGLang: KV = free memory × mem_fraction_static − weights, the fraction derived from the card
    where it is not set (server_args.py _handle_gpu_memory_settings)."""
    free = difference(request.memory_gib, runtime_overhead(request), label="free memory at start")
    fraction = _static_fraction(request)
    kv = difference(product(free, fraction, unit=GIB, kind=MEMORY, label="static share"), request.weights_gib,
                    label="KV cache budget")
    tokens = _tokens_held(kv, kv_bytes_per_token(request))
    starts = tokens.value > 0
    return _verdict(request, kv, tokens, starts, None if starts else request.engine.error("no_room"),
                    (runtime_overhead(request),))


def _static_fraction(request: Request) -> Figure:
    chosen = request.setting("mem_fraction_static")
    if chosen is not None:
        return given(chosen, "", FACTOR, "mem_fraction_static")
    memory_mib = request.memory_gib.value * MIB_PER_GIB
    reserved = (request.engine.term("reserved_base_mib").value
                + max(request.setting("chunked_prefill_size"), Decimal(2048))
                * request.engine.term("reserved_per_prefill_token_mib").value
                + request.setting("cuda_graph_max_bs") * request.engine.term("reserved_per_graph_batch_mib").value
                + request.cards * request.engine.term("reserved_per_card_mib").value)
    if memory_mib > 60 * MIB_PER_GIB:
        reserved = max(reserved, request.engine.term("reserved_floor_mib").value)
    fraction = ((memory_mib - reserved) / memory_mib).quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN)
    return Figure(fraction, "", FACTOR, "mem_fraction_static (derived from the card)")


def free_fraction(request: Request) -> Budget:
    """TensorRT-LLM: KV = free_gpu_memory_fraction × (memory − overhead − weights − activations), or what
    max_tokens tokens take where that is set and smaller."""
    taken = (runtime_overhead(request), engine_activations(request))
    free = difference(difference(request.memory_gib, request.weights_gib),
                      total(*taken, unit=GIB, kind=MEMORY, label="taken"), label="free after weights and activations")
    kv = product(free, request.setting_figure("free_gpu_memory_fraction"), unit=GIB, kind=MEMORY,
                 label="KV cache budget")
    if request.setting("max_tokens") is not None:
        capped = product(request.setting_figure("max_tokens", "tokens"), kv_bytes_per_token(request), unit=GIB,
                         kind=MEMORY, label="max_tokens", scale=1 / BYTES_PER_GIB)
        kv = Figure(value=min(kv.value, capped.value), unit=GIB, kind=MEMORY, label="KV cache budget",
                    formula=Formula("min", (kv, capped)))
    tokens = _tokens_held(kv, kv_bytes_per_token(request))
    starts = tokens.value > 0
    return _verdict(request, kv, tokens, starts, None if starts else request.engine.error("no_room"), taken)


@card_free
def engine_activations(request: Request) -> Figure:
    """TensorRT-LLM: the activations of a forward pass of max_num_tokens tokens (GiB)."""
    return forward_peak(request, request.setting_figure("max_num_tokens", "tokens"))


@card_free
def compute_buffer(request: Request) -> Figure:
    """llama.cpp's compute buffer on one card: the worst-case graph of ubatch tokens, every one an output,
    so the logits [vocab + hidden, ubatch] in F32; without flash attention the attention scores
    [context padded, ubatch, heads] in F32 when they are larger (GiB)."""
    ubatch = request.setting_figure("ubatch", "tokens")
    width = given(request.model.vocab_size + request.model.hidden_size, "", COUNT, "vocabulary + hidden")
    logits = product(ubatch, width, request.term("compute_bytes", "B"), unit=GIB, kind=MEMORY,
                     label="output logits", scale=1 / BYTES_PER_GIB)
    if request.setting("flash_attention"):
        return logits
    pad = request.engine.term("attention_pad_tokens").value
    cells = Figure(-(-request.context * request.sequences // pad) * pad, "tokens", COUNT, "cache cells")
    heads = given(request.model.attention_heads, "", COUNT, "attention heads")
    scores = product(cells, ubatch, heads, request.term("compute_bytes", "B"), unit=GIB, kind=MEMORY,
                     label="attention scores", scale=1 / BYTES_PER_GIB)
    return _larger(logits, scores, "compute buffer")


def request_sized(request: Request) -> Budget:
    """llama.cpp: allocates the cache for the request; it starts at this context where weights, cache,
    compute buffer and the process's overhead leave the --fit margin free. Several cards split the layers."""
    kv = sequences_gib_by_layers(request)
    tokens = Figure(request.context * request.sequences, "tokens", COUNT, "tokens the cache holds")
    taken = (compute_buffer(request), runtime_overhead(request))
    need = total(request.weights_gib, kv, *taken, unit=GIB, kind=MEMORY, label="memory the engine allocates")
    margin = request.setting_figure("fit_margin_gib", GIB)
    headroom = difference(difference(request.memory_gib, need), margin, label="headroom")
    fits = headroom.value >= 0
    reason = None
    if not fits:
        reason = request.engine.error("no_room").format(need=(need.value * MIB_PER_GIB).quantize(Decimal("0.01")))
    return Budget(engine=request.engine.id, settings=_applied(request), memory_gib=request.memory_gib,
                  weights_gib=request.weights_gib, kv_cache_gib=kv, kv_tokens=tokens, starts=fits, fits=fits,
                  headroom_gib=headroom, reason=reason, taken=taken)


RULES: dict[str, Callable[[Request], Budget]] = {
    "profiled_share": profiled_share,
    "static_fraction": static_fraction,
    "free_fraction": free_fraction,
    "request": request_sized,
}


def memory_share(engine: Engine) -> Decimal | None:
    """The share of the memory the driver reports that the engine uses by default, where its rule takes one
    (``profiled_share``); None for the other rules."""
    if RULES[engine.budget] is not profiled_share:
        return None
    return engine.setting(MEMORY_SHARE).default


def _applied(request: Request) -> tuple[tuple[str, Decimal], ...]:
    return _set_settings(tuple(request.settings.items()))


@lru_cache(maxsize=1024)
def _set_settings(settings: tuple[tuple[str, Decimal | None], ...]) -> tuple[tuple[str, Decimal], ...]:
    """The settings that have a value, as a budget reports them."""
    return tuple((name, value) for name, value in settings if value is not None)


def _verdict(request: Request, kv: Figure, tokens: Figure, starts: bool, reason: str | None,
             taken: tuple[Figure, ...]) -> Budget:
    """A budget the engine keeps whatever is asked: it fits where it starts and holds every sequence."""
    headroom = difference(kv, sequences_gib(request), label="headroom")
    fits = starts and headroom.value >= 0
    if starts and not fits:
        reason = (f"{request.engine.name} starts, but its KV cache holds {tokens.value} tokens per card, "
                  f"fewer than {request.sequences} sequences of {request.context} tokens")
    return Budget(engine=request.engine.id, settings=_applied(request), memory_gib=request.memory_gib,
                  weights_gib=request.weights_gib, kv_cache_gib=kv, kv_tokens=tokens, starts=starts, fits=fits,
                  headroom_gib=headroom, reason=reason, taken=taken)


# -- the entry point -------------------------------------------------------------------


def engine_budget(engine: Engine, card: Gpu | Figure, weights_per_card: Figure, model: CatalogueModel, cards: int,
                  context: int, sequences: int, kv_format: KvCacheFormat,
                  settings: Mapping[str, Decimal | int | float | str] | None = None) -> Budget:
    """The KV budget ``engine`` leaves on each of ``cards`` cards and whether it starts and fits.

    ``card``: the card (its memory as the driver reports it) or that memory as a Figure in GiB.
    ``weights_per_card``: the weights one card holds as loaded, a Figure in GiB or bytes.
    ``settings``: the engine's settings the reader changed (gpu_memory_utilization, ...); the rest are
    the engine's defaults of data/engines.yaml. ``context`` is the longest sequence (vLLM's max_model_len).
    """
    if not engine.accepts(kv_format.id):
        raise UnknownId(f"KV cache format of {engine.name}", kv_format.id,
                        tuple(format_id for format_id, _ in engine.kv_cache_formats))
    chosen = {name: Decimal(str(value)) for name, value in (settings or {}).items()}
    for name in chosen:
        engine.setting(name)  # an unknown setting is named with the known ones
    memory = card_gib(card)
    resolved = _resolved_settings(engine, memory.value, tuple(chosen.items()))
    request = Request(engine=engine, settings=resolved, memory_gib=memory, weights_gib=in_gib(weights_per_card),
                      model=model, cards=cards, context=context, sequences=sequences, kv_format=kv_format,
                      given=frozenset(chosen))
    return RULES[engine.budget](request)


@lru_cache(maxsize=1024)
def _resolved_settings(engine: Engine, memory_gib: Decimal, chosen: tuple[tuple[str, Decimal], ...]) -> Mapping:
    """Every setting of the engine: the reader's where chosen, else its default for a card of ``memory_gib``."""
    chosen_by_name = dict(chosen)
    return MappingProxyType({setting.name: chosen_by_name[setting.name] if setting.name in chosen_by_name
                             else setting.default_for(memory_gib) for setting in engine.settings})


def loaded_weights(engine: Engine, model: CatalogueModel, weight_format: WeightFormat, card: Gpu | None, cards: int,
                   stored: Figure) -> Figure:
    """The weights one card holds as ``engine`` loads them, in bytes: ``stored`` (the format's bytes per card), plus the
    padding its kernel for this card needs (data/engines.yaml ``weight_layouts``). A card given only by its
    memory has no features to judge by: its weights are taken as stored.

    Each expert's gate/up and down matrices grow from intermediate × hidden to the padded sizes, with their
    scales: gpt-oss-120b under vLLM's Marlin kernel, 2,880 × 2,880 to 2,944 × 3,072 (+9.0 % of the experts).
    """
    layout = engine.weight_layout(weight_format.id, card.features) if card is not None else None
    if layout is None or model.experts is None or model.parameters is None or not model.parameters.experts:
        return stored
    intermediate, hidden = _expert_intermediate(model, cards), model.hidden_size
    if intermediate is None:
        return stored
    round_intermediate, round_hidden = layout.experts_round_up
    padded = Decimal(_round_up(intermediate, round_intermediate) * _round_up(hidden, round_hidden))
    growth = given(padded / (intermediate * hidden) - 1, "", FACTOR, f"{layout.kernel}'s padding of each expert")
    experts = Figure(class_bytes(model, weight_format, "experts") / cards, "B", WEIGHTS, "experts per card")
    padding = product(experts, growth, unit="B", kind=WEIGHTS,
                      label=f"padding for {engine.name}'s {layout.kernel} kernel")
    return total(stored, padding, unit="B", kind=WEIGHTS, label=f"weights per card as {engine.name} loads them")


def _expert_intermediate(model: CatalogueModel, cards: int) -> int | None:
    """The intermediate size of one routed expert on each card, from its parameters: 3 × hidden × intermediate
    each (gate, up and down; biases, where a model has them, add less than one row). None unless every layer
    is a mixture of experts (no dense MLP): only then is the count of expert layers the layer count."""
    classes = model.parameters
    if classes.dense_mlp:
        return None
    per_expert = classes.experts // (model.experts.total * model.layer_count)
    return -(-(per_expert // (3 * model.hidden_size)) // cards)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def in_gib(weights: Figure) -> Figure:
    """Weights per card in GiB, as engines log them (a Figure in GiB or B)."""
    if weights.unit == GIB:
        return weights
    if weights.unit == "B":
        return product(weights, unit=GIB, kind=MEMORY, label="weights per card", scale=1 / BYTES_PER_GIB)
    raise ValueError(f"weights per card must be in GiB or B, not {weights.unit!r}")
