"""Tables about the real models of data/catalogue.yaml: the catalogue page, and each model's own page.

Every figure comes from ``CatalogueView`` (calc/model_views.py), which sizes the model layer kind by layer kind.
"""

from __future__ import annotations

from ..calc.guide import Guide
from ..calc.model_views import CatalogueView
from ..load.model import MethodKind
from .guide import catalogue_model_header, figure_cell, lookup_answer, method_label, model_bundle, tokens_label
from .model import Cell, Column, Fig, Flag, Msg, Names, Row, Table, Text
from .selection_words import selection_words
from .serving import choice_cell

PAST_MAXIMUM = "past the model’s maximum"


def layer_kinds(model: CatalogueView) -> Cell:
    """'full, sliding window' and 'mixture of experts': the kinds of layers a model has, in its order."""
    kinds = tuple(dict.fromkeys(type(group) for group in model.layers))
    names = Names(tuple(Msg.of(kind.words) for kind in kinds))
    return Cell(names, sub=Msg.of("mixture of experts") if model.experts else None)


def lookup_cell(found) -> Cell:
    flags = ("tight",) if found.choice and found.choice.tight else ()
    flags += ("sales",) if not found.fits else ("multi",) if found.choice.count > 1 else ()
    return Cell(flags=flags, value=found.need, lookup=found, answer=lookup_answer(found))


def models_table(guide: Guide) -> Table | None:
    """Every real model: its layer kinds, sizes, longest context, KV cache per token, the cheapest card that fits
    (None where the site has no catalogue)."""
    if not guide.catalogue:
        return None
    bf16 = guide.kv_precision()
    # What a reader comes for first (size, context, where it starts), so that a phone shows it without scrolling.
    columns = (
        Column(Msg.of("Parameters"), True, "params"),
        Column(Msg.of("Longest context"), True, "max_context"),
        Column(Msg.of(selection_words(guide.data.lookup.selection).start_column), False, "starts_on"),
        Column(Msg.of("Ships in"), False, "native_format"),
        Column(Msg.of("Active parameters"), True, "active_params"),
        Column(Msg.of("KV per token ({precision})", precision=Text(bf16.label)), True, "kv_per_token"),
        Column(Msg.of("Layer kinds"), False, "layer_kinds"),
    )
    rows = []
    for model in guide.catalogue:
        native = model.native_format()
        cells = (figure_cell(model.params), figure_cell(model.max_context),
                 choice_cell(guide, model.serving_choice(native.id)), Cell(Text(native.name)),
                 figure_cell(model.active_params), figure_cell(model.kv_per_token(bf16.id)), layer_kinds(model))
        rows.append(Row(catalogue_model_header(model, Text(model.architecture)), cells, model.id))
    return Table(id="models", caption=Msg.of("Every model in the catalogue"), corner=Msg.of("Model"), columns=columns,
                 rows=tuple(rows), stacks=True, finder=Msg.of("Find a model"))


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
    return Table(id=f"model-kv-{view.id}", caption=Msg.of("{model} KV cache, one sequence", model=Text(view.name)),
                 corner=Msg.of("KV cache format"), columns=tuple(columns), rows=tuple(rows), notes=notes,
                 bundle=model_bundle(view))


def model_methods_table(guide: Guide, model: str) -> Table:
    """For each fine-tuning method of the lookup grid: the memory it needs on one card, and the configuration the
    rule picks (serving is sized by its engine: tables/serving.py)."""
    view, words = guide.catalogue_model(model), selection_words(guide.data.lookup.selection)
    columns = (Column(Msg.of("Needs on one card"), True, "need_gb"),
               Column(Msg.of(words.methods_column), False, "configuration"))
    rows = tuple(Row(Cell(method_label(method)), (figure_cell(view.need(method).total), lookup_cell(view.lookup(method))),
                     method.id)
                 for method in guide.columns if method.kind != MethodKind.INFERENCE)
    return Table(id=f"model-methods-{view.id}", caption=Msg.of(words.methods_caption, model=Text(view.name)),
                 corner=Msg.of("Method"), columns=columns, rows=rows, bundle=model_bundle(view))


MODEL_TABLES = {
    "models": models_table,
    "model_kv": model_kv_table,
    "model_methods": model_methods_table,
}
