"""The guide's tables, each built once from the calculation.

Builders return ``Table`` objects and know nothing of languages or formats:
headings are msgids, figures keep their formulas. Lookup cells carry the
``Lookup`` itself so that a site's templates decide how to word them, and
its answer worded in two short lines (``lookup_answer``) for charts.
"""

from __future__ import annotations

from ..calc import rules
from ..calc.figure import COUNT, Figure, given
from ..calc.guide import Guide
from ..calc.model_views import ModelView
from ..load.model import Method, MethodKind, Period
from .model import Bundle, Cell, Column, Fig, Flag, Link, Msg, Names, Row, Table, Text
from .selection_words import selection_words


def method_label(method: Method) -> Msg:
    precision = method.precision.label if method.precision else ""
    return Msg.of(method.label, precision=Text(precision))


def model_shape(model: ModelView) -> Msg | None:
    """'32 layers · GQA · 8 KV heads' under a model's name."""
    if not model.model.layers:
        return None
    return Msg.of("{layers} · {attention} · {kv_heads}", layers=Fig(model.layer_count),
                  attention=Text((model.attention or "").upper()), kv_heads=Fig(model.kv_heads))


def model_header(model: ModelView, sub=None) -> Cell:
    return Cell(Text(model.name), sub=sub)


def catalogue_model_header(model, sub=None) -> Cell:
    """A real model's name, linked to its page."""
    return Cell(Link(("model", model.id), Text(model.name)), sub=sub)


def model_bundle(model) -> Bundle:
    """The one download of a real model's tables, in each language: data/<language>/models/<id>.json."""
    return Bundle("models", model.id, Text(model.name))


def gpu_header(gpu, sub=None) -> Cell:
    return Cell(Link(("gpu", gpu.id), Text(gpu.name)), sub=sub)


def figure_cell(figure: Figure | None, period: bool = False, bare: bool = False) -> Cell:
    if figure is None:
        return Cell(Msg.of("not listed"))
    return Cell(Fig(figure, period=period, bare=bare), value=figure)


def lacks_cell(gpu, method: Method) -> Cell | None:
    """'no FP8' where the card lacks the hardware the method's precision needs; None where it has it."""
    feature = rules.lacks_feature(gpu, method)
    return Cell(Msg.of("no {feature}", feature=Text(feature.upper())), flags=("no",)) if feature else None


def not_held_cell() -> Cell:
    return Cell(Flag("does not fit"), flags=("no",))


def cards_label(count: int, card) -> Msg:
    """'8× MI300X': ``count`` cards of one kind."""
    return Msg.of("{count}× {card}", count=Fig(given(count, "", COUNT)), card=card)


def configuration_label(choice) -> Link | Msg:
    """'A40' for one card, '8× MI300X' for several."""
    card = Link(("gpu", choice.gpu.id), Text(choice.gpu.name))
    return card if choice.count == 1 else cards_label(choice.count, card)


def lookup_answer(found) -> tuple:
    """What to rent and its price ('8× MI300X', '$11,448'), or the nodes it would take and 'talk to sales'."""
    if found.choice:
        return configuration_label(found.choice), Fig(found.choice.price)
    nodes = Fig(found.nodes) if found.nodes is not None else Text("—")
    return nodes, Msg.of("talk to sales")


