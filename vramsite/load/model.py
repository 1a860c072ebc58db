"""The typed model of a site's data: what the calculation reads.

Every number is a ``Decimal`` (or an ``int`` for counts). Objects are frozen;
the loader builds them once from validated YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from functools import cached_property

from ..errors import UnknownId


def hashed_once(cls):
    """A frozen dataclass that many caches key on (a card, a model, a format, an engine): its hash, which walks
    every field, is worked out once per object. It is this process's own (a string's hash is salted per
    process), so pickling leaves it out."""
    by_fields = cls.__hash__

    def __hash__(self) -> int:
        found = self.__dict__.get("_hash")
        if found is None:
            found = by_fields(self)
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_hash"}

    cls.__hash__, cls.__getstate__ = __hash__, __getstate__
    return cls



class Period(StrEnum):
    """What a price list's prices are per: a month, or an hour of one card."""

    MONTH = "month"
    HOUR = "hour"


class MethodKind(StrEnum):
    """What a sizing method is for: serving a model, or fine-tuning it."""

    INFERENCE = "inference"
    FINETUNE = "finetune"


class Selection(StrEnum):
    """How the lookup picks one configuration among those that hold a need."""

    CHEAPEST = "cheapest"
    SMALLEST_FIT = "smallest_fit"


@dataclass(frozen=True)
class Interconnect:
    """How a card talks to its neighbours."""

    kind: str
    gbps: Decimal
    """What one card sends to the rest of its set, one way (GB/s)."""
    all_to_all_cards: int | None = None
    """Cards joined all-to-all by the link (None: PCIe peer-to-peer only)."""
    per_peer_gbps: Decimal | None = None
    """Where each pair of cards has a link of its own (a mesh), one such link, one way; None: a card can send its
    whole ``gbps`` to any one peer."""
    source: str = field(default="", compare=False)


@dataclass(frozen=True)
class DenseTflops:
    """The card's peak dense tensor rate (no sparsity) per compute format, in TFLOPS, and who says so."""

    bf16: Decimal
    """BF16 with FP32 accumulate, as serving engines compute."""
    source: str
    fp8: Decimal | None = None
    fp4: Decimal | None = None

    def rate(self, compute_format: str) -> Decimal | None:
        return getattr(self, compute_format, None)


@dataclass(frozen=True)
class Region:
    id: str
    stock: int | None = None
    """Free cards at the last catalogue update, where known."""


@dataclass(frozen=True)
class ReportedMemory:
    """What the card reports to the driver (nvidia-smi's memory.total), and who says so."""

    mib: int
    source: str


@hashed_once
@dataclass(frozen=True)
class Gpu:
    """One rentable card, as its spec sheet states it: a field per key of a data/gpus.yaml entry, each declared,
    read and checked in ``load/cards.py`` (tests/test_cards.py holds the two to the same keys)."""

    id: str
    name: str
    vendor: str
    memory_gb: Decimal
    memory_type: str
    bandwidth_gbps: Decimal
    architecture: str
    features: frozenset[str]
    stack: str
    interconnect: Interconnect
    ecc: bool = False
    launched: int | None = None
    rentable_counts: tuple[int, ...] | None = None
    """Card counts it can be rented in; None means the lookup rules' default."""
    regions: tuple[Region, ...] = ()
    notes: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    """Notes per language (URL segment)."""
    reported_memory: ReportedMemory | None = None
    """Where a public source gives it; None: the memory kind's rule (calc/card_memory.py)."""
    dense_tflops: DenseTflops | None = None
    """Where a public source gives it; None: no compute-bound figures for the card (calc/throughput.py)."""


@dataclass(frozen=True)
class Model:
    """A reference model size, and the shape its KV cache depends on: its layers, as a real model lists its own
    (``CatalogueModel.layers``), one group of full attention."""

    id: str
    name: str
    params_billion: Decimal
    layers: tuple[LayerGroup, ...] = ()
    """``full_attention(layers, kv_heads, head_dim)`` of data/models.yaml; none for a size of parameters alone."""
    attention: str | None = None
    attention_heads: int | None = None
    hidden_size: int | None = None
    examples: tuple[str, ...] = ()

    @property
    def layer_count(self) -> int:
        return sum(group.count for group in self.layers)

    def shape(self, size: str):
        """A size of its one group of full attention: ``"layers"`` (how many), ``"kv_heads"`` or ``"head_dim"``;
        None where the data gives parameters alone."""
        if not self.layers:
            return None
        group, = self.layers
        return group.count if size == "layers" else group.size(size)


