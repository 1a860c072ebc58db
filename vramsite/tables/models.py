"""Tables about the real models of data/catalogue.yaml: the catalogue page, and each model's own page.

Every figure comes from ``CatalogueView`` (calc/guide.py), which sizes the model layer kind by layer kind.
"""

from __future__ import annotations

from ..calc.guide import CatalogueView, Guide
from ..load.model import MethodKind
from .guide import figure_cell, gpu_header, lacks_cell, lookup_answer, method_label, not_held_cell, tokens_label
from .model import Cell, Column, Fig, Flag, Link, Msg, Names, Row, Table, Text
from .selection_words import selection_words

PAST_MAXIMUM = "past the model’s maximum"


def layer_kinds(model: CatalogueView) -> Cell:
    """'full, sliding window' and 'mixture of experts': the kinds of layers a model has, in its order."""
    kinds = tuple(dict.fromkeys(group.kind for group in model.model.layers))
    names = Names(tuple(Msg.of(f"layers:{kind}") for kind in kinds))
    return Cell(names, sub=Msg.of("mixture of experts") if model.experts else None)


def model_header(model: CatalogueView, sub=None) -> Cell:
    return Cell(Link(("model", model.id), Text(model.name)), sub=sub)


def lookup_cell(found) -> Cell:
    flags = ("tight",) if found.choice and found.choice.tight else ()
    flags += ("sales",) if not found.fits else ("multi",) if found.choice.count > 1 else ()
    return Cell(flags=flags, value=found.need, lookup=found, answer=lookup_answer(found))


def models_table(guide: Guide) -> Table | None:
    """Every real model: its layer kinds, sizes, longest context, KV cache per token, the cheapest card that fits
    (None where the site has no catalogue)."""
    if not guide.catalogue:
        return None
    method = guide.default_inference()
    bf16 = guide.kv_precision()
    columns = (
        Column(Msg.of("Layers"), False, "layer_kinds"),
        Column(Msg.of("Parameters"), True, "params"),
        Column(Msg.of("Active parameters"), True, "active_params"),
        Column(Msg.of("Longest context"), True, "max_context"),
        Column(Msg.of("KV per token ({precision})", precision=Text(bf16.label)), True, "kv_per_token"),
        Column(Msg.of(selection_words(guide.data.lookup.selection).fit_column, method=method_label(method)), False,
               "cheapest_fit"),
    )
    rows = []
    for model in guide.catalogue:
        cells = (layer_kinds(model), figure_cell(model.params), figure_cell(model.active_params),
                 figure_cell(model.max_context), figure_cell(model.kv_per_token(bf16.id)),
                 lookup_cell(model.lookup(method)))
        rows.append(Row(model_header(model, Text(model.architecture)), cells, model.id))
    return Table("models", Msg.of("Every model in the catalogue"), Msg.of("Model"), columns, tuple(rows))


def model_weights_table(guide: Guide, model: str) -> Table:
    """The weights of every parameter, experts included, at each precision."""
    view = guide.catalogue_model(model)
    columns = (Column(Msg.of("Weights"), True, "weights_gb"), Column(Msg.of("Read per token"), True, "read_gb"))
    rows = tuple(Row(Cell(Text(precision.label)), (figure_cell(view.weights(precision.id)),
                                                  figure_cell(view.decode_read(precision.id))), precision.id)
                 for precision in guide.data.precisions)
    return Table(f"model-weights-{view.id}", Msg.of("{model} weights by precision", model=Text(view.name)),
                 Msg.of("Precision"), columns, rows)


def model_kv_table(guide: Guide, model: str, contexts: list[int]) -> Table:
    """KV cache bytes per token, and the cache of one sequence at each context, per KV cache format;
    a context past the model's longest is marked."""
    view = guide.catalogue_model(model)
    shown = view.contexts_with_max(contexts)
    columns = [Column(Msg.of("Per token"), True, "per_token_bytes")]
    columns += [Column(tokens_label(tokens), True, f"kv_{tokens}") for tokens in shown]
    rows = []
    for precision in guide.data.kv_precisions:
        cells = [figure_cell(view.kv_per_token(precision.id))]
        for tokens in shown:
            cache = view.kv(context=tokens, batch=1, kv_precision=precision.id)
            if tokens > view.model.max_context:
                cells.append(Cell(Fig(cache), sub=Flag(PAST_MAXIMUM), flags=("past",), value=cache))
            else:
                cells.append(figure_cell(cache))
        rows.append(Row(Cell(Text(precision.label)), tuple(cells), precision.id))
    notes = ()
    if view.state_per_sequence.value:
        notes = (Msg.of("Each sequence also keeps {state} of linear-attention state, whatever its length.",
                        state=Fig(view.state_per_sequence)),)
    return Table(f"model-kv-{view.id}", Msg.of("{model} KV cache, one sequence", model=Text(view.name)),
                 Msg.of("KV cache format"), tuple(columns), tuple(rows), notes=notes)


