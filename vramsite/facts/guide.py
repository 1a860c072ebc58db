"""The VRAM guide's facts (``facts: vram``): what its sections state, from the headline to the cost of a GB.

Every card a sentence is about is found by its role (the cheapest per GB, the
pick for a model and method, ...) or named in the page's params; every
comparison the prose makes is a boolean here, so each language only words it.
The trade-offs section is in ``guide_tradeoffs.py``, the short answers (TL;DR,
FAQ, when not to rent from us) in ``guide_answers.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calc import card_memory, rules
from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from ..calc.lookup import configuration
from . import register
from .base import Facts
from .guide_answers import Faq, NotUs, Tldr, faq, not_us, tldr
from .guide_tradeoffs import Tradeoffs, tradeoffs
from .measured import Measured, measured
from .shared import FP8_FEATURE, Defaults, Discount, MinOrder, Serving, defaults, discounts, min_order, serving
from .views import Card, Model, Offer, card, card_or_none, model, offer


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
    return VramFacts(defaults=defaults(guide), headline=_headline(guide, reference, serve),
                     formula=_formula(guide, reference, serve), inference=_inference(guide, reference, params),
                     context=_context(guide, reference, serve, params), finetune=_finetune(guide, reference),
                     grid=_grid(guide, serve), cost=_cost(guide, reference_card), tradeoffs=tradeoffs(guide, params),
                     not_us=not_us(guide), tldr=tldr(guide, reference, serve, params),
                     faq=faq(guide, reference, serve, reference_card, params), card_count=guide.card_count,
                     cheapest_price=guide.cheapest_card().price,
                     measured=measured(guide, guide.measured_runs[0]) if guide.measured_runs else None)


def _headline(guide: Guide, reference, serve: Serving) -> Headline:
    return Headline(model=model(reference), serve=serve, bytes_bf16=guide.precision_bytes("bf16"),
                    cheapest_per_gb=card(guide.cheapest_per_gb()), largest=card(guide.largest_card()))


def _formula(guide: Guide, reference, serve: Serving) -> Formula:
    spec_card = serve.fp8.card or card(guide.largest_card())
    spec, spec_gpu = spec_card.memory, spec_card.gpu
    int4 = guide.data.precision("int4")
    return Formula(overhead=guide.overhead, bytes_fp32=guide.precision_bytes("fp32"),
                   bytes_bf16=guide.precision_bytes("bf16"), bytes_fp8=guide.precision_bytes("fp8"),
                   bytes_int4=guide.precision_bytes("int4"), kv_factor=guide.kv_factor,
                   worked=reference.inference("fp8").total, worked_offer=serve.fp8, bytes_per_gb=guide.bytes_per_gb,
                   spec_memory=spec, gib_shortfall=guide.gib_shortfall(),
                   without_fp8=tuple(g.name for g in guide.gpus_without(FP8_FEATURE)),
                   int4_everywhere=int4.requires_feature is None, spec_usable=card_memory.usable_gb(spec_gpu),
                   spec_margin=card_memory.margin_percent(spec_gpu), spec_card=spec_card,
                   spec_reported=card_memory.reported_gb(spec_gpu) is not None)


def _inference(guide: Guide, reference, params: dict) -> Inference:
    head_dims = {m.model.shape("head_dim") for m in guide.models}
    batch = params["serving_batch"]
    return Inference(
        model_names=tuple(m.name for m in guide.models),
        head_dim=given(head_dims.pop(), "", COUNT) if len(head_dims) == 1 else None,
        mha=_attention(guide, reference), reference=model(reference), reference_cache=reference.kv(),
        grouping=guide.ratio(reference.attention_heads, reference.kv_heads), serving_batch=given(batch, "", COUNT),
        batch_cache=reference.kv(batch=batch), fp8_weights=reference.weights("fp8"))


def _attention(guide: Guide, reference) -> Attention | None:
    mha = next((m for m in guide.models if m.attention == "mha" and m.id != reference.id), None)
    if mha is None or reference.attention == "mha":
        return None
    larger = mha.kv().value > reference.kv().value and mha.params.value < reference.params.value
    return Attention(model=model(mha), cache=mha.kv(), reference_cache=reference.kv(), cache_larger=larger,
                     ratio=guide.ratio(mha.kv_heads, reference.kv_heads))


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
    return Context(longest=given(long_contexts[-1], "", COUNT), shortest_long=given(longer, "", COUNT),
                   fp8_cache_ratio=guide.ratio(reference.kv(kv_precision="bf16"), reference.kv(kv_precision="fp8")),
                   default=picked, long_cache=reference.kv(context=longer), long_need=need, still_fits=still,
                   long_headroom=headroom, roomier=tuple(card(g) for g in roomier))


def _finetune(guide: Guide, reference) -> Finetune:
    finetune = guide.data.finetune
    lora, qlora, full = guide.method("lora"), guide.method("qlora"), guide.method("full-act")
    small = min(guide.models, key=lambda m: (m.params.value, m.id))
    full_offer, qlora_offer = offer(guide, reference.cell("full-act")), offer(guide, reference.cell("qlora"))
    gap = guide.ratio(full_offer.price, qlora_offer.price) if full_offer.fits and qlora_offer.fits else None
    return Finetune(bytes_full=guide.bytes_per_param("full"), bytes_lora=guide.bytes_per_param("lora"),
                    bytes_qlora=guide.bytes_per_param("qlora"), state=guide.training_state,
                    adapter_share=given(finetune.adapter.share_percent, "", COUNT),
                    adapter_rank=given(finetune.adapter.rank, "", COUNT),
                    adapter_bytes=given(finetune.adapter.bytes_per_param, "", COUNT),
                    qlora_precision=qlora.precision.label, full_margin=given(full.margin_percent, "", COUNT),
                    adapters_leave_out_activations=all(m.margin_percent == 0 for m in (lora, qlora)),
                    adapters_leave_out_overhead=all(m.overhead_gb == 0 for m in (lora, qlora)),
                    small_model=model(small), small_lora=small.need("lora").total, node_cards=full_offer.node_cards,
                    full=full_offer, qlora=qlora_offer, price_gap=gap)


def _grid(guide: Guide, serve: Serving) -> Grid:
    return Grid(tight_single=guide.tight_single, tight_per_card=guide.tight_per_card, discounts=discounts(guide),
                tight=_tight(guide), outlier=_outlier(guide), int4=serve.int4,
                node_cards=given(max(guide.data.lookup.card_counts), "", COUNT))


def _tight(guide: Guide) -> Tight | None:
    single = [cell for cell in guide.grid_cells() if cell[2].choice and cell[2].choice.count == 1]
    if not single:
        return None
    the_model, method, answer = guide.tightest_cell()
    gpu = answer.choice.gpu
    roomy = guide.cheapest(the_model.id, method.id, roomy=True, faster_than=gpu.bandwidth_gbps)
    return Tight(model=model(guide.model(the_model.id)), method=method, offer=offer(guide, answer),
                 slowest=guide.slowest_memory().id == gpu.id, slower_than_most=guide.slower_than_most(gpu.id),
                 roomy=offer(guide, roomy) if roomy.fits else None)


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
    return Cost(hours_per_month=given(guide.data.pricing.hours_per_month, "", COUNT), min_order=min_order(guide),
                different_leaders=per_gb.id != per_bandwidth.id, per_gb=card(per_gb),
                per_gb_older=_older(per_gb, newest), per_gb_slow=guide.slower_than_most(per_gb.id),
                same_size=card_or_none(same_size),
                per_gb_share=guide.share(per_gb.usd_per_gb, same_size.usd_per_gb) if same_size else None,
                per_bandwidth=card(per_bandwidth), per_bandwidth_older=_older(per_bandwidth, newest),
                reference=card(reference_card), per_bandwidth_ratio=ratio)


def _older(view, newest: Figure | None) -> bool:
    return bool(view.launched and newest and view.launched.value < newest.value)