@dataclass(frozen=True)
class Precision:
    """A number format for weights or cache entries."""

    id: str
    label: str
    bytes_per_param: Decimal
    requires_feature: str | None = None


@dataclass(frozen=True)
class Inference:
    """Defaults for serving a model."""

    context_tokens: int | None
    """Default context (required where the KV cache is counted)."""
    batch: int | None
    kv_cache: bool
    kv_precision: Precision | None
    overhead_gb: Decimal
    margin_percent: Decimal


@dataclass(frozen=True)
class Adapter:
    """The trainable part of LoRA and QLoRA."""

    share_percent: Decimal
    bytes_per_param: Decimal
    rank: int | None = None


@dataclass(frozen=True)
class Finetune:
    """Fine-tuning assumptions."""

    training_state_bytes: tuple[tuple[str, Decimal], ...]
    """What full fine-tuning keeps per parameter, item by item."""
    adapter: Adapter | None = None
    sequence_tokens: int | None = None
    batch: int | None = None
    gradient_checkpointing: bool | None = None


@dataclass(frozen=True)
class Method:
    """One way of using a model, as a memory formula:

    (params × weight bytes + adapter + KV cache) × (1 + margin) + overhead
    """

    id: str
    label: str
    """Column heading: a UI string (msgid); {precision} is the precision's label."""
    kind: MethodKind
    precision: Precision | None
    """Weights stored in this format (also sets the hardware rule)."""
    bytes_per_param: Decimal | None
    """Weights at a flat rate, where no precision names it."""
    training_state: bool
    """Weights cost the full fine-tuning state (finetune.training_state_bytes)."""
    adapter: bool
    kv_cache: bool
    overhead_gb: Decimal
    margin_percent: Decimal
    needs_all_to_all: bool


@dataclass(frozen=True)
class LookupRules:
    """How the grid picks a configuration for a need."""

    columns: tuple[Method, ...]
    card_counts: tuple[int, ...]
    selection: Selection
    tight_single_gb: Decimal
    tight_per_card_gb: Decimal


@dataclass(frozen=True)
class Discount:
    cards: int
    percent: Decimal


@dataclass(frozen=True)
class Snapshot:
    """Where an hourly price list was read from."""

    source: str
    gpus: int
    machines: int


@dataclass(frozen=True)
class Pricing:
    updated: str
    """ISO date, optionally with a time (as the editor wrote it)."""
    currency: str
    period: Period
    """The unit of ``usd``."""
    usd: dict[str, Decimal | None]
    """Price per card per period, by GPU id; None: offered, price not published."""
    hours_per_month: int | None = None
    minimum_days: int | None = None
    billing: tuple[str, ...] = ()
    snapshot: Snapshot | None = None


@dataclass(frozen=True)
class CardPrice:
    """One card's price in a dated snapshot (data/price_history.yaml)."""

    usd: Decimal | None
    """The price per card per period (prices.yaml's period); None: offered, no price published."""
    median: Decimal | None = None
    """A marketplace snapshot's median price among the card's available listings."""
    listings: int | None = None
    """A marketplace snapshot's count of the card's available listings."""


@dataclass(frozen=True)
class PriceSnapshot:
    """The prices as they stood at one moment: a past price list, or the one prices.yaml holds now."""

    at: str
    """ISO date, optionally with a time, as written (prices.yaml's ``updated``)."""
    cards: dict[str, CardPrice]
    """By card id; a card the snapshot leaves out was not offered then."""
    snapshot: Snapshot | None = None
    """A marketplace snapshot's source and counts."""


@dataclass(frozen=True)
class LocaleConfig:
    """One language: its URL segment, BCP 47 tag and gettext id, kept apart."""

    segment: str
    tag: str
    gettext: str


@dataclass(frozen=True)
class Payment:
    symbol: str
    name: dict[str, str]


@dataclass(frozen=True)
class SiteRegion:
    id: str
    city: dict[str, str] = field(compare=False, hash=False)
    """The city, per language (URL segment)."""


