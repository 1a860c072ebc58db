"""The calculator's formulas as data, for its script to evaluate (calculator.js ``evaluate``).

Nothing here is a formula of its own. Each template is what the calculation (vramsite/calc) builds, worked out
once with named inputs (``Input``) in place of the numbers a reader types or the offer supplies: the context, the
batch, a shape's parameters and layers, the KV format's bytes, a card's memory and bandwidth. Their figures come
out as ``Variable`` leaves, and the whole figure is written as an expression tree, each node once in one pool:

    {"n": name, ...}                 an input, given by the script
    {"v": "2", ...}                  a number fixed by the data or by definition
    {"o": "×", "t": [3, 7], ...}     an operation on the nodes at those places in the pool
                                     ("s": its scale, as bytes to GB; "v": its value where no input is below)

with each node's unit ("u"), kind ("k") and label ("l"), so that the script prints and explains a figure as the
build does. A template whose operation does not give its value at the numbers it was worked out for is refused:
the script could not follow it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from ...calc import attention, cost, lookup, memory, rules, serving, throughput
from ...calc.cost import card_bandwidth, card_memory, order_price
from ...calc.figure import (BANDWIDTH, COUNT, FACTOR, KV_CACHE, MEMORY, RATE, THROUGHPUT, WEIGHTS, Figure, Input,
                            Variable, given, product)
from ...calc.guide import Guide
from ...calc.model_kinds import LAYERS, REFERENCE
from ...load.model import Model, full_attention
from .case import finetune_methods

SAMPLE = {"context": 8192, "batch": 3, "params": 7, "layers": 32, "kv_heads": 8, "head_dim": 128, "kv_bytes": 2,
          "memory": 80, "bandwidth": 1000, "active": 5, "cache": 1, "need": 70, "resident": 14, "read": 14,
          "room": 10 ** 10, "stored": 10 ** 10, "weights": 10 ** 10, "dense_read": 10 ** 10, "expert_bytes": 10 ** 11,
          "experts": 64, "experts_per_token": 4, "hidden": 4096, "sequence": 10 ** 9, "tflops": 500,
          "matmul_share": "0.8", "link": 64, "peer_link": 32, "hourly": 2, "speed": 100}
"""The numbers each template is worked out for: any will do where the formula does not branch on them."""


def _input(name: str) -> Input:
    return Input(SAMPLE[name], name)


class Pool:
    """Expression nodes, each written once: a template is the index of its root."""

    def __init__(self):
        self.nodes: list[dict] = []
        self._index: dict[str, int] = {}

    def add(self, figure: Figure) -> int:
        return self._add(figure)[0]

    def _add(self, figure: Figure) -> tuple[int, bool]:
        """The node's index, and whether an input is below it."""
        node, variable = _node(figure, self._add)
        key = repr(sorted(node.items()))
        if key not in self._index:
            self._index[key] = len(self.nodes)
            self.nodes.append(node)
        return self._index[key], variable


def _node(figure: Figure, add) -> tuple[dict, bool]:
    node = {"u": figure.unit, "k": figure.kind, "l": figure.label}
    if isinstance(figure, Variable):
        return {**node, "n": figure.name}, True
    formula = figure.formula
    if formula is None:
        return {**node, "v": _text(figure.value)}, False
    terms = [add(term) for term in formula.terms]
    node.update(o=formula.op, t=[index for index, _ in terms])
    variable = any(below for _, below in terms)
    if not variable:
        node["v"] = _text(figure.value)
        return node, False
    scale = _scale(figure, [term.value for term in formula.terms])
    if scale != 1:
        node["s"] = _text(scale)
    return node, True


OPERATIONS = {
    "×": lambda values: _product(values),
    "÷": lambda values: values[0] / values[1],
    "+": lambda values: sum(values, Decimal(0)),
    "−": lambda values: values[0] - values[1],
    "min": min,
    "max": max,
    "⌊÷⌋": lambda values: (values[0] / values[1]).to_integral_value(rounding=ROUND_FLOOR),
    "⌈÷⌉": lambda values: (values[0] / values[1]).to_integral_value(rounding=ROUND_CEILING),
    "^": lambda values: values[0] ** int(values[1]),
}
"""What each operation of a formula does to its terms' values (calculator.js ``OPERATIONS`` does the same)."""

