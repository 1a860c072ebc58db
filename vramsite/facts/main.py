"""The main site's page facts: what the VRAM guide, the card pages and the pricing page state.

Every card a sentence is about is found by its role (the cheapest per GB, the
pick for a model and method, ...) or named in the page's params; every
comparison the prose makes is a boolean here, so each language only words it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc import card_memory, rules
from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from ..calc.lookup import configuration
from . import register
from .base import Facts
from .measured import Measured, MeasuredCard, measured, measured_card
from .views import Card, Model, Offer, card, card_or_none, holds, model, offer

FP8_FEATURE = "fp8"


# -- shared pieces ------------------------------------------------------------


@dataclass(frozen=True)
class Serving(Facts):
    """A model served at one precision: its need and the cheapest answer."""

    bf16: Offer
    fp8: Offer
    int4: Offer


def serving(guide: Guide, model_id: str, context: int | None = None) -> Serving:
    return Serving(*(offer(guide, guide.lookup(guide.data.model(model_id), guide.inference_method(precision),
                                               context))
                     for precision in ("bf16", "fp8", "int4")))


@dataclass(frozen=True)
class Discount(Facts):
    cards: Figure
    percent: Figure


def discounts(guide: Guide) -> tuple[Discount, ...]:
    return tuple(Discount(given(d.cards, "cards", COUNT), given(d.percent, "%", COUNT))
                 for d in guide.data.discounts)


@dataclass(frozen=True)
class Defaults(Facts):
    """The inference assumptions every table uses."""

    context: Figure
    batch: Figure
    overhead: Figure
    kv_precision: str


def defaults(guide: Guide) -> Defaults:
    inference = guide.data.inference
    return Defaults(given(inference.context_tokens, "", COUNT), given(inference.batch, "", COUNT),
                    guide.overhead, inference.kv_precision.label if inference.kv_precision else "")


# -- the VRAM guide -------------------------------------------------------------


@dataclass(frozen=True)
class Headline(Facts):
    model: Model
    serve: Serving
    bytes_bf16: Figure
    cheapest_per_gb: Card
    largest: Card


@dataclass(frozen=True)
class Formula(Facts):
    overhead: Figure
    bytes_fp32: Figure
    bytes_bf16: Figure
    bytes_fp8: Figure
    bytes_int4: Figure
    kv_factor: Figure
    worked: Figure
    """The reference model at FP8, its need with the derivation."""
    worked_offer: Offer
    bytes_per_gb: Figure
    spec_memory: Figure
    """A spec-sheet size (the worked example's card)."""
    gib_shortfall: Figure
    without_fp8: tuple[str, ...]
    int4_everywhere: bool
    spec_usable: Figure | None = None
    """What the spec_memory card reports to the driver, in decimal GB; None: unknown (GDDR with ECC, no source)."""
    spec_margin: Figure | None = None
    """spec_usable beyond spec_memory, as a percent of spec_memory; None when spec_usable is."""
    spec_card: Card | None = None
    """The card whose spec-sheet size the conventions quote."""
    spec_reported: bool = False
    """Whether spec_usable is what the card reports to the driver (from the data), not its memory kind's rule."""


@dataclass(frozen=True)
class Attention(Facts):
    """A multi-head-attention model set against the reference model's grouped-query attention."""

    model: Model
    cache: Figure
    reference_cache: Figure
    cache_larger: bool
    """True when its cache outgrows the reference model's although it has fewer parameters."""
    ratio: Figure


@dataclass(frozen=True)
class Inference(Facts):
    model_names: tuple[str, ...]
    head_dim: Figure | None
    """The head dimension every model shares; None when they differ."""
    mha: Attention | None
    reference: Model
    reference_cache: Figure
    grouping: Figure
    serving_batch: Figure
    batch_cache: Figure
    fp8_weights: Figure


@dataclass(frozen=True)
class Context(Facts):
    longest: Figure
    shortest_long: Figure
    fp8_cache_ratio: Figure
    default: Offer
    long_cache: Figure
    long_need: Figure
    still_fits: bool
    """Whether the reference model at FP8 and the longer context still fits the card chosen at the default."""
    long_headroom: Figure | None
    roomier: tuple[Card, ...]
    """Single cards that hold the longer context, smallest first."""


@dataclass(frozen=True)
class Finetune(Facts):
    bytes_full: Figure
    bytes_lora: Figure
    bytes_qlora: Figure
    state: dict
    adapter_share: Figure
    adapter_rank: Figure
    adapter_bytes: Figure
    qlora_precision: str
    full_margin: Figure
    adapters_leave_out_activations: bool
    """The LoRA and QLoRA figures add no margin: activations are not in them."""
    adapters_leave_out_overhead: bool
    small_model: Model
    small_lora: Figure
    node_cards: Figure
    full: Offer
    qlora: Offer
    price_gap: Figure | None


@dataclass(frozen=True)
class Tight(Facts):
    model: Model
    method: object
    offer: Offer
    slowest: bool
    slower_than_most: bool
    roomy: Offer | None
    """The cheapest card with room to spare and faster memory, when there is one."""


@dataclass(frozen=True)
class Outlier(Facts):
    """The card on another software stack than CUDA that wins the most grid cells."""

    card: Card
    rocm: bool
    only_some_regions: bool
    undercut: tuple[str, ...]
    """Cards with more memory than most, slower memory and a higher price per GB, smallest first."""


@dataclass(frozen=True)
class Grid(Facts):
    tight_single: Figure
    tight_per_card: Figure
    discounts: tuple[Discount, ...]
    tight: Tight | None
    outlier: Outlier | None
    int4: Offer
    node_cards: Figure


@dataclass(frozen=True)
class MinOrder(Facts):
    card: Card
    list_price: Figure
    order: Figure
    discount: Figure


@dataclass(frozen=True)
class Cost(Facts):
    hours_per_month: Figure
    min_order: MinOrder | None
    different_leaders: bool
    per_gb: Card
    per_gb_older: bool
    """Launched before the newest card we rent."""
    per_gb_slow: bool
    same_size: Card | None
    """The dearest card of the same memory size, for comparison."""
    per_gb_share: Figure | None
    per_bandwidth: Card
    per_bandwidth_older: bool
    reference: Card
    per_bandwidth_ratio: Figure | None


@dataclass(frozen=True)
class Ceilings(Facts):
    model: Model
    weights: Figure
    slow: Card
    slow_ceiling: Figure
    fast: Card
    fast_ceiling: Figure
    both_hold: bool
    ratio: Figure


@dataclass(frozen=True)
class Quantized(Facts):
    model: Model
    dense: Offer
    dense_weights: Figure
    dense_ceiling: Figure | None
    small_need: Figure
    small: Card | None
    small_weights: Figure
    small_ceiling: Figure | None
    faster: bool
    cheaper: bool
    cheaper_by: Figure | None


@dataclass(frozen=True)
class Pair(Facts):
    count: Figure
    card: Card
    memory: Figure
    order: Figure
    single: Card | None
    """The cheapest single card with more memory than one of the pair, up to the pair's together."""
    more_memory: bool
    cheaper: bool
    share: Figure | None


@dataclass(frozen=True)
class Links(Facts):
    nvlink: Card | None
    bridged: tuple[str, ...]
    bridge: Figure | None
    pcie: Card | None
    """A card without NVLink, over PCIe."""
    other_pcie: Card | None
    """A card on another PCIe generation than ``pcie``."""


@dataclass(frozen=True)
class Tradeoffs(Facts):
    ceilings: Ceilings
    quantized: Quantized
    pair: Pair | None
    links: Links
    comparison_memory: Figure
    """One card's memory in the comparison table's first configuration."""


@dataclass(frozen=True)
class NotUs(Facts):
    minimum_days: Figure
    try_model: Model
    try_card: Card
    largest_model: Model
    largest_full: Figure


@dataclass(frozen=True)
class Learner(Facts):
    card: Card
    up_to: Model | None
    """The largest model the card holds both at INT4 and under QLoRA."""
    int4: Figure | None
    qlora: Figure | None


@dataclass(frozen=True)
class Tldr(Facts):
    learner: Learner
    production: Card
    production_model: Model
    production_need: Figure
    production_holds: bool
    budget: Figure
    fastest: Card | None
    reference: Model
    serve: Serving
    long: Offer
    long_context: Figure


@dataclass(frozen=True)
class Small(Facts):
    """The smallest model at the default context: the FAQ's second answer."""

    model: Model
    serve: Serving
    card_memory: Figure | None
    all_fit_card: bool
    """All three needs fit the BF16 pick's memory size."""
    bf16_card_covers_int4: bool
    bf16_card_has_fp8: bool
    ceiling: Figure | None
    fast: Card | None
    fast_ceiling: Figure | None


@dataclass(frozen=True)
class KvAnswer(Facts):
    model: Model
    per_token: Figure
    cache: Figure
    long_cache: Figure
    longest: Figure


@dataclass(frozen=True)
class Fit(Facts):
    model: Model
    need: Figure
    fits: bool


@dataclass(frozen=True)
class FinetuneOn(Facts):
    """Which models one card holds under each fine-tuning method, smallest model first."""

    card: Card
    qlora: tuple[Fit, ...]
    lora: tuple[Fit, ...]
    full: tuple[Fit, ...]
    bytes_full: Figure


@dataclass(frozen=True)
class LargestModel(Facts):
    model: Model
    serve: Serving
    int4_slow: bool
    full: Figure


@dataclass(frozen=True)
class Ranked(Facts):
    first: Card
    next: tuple[Card, ...]
    reference: Card
    reference_fp8: bool


@dataclass(frozen=True)
class Faq(Facts):
    reference: Model
    reference_cache: Figure
    serve: Serving
    small: Small
    kv: KvAnswer
    finetune_on: FinetuneOn
    largest: LargestModel
    pair_memory: Figure
    ranked: Ranked
    int4_label: str


@dataclass(frozen=True)
class VramFacts(Facts):
    defaults: Defaults
    headline: Headline
    formula: Formula
    inference: Inference
    context: Context
    finetune: Finetune
    grid: Grid
    cost: Cost
    tradeoffs: Tradeoffs
    not_us: NotUs
    tldr: Tldr
    faq: Faq
    card_count: Figure
    cheapest_price: Figure
    measured: Measured | None = None
    """The first measuring run of data/measurements/ against the formulas; None where the site has none."""


@register("vram")
def vram(guide: Guide, params: dict, subject=None) -> VramFacts:
    """The VRAM guide. Params: ``reference_model`` (the model the guide works through), ``mid_model``,
    ``reference_card`` and ``production_card`` (cards the prose compares with), plus the contexts,
    batch, budget and pair the page already names."""
    reference = guide.model(params["reference_model"])
    reference_card = guide.gpu(params["reference_card"])
    serve = serving(guide, reference.id)
    return VramFacts(
        defaults(guide), _headline(guide, reference, serve), _formula(guide, reference, serve),
        _inference(guide, reference, params), _context(guide, reference, serve, params),
        _finetune(guide, reference), _grid(guide, serve), _cost(guide, reference_card),
        _tradeoffs(guide, params), _not_us(guide), _tldr(guide, reference, serve, params),
        _faq(guide, reference, serve, reference_card, params), guide.card_count, guide.cheapest_card().price,
        measured(guide, guide.measured_runs[0]) if guide.measured_runs else None)


def _headline(guide: Guide, reference, serve: Serving) -> Headline:
    return Headline(model(reference), serve, guide.precision_bytes("bf16"), card(guide.cheapest_per_gb()),
                    card(guide.largest_card()))


def _formula(guide: Guide, reference, serve: Serving) -> Formula:
    spec_card = serve.fp8.card or card(guide.largest_card())
    spec, spec_gpu = spec_card.memory, spec_card.gpu
    int4 = guide.data.precision("int4")
    return Formula(guide.overhead, guide.precision_bytes("fp32"), guide.precision_bytes("bf16"),
                   guide.precision_bytes("fp8"), guide.precision_bytes("int4"), guide.kv_factor,
                   reference.inference("fp8").total, serve.fp8, guide.bytes_per_gb, spec,
                   guide.gib_shortfall(),
                   tuple(g.name for g in guide.gpus_without(FP8_FEATURE)), int4.requires_feature is None,
                   card_memory.usable_gb(spec_gpu), card_memory.margin_percent(spec_gpu),
                   spec_card, card_memory.reported_gb(spec_gpu) is not None)


def _inference(guide: Guide, reference, params: dict) -> Inference:
    head_dims = {m.model.head_dim for m in guide.models}
    batch = params["serving_batch"]
    return Inference(
        tuple(m.name for m in guide.models),
        given(head_dims.pop(), "", COUNT) if len(head_dims) == 1 else None,
        _attention(guide, reference), model(reference), reference.kv(),
        guide.ratio(reference.attention_heads, reference.kv_heads), given(batch, "", COUNT),
        reference.kv(batch=batch), reference.weights("fp8"))


def _attention(guide: Guide, reference) -> Attention | None:
    mha = next((m for m in guide.models if m.attention == "mha" and m.id != reference.id), None)
    if mha is None or reference.attention == "mha":
        return None
    larger = mha.kv().value > reference.kv().value and mha.params.value < reference.params.value
    return Attention(model(mha), mha.kv(), reference.kv(), larger, guide.ratio(mha.kv_heads, reference.kv_heads))


def _context(guide: Guide, reference, serve: Serving, params: dict) -> Context:
    long_contexts = params["long_contexts"]
    longer = long_contexts[0]
    need = reference.inference("fp8", context=longer).total
    picked = serve.fp8
    still = picked.fits and rules.fits(need.value, picked.card.gpu.memory_gb, int(picked.count.value))
    headroom = configuration(need, picked.card.gpu, int(picked.count.value), guide.market).headroom_per_card \
        if still else None
    method = guide.inference_method("fp8")
    roomier = sorted((g for g in guide.gpus if g.price is not None and rules.fits(need.value, g.gpu.memory_gb)
                      and rules.meets_rules(g.gpu, 1, method, guide.data.lookup)),
                     key=lambda g: (g.gpu.memory_gb, g.id))
    return Context(given(long_contexts[-1], "", COUNT), given(longer, "", COUNT),
                   guide.ratio(reference.kv(kv_precision="bf16"), reference.kv(kv_precision="fp8")), picked,
                   reference.kv(context=longer), need, still, headroom, tuple(card(g) for g in roomier))


def _finetune(guide: Guide, reference) -> Finetune:
    finetune = guide.data.finetune
    lora, qlora, full = guide.method("lora"), guide.method("qlora"), guide.method("full-act")
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    full_offer, qlora_offer = offer(guide, reference.cell("full-act")), offer(guide, reference.cell("qlora"))
    gap = guide.ratio(full_offer.price, qlora_offer.price) if full_offer.fits and qlora_offer.fits else None
    return Finetune(
        guide.bytes_per_param("full"), guide.bytes_per_param("lora"), guide.bytes_per_param("qlora"),
        guide.training_state, given(finetune.adapter.share_percent, "", COUNT), given(finetune.adapter.rank, "", COUNT),
        given(finetune.adapter.bytes_per_param, "", COUNT), qlora.precision.label,
        given(full.margin_percent, "", COUNT),
        all(m.margin_percent == 0 for m in (lora, qlora)), all(m.overhead_gb == 0 for m in (lora, qlora)),
        model(small), small.need("lora").total, full_offer.node_cards, full_offer, qlora_offer, gap)


def _grid(guide: Guide, serve: Serving) -> Grid:
    return Grid(guide.tight_single, guide.tight_per_card,
                discounts(guide), _tight(guide), _outlier(guide), serve.int4,
                given(max(guide.data.lookup.card_counts), "", COUNT))


def _tight(guide: Guide) -> Tight | None:
    single = [cell for cell in guide.grid_cells() if cell[2].choice and cell[2].choice.count == 1]
    if not single:
        return None
    the_model, method, answer = guide.tightest_cell()
    gpu = answer.choice.gpu
    roomy = guide.cheapest(the_model.id, method.id, roomy=True, faster_than=gpu.bandwidth_gbps)
    return Tight(model(guide.model(the_model.id)), method, offer(guide, answer), guide.slowest_memory().id == gpu.id,
                 guide.slower_than_most(gpu.id), offer(guide, roomy) if roomy.fits else None)


def _outlier(guide: Guide) -> Outlier | None:
    others = [g for g in guide.gpus if g.stack != "cuda" and g.cells_won()]
    if not others:
        return None
    view = max(others, key=lambda g: (len(g.cells_won()), g.id))
    sizes = sorted(g.gpu.memory_gb for g in guide.gpus)
    median = sizes[len(sizes) // 2]
    undercut = sorted((g for g in guide.gpus if g.usd_per_gb and view.usd_per_gb and g.gpu.memory_gb > median
                       and g.usd_per_gb.value > view.usd_per_gb.value and g.gpu.bandwidth_gbps < view.gpu.bandwidth_gbps),
                      key=lambda g: (g.gpu.memory_gb, g.usd_per_gb.value, g.id))
    return Outlier(card(view), view.stack == "rocm", len(view.regions) < len(guide.data.site.regions),
                   tuple(g.name for g in undercut))


def _cost(guide: Guide, reference_card) -> Cost:
    per_gb, per_bandwidth = guide.cheapest_per_gb(), guide.most_gbps_per_usd()
    newest = guide.newest_launch()
    same_size = guide.dearest_per_gb_of_size(per_gb.gpu.memory_gb, excluding=per_gb.id)
    ratio = None
    if reference_card.gbps_per_usd is not None and reference_card.id != per_bandwidth.id:
        ratio = guide.ratio(per_bandwidth.gbps_per_usd, reference_card.gbps_per_usd)
    return Cost(
        given(guide.data.pricing.hours_per_month, "", COUNT), _min_order(guide), per_gb.id != per_bandwidth.id,
        card(per_gb), _older(per_gb, newest), guide.slower_than_most(per_gb.id), card_or_none(same_size),
        guide.share(per_gb.usd_per_gb, same_size.usd_per_gb) if same_size else None,
        card(per_bandwidth), _older(per_bandwidth, newest), card(reference_card), ratio)


def _older(view, newest: Figure | None) -> bool:
    return bool(view.launched and newest and view.launched.value < newest.value)


def _min_order(guide: Guide) -> MinOrder | None:
    found = [g for g in guide.gpus_with_min_order() if g.price is not None]
    if not found:
        return None
    view = found[0]
    count = int(view.min_cards.value)
    return MinOrder(card(view), view.list_price(count), view.order(count), guide.discount(count))


def _tradeoffs(guide: Guide, params: dict) -> Tradeoffs:
    production = guide.gpu(params["production_card"])
    fast = _fastest_under(guide, params["budget_usd"])
    comparison = guide.gpu(params["comparison"][0][0])
    return Tradeoffs(_ceilings(guide, fast), _quantized(guide, params), _pair(guide, params["pair"]),
                     _links(guide, production, fast, params), comparison.memory)


def _fastest_under(guide: Guide, budget):
    affordable = [g for g in guide.gpus if g.price is not None and g.price.value < Decimal(budget)]
    return guide.fastest_under(budget) if affordable else None


def _ceilings(guide: Guide, fast) -> Ceilings:
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    slow = guide.cheapest_per_gb()
    fast = fast or guide.fastest_memory()
    if fast.gpu.bandwidth_gbps < slow.gpu.bandwidth_gbps:
        slow, fast = fast, slow
    need = small.inference("bf16").total
    return Ceilings(model(small), small.weights("bf16"), card(slow), small.decode_ceiling(slow.id, "bf16"),
                    card(fast), small.decode_ceiling(fast.id, "bf16"),
                    rules.fits(need.value, slow.gpu.memory_gb) and rules.fits(need.value, fast.gpu.memory_gb),
                    guide.ratio(fast.bandwidth, slow.bandwidth))


def _quantized(guide: Guide, params: dict) -> Quantized:
    mid = guide.model(params["mid_model"])
    dense = offer(guide, guide.lookup(mid.model, guide.inference_method("bf16")))
    small_need = mid.inference("int4").total
    holding = [g for g in guide.gpus if g.price is not None and rules.fits(small_need.value, g.gpu.memory_gb)]
    small = None
    if holding:
        size = min(g.gpu.memory_gb for g in holding)
        small = max((g for g in holding if g.gpu.memory_gb == size), key=lambda g: (g.gpu.bandwidth_gbps, g.id))
    dense_ceiling = mid.decode_ceiling(dense.card.gpu.id, "bf16") if dense.fits else None
    small_ceiling = mid.decode_ceiling(small.id, "int4") if small else None
    faster = bool(dense_ceiling and small_ceiling and small_ceiling.value > dense_ceiling.value)
    cheaper = bool(dense.fits and small and small.price.value < dense.price.value)
    return Quantized(model(mid), dense, mid.weights("bf16"), dense_ceiling, small_need, card_or_none(small),
                     mid.weights("int4"), small_ceiling, faster, cheaper,
                     guide.cheaper_by(small.price, dense.price) if cheaper else None)


def _pair(guide: Guide, count: int) -> Pair | None:
    view = guide.cheapest_per_gb()
    order = view.order(count)
    if order is None:
        return None
    together = rules.capacity(view.gpu.memory_gb, count)
    singles = [g for g in guide.gpus if g.price is not None and view.gpu.memory_gb < g.gpu.memory_gb <= together]
    single = min(singles, key=lambda g: (g.price.value, g.id)) if singles else None
    cheaper = bool(single and order.value < single.price.value)
    return Pair(given(count, "", COUNT), card(view), view.memory_of(count), order, card_or_none(single),
                bool(single and together > single.gpu.memory_gb), cheaper,
                guide.share(order, single.price) if single else None)


def _links(guide: Guide, production, fast, params: dict) -> Links:
    reference = guide.gpu(params["reference_card"])
    nvlink = reference if reference.interconnect_kind == "nvlink" else next(
        (g for g in guide.gpus if g.interconnect_kind == "nvlink"), None)
    bridged = [g for g in guide.gpus if g.interconnect_kind == "nvlink-bridge"]
    if bridged:
        size = max(g.gpu.memory_gb for g in bridged)
        bridged = sorted((g for g in bridged if g.gpu.memory_gb == size),
                         key=lambda g: (g.price.value if g.price else Decimal(0), g.id))
    pcie = production if production.interconnect_kind.startswith("pcie") else next(
        (g for g in guide.gpus if g.interconnect_kind.startswith("pcie")), None)
    other = None
    if pcie is not None:
        candidates = ([fast] if fast else []) + list(guide.gpus)
        other = next((g for g in candidates if g.interconnect_kind.startswith("pcie")
                      and g.interconnect_kind != pcie.interconnect_kind), None)
    return Links(card_or_none(nvlink), tuple(g.name for g in bridged), bridged[0].link if bridged else None,
                 card_or_none(pcie), card_or_none(other))


def _not_us(guide: Guide) -> NotUs:
    cheapest = guide.cheapest_card()
    largest = max(guide.models, key=lambda m: (m.params.value, m.id))
    try_model = _largest_held(guide, cheapest, "infer-int4") or min(guide.models, key=lambda m: m.params.value)
    return NotUs(given(guide.data.pricing.minimum_days, "", COUNT), model(try_model), card(cheapest), model(largest),
                 largest.need("full").total)


def _largest_held(guide: Guide, view, *methods: str):
    """The largest model that one ``view`` card holds under every method without fitting tightly."""
    held = [m for m in guide.models
            if all(rules.holds_roomily(view.gpu.memory_gb, _need(guide, m, method).value, guide.data.lookup)
                   for method in methods)]
    return max(held, key=lambda m: (m.params.value, m.id)) if held else None


def _need(guide: Guide, view, method_id: str) -> Figure:
    if method_id.startswith("infer-"):
        return view.inference(method_id.removeprefix("infer-")).total
    return view.need(method_id).total


def _tldr(guide: Guide, reference, serve: Serving, params: dict) -> Tldr:
    cheapest = guide.cheapest_card()
    up_to = _largest_held(guide, cheapest, "infer-int4", "qlora")
    learner = Learner(card(cheapest), model(up_to) if up_to else None,
                      up_to.inference("int4").total if up_to else None, up_to.need("qlora").total if up_to else None)
    production = guide.gpu(params["production_card"])
    mid = guide.model(params["mid_model"])
    need = mid.inference("fp8").total
    fastest = _fastest_under(guide, params["budget_usd"])
    long = guide.cheapest(reference.id, guide.inference_method("fp8").id, context=params["long_context"], stack="cuda")
    return Tldr(learner, card(production), model(mid), need,
                rules.fits(need.value, production.gpu.memory_gb) and production.has(FP8_FEATURE),
                given(params["budget_usd"], "", COUNT), card_or_none(fastest), model(reference), serve,
                offer(guide, long), given(params["long_context"], "", COUNT))


def _faq(guide: Guide, reference, serve: Serving, reference_card, params: dict) -> Faq:
    ranked = guide.gpus_by_usd_per_gb()
    largest = max(guide.models, key=lambda m: (m.params.value, m.id))
    largest_serve = serving(guide, largest.id)
    int4 = largest_serve.int4
    long_contexts = params["long_contexts"]
    return Faq(
        model(reference), reference.kv(), serve, _small(guide, params), KvAnswer(
            model(reference), reference.kv_per_token(), reference.kv(), reference.kv(context=long_contexts[-1]),
            given(long_contexts[-1], "", COUNT)),
        _finetune_on(guide), LargestModel(model(largest), largest_serve,
                                          bool(int4.fits and guide.slower_than_most(int4.card.gpu.id)),
                                          largest.need("full-act").total),
        guide.cheapest_card().memory_of(params["pair"]),
        Ranked(card(ranked[0]), tuple(card(g) for g in ranked[1:4]), card(reference_card),
               reference_card.has(FP8_FEATURE)),
        guide.precision_bytes("int4").label)


def _small(guide: Guide, params: dict) -> Small:
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    serve = serving(guide, small.id)
    bf16 = serve.bf16
    fast = _fastest_under(guide, params["budget_usd"]) or guide.fastest_memory()
    memory = bf16.card.memory if bf16.fits and bf16.one_card else None
    return Small(
        model(small), serve, bf16.card.memory_gb if memory else None,
        bool(memory) and all(rules.fits(o.need.value, memory.value) for o in (serve.bf16, serve.fp8, serve.int4)),
        bool(memory) and holds(bf16.card, serve.int4.need), bool(bf16.card and bf16.card.fp8),
        small.decode_ceiling(bf16.card.gpu.id, "bf16") if bf16.fits else None,
        card(fast) if fast.id != (bf16.card.gpu.id if bf16.card else None) else None,
        small.decode_ceiling(fast.id, "bf16"))


def _finetune_on(guide: Guide) -> FinetuneOn:
    view = guide.cheapest_card()
    models = sorted(guide.models, key=lambda m: (m.params.value, m.id))

    def fits(method_id: str) -> tuple[Fit, ...]:
        needs = ((m, m.need(method_id).total) for m in models)
        return tuple(Fit(model(m), need, rules.fits(need.value, view.gpu.memory_gb)) for m, need in needs)

    return FinetuneOn(card(view), fits("qlora"), fits("lora"), fits("full-act"), guide.bytes_per_param("full"))


# -- the other pages ------------------------------------------------------------


@dataclass(frozen=True)
class GpuPage(Facts):
    card: Card
    id: str
    """The card's id, for the tables that show it."""
    several_min: bool
    """The smallest order is more than one card."""
    wins: bool
    defaults: Defaults
    measured: MeasuredCard | None = None
    """The card's own measured figures, where a run of data/measurements/ was taken on it."""


@register("gpu")
def gpu_page(guide: Guide, params: dict, card_view=None) -> GpuPage:
    """A card's own page (made once per card)."""
    facts = card(card_view)
    return GpuPage(facts, card_view.id, facts.min_cards.value > 1, facts.wins.value > 0, defaults(guide),
                   measured_card(guide, card_view.id))


@dataclass(frozen=True)
class Catalogue(Facts):
    card_count: Figure


@register("catalogue")
def catalogue(guide: Guide, params: dict, subject=None) -> Catalogue:
    return Catalogue(guide.card_count)


@dataclass(frozen=True)
class Example(Facts):
    card: Card
    count: Figure
    order: Figure
    list_price: Figure
    discounted: bool


@dataclass(frozen=True)
class PricingPage(Facts):
    minimum_days: Figure
    hours_per_month: Figure
    discounts: tuple[Discount, ...]
    example: Example | None
    min_order: MinOrder | None


@register("pricing")
def pricing_page(guide: Guide, params: dict, subject=None) -> PricingPage:
    """The pricing page. Params: ``example`` — [card id, card count] for the worked discount."""
    card_id, count = params["example"]
    view = guide.gpu(card_id)
    order = view.order(count)
    example = None
    if order is not None:
        example = Example(card(view), given(count, "", COUNT), order, view.list_price(count),
                          guide.discount(count).value > 0)
    pricing = guide.data.pricing
    return PricingPage(given(pricing.minimum_days, "", COUNT), given(pricing.hours_per_month, "", COUNT),
                       discounts(guide), example, _min_order(guide))