@dataclass(frozen=True)
class SiteConfig:
    name: str
    base_url: str
    locales: tuple[LocaleConfig, ...]
    display: dict[str, int]
    regions: tuple[SiteRegion, ...] = ()
    payments: tuple[Payment, ...] = ()
    identity_checks: bool | None = None
    deploy_seconds: int | None = None
    node_host_memory_tb: Decimal | None = None
    marketplace: str | None = None
    references: dict[str, "Reference"] = field(default_factory=dict, compare=False, hash=False)
    """Sources the pages cite, by id."""


@dataclass(frozen=True)
class Reference:
    """A paper or page the content cites, with the figures it reports."""

    id: str
    title: str
    url: str
    authors: str | None = None
    label: str | None = None
    """How the citation reads inline: 'arXiv:1910.02054'."""
    facts: dict[str, Decimal] = field(default_factory=dict, compare=False, hash=False)


class ParamsFrom(StrEnum):
    """Where a catalogue model's parameter counts come from."""

    COMPUTED = "computed"
    """Counted from the config's shapes."""
    INDEX = "index"
    """Summed from the checkpoint's safetensors index."""
    PUBLISHED = "published"
    """As the model card states them."""


@dataclass(frozen=True)
class LayerGroup:
    """Layers of one kind and one shape, as data/catalogue.yaml lists them.

    ``sizes`` holds the kind's own fields (kv_heads, window, kv_lora_rank, ...);
    the calculation gives each kind its meaning (calc/layers/).
    """

    kind: str
    count: int
    sizes: tuple[tuple[str, int | Decimal], ...]

    def size(self, name: str) -> int | Decimal | None:
        return dict(self.sizes).get(name)


FULL_ATTENTION = "full"
"""The layer kind of a reference shape's layers: full attention (calc/layers/full.py), the generic formula's."""


def full_attention(count, kv_heads, head_dim) -> tuple[LayerGroup, ...]:
    """A reference shape's layers: ``count`` layers of full attention, one group; none where a size is missing."""
    if count is None or kv_heads is None or head_dim is None:
        return ()
    return (LayerGroup(FULL_ATTENTION, count, (("kv_heads", kv_heads), ("head_dim", head_dim))),)


@dataclass(frozen=True)
class Experts:
    """A mixture of experts: how many there are, and how many each token uses."""

    total: int
    active: int
    shared: int = 0


TENSOR_CLASSES = ("embedding", "output_head", "attention", "dense_mlp", "experts", "shared_experts", "router", "other")
"""The parts a model's parameters are counted in (data/catalogue.yaml ``parameters``); together, the model."""


@dataclass(frozen=True)
class ParameterClasses:
    """A catalogue model's parameters by tensor class, exact counts as the importer counted them."""

    embedding: int
    output_head: int
    """0 where the output head is tied to the embedding table"""
    attention: int
    dense_mlp: int
    experts: int
    """every routed expert"""
    experts_active: int
    """the routed experts one token reads (a part of ``experts``)"""
    shared_experts: int
    router: int
    other: int
    """norms and the rest"""

    @property
    def total(self) -> int:
        return sum(getattr(self, name) for name in TENSOR_CLASSES)

    def active(self, hidden_size: int) -> int:
        """Read per token: all but the embedding table (one row of ``hidden_size`` is read) and the experts not
        routed to."""
        return self.total - self.embedding + hidden_size - (self.experts - self.experts_active)

    def as_dict(self) -> dict[str, int]:
        """The classes in the catalogue's order (experts_active after experts)."""
        return {name: getattr(self, name) for name in (*TENSOR_CLASSES[:5], "experts_active", *TENSOR_CLASSES[5:])}


@dataclass(frozen=True)
class ModelSource:
    """Where a catalogue model's shapes were read."""

    repository: str
    file: str
    revision: str | None = None


def scaled_context(rope_type: str, factor: Decimal, original: int | None, length: int) -> int:
    """The longest context a RoPE scaling gives, by vLLM's rule (vllm-project/vllm
    vllm/config/model.py@18ec6629253632af0a384f2ffbb8c6b28af322e7, _get_and_verify_max_len): YaRN's factor times the
    context trained for (``original``), any other's times the config's ``length``; whole tokens."""
    return int((original if rope_type == "yarn" else length) * factor)