SCALED = ("×", "÷")
"""The operations a figure may scale (``product``'s and ``quotient``'s ``scale``: bytes to GB, percent)."""


def _product(values: list[Decimal]) -> Decimal:
    result = Decimal(1)
    for value in values:
        result *= value
    return result


def _scale(figure: Figure, values: list[Decimal]) -> Decimal:
    """The factor between the operation on the terms and the figure's value: 1, or a scale of × and ÷."""
    op = figure.formula.op
    plain = OPERATIONS[op](values)
    if plain == figure.value:
        return Decimal(1)
    if op in SCALED and plain != 0 and (figure.value / plain) * plain == figure.value:
        return figure.value / plain
    raise ValueError(f"the formula of {figure.label or 'a figure'} ({op}) does not give its value: the calculator's "
                     f"script could not follow it")


def _text(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral_value() else format(value, "f")


# -- the templates -------------------------------------------------------------------------------------------


def shape_model() -> Model:
    """A reference shape whose every size is an input: the shapes of data/models.yaml and the reader's own."""
    return Model(id="shape", name="shape", params_billion=_input("params"),
                 layers=full_attention(_input("layers"), _input("kv_heads"), _input("head_dim")))


@dataclass(frozen=True)
class _Setting:
    """What every template is worked out with: the KV format (its bytes an input), the sizing that stores it, the
    context and batch inputs, a card whose memory and bandwidth are inputs, the card counts offers rent, and the
    engines by the way they split a sequence (``request``: by layers, sized to the request; ``heads``: by heads)."""

    sizing: object
    kv_format: object
    b: Figure
    context: Input
    batch: Input
    card: object
    counts: tuple[int, ...]
    engines: dict


def _setting(guide: Guide, card_counts: list[int]) -> _Setting:
    data = guide.data
    # The KV format's bytes are an input; which format stands for them is of no account.
    kv_format = replace(data.inference.kv_precision or data.precisions[0], bytes_per_param=_input("kv_bytes"))
    engines = {("request" if serving.sized_to_request(engine) else "heads"): engine
               for engine in data.engines.engines} if guide.serves else {}
    return _Setting(sizing=replace(guide.sizing, inference=replace(data.inference, kv_precision=kv_format)),
                    kv_format=kv_format, b=attention.element_bytes(kv_format), context=_input("context"),
                    batch=_input("batch"),
                    card=replace(data.gpus[0], memory_gb=_input("memory"), bandwidth_gbps=_input("bandwidth")),
                    counts=tuple(sorted({1, *card_counts})),  # one card: a served answer's own cache line
                    engines=engines)


def calculator_formulas(guide: Guide, card_counts: list[int]) -> tuple[dict, Pool]:
    """Every template the script evaluates that no one real model's layers shape, by what it answers, and the pool
    of their nodes: one for each language's data. A real model's own are ``model_formulas``."""
    pool = Pool()
    data = guide.data
    setting = _setting(guide, card_counts)
    shape, kv_format, counts = shape_model(), setting.kv_format, setting.counts
    context, batch, card = setting.context, setting.batch, setting.card
    slot = {name: given(_input(name), "GB", kind, label) for name, kind, label in (
        ("cache", KV_CACHE, "KV cache"), ("need", MEMORY, "total"), ("resident", WEIGHTS, "weights"))}

    def need_parts(method) -> dict:
        need = memory.method_memory(shape, method, setting.sizing, context, batch, lambda *_: slot["cache"])
        return {part: pool.add(getattr(need, part))
                for part in ("weights", "adapter", "kv_cache", "margin", "overhead", "total")}

    methods = [guide.inference_method(precision.id) for precision in data.precisions] + [*finetune_methods(guide)]
    templates = {
        "need": {method.id: need_parts(method) for method in methods},
        "cache": {REFERENCE.shape: pool.add(memory.kv_cache(shape, kv_format, context, batch))
                  if data.inference.kv_cache else None},
        "per_token": {REFERENCE.shape: pool.add(REFERENCE.kv_per_token(shape, kv_format))
                      if data.inference.kv_cache else None},
        "per_card": {str(count): pool.add(rules.need_per_card_figure(slot["need"], count)) for count in counts},
        "headroom": {str(count): pool.add(rules.headroom_figure(card_memory(card), slot["need"], count))
                     for count in counts},
        "ceiling": {str(count): pool.add(throughput.decode_ceiling(
            throughput.combined_bandwidth(card_bandwidth(card), count), slot["resident"])) for count in counts},
        "resident": {REFERENCE.shape: {
            precision.id: pool.add(memory.weights(shape, memory.precision_bytes(precision)))
            for precision in data.precisions}},
        "nodes_needed": pool.add(lookup.nodes_of(slot["need"], card, max(data.lookup.card_counts))),
    }
    if data.catalogue:
        active = replace(data.catalogue[0], active_params_billion=_input("active"))
        templates["resident"][LAYERS.shape] = {precision.id: pool.add(attention.decode_read(active, precision))
                                               for precision in data.precisions}
    if guide.serves:
        templates["served"] = _served(guide, pool, setting)
    return templates, pool


def model_formulas(guide: Guide, model, card_counts: list[int]) -> tuple[dict, Pool]:
    """A real model's own templates, in a pool of their own (its calculator file, data.py ``model_files``): what
    one token and the sequences of a context keep, in its layer groups, on each card count; where the site has
    engines, what each way of splitting keeps on each card and what one sequence keeps."""
    pool, setting = Pool(), _setting(guide, card_counts)
    b, context, batch = setting.b, setting.context, setting.batch
    layers, inference = attention.model_layers(model), guide.default_inference()
    templates = {
        "per_token": pool.add(attention.kv_bytes_per_token(layers, b)),
        "cache": {str(count): pool.add(attention.method_memory(model, inference, setting.sizing, context, batch,
                                                               count).kv_cache) for count in setting.counts},
    }
    if guide.serves:
        templates["sequences"] = {
            split: {str(count): [pool.add(figure) for figure in serving.per_card_sequences(
                engine, model, count, b, context, batch)] for count in setting.counts}
            for split, engine in setting.engines.items()}
        if guide.data.speed is not None:
            templates["sequence"] = pool.add(attention.sequence_bytes(layers, b, context))
    return templates, pool


def _served(guide: Guide, pool: Pool, setting: _Setting) -> dict:
    """A served answer's templates: its weights line, and per offer the weights each card holds, the headroom the
    engine leaves beside the sequences, the decode ceiling; where the site states speeds, the speed templates."""
    read = given(_input("read"), "GB", WEIGHTS, "weights read per token")
    bytes_of = {name: given(_input(name), "B", COUNT, label) for name, label in
                (("stored", "bytes"), ("weights", "bytes"), ("room", "room"))}
    found = {
        "weights": pool.add(serving.bytes_in_gb(bytes_of["stored"], WEIGHTS, "weights")),
        "per_card": pool.add(serving.bytes_in_gb(bytes_of["weights"], WEIGHTS, "per card")),
        "headroom": pool.add(serving.served_headroom(bytes_of["room"], given(_input("need"), "B", COUNT, "need"))),
        "ceiling": {str(count): pool.add(throughput.decode_ceiling(
            throughput.combined_bandwidth(card_bandwidth(setting.card), count), read)) for count in setting.counts},
    }
    if guide.data.speed is not None:
        found.update(_speed_templates(guide, pool, list(setting.counts), setting.engines, setting.b, setting.context,
                                      setting.batch))
    return found


def _speed_templates(guide: Guide, pool: Pool, counts: list[int], engines: dict, b: Figure, context: Input,
                     batch: Input) -> dict:
    """A served answer's decode speed for the asked sequences at the asked context (calc/throughput.py): per way
    an engine splits a model, per card count and for a dense model or a mixture of experts, the tokens per second
    and the seconds to the first token of a prompt of the context's tokens; per card count, what a million tokens
    cost at a speed."""
    figure = {name: given(_input(name), unit, kind, label) for name, unit, kind, label in (
        ("dense_read", "B", COUNT, "weights read but the routed experts'"),
        ("expert_bytes", "B", COUNT, "routed experts"),
        ("sequence", "B", COUNT, "memory per sequence"),
        ("bandwidth", "GB/s", BANDWIDTH, "bandwidth"), ("tflops", "TFLOPS", FACTOR, "dense rate"),
        ("matmul_share", "", FACTOR, "share of the dense rate reached"),
        ("link", "GB/s", BANDWIDTH, "card-to-card link, one way"),
        ("peer_link", "GB/s", BANDWIDTH, "link to one peer, one way"), ("hourly", "USD/GPU-hour", RATE, "price per GPU-hour"),
        ("speed", "tokens/s", THROUGHPUT, "tokens per second"))}
    rates = throughput.rates(figure["bandwidth"], guide.bandwidth_share, figure["tflops"], figure["matmul_share"],
                             (figure["link"], figure["peer_link"]))
    layer_seconds = guide.data.speed.layer_step_s

    def weights(kind: str, tokens: Input) -> Figure:
        share = throughput.expert_share(_input("experts"), _input("experts_per_token"), tokens)
        return throughput.weights_read(figure["dense_read"], figure["expert_bytes"], share if kind == "moe" else None)

    def speed(kind: str, count: int, by_tensor: bool) -> int:
        work = throughput.decode_work(weights(kind, batch), figure["sequence"], batch, _input("active"),
                                      _input("layers"), _input("hidden"))
        return pool.add(throughput.step(work, rates, count, by_tensor, layer_seconds).tokens_per_s())

    def first_token(kind: str, count: int, by_tensor: bool) -> int:
        work = throughput.prefill_work(weights(kind, context), figure["sequence"], context, _input("active"),
                                       _input("layers"), _input("hidden"))
        return pool.add(throughput.step(work, rates, count, by_tensor, layer_seconds).seconds)

    def hourly(count: int) -> Figure:
        return product(given(count, "cards", COUNT, "cards"), figure["hourly"], unit="USD/hour", kind=RATE,
                       label="price per hour")

    return {
        "speed": {split: {str(count): {kind: speed(kind, count, not serving.sized_to_request(engine))
                                       for kind in ("dense", "moe")} for count in counts}
                  for split, engine in engines.items()},
        "first_token": {split: {str(count): {kind: first_token(kind, count, not serving.sized_to_request(engine))
                                             for kind in ("dense", "moe")} for count in counts}
                        for split, engine in engines.items()},
        "cost": {str(count): pool.add(cost.usd_per_million_tokens(hourly(count), figure["speed"])) for count in counts},
    }


def offer_price(guide: Guide, pool: Pool, offer) -> int:
    """The pool index of an offer's order price (a formula of the data alone, worked out whole)."""
    market = guide.market
    return pool.add(order_price(offer.gpu, offer.count, market.pricing, market.discounts))


LINES = ("need", "cache", "per_token")
"""The templates whose figures the script prints as lines, each with its label and its explanation (besides a
served answer's weights); an offer's headroom is explained beside it."""


def shown_labels(templates: dict, pool: Pool, models: list[tuple[dict, Pool]]) -> set[str]:
    """The labels the script may print: each line's, and each term's of a line, a headroom or a served offer's
    speed that is a sum or a difference, which its explanation names (one level deep, as render/derivation.py
    explains); ``models``: each real model's own templates and pool (``model_formulas``), whose cache lines are
    printed too."""
    lines = [root for name in LINES for root in _roots(templates[name])]
    if "served" in templates:
        lines.append(templates["served"]["weights"])
    explained = _roots(templates["headroom"])
    if "served" in templates:
        explained += [root for name in ("speed", "first_token", "cost") for root in _roots(templates["served"].get(name))]
    labels = _labels(pool, lines, lines + explained)
    for own, own_pool in models:
        own_lines = [root for name in LINES for root in _roots(own.get(name))]
        labels |= _labels(own_pool, own_lines, own_lines)
    return {label for label in labels if label}


def _labels(pool: Pool, lines: list[int], explained: list[int]) -> set[str]:
    """The labels of ``lines``, and of the terms of each of ``explained`` that is a sum or a difference."""
    labels = {pool.nodes[root]["l"] for root in lines}
    for root in explained:
        node = pool.nodes[root]
        if node.get("o") in ("+", "−"):
            labels.update(pool.nodes[term]["l"] for term in node["t"])
    return labels


def _roots(value) -> list[int]:
    if isinstance(value, int):
        return [value]
    if isinstance(value, dict):
        return [root for item in value.values() for root in _roots(item)]
    return []
