"""The models as pages ask for them: one view of what every model answers, ``ModelView`` for the reference
shapes and ``CatalogueView`` for real models.

``Guide.model(id)`` makes a ``ModelView`` (sizing.yaml's reference shapes,
sized by calc/memory.py); ``Guide.catalogue_model(id)`` a ``CatalogueView``
(a model of data/catalogue.yaml, sized layer kind by layer kind by
calc/attention.py, and served by calc/serving.py); ``view_of`` the view of a
model of either kind. What both answer (parameters, weights, KV cache, a
method's memory, the decode ceiling) is ``SizedView``'s, each figure by the
model's kind (calc/model_kinds.py). Each view keeps the ``Guide``
(calc/guide.py) that made it, for the data, the defaults and the caches.
"""

from __future__ import annotations

from functools import cache

from ..load.model import CatalogueModel, Gpu, Method, Model, Precision
from ..units import BYTES_PER_GB
from . import attention, cost, memory, price_history, serving, serving_speed, throughput, weight_formats
from .card_view import GpuView
from .figure import COUNT, FACTOR, MEMORY, WEIGHTS, Figure, given, product, quotient
from .lookup import Lookup, Market, first_fit, lookup
from .model_kinds import LAYERS, REFERENCE, ModelKind, kind_of
from .offers import Offer
from .serving import ServingChoice, Verdict, first_that_fits, verdict
from .serving_speed import ServedSpeed


class SizedView:
    """What a model of either kind answers, each figure by its kind's formula.

    Contexts and batches default to sizing.yaml's inference block.
    """

    kind: ModelKind

    def __init__(self, guide, model: Model | CatalogueModel):
        self.guide, self.model = guide, model
        """The ``Guide`` (calc/guide.py) that made it, and the model's record."""

    id = property(lambda self: self.model.id)
    name = property(lambda self: self.model.name)

    def kv_format(self, kv_precision: str | None) -> Precision:
        """The KV cache format named ``kv_precision``, the site's default where None."""
        raise NotImplementedError

    def _context(self, context: int | None) -> int:
        return context or self.guide.data.inference.context_tokens

    def _batch(self, batch: int | None) -> int:
        return batch or self.guide.data.inference.batch

    @property
    def params(self) -> Figure:
        return memory.params(self.model)

    @property
    def layer_count(self) -> Figure:
        return given(self.model.layer_count, "layers", COUNT, "layers")

    def weights(self, precision_id: str) -> Figure:
        """Every parameter, every expert included, × bytes per parameter = GB."""
        return memory.weights(self.model, memory.precision_bytes(self.guide.data.precision(precision_id)))

    def decode_read(self, precision_id: str) -> Figure:
        """The weights one decoded token reads, in GB."""
        return self.kind.decode_read(self.model, self.guide.data.precision(precision_id))

    def decode_ceiling(self, gpu_id: str, precision_id: str, count: int = 1) -> Figure:
        """Tokens per second one stream can at most decode: bandwidth ÷ the weights each token reads."""
        bandwidth = throughput.combined_bandwidth(self.guide.gpu(gpu_id).bandwidth, count)
        return throughput.decode_ceiling(bandwidth, self.decode_read(precision_id))

    def kv_per_token(self, kv_precision: str | None = None) -> Figure:
        """What one token adds to the KV cache (a real model's while every window still fills)."""
        return self.kind.kv_per_token(self.model, self.kv_format(kv_precision))

    def kv(self, context: int | None = None, batch: int | None = None, kv_precision: str | None = None) -> Figure:
        """The KV cache of ``batch`` sequences of ``context`` tokens, in GB."""
        return self.kind.kv_cache(self.model, self.kv_format(kv_precision), self._context(context),
                                  self._batch(batch))

    def need(self, method: Method | str, cards: int = 1, context: int | None = None,
             batch: int | None = None) -> memory.MemoryNeed:
        """The method's memory on ``cards`` cards (a real model's split by tensor), as their total; ``method`` a
        method or the id of one of sizing.yaml's (as content names them: ``model("8B").need("lora")``)."""
        if not isinstance(method, Method):  # an id, or what content passed for one: the data names the known ones
            method = self.guide.method(method)
        key = (self.kind.shape, self.model.id, self.guide._method_key(method), cards, context, batch)
        return self.guide._needs.fetch(key, lambda: self.kind.method_memory(
            self.model, method, self.guide.sizing, context, batch, cards))