@dataclass(frozen=True)
class ContextScaling:
    """A RoPE scaling a model's vendor documents but its config does not set (catalogue ``context_scaling``): an
    engine takes the model's ``max_context`` only when started with it."""

    rope_type: str
    factor: Decimal
    original: int | None
    """YaRN's original_max_position_embeddings; None for the other kinds"""
    as_shipped: int
    """the longest context without the scaling"""
    source: str

    @property
    def tokens(self) -> int:
        return scaled_context(self.rope_type, self.factor, self.original, self.as_shipped)

    @property
    def engine_json(self) -> str:
        """The scaling as ``vllm serve --rope-scaling`` takes it, its keys in a fixed order."""
        factor = format(self.factor.normalize(), "f") if self.factor % 1 else f"{int(self.factor)}.0"
        original = f',"original_max_position_embeddings":{self.original}' if self.original else ""
        return f'{{"rope_type":"{self.rope_type}","factor":{factor}{original}}}'


@hashed_once
@dataclass(frozen=True)
class CatalogueModel:
    """A real model with its real architecture, layer group by layer group."""

    id: str
    name: str
    architecture: str
    params_billion: Decimal
    """Every parameter, every expert included."""
    active_params_billion: Decimal
    """Parameters read per token (equal to ``params_billion`` for a dense model)."""
    params_from: ParamsFrom
    hidden_size: int
    attention_heads: int
    max_context: int
    vocab_size: int
    layers: tuple[LayerGroup, ...]
    source: ModelSource
    experts: Experts | None = None
    native_format: str | None = None
    """The weight format its checkpoint ships in (data/weight_formats.yaml); None where not recorded."""
    parameters: ParameterClasses | None = None
    """Its parameters by tensor class; None where not recorded."""
    context_scaling: ContextScaling | None = None
    """The scaling its ``max_context`` needs an engine started with; None where its config's own length holds."""

    @property
    def layer_count(self) -> int:
        return sum(group.count for group in self.layers)


@dataclass(frozen=True)
class Storage:
    """How a weight format lays out one tensor (data/weight_formats.yaml ``storage``)."""

    id: str
    element_bits: int
    block: int | None = None
    """elements sharing one block's scales"""
    block_bits: int = 0
    super_block: int | None = None
    super_block_bits: int = 0
    row_bits: int = 0
    """bits per matrix row (per-channel scales)"""
    fallback: "Storage | None" = None
    """the storage llama.cpp uses where a row is not a whole number of blocks"""


@dataclass(frozen=True)
class PartRule:
    """A part of a tensor class stored otherwise (llama.cpp's mixes): in all layers or those ``layers`` picks,
    when the model has ``when_experts`` experts or ``when_layers`` layers."""

    part: str
    storage: Storage
    layers: str = "all"
    when_experts: int | None = None
    when_layers: int | None = None


@hashed_once
@dataclass(frozen=True)
class Checkpoint:
    """How a Hugging Face config.json says its checkpoint is stored in a format (``build.py model add``): its
    ``torch_dtype``, or its quantization_config's ``quant_method`` with the settings it must have (a None value:
    the config must not set that key)."""

    torch_dtype: str | None
    quant_method: str | None
    settings: tuple[tuple[str, object], ...]
    source: str


@dataclass(frozen=True)
class WeightFormat:
    """A format a model's weights are stored in: the storage of each tensor class, and its rules."""

    id: str
    name: str
    tensors: tuple[tuple[str, Storage], ...]
    """(tensor class, storage) for every class of TENSOR_CLASSES"""
    rules: tuple[PartRule, ...] = ()
    requires_feature: str | None = None
    source: str = field(default="", compare=False)
    checkpoint: Checkpoint | None = field(default=None, compare=False)

    def storage(self, tensor_class: str) -> Storage:
        return dict(self.tensors)[tensor_class]


@dataclass(frozen=True)
class MeasuredShape:
    """A model shape a measuring run built with random weights."""

    id: str
    layers: int
    attention_heads: int
    kv_heads: int
    hidden_size: int
    vocab_size: int
    like: str | None = None
    """The public model it is shaped like ("Mistral 7B")."""
    model: str | None = None
    """The reference model of data/models.yaml this shape stands for, as the run's author named it."""
    intermediate_size: int | None = None

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.attention_heads


@dataclass(frozen=True)
class MeasuredInference:
    """One forward pass of ``context_tokens`` with the KV cache kept."""

    shape: MeasuredShape
    context_tokens: int
    batch: int
    params: int
    weights_bytes: int
    kv_bytes: int
    prefill_peak_bytes: int
    used_mib_at_end: int | None = None


