"""The calculation as one object: what tables and content ask for.

``Guide(data)`` answers every question the pages ask, by name:
``guide.model("70B").inference("fp8").total``, ``guide.gpu("a40").usd_per_gb``,
``guide.cell("70B", "infer-int4").choice.price``. Results are cached, so a
figure asked for by three pages is computed once.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from ..load.model import CatalogueModel, Gpu, Method, MethodKind, Model, Precision, Selection, SiteData
from ..load.reads import DerivedCache, ReadCache, cached_reads
from . import attention, card_memory, cost, engine_logs, memory, rules, throughput, weight_formats
from .digest import value_digest
from .measured import MeasuredRun, measured_run
from .figure import COUNT, FACTOR, MEMORY, MULTIPLE, PERCENT, WEIGHTS, Figure, given, product, quotient
from .layers.base import KEYS_AND_VALUES
from ..units import BYTES_PER_GB
from .lookup import Lookup, Market, lookup, ranked_card_offers, ranked_offers
from . import serving
from .serving import ServingChoice, Verdict, first_that_fits, verdict
from .weight_formats import format_by_id
from .card_view import GpuView



class Guide:
    def __init__(self, data: SiteData):
        self.data = data
        self.sizing = memory.Sizing(data.inference, data.finetune)
        self.market = Market(data.gpus, data.pricing, data.discounts, data.lookup)
        self._needs = ReadCache()
        self._cells = ReadCache()
        self._verdicts = ReadCache()
        self._won = DerivedCache("wins", lambda gpu_id: tuple(self._wins.get(gpu_id, ())), value_digest)
        self.derived = {cache.kind: cache for cache in (self._won,)}
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

    @property
    def default_engine(self):
        return self.data.engines.engine(self.data.engines.default_engine)

    def serving_kv(self):
        """The engines' KV cache format named like the site's (data/engines.yaml kv_cache_formats)."""
        return self.data.engines.kv_cache_format(self.kv_precision().id)

    def serving_offers(self, gpu: Gpu | None = None):
        """Every priced configuration (of ``gpu`` alone where given), in the order the site's selection rule prefers
        them; the engine's verdict stands in for the hardware rules (calc/serving.py)."""
        method = replace(self.default_inference(), precision=None, needs_all_to_all=False)
        return ranked_offers(method, self.market) if gpu is None else ranked_card_offers(gpu, method, self.market)

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
        key = (model.id, self._method_key(method), context, batch)
        return self._needs.fetch(key, lambda: memory.method_memory(model, method, self.sizing, context, batch))

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

    def cells_won_by(self, gpu_id: str) -> list[tuple[Model, Method, Lookup]]:
        """The grid cells the card is the answer for: read as one derived value, so that a price edit that
        leaves them as they were leaves the card's page as it was."""
        return list(self._won.get(gpu_id))

    def tightest_cell(self) -> tuple[Model, Method, Lookup]:
        """The single-card grid cell with the least memory to spare."""
        single = [cell for cell in self.grid_cells() if cell[2].choice and cell[2].choice.count == 1]
        return min(single, key=lambda cell: cell[2].choice.headroom_per_card.value)

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

    # -- the catalogue -----------------------------------------------------

    @property
    def card_count(self) -> Figure:
        return given(len(self.data.gpus), "cards", COUNT, "cards")

    def gpus_by_memory(self) -> tuple["GpuView", ...]:
        """Largest memory first; dearer first among cards of one size."""
        return tuple(sorted(self.gpus, key=lambda g: (-g.gpu.memory_gb, -(g.price.value if g.price else 0), g.id)))

    def gpus_by_usd_per_gb(self) -> tuple["GpuView", ...]:
        priced = [g for g in self.gpus if g.usd_per_gb is not None]
        return tuple(sorted(priced, key=lambda g: (g.usd_per_gb.value, g.id)))

    def gpus_by_gbps_per_usd(self) -> tuple["GpuView", ...]:
        priced = [g for g in self.gpus if g.gbps_per_usd is not None]
        return tuple(sorted(priced, key=lambda g: (-g.gbps_per_usd.value, g.id)))

    def cheapest_per_gb(self) -> "GpuView":
        return self.gpus_by_usd_per_gb()[0]

    def most_gbps_per_usd(self) -> "GpuView":
        return self.gpus_by_gbps_per_usd()[0]

    def largest_card(self) -> "GpuView":
        return max(self.gpus, key=lambda g: (g.gpu.memory_gb, g.id))

    def slowest_memory(self) -> "GpuView":
        return min(self.gpus, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def fastest_memory(self) -> "GpuView":
        return max(self.gpus, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def newest_launch(self) -> Figure | None:
        """The latest launch year among the cards (None when no card states one)."""
        years = [g.gpu.launched for g in self.gpus if g.gpu.launched]
        return given(max(years), "year", COUNT, "launched") if years else None

    def slower_than_most(self, gpu_id: str) -> bool:
        """Whether more than half of the other cards have faster memory than this one."""
        bandwidth = self.data.gpu(gpu_id).bandwidth_gbps
        others = [gpu for gpu in self.data.gpus if gpu.id != gpu_id]
        return sum(gpu.bandwidth_gbps > bandwidth for gpu in others) * 2 > len(others)

    def dearest_per_gb_of_size(self, memory_gb: Decimal, excluding: str | None = None) -> "GpuView | None":
        """The priced card of this memory size with the highest price per GB."""
        same = [g for g in self.gpus if g.gpu.memory_gb == memory_gb and g.id != excluding and g.usd_per_gb]
        return max(same, key=lambda g: (g.usd_per_gb.value, g.id)) if same else None

    def gpus_with_min_order(self) -> tuple["GpuView", ...]:
        """Cards that cannot be rented one at a time, in data order."""
        return tuple(g for g in self.gpus if g.min_cards.value > 1)

    def discount(self, cards: int) -> Figure:
        """The volume discount on an order of ``cards`` cards (0 % where none applies)."""
        return cost.discount_percent(cards, self.data.discounts)

    def cheapest_card(self) -> "GpuView":
        priced = [g for g in self.gpus if g.price is not None]
        return min(priced, key=lambda g: (g.price.value, g.id))

    def fastest_under(self, max_price) -> "GpuView":
        """The card with the most bandwidth among those priced below ``max_price``."""
        cap = max_price.value if isinstance(max_price, Figure) else Decimal(max_price)
        affordable = [g for g in self.gpus if g.price is not None and g.price.value < cap]
        return max(affordable, key=lambda g: (g.gpu.bandwidth_gbps, g.id))

    def gpus_without(self, feature: str) -> tuple["GpuView", ...]:
        return tuple(g for g in self.gpus if feature not in g.gpu.features)

    def architectures_with(self, feature: str) -> tuple[str, ...]:
        """Architectures of the cards that have ``feature``, in data order."""
        seen: list[str] = []
        for gpu in self.data.gpus:
            if feature in gpu.features and gpu.architecture not in seen:
                seen.append(gpu.architecture)
        return tuple(seen)

    # -- arithmetic the prose states ---------------------------------------

    @staticmethod
    def ratio(numerator: Figure, denominator: Figure) -> Figure:
        """How many times one figure is another: 2.6×."""
        return quotient(numerator, denominator, unit="×", kind=MULTIPLE, label="ratio")

    @staticmethod
    def cheaper_by(cheap: Figure, dear: Figure) -> Figure:
        return cost.cheaper_by(cheap, dear)

    @staticmethod
    def share(part: Figure, whole: Figure) -> Figure:
        return cost.share_of(part, whole)

    @staticmethod
    def gib_shortfall() -> Figure:
        """How much smaller a size reads in GiB than in GB: 1 − 10⁹ / 2³⁰."""
        gb = given(10 ** 9, "B", COUNT, "GB")
        gib = given(card_memory.BYTES_PER_GIB, "B", COUNT, "GiB")
        return Figure(value=(1 - gb.value / gib.value) * 100, unit="%", kind=PERCENT, label="GiB shortfall",
                      formula=quotient(gb, gib, unit="", kind=FACTOR).formula)



class ModelView:
    """One reference model, with every figure the pages ask of it."""

    def __init__(self, guide: Guide, model: Model):
        self.guide, self.model = guide, model

    id = property(lambda self: self.model.id)
    name = property(lambda self: self.model.name)
    examples = property(lambda self: self.model.examples)
    attention = property(lambda self: self.model.attention)

    @property
    def params(self) -> Figure:
        return memory.params(self.model)

    @property
    def layers(self) -> Figure:
        return given(self.model.layers, "layers", COUNT, "layers")

    @property
    def kv_heads(self) -> Figure:
        return given(self.model.kv_heads, "KV heads", COUNT, "KV heads")

    @property
    def attention_heads(self) -> Figure:
        return given(self.model.attention_heads, "heads", COUNT, "attention heads")

    @property
    def head_dim(self) -> Figure:
        return given(self.model.head_dim, "", COUNT, "head dim")

    @property
    def kv_width(self) -> Figure:
        return memory.kv_width(self.model)

    def weights(self, precision_id: str) -> Figure:
        return memory.weights(self.model, memory.precision_bytes(self.guide.data.precision(precision_id)))

    def _kv_precision(self, kv_precision: str | None):
        data = self.guide.data
        return data.precision(kv_precision) if kv_precision else data.inference.kv_precision

    def kv(self, context: int | None = None, batch: int | None = None, kv_precision: str | None = None) -> Figure:
        inference = self.guide.data.inference
        return memory.kv_cache(self.model, self._kv_precision(kv_precision),
                               context or inference.context_tokens, batch or inference.batch)

    def kv_per_token(self, kv_precision: str | None = None) -> Figure:
        return memory.kv_per_token_mb(self.model, self._kv_precision(kv_precision))

    def need(self, method_id: str, context: int | None = None, batch: int | None = None) -> memory.MemoryNeed:
        return self.guide.need(self.model, self.guide.method(method_id), context, batch)

    def inference(self, precision_id: str, context: int | None = None,
                  batch: int | None = None) -> memory.MemoryNeed:
        return self.guide.need(self.model, self.guide.inference_method(precision_id), context, batch)

    def cell(self, method_id: str) -> Lookup:
        return self.guide.cell(self.model.id, method_id)

    def decode_ceiling(self, gpu_id: str, precision_id: str, count: int = 1) -> Figure:
        bandwidth = throughput.combined_bandwidth(self.guide.gpu(gpu_id).bandwidth, count)
        return throughput.decode_ceiling(bandwidth, self.weights(precision_id))


def _memory_figure(memory_gb) -> Figure:
    if isinstance(memory_gb, Figure):
        return memory_gb
    return given(memory_gb, "GB", MEMORY, "memory")


class CatalogueView:
    """One real model, with the figures its layer groups give: KV cache, state, weights, what fits.

    Contexts and batches default to sizing.yaml's inference block, the KV
    format to ``Guide.kv_precision()``, the overhead beside the weights to
    inference.overhead_gb.
    """

    def __init__(self, guide: Guide, model: CatalogueModel):
        self.guide, self.model = guide, model
        self.layers = attention.model_layers(model)

    id = property(lambda self: self.model.id)
    name = property(lambda self: self.model.name)
    architecture = property(lambda self: self.model.architecture)
    experts = property(lambda self: self.model.experts)
    source = property(lambda self: self.model.source)
    params_from = property(lambda self: self.model.params_from)

    @property
    def params(self) -> Figure:
        return given(self.model.params_billion, "B params", FACTOR, "parameters")

    @property
    def active_params(self) -> Figure:
        return given(self.model.active_params_billion, "B params", FACTOR, "active parameters")

    @property
    def layer_count(self) -> Figure:
        return given(self.model.layer_count, "layers", COUNT, "layers")

    @property
    def max_context(self) -> Figure:
        return given(self.model.max_context, "tokens", COUNT, "longest context")

    def _b(self, kv_precision: str | None) -> Figure:
        return attention.element_bytes(self.guide.kv_precision(kv_precision))

    def _context(self, context: int | None) -> int:
        return context or self.guide.data.inference.context_tokens

    def _batch(self, batch: int | None) -> int:
        return batch or self.guide.data.inference.batch

    def contexts_with_max(self, contexts) -> tuple[int, ...]:
        """``contexts`` and the model's own longest context, in order, each once."""
        return tuple(sorted({*contexts, self.model.max_context}))

    def kv_per_token(self, kv_precision: str | None = None) -> Figure:
        """Bytes one token costs in every caching layer, each window still filling."""
        return attention.kv_bytes_per_token(self.layers, self._b(kv_precision))

    def kv_per_token_beyond_windows(self, kv_precision: str | None = None) -> Figure:
        return attention.kv_bytes_per_token_beyond_windows(self.layers, self._b(kv_precision))

    def kv(self, context: int | None = None, batch: int | None = None, kv_precision: str | None = None) -> Figure:
        return attention.kv_cache(self.layers, self._b(kv_precision), self._context(context), self._batch(batch))

    @property
    def state_per_sequence(self) -> Figure:
        return attention.state_per_sequence(self.layers)

    def weights(self, precision_id: str) -> Figure:
        return attention.weights(self.model, self.guide.data.precision(precision_id))

    def decode_read(self, precision_id: str) -> Figure:
        return attention.decode_read(self.model, self.guide.data.precision(precision_id))

    def decode_ceiling(self, gpu_id: str, precision_id: str, count: int = 1) -> Figure:
        """Tokens per second one stream can at most decode: bandwidth ÷ the weights each token reads."""
        bandwidth = throughput.combined_bandwidth(self.guide.gpu(gpu_id).bandwidth, count)
        return throughput.decode_ceiling(bandwidth, self.decode_read(precision_id))

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
                       sequences: int | None = None) -> ServingChoice | None:
        """The configuration the selection rule prefers among those where the engine starts and holds the
        sequences; None where none does."""
        return first_that_fits(self.guide.serving_offers(),
                               lambda gpu, count: self.serve(format_id, gpu, count, context, sequences))

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

    def runs_alone(self, format_id: str) -> tuple["GpuView", ...]:
        """The priced cards on one of which the format's engine starts the model at the site's context and batch."""
        return tuple(gpu for gpu in self.guide.gpus
                     if gpu.hourly is not None and self.serve(format_id, gpu.gpu).fits)

    def format_usd_per_million_tokens(self, gpu: "GpuView", format_id: str) -> Figure | None:
        """What a million tokens decoded at one card's ceiling in the format cost at its hourly price."""
        if gpu.hourly is None:
            return None
        return cost.usd_per_million_tokens(gpu.hourly, self.format_ceiling(gpu.id, format_id))

    def cheapest_to_run_format(self, format_id: str) -> "GpuView | None":
        """Among the cards that run the model alone in the format, the lowest cost per million tokens at the
        card's decode ceiling; None where no single card does."""
        costs = [(self.format_usd_per_million_tokens(gpu, format_id), gpu) for gpu in self.runs_alone(format_id)]
        if not costs:
            return None
        return min(costs, key=lambda item: (item[0].value, item[1].id))[1]

    def format_ceiling(self, gpu_id: str, format_id: str) -> Figure:
        """Tokens per second one stream can at most decode on one card in the format."""
        return throughput.decode_ceiling(self.guide.gpu(gpu_id).bandwidth, self.format_read(format_id))

    # -- methods and the lookup --------------------------------------------

    def need(self, method: Method, cards: int = 1, context: int | None = None,
             batch: int | None = None) -> memory.MemoryNeed:
        """The method's memory on ``cards`` cards split by tensor, as their total (calc/attention.py)."""
        key = (self.model.id, self.guide._method_key(method), cards, context, batch)
        if key not in self.guide._needs:
            self.guide._needs[key] = attention.method_memory(self.model, method, self.guide.sizing, context, batch,
                                                             cards)
        return self.guide._needs[key]

    def lookup(self, method: Method, market: Market | None = None) -> Lookup:
        """The configuration to rent for the method at the default context and batch, each card count held
        to the need as that many cards split it."""
        def need_on(cards: int) -> Figure:
            return self.need(method, cards).total
        return lookup(need_on(1), method, market or self.guide.market, need_on)