class ModelView(SizedView):
    """One reference model, with every figure the pages ask of it."""

    kind = REFERENCE

    examples = property(lambda self: self.model.examples)
    attention = property(lambda self: self.model.attention)

    def kv_format(self, kv_precision: str | None) -> Precision:
        data = self.guide.data
        return data.precision(kv_precision) if kv_precision else data.inference.kv_precision

    @property
    def kv_heads(self) -> Figure:
        return given(self.model.shape("kv_heads"), "KV heads", COUNT, "KV heads")

    @property
    def attention_heads(self) -> Figure:
        return given(self.model.attention_heads, "heads", COUNT, "attention heads")

    @property
    def head_dim(self) -> Figure:
        return given(self.model.shape("head_dim"), "", COUNT, "head dim")

    @property
    def kv_width(self) -> Figure:
        return memory.kv_width(self.model)

    def inference(self, precision_id: str, context: int | None = None,
                  batch: int | None = None) -> memory.MemoryNeed:
        return self.need(self.guide.inference_method(precision_id), context=context, batch=batch)

    def cell(self, method_id: str) -> Lookup:
        return self.guide.cell(self.model.id, method_id)


def _memory_figure(memory_gb) -> Figure:
    if isinstance(memory_gb, Figure):
        return memory_gb
    return given(memory_gb, "GB", MEMORY, "memory")


