"""The bytes a model's weights take in a weight format (data/weight_formats.yaml), on each card.

A format names a storage for each tensor class of the model's parameters
(data/catalogue.yaml ``parameters``): a 4-bit format keeps its embeddings,
output head, router and norms at 16 bits, as its reference implementation
does. A storage's bits per weight follow from its layout, scales included:

    element_bits + block_bits / block + super_block_bits / super_block + row_bits / row

llama.cpp's mixes (Q4_K_M, Q5_K_M) store some parts of a class in a higher
type in some layers (``PartRule``): attn_v and ffn_down in the layers
``use_more_bits`` picks, attn_k and attn_v at Q8_0 in 8-expert models. The
parts' sizes follow from the model's shape, so a mix's bits per weight do.

Under tensor parallelism over N cards (vLLM): attention, dense MLPs and
experts are split N ways; a card keeps at least one KV head of each layer
(QKVParallelLinear replicates KV heads when N exceeds them); the embedding
table and the output head are split by vocabulary, padded to a multiple of
64 first (VocabParallelEmbedding, ParallelLMHead: vllm-project/vllm
vllm/model_executor/layers/vocab_parallel_embedding.py@00db011,
pad_vocab_size and divide(num_embeddings_padded, tp_size)); routers and norms
are replicated on every card.

Pure: no I/O, no formatting.
"""

from __future__ import annotations

from decimal import Decimal

from ..errors import UnknownId
from ..load.model import TENSOR_CLASSES, CatalogueModel, ParameterClasses, PartRule, SiteData, Storage, WeightFormat
from .figure import COUNT, FACTOR, WEIGHTS, Figure, Formula, given, total
from .layers import LayerKind, model_layers

VOCAB_PADDING = 64
"""vLLM's DEFAULT_VOCAB_PADDING_SIZE: the vocabulary is padded to a multiple of it before it is split."""
SPLIT_BY_CARDS = ("attention", "dense_mlp", "experts", "shared_experts")
SPLIT_BY_VOCABULARY = ("embedding", "output_head")
"""The other classes (router, other) are replicated on every card."""
FFN_CLASSES = ("dense_mlp", "experts", "shared_experts")
"""Classes made of gated MLPs: gate, up and down projections of equal size, so ffn_down is a third."""


def format_by_id(formats: tuple[WeightFormat, ...], format_id: str) -> WeightFormat:
    """The format ``format_id``; UnknownId listing the known ids otherwise."""
    for weight_format in formats:
        if weight_format.id == format_id:
            return weight_format
    raise UnknownId("weight format", format_id, tuple(weight_format.id for weight_format in formats))


def native_format(data: SiteData, model: CatalogueModel) -> WeightFormat:
    """The format the model's checkpoint ships in: its entry's native_format, else the one weight_formats.yaml
    assumes (assumed_native)."""
    return format_by_id(data.weight_formats, model.native_format or data.assumed_native_format)


def bits_per_weight(storage: Storage, row: int) -> Decimal:
    """Bits one weight takes in ``storage``, its share of the scales included, for rows of ``row`` elements."""
    bits = Decimal(storage.element_bits)
    if storage.block:
        bits += Decimal(storage.block_bits) / storage.block
    if storage.super_block:
        bits += Decimal(storage.super_block_bits) / storage.super_block
    if storage.row_bits:
        bits += Decimal(storage.row_bits) / row
    return bits


def stored_as(storage: Storage, row: int) -> Storage:
    """The storage a tensor with rows of ``row`` elements takes: llama.cpp falls back where a row is not a whole
    number of blocks (tensor_type_fallback, src/llama-quant.cpp@007dbbf)."""
    while storage.fallback is not None and storage.block and row % storage.block:
        storage = storage.fallback
    return storage


def more_bits(layer: int, layers: int) -> bool:
    """llama.cpp's use_more_bits(i_layer, n_layers): the first and last eighth, and every third layer between
    (src/llama-quant.cpp@007dbbf)."""
    eighth = layers // 8
    return layer < eighth or layer >= 7 * layers // 8 or (layer - eighth) % 3 == 2


def class_bytes(model: CatalogueModel, weight_format: WeightFormat, tensor_class: str) -> Decimal:
    """Bytes of one tensor class of ``model`` in ``weight_format``, every part in the storage its rules give."""
    classes = _classes(model)
    params = Decimal(getattr(classes, tensor_class))
    row = model.hidden_size
    base = stored_as(weight_format.storage(tensor_class), row)
    bits = params * bits_per_weight(base, row)
    for part, part_params, layers in _parts(model, classes, tensor_class):
        for storage, share in _part_storages(model, weight_format, part, layers):
            moved = part_params * share
            bits += moved * (bits_per_weight(stored_as(storage, row), row) - bits_per_weight(base, row))
    return bits / 8


def weight_bytes(model: CatalogueModel, weight_format: WeightFormat, cards: int = 1) -> Figure:
    """The bytes of ``model``'s weights on each of ``cards`` cards under tensor parallelism, in ``weight_format``."""
    terms = tuple(_per_card(model, weight_format, name, cards) for name in TENSOR_CLASSES)
    label = f"weights per card ({weight_format.name})" if cards > 1 else f"weights ({weight_format.name})"
    return total(*terms, unit="B", kind=WEIGHTS, label=label)