def tokens_label(tokens: int) -> Msg:
    """'8k' for 8,192 tokens: contexts are powers of two."""
    if tokens % 1024 == 0:
        return Msg.of("{n}k", n=Fig(given(tokens // 1024, "", COUNT)))
    return Msg.of("{n}", n=Fig(given(tokens, "", COUNT)))


def precision_table(guide: Guide, model_ids: list[str]) -> Table:
    models = [guide.model(model_id) for model_id in model_ids]
    rows = []
    for precision in guide.data.precisions:
        sub = None
        if precision.requires_feature:
            sub = Msg.of("needs {feature}: {architectures}", feature=Text(precision.requires_feature.upper()),
                         architectures=Names(tuple(Text(name) for name in
                                                   guide.architectures_with(precision.requires_feature))))
        cells = [figure_cell(guide.precision_bytes(precision.id))]
        cells += [figure_cell(model.weights(precision.id)) for model in models]
        rows.append(Row(Cell(Text(precision.label), sub=sub), tuple(cells), precision.id))
    columns = (Column(Msg.of("bytes per parameter"), True, "bytes_per_param"),
               *(Column(Text(model.name), True, model.id) for model in models))
    return Table(id="precisions", caption=Msg.of("Weights by precision"), corner=Msg.of("Precision"), columns=columns,
                 rows=tuple(rows))


def inference_table(guide: Guide) -> Table:
    inference = guide.data.inference
    methods = [method for method in guide.data.methods if method.kind == MethodKind.INFERENCE]
    columns = [Column(Msg.of("KV cache at {context}, batch {batch}", context=tokens_label(inference.context_tokens),
                             batch=Fig(given(inference.batch, "", COUNT))), True, "kv_cache")] if inference.kv_cache else []
    columns += [Column(Msg.of("{method} total", method=method_label(method)), True, method.id) for method in methods]
    rows = []
    for model in guide.models:
        cells = [figure_cell(model.kv())] if inference.kv_cache else []
        cells += [figure_cell(model.need(method.id).total) for method in methods]
        rows.append(Row(model_header(model, model_shape(model)), tuple(cells), model.id))
    return Table(id="inference", caption=Msg.of("Memory to serve each model"), corner=Msg.of("Model"),
                 columns=tuple(columns), rows=tuple(rows))


def context_table(guide: Guide, contexts: list[int], model_ids: list[str] | None = None) -> Table:
    """KV cache per token and at the default context, then at each longer context of ``contexts``;
    a row per model (those of ``model_ids`` in that order, if named)."""
    models = [guide.model(model_id) for model_id in model_ids] if model_ids else list(guide.models)
    shapeless = [model.id for model in models if not model.model.layers]
    if shapeless:
        raise ValueError(f"no KV cache shape (layers, KV heads, head dim) for model {', '.join(shapeless)}")
    contexts = sorted({guide.data.inference.context_tokens, *contexts})
    columns = [Column(Msg.of("KV per token"), True, "kv_per_token")]
    columns += [Column(tokens_label(tokens), True, f"kv_{tokens}") for tokens in contexts]
    rows = []
    for model in models:
        sub = Msg.of("KV width {width}", width=Fig(model.kv_width))
        cells = [figure_cell(model.kv_per_token())] + [figure_cell(model.kv(context=tokens)) for tokens in contexts]
        rows.append(Row(model_header(model, (model_shape(model), Text(" · "), sub)), tuple(cells), model.id))
    inference = guide.data.inference
    assumes = Msg.of("{precision} cache, batch {batch}", precision=Text(inference.kv_precision.label),
                     batch=Fig(given(inference.batch, "", COUNT)))
    return Table(id="context", caption=Msg.of("KV cache by context length"), corner=Msg.of("Model"),
                 columns=tuple(columns), rows=tuple(rows), assumes=(assumes,))


def finetune_table(guide: Guide) -> Table:
    methods = [method for method in guide.data.methods if method.kind == MethodKind.FINETUNE]
    columns = tuple(Column(method_label(method), True, method.id) for method in methods)
    rows = tuple(
        Row(model_header(model), tuple(figure_cell(model.need(method.id).total) for method in methods), model.id)
        for model in guide.models
    )
    return Table(id="finetune", caption=Msg.of("Memory to fine-tune each model"), corner=Msg.of("Model"),
                 columns=columns, rows=rows)


def lookup_table(guide: Guide, columns: list[str] | None = None, table_id: str = "lookup",
                 caption: str | None = None, examples: bool = False) -> Table:
    """The lookup grid: a row per model, a cell per method (all of the site's columns unless named).

    ``examples`` puts the model's example names under its size, for pages that
    name models as well as sizes. ``caption``, a msgid, defaults to the selection
    rule's (selection_words.py).
    """
    methods = [guide.method(method_id) for method_id in columns] if columns else list(guide.columns)
    heads = tuple(Column(method_label(method), False, method.id) for method in methods)
    rows = []
    for model in guide.models:
        cells = []
        for method in methods:
            found = guide.cell(model.id, method.id)
            flags = ("tight",) if found.choice and found.choice.tight else ()
            flags += ("sales",) if not found.fits else ("multi",) if found.choice.count > 1 else ()
            cells.append(Cell(flags=flags, value=found.need, lookup=found, answer=lookup_answer(found)))
        sub = Names(tuple(Text(name) for name in model.examples)) if examples and model.examples else None
        rows.append(Row(model_header(model, sub), tuple(cells), model.id))
    caption = caption or selection_words(guide.data.lookup.selection).lookup_caption
    return Table(id=table_id, caption=Msg.of(caption), corner=Msg.of("Model"), columns=heads, rows=tuple(rows))


def cost_table(guide: Guide) -> Table:
    period = guide.data.pricing.period
    columns = (
        Column(Msg.of("VRAM"), True, "memory_gb"),
        Column(Msg.of("Bandwidth"), True, "bandwidth_gbps"),
        Column(Msg.of("Price per month" if period == Period.MONTH else "Price per GPU-hour"), True, "price"),
        Column(Msg.of("$ per GB per month"), True, "usd_per_gb_month"),
        Column(Msg.of("GB/s per $ per month"), True, "gbps_per_usd"),
        Column(Msg.of("Per GPU-hour"), True, "usd_per_hour"),
    )
    rows = []
    for gpu in guide.gpus_by_memory():
        cells = (figure_cell(gpu.memory), figure_cell(gpu.bandwidth), figure_cell(gpu.price, period=True),
                 figure_cell(gpu.usd_per_gb), figure_cell(gpu.gbps_per_usd, bare=True), figure_cell(gpu.hourly))
        rows.append(Row(gpu_header(gpu, gpu_summary(guide, gpu)), cells, gpu.id))
    return Table(id="cost", caption=Msg.of("What a GB of VRAM costs"), corner=Msg.of("GPU"), columns=columns,
                 rows=tuple(rows))


def gpu_summary(guide: Guide, gpu) -> tuple:
    """'HBM3 · CDNA 3 · FP8' under a card's name."""
    parts: list = [Text(gpu.memory_type), Text(" · "), Text(gpu.architecture), Text(" · ")]
    parts.append(Msg.of("FP8") if gpu.has("fp8") else Msg.of("no FP8"))
    if gpu.min_cards.value > 1:
        parts += [Text(" · "), Msg.of("from {cards}", cards=Fig(gpu.min_cards))]
    return tuple(parts)


def comparison_table(guide: Guide, configs: list[tuple[str, int]]) -> Table:
    columns = (
        Column(Msg.of("VRAM"), True, "memory_gb"),
        Column(Msg.of("Bandwidth"), True, "bandwidth_gbps"),
        Column(Msg.of("Price per month"), True, "price"),
        Column(Msg.of("Card-to-card link, each way"), True, "link_gbps"),
    )
    rows = []
    for gpu_id, count in configs:
        gpu = guide.gpu(gpu_id)
        header = Cell(cards_label(count, Link(("gpu", gpu.id), Text(gpu.name))))
        cells = (figure_cell(gpu.memory_of(count)), figure_cell(gpu.bandwidth_of(count)),
                 figure_cell(gpu.order(count), period=True),
                 Cell((Fig(gpu.link), Text(" "), Msg.of(f"link:{gpu.interconnect_kind}"))))
        rows.append(Row(header, cells, f"{count}x-{gpu.id}"))
    return Table(id="comparison", caption=Msg.of("Two cards or one"), corner=Msg.of("Configuration"), columns=columns,
                 rows=tuple(rows))


TABLES = {
    "precisions": precision_table,
    "inference": inference_table,
    "context": context_table,
    "finetune": finetune_table,
    "lookup": lookup_table,
    "cost": cost_table,
    "comparison": comparison_table,
}
"""Tables content can place by name: {{ table("lookup") }}."""