@dataclass(frozen=True)
class MeasuredBandwidth:
    """Weights streamed once per run (a matrix times a vector): bytes and the median run's seconds."""

    bytes: int
    median_s: Decimal
    best_s: Decimal | None = None


@dataclass(frozen=True)
class MeasuredTraining:
    """Two training steps: the peak memory they reached."""

    shape: MeasuredShape
    sequence_tokens: int
    batch: int
    params: int
    """Every parameter of the model as trained (adapters included)."""
    peak_bytes: int
    trainable: int | None = None
    """Parameters with gradients (the adapters, for LoRA); None: all of them."""
    rank: int | None = None
    used_mib_at_end: int | None = None

    @property
    def base_params(self) -> int:
        """The model's own parameters, without the adapters."""
        return self.params - self.trainable if self.trainable is not None else self.params


@dataclass(frozen=True)
class Measurement:
    """One measuring run on one card (a file of data/measurements/), figures exactly as measured."""

    id: str
    """The file's name without .yaml."""
    gpu: str
    date: str
    provenance: str
    device_name: str
    memory_from: str
    """Where the memory figures come from: cuda (the allocator and nvidia-smi) or cpu (tensor bytes)."""
    precision: Precision
    shapes: tuple[MeasuredShape, ...]
    inference: tuple[MeasuredInference, ...] = ()
    total_mib: int | None = None
    """The memory the device reports (nvidia-smi memory.total)."""
    used_mib_before: int | None = None
    used_mib_after_workspace: int | None = None
    """Memory in use after the CUDA context and the first matmul's library workspace."""
    bandwidth: MeasuredBandwidth | None = None
    lora: MeasuredTraining | None = None
    full: MeasuredTraining | None = None
    versions: tuple[tuple[str, str], ...] = ()
    """Software the run used, as (name, version): torch, transformers, driver, CUDA."""
    attention: str = ""
    """The attention kernel the shapes ran with (sdpa, eager, flash_attention_2)."""
    weights: str = ""
    """What the weights were (random)."""


# -- serving engines (data/engines.yaml) ---------------------------------------


@hashed_once
@dataclass(frozen=True)
class KvCacheFormat:
    """A number format of cached keys and values, at its real bits per element (scales included)."""

    id: str
    label: str
    bits: Decimal
    source: str


@dataclass(frozen=True)
class EngineSetting:
    """A setting a user may change, its default (None: the engine derives it) and defaults by card memory."""

    name: str
    default: Decimal | None
    source: str
    by_memory: tuple[tuple[Decimal, Decimal], ...] = ()
    """(from GiB, value): the last entry whose from GiB the card's memory reaches wins."""

    def default_for(self, memory_gib: Decimal) -> Decimal | None:
        chosen = self.default
        for from_gib, value in self.by_memory:
            if memory_gib >= from_gib:
                chosen = value
        return chosen


@dataclass(frozen=True)
class EngineTerm:
    """What the engine itself takes, or a coefficient of it, with its source."""

    name: str
    value: Decimal
    source: str


@dataclass(frozen=True)
class WeightLayout:
    """How an engine holds a weight format's experts where its kernel for a card needs it (data/engines.yaml)."""

    format: str
    when_card_lacks: str
    """The card feature whose absence sends the format to this kernel."""
    kernel: str
    experts_round_up: tuple[int, int]
    """(intermediate, hidden): the multiples each expert's two sizes are padded to."""
    source: str = field(default="", compare=False)