def model_methods_table(guide: Guide, model: str) -> Table:
    """For each method of the lookup grid: the memory it needs on one card, and the configuration the rule picks."""
    view, words = guide.catalogue_model(model), selection_words(guide.data.lookup.selection)
    columns = (Column(Msg.of("Needs on one card"), True, "need_gb"),
               Column(Msg.of(words.methods_column), False, "configuration"))
    rows = tuple(Row(Cell(method_label(method)), (figure_cell(view.need(method).total), lookup_cell(view.lookup(method))),
                     method.id)
                 for method in guide.columns)
    return Table(f"model-methods-{view.id}", Msg.of(words.methods_caption, model=Text(view.name)),
                 Msg.of("Method"), columns, rows)


def _inference_methods(guide: Guide):
    return [guide.inference_method(method.precision.id) for method in guide.columns
            if method.kind == MethodKind.INFERENCE]


def _per_card_table(guide: Guide, view, kind: str, caption: Msg, card_figure, cell_of) -> Table:
    """A row per card (largest memory first), a column per inference precision; ``cell_of(card, method)``
    fills a cell where the card has the precision's hardware."""
    methods = _inference_methods(guide)
    columns = tuple(Column(method_label(method), True, method.id) for method in methods)
    rows = []
    for card in guide.gpus_by_memory():
        cells = tuple(lacks_cell(card.gpu, method) or cell_of(card, method) for method in methods)
        rows.append(Row(gpu_header(card, Fig(card_figure(card))), cells, card.id))
    return Table(f"model-{kind}-{view.id}", caption, Msg.of("GPU"), columns, tuple(rows))


def model_context_table(guide: Guide, model: str) -> Table:
    """The longest context one card holds at each inference precision (one sequence)."""
    view = guide.catalogue_model(model)

    def cell(card, method) -> Cell:
        tokens = view.longest_context(card.memory, method.precision.id, batch=1)
        return figure_cell(tokens) if tokens else not_held_cell()

    return _per_card_table(guide, view, "context", Msg.of("Longest context of {model} on one card",
                                                          model=Text(view.name)), lambda card: card.memory, cell)


def model_sequences_table(guide: Guide, model: str, context: int) -> Table:
    """How many sequences of ``context`` tokens one card holds beside the weights, per inference precision."""
    view = guide.catalogue_model(model)

    def cell(card, method) -> Cell:
        count = view.sequences(card.memory, method.precision.id, context=context)
        return figure_cell(count) if count else not_held_cell()

    caption = Msg.of("Sequences of {context} tokens {model} serves on one card", context=tokens_label(context),
                     model=Text(view.name))
    return _per_card_table(guide, view, "sequences", caption, lambda card: card.memory, cell)


def model_ceilings_table(guide: Guide, model: str) -> Table:
    """The decode ceiling of one stream on one card: bandwidth ÷ the weights a token reads (active ones)."""
    view = guide.catalogue_model(model)

    def cell(card, method) -> Cell:
        if not view.fits_one(card, method):
            return not_held_cell()
        ceiling = view.decode_ceiling(card.id, method.precision.id)
        return Cell(Fig(ceiling), value=ceiling)

    return _per_card_table(guide, view, "ceilings", Msg.of("Decode ceiling of {model} on one card",
                                                           model=Text(view.name)), lambda card: card.bandwidth, cell)


def model_cost_table(guide: Guide, model: str) -> Table | None:
    """At the default precision, on each card that holds the model alone: its price per GPU-hour, its
    decode ceiling, and what a million tokens cost at that ceiling; the cheapest is marked."""
    view = guide.catalogue_model(model)
    method = guide.default_inference()
    precision = method.precision.id
    best = view.cheapest_to_run(precision)
    columns = (Column(Msg.of("Price per GPU-hour"), True, "usd_per_hour"),
               Column(Msg.of("Decode ceiling"), True, "tokens_per_second"),
               Column(Msg.of("Per million tokens"), True, "usd_per_million_tokens"))
    rows = []
    for card in guide.gpus:
        if card.hourly is None or not view.fits_one(card, method):
            continue
        per_million = view.usd_per_million_tokens(card, precision)
        flags = ("cheapest",) if best is not None and card.id == best.id else ()
        cells = (figure_cell(card.hourly), figure_cell(view.decode_ceiling(card.id, precision)),
                 Cell(Fig(per_million), sub=Flag("cheapest") if flags else None, flags=flags, value=per_million))
        rows.append(Row(gpu_header(card), cells, card.id))
    if not rows:  # no card holds the model alone
        return None
    rows.sort(key=lambda row: (row.cells[2].value.value, row.key))
    return Table(f"model-cost-{view.id}", Msg.of("What {model} costs per million tokens, {method}", model=Text(view.name),
                                           method=method_label(method)),
                 Msg.of("GPU"), columns, tuple(rows))


MODEL_TABLES = {
    "models": models_table,
    "model_weights": model_weights_table,
    "model_kv": model_kv_table,
    "model_methods": model_methods_table,
    "model_context": model_context_table,
    "model_sequences": model_sequences_table,
    "model_ceilings": model_ceilings_table,
    "model_cost": model_cost_table,
}
