"""The calculation as one object: what tables and content ask for.

``Guide(data)`` answers every question the pages ask, by name:
``guide.model("70B").inference("fp8").total``, ``guide.gpu("a40").usd_per_gb``,
``guide.cell("70B", "infer-int4").choice.price``. Results are cached, so a
figure asked for by three pages is computed once.

Here: its construction, lookups by id, the caches and the lookup grid. The
views it hands out live beside it (``model_views.py``: ``ModelView``,
``CatalogueView``; ``card_view.py``: ``GpuView``), and so do the questions
it answers over the cards (``card_queries.py``) and the arithmetic the prose
states (``prose_arithmetic.py``), which it inherits.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from decimal import Decimal

from ..load.model import Gpu, Method, MethodKind, Model, Precision, Selection, SiteData
from ..load.reads import DerivedCache, ReadCache, cached_reads
from . import engine_logs, memory, price_history, rules, serving_speed, throughput
from .card_queries import CardQueries
from .card_view import GpuView
from .digest import value_digest
from .figure import COUNT, FACTOR, MEMORY, Figure, given
from .layers.base import KEYS_AND_VALUES
from .lookup import Lookup, Market, first_fit, lookup, ranked_card_offers, ranked_offers
from .measured import MeasuredRun, measured_run
from .model_views import CatalogueView, ModelView, view_of
from .prose_arithmetic import ProseArithmetic
from .weight_formats import format_by_id


class Guide(CardQueries, ProseArithmetic):
    """The site's data, asked by name; the card queries and the prose's arithmetic are inherited."""

    def __init__(self, data: SiteData):
        self.data = data
        self.sizing = memory.Sizing(data.inference, data.finetune)
        self.market = Market(data.gpus, data.pricing, data.discounts, data.lookup)
        self._needs = ReadCache()
        self._cells = ReadCache()
        self._verdicts = ReadCache()
        self._won = DerivedCache("wins", lambda gpu_id: tuple(self._wins.get(gpu_id, ())), value_digest)
        self._configurations = DerivedCache("configurations", lambda _: tuple(self.serving_offers()),
                                            _unpriced_digest)
        self.derived = {cache.kind: cache for cache in (self._won, self._configurations)}
        """The derived values pages read by kind (``load/reads.py``): a rebuild asks them for their digests."""

    # -- lookups by id -----------------------------------------------------

    def model(self, model_id: str) -> "ModelView":
        return ModelView(self, self.data.model(model_id))

    def gpu(self, gpu_id: str) -> "GpuView":
        return GpuView(self, self.data.gpu(gpu_id))

    @cached_reads
    def models(self) -> tuple["ModelView", ...]:
        return tuple(ModelView(self, model) for model in self.data.models)

    @cached_reads
    def gpus(self) -> tuple["GpuView", ...]:
        return tuple(GpuView(self, gpu) for gpu in self.data.gpus)

    @cached_reads
    def catalogue(self) -> tuple["CatalogueView", ...]:
        """The real models of data/catalogue.yaml, in file order."""
        return tuple(CatalogueView(self, model) for model in self.data.catalogue)

    def catalogue_model(self, model_id: str) -> "CatalogueView":
        return CatalogueView(self, self.data.catalogue_model(model_id))

    def kv_precision(self, precision_id: str | None = None) -> Precision:
        """A KV cache format of sizing.yaml kv_precisions; by default the one named like
        inference.kv_precision, else the first listed."""
        data = self.data
        if precision_id is not None:
            return data.kv_precision(precision_id)
        default = data.inference.kv_precision
        named = [p for p in data.kv_precisions if default is not None and p.id == default.id]
        return (named or list(data.kv_precisions))[0]

    def default_inference(self) -> Method:
        """The inference method a model is first sized for: the lookup grid's first inference column
        (its first column's precision where the grid has none)."""
        for method in self.columns:
            if method.kind == MethodKind.INFERENCE:
                return method
        return self.inference_method(self.data.precisions[0].id)

    def method(self, method_id: str) -> Method:
        return self.data.method(method_id)

    def inference_method(self, precision_id: str) -> Method:
        """The inference method for a precision; one is made from the defaults if the grid has none."""
        precision = self.data.precision(precision_id)
        for method in self.data.methods:
            if method.kind == MethodKind.INFERENCE and method.precision == precision:
                return method
        template = next((m for m in self.data.methods if m.kind == MethodKind.INFERENCE), None)
        if template is None:
            inference = self.data.inference
            return Method(id=f"infer-{precision.id}", label="Inference {precision}", kind=MethodKind.INFERENCE,
                          precision=precision, bytes_per_param=None, training_state=False, adapter=False,
                          kv_cache=inference.kv_cache, overhead_gb=inference.overhead_gb,
                          margin_percent=inference.margin_percent, needs_all_to_all=False)
        return replace(template, id=f"infer-{precision.id}", precision=precision)

    # -- serving engines ---------------------------------------------------

    @property
    def serves(self) -> bool:
        """The site has engines and weight formats: real models' verdicts name an engine (calc/serving.py)."""
        return self.data.engines is not None and bool(self.data.weight_formats)

    def weight_format(self, format_id: str):
        return format_by_id(self.data.weight_formats, format_id)

    # -- speed (data/throughput.yaml) ----------------------------------------

    @cached_reads
    def bandwidth_share(self) -> Figure:
        """The share of its spec sheet's bandwidth data/throughput.yaml's measured run reached."""
        return serving_speed.measured_bandwidth_share(self.data)

    def card_rates(self, gpu: Gpu, weight_format) -> throughput.Rates:
        """What one ``gpu`` achieves for weights in ``weight_format`` (calc/serving_speed.card_rates)."""
        return self._verdicts.fetch(("rates", gpu.id, weight_format.id), lambda: serving_speed.card_rates(
            self.data.speed, gpu, weight_format, self.bandwidth_share))

    @property
    def default_engine(self):
        return self.data.engines.engine(self.data.engines.default_engine)

    def serving_kv(self):
        """The engines' KV cache format named like the site's (data/engines.yaml kv_cache_formats)."""
        return self.data.engines.kv_cache_format(self.kv_precision().id)

    def serving_offers(self, gpu: Gpu | None = None, market: Market | None = None):
        """Every priced configuration (of ``gpu`` alone where given) of ``market`` (the site's own by default), in
        the order the site's selection rule prefers them; the engine's verdict stands in for the hardware rules
        (calc/serving.py)."""
        method = replace(self.default_inference(), precision=None, needs_all_to_all=False)
        market = market or self.market
        return ranked_offers(method, market) if gpu is None else ranked_card_offers(gpu, method, market)

    def configurations(self) -> tuple:
        """``serving_offers()``, read as their order and their cards alone: what reads them may use anything of an
        offer but its price, and is kept by a rebuild after a price edit that leaves the order as it was (the
        calculator's model files)."""
        return self._configurations.get("site")

    @cached_reads
    def engine_log_comparisons(self) -> tuple:
        """Each published engine log the engines' model can be set against (calc/engine_logs.py), in file order."""
        if not self.serves:
            return ()
        return engine_logs.comparisons(self.data)

    @property
    def engine_logs_compared(self) -> Figure:
        return given(len(self.engine_log_comparisons), "", COUNT, "logs compared")

    @property
    def engine_logs_held_back(self) -> Figure:
        """Of the logs compared, those kept out of every choice of an engine's terms."""
        return given(sum(item.log.held_back for item in self.engine_log_comparisons), "", COUNT, "logs held back")

    # -- measuring runs ----------------------------------------------------

    @cached_reads
    def measured_runs(self) -> tuple[MeasuredRun, ...]:
        """Each run of data/measurements/ against the formulas, in file name order."""
        return tuple(measured_run(run, self.data) for run in self.data.measurements)

    def measured_on(self, gpu_id: str) -> MeasuredRun | None:
        """The first run taken on card ``gpu_id``; None where none was."""
        return next((run for run in self.measured_runs if run.gpu.id == gpu_id), None)

    # -- assumptions as figures (for prose) --------------------------------

    @property
    def overhead(self) -> Figure:
        return given(self.data.inference.overhead_gb, "GB", MEMORY, "runtime overhead")

    @property
    def context_tokens(self) -> Figure:
        return given(self.data.inference.context_tokens, "tokens", COUNT, "context")

    @property
    def batch(self) -> Figure:
        return given(self.data.inference.batch, "", COUNT, "batch")

    @property
    def picks_cheapest(self) -> bool:
        """The selection rule is ``cheapest``: the lowest-priced single card that holds a need, several cards
        only where none does (lookup.py ``_cheapest_key``), so a pair of cards may cost less than the choice.
        Otherwise it is ``smallest_fit``: the fewest cards, then the least memory, then the lowest price.
        Every sentence that names the lookup's answer words it by this (selection_words.py for tables)."""
        return self.data.lookup.selection == Selection.CHEAPEST

    @property
    def tight_single(self) -> Figure:
        return given(self.data.lookup.tight_single_gb, "GB", MEMORY, "tight on one card")

    @property
    def tight_per_card(self) -> Figure:
        return given(self.data.lookup.tight_per_card_gb, "GB", MEMORY, "tight per card")

    @property
    def kv_factor(self) -> Figure:
        """The leading 2 of the KV cache formula: keys and values."""
        return KEYS_AND_VALUES

    @property
    def bytes_per_gb(self) -> Figure:
        return given(memory.BYTES_PER_GB, "B", COUNT, "bytes per GB")

    @cached_reads
    def training_state(self) -> dict[str, Figure]:
        """Full fine-tuning's bytes per parameter, item by item (weights, gradients, ...)."""
        return {name: given(value, "B", FACTOR, name.replace("_", " "))
                for name, value in self.data.finetune.training_state_bytes}

    def precision_bytes(self, precision_id: str) -> Figure:
        return memory.precision_bytes(self.data.precision(precision_id))

    def bytes_per_param(self, method_id: str) -> Figure:
        """What one parameter's weights cost under a method (16 B for full fine-tuning)."""
        return memory.weight_bytes(self.method(method_id), self.sizing)

    # -- memory and the grid -----------------------------------------------

    def _method_key(self, method: Method):
        """A cheap cache key: the id of a method from the data, the whole method otherwise."""
        return method.id if self.data.method_by_id.get(method.id) is method else method

    def need(self, model: Model, method: Method, context: int | None = None,
             batch: int | None = None) -> memory.MemoryNeed:
        return view_of(self, model).need(method, context=context, batch=batch)

    def lookup(self, model: Model, method: Method, context: int | None = None, batch: int | None = None,
               market: Market | None = None) -> Lookup:
        """The configuration for a model and method; cached for the site's own market."""
        if market is not None:
            return lookup(self.need(model, method, context, batch).total, method, market)
        key = (model.id, self._method_key(method), context, batch)
        return self._cells.fetch(key, lambda: lookup(self.need(model, method, context, batch).total, method,
                                                     self.market))

    def cell(self, model_id: str, method_id: str) -> Lookup:
        """A cell of the lookup grid at the default context and batch (any method, not only the grid's columns)."""
        return self.lookup(self.data.model(model_id), self.data.method(method_id))

    @property
    def columns(self) -> tuple[Method, ...]:
        return self.data.lookup.columns

    def grid_cells(self) -> list[tuple[Model, Method, Lookup]]:
        return list(self._grid)

    @cached_reads
    def _grid(self) -> tuple[tuple[Model, Method, Lookup], ...]:
        return tuple((model, method, self.lookup(model, method))
                     for model in self.data.models for method in self.columns)

    @cached_reads
    def _wins(self) -> dict[str, list]:
        wins: dict[str, list] = {}
        for cell in self._grid:
            if cell[2].choice:
                wins.setdefault(cell[2].choice.gpu.id, []).append(cell)
        return wins

    # -- the price history --------------------------------------------------

    @property
    def keeps_price_history(self) -> bool:
        """Whether the site has dated prices before prices.yaml's own."""
        return len(self.data.price_history) > 1

    def card_prices(self, gpu_id: str) -> tuple[price_history.PricePoint, ...]:
        return price_history.card_prices(self.data.price_history, gpu_id)

    @cached_property
    def past_markets(self) -> tuple[Market, ...]:
        return price_history.past_markets(self.market, self.data.price_history)

    def answer_change(self, model_id: str, method_id: str) -> price_history.AnswerChange:
        """When the lookup's pick for the model and method last changed with the prices, and what it was."""
        model, method = self.data.model(model_id), self.data.method(method_id)
        need = self.need(model, method).total
        return price_history.answer_change(self.lookup(model, method),
                                           lambda market: self.lookup(model, method, market=market),
                                           self.past_markets, self.data.price_history,
                                           lambda market: first_fit(need, method, market))

    def history_markets(self) -> tuple[Market, ...]:
        """The market under each dated price list, oldest first, the last being the site's own."""
        return (*self.past_markets, self.market)

    def moved_servings(self, indices: range) -> dict[int, tuple[price_history.MovedAnswer, ...]]:
        """For each list ``index`` of ``indices`` (each at least 1): the real models whose serving pick, in the
        format each ships in, the list moved from the one before it, as ``MovedAnswer``s of the model id, the format
        id and the offers picked (None: nothing starts it); none where nothing serves."""
        if not self.serves or not indices:
            return {index: () for index in indices}
        markets = self.history_markets()[min(indices) - 1:max(indices) + 1]
        moved: dict[int, list] = {index: [] for index in indices}
        for view in self.catalogue:
            format_id = view.native_format().id
            picks = view.serving_picks(format_id, markets)
            for index in indices:
                before, after = picks[index - min(indices)], picks[index - min(indices) + 1]
                if price_history.pick_key(before) != price_history.pick_key(after):
                    moved[index].append(price_history.MovedAnswer(view.id, format_id, before, after))
        return {index: tuple(found) for index, found in moved.items()}

    def moved_answers(self, index: int) -> tuple[price_history.MovedAnswer, ...]:
        """The grid's cells whose pick the price list ``index`` of the history moved from the one before it."""
        markets = self.history_markets()
        cells = tuple((model.id, method.id) for model in self.data.models for method in self.columns)

        def answer_in(model_id: str, method_id: str, market: Market) -> Lookup:
            own = market is self.market  # the site's own market's answers are cached
            return self.lookup(self.data.model(model_id), self.data.method(method_id), market=None if own else market)
        return price_history.moved_answers(cells, answer_in, markets[index - 1], markets[index])

    def cheapest(self, model_id: str, method_id: str, *, context: int | None = None, batch: int | None = None,
                 stack: str | None = None, roomy: bool = False, faster_than: Decimal | None = None) -> Lookup:
        """The lookup answer under extra conditions: one software stack; with ``roomy``, no card it would fit
        tightly; with ``faster_than``, only cards with more memory bandwidth (GB/s) than that."""
        model, method = self.data.model(model_id), self.data.method(method_id)
        gpus = tuple(gpu for gpu in self.data.gpus if stack is None or gpu.stack == stack)
        if roomy:
            need = self.need(model, method, context, batch).total
            gpus = tuple(gpu for gpu in gpus if rules.holds_roomily(gpu.memory_gb, need.value, self.data.lookup))
        if faster_than is not None:
            gpus = tuple(gpu for gpu in gpus if gpu.bandwidth_gbps > faster_than)
        market = Market(gpus, self.data.pricing, self.data.discounts, self.data.lookup)
        return self.lookup(model, method, context, batch, market)


def _unpriced_digest(offers) -> str:
    """What ``Guide.configurations`` is read for: the offers in order, each whole but for its price."""
    return value_digest(tuple(replace(offer, usd=None) for offer in offers))
