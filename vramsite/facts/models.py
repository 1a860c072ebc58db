"""The facts of the model pages: the catalogue of real models, and each model's own page.

Params (content/pages.yaml): ``kv_contexts`` — the contexts the KV cache table sizes (the model's
longest is added); ``serving_context`` — the context at which the sequences one card holds are counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calc.figure import COUNT, PERCENT, Figure, given
from ..calc.card_view import GpuView
from ..calc.guide import Guide
from ..calc.layers import GENERIC, KINDS, LayerKind
from ..calc.layers.base import ONE_BYTE
from ..calc.model_views import CatalogueView
from ..calc.engines import memory_share
from ..calc.serving import serving_engine
from ..errors import UnknownId
from ..load.model import Method
from . import register
from .base import Facts


@dataclass(frozen=True)
class LayerKindFacts(Facts):
    """The layers of one kind in the model."""

    layers: Figure
    window: Figure | None
    """The smallest window of its groups, in tokens, where the kind keeps one."""
    elements_per_token: Figure
    """The elements one of its layers keeps per token (a latent layer: kv_lora_rank + rotary head dim)."""


@dataclass(frozen=True)
class Layers(Facts):
    """Which kinds of layers the model has, and what sets its KV cache apart from the generic formula."""

    kinds: dict[str, LayerKindFacts | None]
    """Every kind of calc/layers/ by its name (``facts.layers.kinds.sliding``): None where the model has none."""
    moe: bool
    only_full: bool
    """Every layer of the generic formula's kind (full attention): the formula holds as it is."""
    caching_layers: Figure
    """Layers that keep every token."""
    per_token_beyond_windows: Figure
    stops_growing: bool
    """Every layer that caches tokens keeps a window: past the longest, a sequence's cache grows no more."""
    window_cache: Figure | None
    """One sequence's KV cache once the smallest window is full."""
    state: Figure
    """Bytes one sequence keeps whatever its length (linear attention's state)."""


@dataclass(frozen=True)
class Cheapest(Facts):
    """In the format the model ships in: the configuration the selection rule prefers where its engine starts,
    beside the card cheapest to run it on."""

    fit_engine: str | None
    """The engine that starts it there; None where nothing we rent starts it."""
    fit_gpu: GpuView | None
    fit_count: Figure | None
    fit_card: GpuView | None
    """The card of the fit, where it is one card."""
    fit_price: Figure | None
    worth: GpuView | None
    """The card of the configuration with the lowest cost per million tokens at the engine's full batch, among
    the fewest cards of each kind that start the model."""
    worth_count: Figure | None
    worth_cost: Figure | None
    fit_cost: Figure | None
    """The cost per million tokens on the fit at its full batch."""
    same: bool
    """The fit is the configuration cheapest to run."""
    context: Figure
    """The context the speeds are worked out at."""
    speeds: bool
    """The site states decode speeds (data/throughput.yaml)."""
    checked: Figure | None
    """The bound published one-sequence measurements are held to (data/throughput.yaml ``checked``)."""
    times: Figure | None
    """How many times the fit's cost per million tokens is the other's."""


@dataclass(frozen=True)
class ModelPage(Facts):
    model: CatalogueView
    id: str
    method: Method
    """The inference method the page sizes first (the lookup grid's first inference column)."""
    kv_per_token: Figure
    layers: Layers
    cheapest: Cheapest
    serving: Serving
    kv_contexts: tuple[int, ...]
    past_maximum: bool
    """The KV table shows a context past the model's longest."""
    serving_context: int
    kv_precision: str


def _count(value: int, unit: str) -> Figure:
    return given(value, unit, COUNT)


def _layers(view: CatalogueView, kv_precision: str) -> Layers:
    groups = view.layers
    windows = [group.window_tokens() for group in groups if group.window_tokens() is not None]
    beyond_windows = view.kv_per_token_beyond_windows(kv_precision)
    return Layers(
        kinds={kind.kind: _kind_facts([group for group in groups if type(group) is kind]) for kind in KINDS},
        moe=view.experts is not None,
        only_full=all(type(group) is GENERIC for group in groups),
        caching_layers=_count(sum(group.count for group in groups if group.caches_tokens and group.window_tokens() is None),
                              "layers"),
        per_token_beyond_windows=beyond_windows,
        stops_growing=bool(windows) and beyond_windows.value == 0,
        window_cache=view.kv(context=min(windows), batch=1, kv_precision=kv_precision) if windows else None,
        state=view.state_per_sequence)