@hashed_once
@dataclass(frozen=True)
class Engine:
    """A serving engine: the rule it sizes its KV cache by, its settings and terms (calc/engines.py)."""

    id: str
    name: str
    version: str
    budget: str
    kv_cache_formats: tuple[tuple[str, str], ...]
    """(KV cache format id, the engine's own name for it)."""
    settings: tuple[EngineSetting, ...]
    terms: tuple[EngineTerm, ...]
    errors: tuple[tuple[str, str], ...] = ()
    """(kind, the engine's own message) for the ways it refuses to start."""
    weight_layouts: tuple[WeightLayout, ...] = ()
    weight_formats: tuple[str, ...] = ()
    """The weight formats (data/weight_formats.yaml ids) the engine loads, as the site sizes it."""
    stacks: tuple[str, ...] = ()
    """The software stacks (data/gpus.yaml ``stack``) the engine runs on."""
    sequence_limit: str | None = None
    """The setting that caps the sequences it decodes at once (vLLM's max_num_seqs); None: its room alone."""

    def loads(self, format_id: str) -> bool:
        return format_id in self.weight_formats

    @property
    def default_kv_format(self) -> str:
        """The KV cache format it keeps unless told otherwise: the first it lists."""
        return self.kv_cache_formats[0][0]

    def runs_on(self, stack: str) -> bool:
        return stack in self.stacks

    def weight_layout(self, format_id: str, card_features: frozenset[str]) -> WeightLayout | None:
        """The layout the engine loads ``format_id`` in on a card with ``card_features``; None: as stored."""
        return next((layout for layout in self.weight_layouts
                     if layout.format == format_id and layout.when_card_lacks not in card_features), None)

    def setting(self, name: str) -> EngineSetting:
        return _by_name(self.settings, name, f"setting of engine {self.id!r}")

    def term(self, name: str) -> EngineTerm:
        return _by_name(self.terms, name, f"term of engine {self.id!r}")

    def error(self, kind: str) -> str:
        return dict(self.errors).get(kind, kind)

    def accepts(self, kv_format_id: str) -> bool:
        return kv_format_id in dict(self.kv_cache_formats)


@hashed_once
@dataclass(frozen=True)
class Engines:
    """data/engines.yaml: the engines, the KV cache formats, and the engine verdicts name by default."""

    default_engine: str
    kv_cache_formats: tuple[KvCacheFormat, ...]
    engines: tuple[Engine, ...]

    def engine(self, engine_id: str) -> Engine:
        return _by_id(self.engines, engine_id, "engine")

    def kv_cache_format(self, format_id: str) -> KvCacheFormat:
        return _by_id(self.kv_cache_formats, format_id, "KV cache format")


# -- decode and prefill speed (data/throughput.yaml) ---------------------------------


@dataclass(frozen=True)
class MeasuredMatmul:
    """The dense matmul rate one card reached in one compute format (TFLOPS)."""

    card: str
    compute_format: str
    tflops: Decimal
    peak_tflops: Decimal
    """The peak the rate was reached of (the measurement's own theoretical figure)."""


@dataclass(frozen=True)
class SpeedData:
    """data/throughput.yaml: what cards achieve of their spec sheets, and what a decode step costs besides (the
    file's sources are for its readers: its schema requires them, the pages do not print them)."""

    bandwidth_measurement: str
    """The data/measurements run whose streamed bandwidth, over its card's spec, every card is taken to reach."""
    matmuls: tuple[MeasuredMatmul, ...]
    layer_step_s: Decimal
    """Seconds each layer adds to every step besides its reads and arithmetic: kernel launches, synchronisation."""
    checked_within_percent: Decimal
    """The bound the published one-sequence measurements are held to (tests/test_throughput_corpus.py)."""


def _by_name(items: tuple, wanted: str, what: str):
    for item in items:
        if item.name == wanted:
            return item
    raise UnknownId(what, wanted, tuple(item.name for item in items))


@dataclass(frozen=True)
class EngineLog:
    """One published serving-engine log (data/engine_logs.yaml): what was run, and what the engine printed."""

    id: str
    source: str
    engine: str
    engine_version: str | None
    model: str | None
    """The catalogue model the log is of, or one with the same tensor shapes; None where there is none."""
    weights: str
    card: str | None
    """The data/gpus.yaml card it ran on, where the data has it."""
    card_named: str | None
    """The card as the log names it."""
    memory_gib: Decimal | None
    """The memory the card reported, where the log shows it."""
    cards: int
    settings: tuple[tuple[str, object], ...]
    logged: tuple[str, ...]
    figures: tuple[tuple[str, object], ...]
    held_back: bool

    def setting(self, name: str):
        return dict(self.settings).get(name)

    def figure(self, name: str):
        return dict(self.figures).get(name)


@dataclass(frozen=True)
class OlderLogs:
    """Logs of an engine before a version (or, giving none, with a logged line only those print): the settings it
    then ran with."""

    before: str
    line: str
    settings: tuple[tuple[str, Decimal], ...]