class CatalogueView(SizedView):
    """One real model, with the figures its layer groups give: KV cache, state, weights, what fits.

    The KV format defaults to ``Guide.kv_precision()``, the overhead beside the
    weights to inference.overhead_gb.
    """

    kind = LAYERS

    def __init__(self, guide, model: CatalogueModel):
        super().__init__(guide, model)
        self.layers = attention.model_layers(model)

    architecture = property(lambda self: self.model.architecture)
    experts = property(lambda self: self.model.experts)
    source = property(lambda self: self.model.source)
    params_from = property(lambda self: self.model.params_from)

    @property
    def active_params(self) -> Figure:
        return given(self.model.active_params_billion, "B params", FACTOR, "active parameters")

    @property
    def max_context(self) -> Figure:
        return given(self.model.max_context, "tokens", COUNT, "longest context")

    context_scaling = property(lambda self: self.model.context_scaling)

    @property
    def context_as_shipped(self) -> Figure | None:
        """The longest context an engine takes without the scaling the vendor documents; None where none is."""
        scaling = self.model.context_scaling
        return given(scaling.as_shipped, "tokens", COUNT, "context as shipped") if scaling else None

    def kv_format(self, kv_precision: str | None) -> Precision:
        return self.guide.kv_precision(kv_precision)

    def _b(self, kv_precision: str | None) -> Figure:
        return attention.element_bytes(self.kv_format(kv_precision))

    def contexts_with_max(self, contexts) -> tuple[int, ...]:
        """``contexts`` and the model's own longest context, in order, each once."""
        return tuple(sorted({*contexts, self.model.max_context}))

    def kv_per_token_beyond_windows(self, kv_precision: str | None = None) -> Figure:
        return attention.kv_bytes_per_token_beyond_windows(self.layers, self._b(kv_precision))

    @property
    def state_per_sequence(self) -> Figure:
        return attention.state_per_sequence(self.layers)

    def room(self, memory_gb, precision_id: str) -> Figure:
        """GB left for sequences in ``memory_gb`` beside the weights and the runtime overhead."""
        return attention.room(_memory_figure(memory_gb), self.weights(precision_id), self.guide.overhead)

    def longest_context(self, memory_gb, precision_id: str, batch: int | None = None,
                        kv_precision: str | None = None) -> Figure | None:
        return attention.longest_context(self.layers, self._b(kv_precision), self.room(memory_gb, precision_id),
                                         self._batch(batch), self.model.max_context)

    def sequences(self, memory_gb, precision_id: str, context: int | None = None,
                  kv_precision: str | None = None) -> Figure | None:
        return attention.concurrent_sequences(self.layers, self._b(kv_precision), self.room(memory_gb, precision_id),
                                              self._context(context))

    # -- serving engines (calc/serving.py) ---------------------------------

    def native_format(self):
        """The format the checkpoint ships in (weight_formats.yaml's assumed_native where the catalogue does not
        say)."""
        return weight_formats.native_format(self.guide.data, self.model)

    def formats(self) -> tuple:
        """The native format, then those weight_formats.yaml ``offered``, each once."""
        ids = dict.fromkeys((self.native_format().id, *self.guide.data.offered_formats))
        return tuple(self.guide.weight_format(format_id) for format_id in ids)

    def serve(self, format_id: str, gpu: Gpu, cards: int = 1, context: int | None = None,
              sequences: int | None = None, engine_id: str | None = None) -> Verdict:
        """Whether the engine (``engine_id``, default: the format's) starts the model on ``cards`` × ``gpu`` at
        ``context`` (default: the site's) and holds ``sequences`` (default: the site's batch), under its default
        settings."""
        context, sequences = self._context(context), self._batch(sequences)
        weight_format, engines = self.guide.weight_format(format_id), self.guide.data.engines
        engine = engines.engine(engine_id) if engine_id else serving.serving_engine(engines, weight_format)
        key = (self.model.id, format_id, gpu.id, cards, context, sequences, engine.id)
        return self.guide._verdicts.fetch(key, lambda: verdict(
            engines, self.model, weight_format, gpu, cards, context, sequences, self.guide.serving_kv().id, engine))

    def serving_choice(self, format_id: str, context: int | None = None,
                       sequences: int | None = None, market: Market | None = None) -> ServingChoice | None:
        """The configuration the selection rule prefers among those where the engine starts and holds the
        sequences (under ``market``'s prices, the site's own by default); None where none does."""
        return first_that_fits(self.guide.serving_offers(market=market),
                               lambda gpu, count: self.serve(format_id, gpu, count, context, sequences))

    def serving_picks(self, format_id: str, markets: tuple[Market, ...]) -> tuple[Offer | None, ...]:
        """The offer ``serving_choice`` picks at the default context under each of ``markets``, each card count's
        verdict worked out once for all of them; None where nothing starts it."""
        starts: dict[tuple[str, int], bool] = {}

        def started(offer: Offer) -> bool:
            key = (offer.gpu.id, offer.count)
            if key not in starts:
                starts[key] = self.serve(format_id, offer.gpu, offer.count).fits
            return starts[key]
        return tuple(next((offer for offer in self.guide.serving_offers(market=market) if started(offer)), None)
                     for market in markets)

    def serving_change(self, format_id: str) -> price_history.AnswerChange:
        """When the serving configuration in the format at the default context last changed with the prices."""
        return price_history.answer_change(self.serving_choice(format_id),
                                           lambda market: self.serving_choice(format_id, market=market),
                                           self.guide.past_markets, self.guide.data.price_history)

    def method_change(self, method: Method) -> price_history.AnswerChange:
        """When the configuration for the method at the default context last changed with the prices."""
        @cache
        def need_on(cards: int) -> Figure:
            return self.need(method, cards).total
        return price_history.answer_change(self.lookup(method), lambda market: self.lookup(method, market),
                                           self.guide.past_markets, self.guide.data.price_history,
                                           lambda market: first_fit(need_on(1), method, market, need_on))

    def format_read(self, format_id: str) -> Figure:
        """The weights one decoded token reads in the format, in GB."""
        def compute() -> Figure:
            read = weight_formats.decode_read(self.model, self.guide.weight_format(format_id))
            return product(read, unit="GB", kind=WEIGHTS, label="weights read per token", scale=1 / BYTES_PER_GB)
        return self.guide._verdicts.fetch(("read", self.model.id, format_id), compute)

    def format_weights(self, format_id: str) -> Figure:
        """Every weight, every expert included, in the format, in GB."""
        stored = serving.stored_weights(self.model, self.guide.weight_format(format_id), 1)
        return product(stored, unit="GB", kind=WEIGHTS, label="weights", scale=1 / BYTES_PER_GB)

    def format_bits(self, format_id: str) -> Figure:
        """Bits per weight on average over every parameter: scales and the parts kept in 16 bits included."""
        stored = serving.stored_weights(self.model, self.guide.weight_format(format_id), 1)
        bits = product(stored, given(8, "bits/B", FACTOR, "bits per byte"), unit="bits", kind=FACTOR, label="bits")
        params = given(self.model.params_billion * 10 ** 9, "", COUNT, "parameters")
        return quotient(bits, params, unit="bits", kind=FACTOR, label="bits per weight")

    def configurations(self, format_id: str) -> tuple[tuple["GpuView", int], ...]:
        """For each priced card, the configuration of it the site's selection rule prefers (its fewest cards) among
        those on which the format's engine starts the model at the site's context and batch."""
        found = []
        for gpu in self.guide.gpus:
            if gpu.hourly is None:
                continue
            choice = first_that_fits(self.guide.serving_offers(gpu.gpu),
                                     lambda card, count: self.serve(format_id, card, count))
            if choice is not None:
                found.append((gpu, choice.offer.count))
        return tuple(found)

    def hourly(self, gpu: "GpuView", cards: int) -> Figure:
        """What ``cards`` × ``gpu`` cost per hour at its hourly price (the calculator's ``cost`` template is this
        formula: render/calculator/formulas.py)."""
        return product(given(cards, "cards", COUNT, "cards"), gpu.hourly, unit="USD/hour", kind=gpu.hourly.kind,
                       label="price per hour")

    def usd_per_million_tokens(self, gpu: "GpuView", format_id: str, cards: int = 1,
                               full_batch: bool = True) -> Figure | None:
        """What a million output tokens cost on ``cards`` × ``gpu`` at its hourly price, the engine decoding its
        full batch (or one sequence) at the site's context; None where the card has no price or no speed."""
        speed = self.speed(format_id, gpu.gpu, cards)
        if gpu.hourly is None or speed is None:
            return None
        step = speed.batch if full_batch else speed.one
        return cost.usd_per_million_tokens(self.hourly(gpu, cards), step.tokens_per_s())

    def cheapest_to_run_format(self, format_id: str) -> tuple["GpuView", int] | None:
        """Of ``configurations``, the one with the lowest cost per million tokens at the full batch; None where
        nothing starts the model, or the site states no speeds."""
        costs = [(self.usd_per_million_tokens(gpu, format_id, cards), gpu, cards)
                 for gpu, cards in self.configurations(format_id)]
        costs = [item for item in costs if item[0] is not None]
        if not costs:
            return None
        _, gpu, cards = min(costs, key=lambda item: (item[0].value, item[2], item[1].id))
        return gpu, cards

    # -- speed (calc/serving_speed.py) ---------------------------------------

    def speed(self, format_id: str, gpu: Gpu, cards: int = 1, context: int | None = None) -> ServedSpeed | None:
        """How fast the format's engine decodes on ``cards`` × ``gpu`` at ``context`` (default: the site's), one
        sequence and a full batch, and how soon it answers; None where the site states no speeds or the engine
        does not start there."""
        speed = self.guide.data.speed
        if speed is None:
            return None
        context = self._context(context)
        key = ("speed", self.model.id, format_id, gpu.id, cards, context)

        def compute() -> ServedSpeed | None:
            weight_format = self.guide.weight_format(format_id)
            rates = self.guide.card_rates(gpu, weight_format)
            return serving_speed.served_speed(self.model, weight_format, self.guide.serving_kv(),
                                              self.serve(format_id, gpu, cards, context), rates, context,
                                              self._batch(None), speed.layer_step_s)
        return self.guide._verdicts.fetch(key, compute)

    # -- methods and the lookup --------------------------------------------

    def lookup(self, method: Method, market: Market | None = None) -> Lookup:
        """The configuration to rent for the method at the default context and batch, each card count held
        to the need as that many cards split it."""
        def need_on(cards: int) -> Figure:
            return self.need(method, cards).total
        return lookup(need_on(1), method, market or self.guide.market, need_on)


def view_of(guide, model: Model | CatalogueModel) -> SizedView:
    """The view of a model of either kind."""
    return _VIEWS[kind_of(model).shape](guide, model)


_VIEWS = {view.kind.shape: view for view in (ModelView, CatalogueView)}