def _kind_facts(groups: list[LayerKind]) -> LayerKindFacts | None:
    if not groups:
        return None
    windows = [group.window_tokens() for group in groups if group.window_tokens() is not None]
    first = groups[0]
    elements = first.bytes_per_token(ONE_BYTE).value / first.count
    return LayerKindFacts(_count(sum(group.count for group in groups), "layers"),
                          _count(min(windows), "tokens") if windows else None, _count(elements, ""))


def _cheapest(guide: Guide, view: CatalogueView, format_id: str) -> Cheapest:
    fit = view.serving_choice(format_id)
    fit_gpu = guide.gpu(fit.offer.gpu.id) if fit else None
    fit_count = given(fit.offer.count, "cards", COUNT) if fit else None
    fit_card = fit_gpu if fit and fit.offer.count == 1 else None
    fit_price = fit_gpu.order(fit.offer.count) if fit else None
    best = view.cheapest_to_run_format(format_id)
    worth, worth_count = best if best else (None, None)
    worth_cost = view.usd_per_million_tokens(worth, format_id, worth_count) if best else None
    fit_cost = view.usd_per_million_tokens(fit_gpu, format_id, fit.offer.count) if fit else None
    same = bool(best and fit and (worth.id, worth_count) == (fit_gpu.id, fit.offer.count))
    times = guide.ratio(fit_cost, worth_cost) if fit_cost and worth_cost and not same else None
    return Cheapest(fit_engine=fit.verdict.engine.name if fit else None, fit_gpu=fit_gpu, fit_count=fit_count,
                    fit_card=fit_card, fit_price=fit_price, worth=worth,
                    worth_count=given(worth_count, "cards", COUNT) if best else None, worth_cost=worth_cost,
                    fit_cost=fit_cost,
                    same=same, times=times,
                    context=given(guide.data.inference.context_tokens, "tokens", COUNT, "context"),
                    speeds=guide.data.speed is not None,
                    checked=given(guide.data.speed.checked_within_percent, "%", PERCENT, "bound")
                    if guide.data.speed else None)


@dataclass(frozen=True)
class Serving(Facts):
    """What the model's verdicts assume: the format it ships in, and the engine that serves it."""

    native: str
    """The name of the format the checkpoint ships in."""
    native_weights: Figure
    native_bits: Figure
    engine: str
    utilization: Figure | None
    """The share of the memory the driver reports the engine uses by default, where its rule takes one."""


def _serving(guide: Guide, view: CatalogueView) -> Serving:
    native = view.native_format()
    engine = serving_engine(guide.data.engines, native)
    share = memory_share(engine)
    utilization = given(share * 100, "%", PERCENT) if share is not None else None
    return Serving(native=native.name, native_weights=view.format_weights(native.id),
                   native_bits=view.format_bits(native.id), engine=engine.name, utilization=utilization)


@register("model")
def model_page(guide: Guide, params: dict, model: CatalogueView | None = None) -> ModelPage:
    """A real model's own page (made once per model of data/catalogue.yaml)."""
    if model is None:
        raise UnknownId("real model", "(none: the page is not made once per model)", ())
    method = guide.default_inference()
    kv_precision = guide.kv_precision().id
    contexts = model.contexts_with_max(params.get("kv_contexts", ()))
    return ModelPage(model=model, id=model.id, method=method, kv_per_token=model.kv_per_token(kv_precision),
                     layers=_layers(model, kv_precision), cheapest=_cheapest(guide, model, model.native_format().id),
                     serving=_serving(guide, model), kv_contexts=contexts,
                     past_maximum=any(tokens > model.model.max_context for tokens in contexts),
                     serving_context=params.get("serving_context", guide.data.inference.context_tokens),
                     kv_precision=kv_precision)


@dataclass(frozen=True)
class ModelsPage(Facts):
    count: Figure


@register("models")
def models_page(guide: Guide, params: dict, subject=None) -> ModelsPage:
    """The catalogue of real models."""
    return ModelsPage(given(len(guide.catalogue), "models", COUNT))