def decode_read(model: CatalogueModel, weight_format: WeightFormat, expert_share: Figure | None = None) -> Figure:
    """The bytes of weights one decode step reads: every class but the embedding table, one row of the
    embedding table per token, and of the experts the share its tokens route to (``expert_share``; one token's
    share, experts routed to ÷ all experts, where not given)."""
    classes = _classes(model)
    terms = []
    for name in TENSOR_CLASSES:
        if name == "embedding":
            row = Decimal(model.hidden_size) * class_bytes(model, weight_format, name) / classes.embedding
            terms.append(Figure(row, "B", WEIGHTS, "one row of the embedding table"))
        elif name == "experts" and classes.experts:
            share = expert_share or given(Decimal(classes.experts_active) / classes.experts, "", FACTOR,
                                          "experts routed to ÷ all experts")
            terms.append(Figure(value=class_bytes(model, weight_format, name) * share.value, unit="B", kind=WEIGHTS,
                                label="experts routed to", formula=Formula("×", (share,))))
        else:
            terms.append(Figure(class_bytes(model, weight_format, name), "B", WEIGHTS, name))
    return total(*terms, unit="B", kind=WEIGHTS, label="weights read per token")


# -- tensor parallelism --------------------------------------------------------


def _per_card(model: CatalogueModel, weight_format: WeightFormat, tensor_class: str, cards: int) -> Figure:
    whole = Figure(class_bytes(model, weight_format, tensor_class), "B", WEIGHTS, tensor_class)
    if cards == 1 or whole.value == 0:
        return whole
    if tensor_class in SPLIT_BY_VOCABULARY:
        padded = -(-model.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
        share = Decimal(padded) / model.vocab_size / cards
        return Figure(value=whole.value * share, unit="B", kind=WEIGHTS, label=f"{tensor_class} per card",
                      formula=Formula("×", (whole,
                                            given(share, "", FACTOR, "padded vocabulary ÷ vocabulary ÷ cards"))))
    if tensor_class == "attention":
        return _attention_per_card(model, weight_format, whole, cards)
    if tensor_class in SPLIT_BY_CARDS:
        return Figure(value=whole.value / cards, unit="B", kind=WEIGHTS, label=f"{tensor_class} per card",
                      formula=Formula("÷", (whole, given(cards, "cards", COUNT, "cards"))))
    return whole  # replicated


def _attention_per_card(model: CatalogueModel, weight_format: WeightFormat, whole: Figure, cards: int) -> Figure:
    """Attention split ``cards`` ways, but each card keeps at least one KV head of each layer (vLLM's
    QKVParallelLinear: num_kv_head_replicas = tp_size / total_num_kv_heads when tp_size >= them)."""
    replicated = Decimal(0)
    for group in _head_attention(model):
        kv_heads = group.kv_heads
        if kv_heads >= cards:
            continue
        keys_and_values = 2 * group.count * model.hidden_size * kv_heads * group.head_dim
        kept = Decimal(1) / kv_heads - Decimal(1) / cards  # a whole head per card, where a 1/cards share was due
        replicated += keys_and_values * kept * _attention_bytes_per_param(model, weight_format)
    value = whole.value / cards + replicated
    return Figure(value=value, unit="B", kind=WEIGHTS, label="attention per card",
                  formula=Formula("÷", (whole, given(cards, "cards", COUNT, "cards"))))


def _attention_bytes_per_param(model: CatalogueModel, weight_format: WeightFormat) -> Decimal:
    classes = _classes(model)
    return class_bytes(model, weight_format, "attention") / classes.attention


# -- parts of a class that llama.cpp's mixes store otherwise ----------------------------------------------------


def _parts(model: CatalogueModel, classes: ParameterClasses, tensor_class: str) -> list[tuple[str, Decimal, int]]:
    """(part, its parameters within ``tensor_class``, the layers that hold it) for each part of the class."""
    if tensor_class == "attention":
        return _attention_parts(model)
    if tensor_class in FFN_CLASSES and getattr(classes, tensor_class):
        return [("ffn_down", Decimal(getattr(classes, tensor_class)) / 3, model.layer_count)]
    return []


def _attention_parts(model: CatalogueModel) -> list[tuple[str, Decimal, int]]:
    groups = _head_attention(model)
    layers = sum(group.count for group in groups)
    keys = sum(group.count * model.hidden_size * group.kv_heads * group.head_dim for group in groups)
    output = sum(group.count * model.attention_heads * group.head_dim * model.hidden_size for group in groups)
    return [("attn_k", Decimal(keys), layers), ("attn_v", Decimal(keys), layers),
            ("attn_output", Decimal(output), layers)] if layers else []


def _head_attention(model: CatalogueModel) -> list[LayerKind]:
    """The layer groups with q, k, v and o projections per head (llama.cpp's attn_q/k/v/output tensors)."""
    return [group for group in model_layers(model) if group.projects_kv_heads]


def _part_storages(model: CatalogueModel, weight_format: WeightFormat, part: str,
                   layers: int) -> list[tuple[Storage, Decimal]]:
    """(storage, share of the part's layers) for the layers the format's rules move; a later rule wins."""
    chosen: dict[int, Storage] = {}
    for rule in weight_format.rules:
        if rule.part != part or not _applies(rule, model):
            continue
        for layer in range(layers):
            if rule.layers == "all" or more_bits(layer, layers):
                chosen[layer] = rule.storage
    counts: dict[Storage, int] = {}
    for storage in chosen.values():
        counts[storage] = counts.get(storage, 0) + 1
    return [(storage, Decimal(count) / layers) for storage, count in counts.items()]


def _applies(rule: PartRule, model: CatalogueModel) -> bool:
    experts = model.experts.total if model.experts else None
    return ((rule.when_experts is None or rule.when_experts == experts)
            and (rule.when_layers is None or rule.when_layers == model.layer_count))


def _classes(model: CatalogueModel) -> ParameterClasses:
    if model.parameters is None:
        raise ValueError(f"{model.id} has no parameters by tensor class (re-import it: build.py model add)")
    return model.parameters