@dataclass(frozen=True)
class LogNames:
    """How data/engine_logs.yaml records one engine's settings: in the engine's own names."""

    engine: str
    kv_cache: str
    """the setting naming the KV cache format (data/engines.yaml kv_cache_formats' names)"""
    context: str
    """the setting saying the tokens the cache was sized for (an engine sizing it to the request: all sequences')"""
    sequences: str | None = None
    """the setting saying the sequences the cache was sized for; one where None"""
    settings: tuple[tuple[str, str], ...] = ()
    """(the engine's name, the name data/engines.yaml models the setting by), where they differ"""
    whole_model_weights: bool = False
    """the engine logs the weights of the whole model, not of one card"""
    versions: tuple[str, str] | None = None
    """(from, before): the versions whose budget data/engines.yaml models"""
    older: OlderLogs | None = None


@dataclass(frozen=True)
class SiteData:
    """Everything in a site's data/ folder, checked and cross-referenced."""

    site: SiteConfig
    models: tuple[Model, ...]
    gpus: tuple[Gpu, ...]
    precisions: tuple[Precision, ...]
    inference: Inference
    finetune: Finetune
    methods: tuple[Method, ...]
    lookup: LookupRules
    pricing: Pricing
    discounts: tuple[Discount, ...]
    catalogue: tuple[CatalogueModel, ...] = ()
    """The real models of data/catalogue.yaml (none where the site has no such file)."""
    kv_precisions: tuple[Precision, ...] = ()
    """Number formats of the catalogue's KV cache (sizing.yaml kv_precisions)."""
    measurements: tuple[Measurement, ...] = ()
    """The measuring runs of data/measurements/ (none where the site has no such folder)."""
    weight_formats: tuple[WeightFormat, ...] = ()
    """The formats of data/weight_formats.yaml (none where the site has no such file)."""
    offered_formats: tuple[str, ...] = ()
    """The format ids the model pages and the calculator offer after a model's own (weight_formats.yaml offered)."""
    assumed_native_format: str | None = None
    """The format a catalogue model that names none ships in (weight_formats.yaml assumed_native)."""
    engine_logs: tuple[EngineLog, ...] = ()
    """The published engine logs of data/engine_logs.yaml (none where the site has no such file)."""
    engine_log_names: tuple[LogNames, ...] = ()
    """How data/engine_logs.yaml records each engine's settings."""
    engines: Engines | None = None
    """The serving engines of data/engines.yaml (None where the site has no such file)."""
    speed: SpeedData | None = None
    """data/throughput.yaml (None where the site has no such file: its pages give no speeds)."""
    price_history: tuple[PriceSnapshot, ...] = ()
    """The past price lists of data/price_history.yaml, oldest first, then prices.yaml's own where it is newer:
    every dated price the site knows (one, the current list, where the site keeps no history)."""

    def model(self, model_id: str) -> Model:
        return _by_id(self.models, model_id, "model")

    def measurement(self, run_id: str) -> Measurement:
        return _by_id(self.measurements, run_id, "measurement")

    def catalogue_model(self, model_id: str) -> CatalogueModel:
        return _by_id(self.catalogue, model_id, "catalogue model")

    def log_names(self, engine_id: str) -> LogNames:
        """How data/engine_logs.yaml records the engine's settings."""
        for names in self.engine_log_names:
            if names.engine == engine_id:
                return names
        known = tuple(names.engine for names in self.engine_log_names)
        raise UnknownId("engine of data/engine_logs.yaml", engine_id, known)

    def weight_format(self, format_id: str) -> WeightFormat:
        return _by_id(self.weight_formats, format_id, "weight format")

    def kv_precision(self, precision_id: str) -> Precision:
        return _by_id(self.kv_precisions, precision_id, "KV cache precision")

    def gpu(self, gpu_id: str) -> Gpu:
        return _by_id(self.gpus, gpu_id, "GPU")

    def precision(self, precision_id: str) -> Precision:
        return _by_id(self.precisions, precision_id, "precision")

    def method(self, method_id: str) -> Method:
        return _by_id(self.methods, method_id, "method")

    @cached_property
    def method_by_id(self) -> dict[str, Method]:
        return {method.id: method for method in self.methods}


def _by_id(items: tuple, wanted: str, what: str):
    for item in items:
        if item.id == wanted:
            return item
    raise UnknownId(what, wanted, tuple(item.id for item in items))
