"""Tables whose verdicts are a serving engine's (calc/serving.py): a real model's formats, the configuration on
which its engine starts, the context and sequences each card holds, decode speeds and costs; and on a GPU page,
the real models that start on that card.

Each cell that says a model runs says so because the engine named in the table's caption starts with the asked
context under its default settings; a cell where it does not gives the reason in a word: "does not start", or the
hardware the format needs.
"""

from __future__ import annotations

from ..calc.guide import Guide
from ..calc.model_views import CatalogueView
from ..calc.serving import Verdict, in_gb, longest_context, room_tokens, sequences_held, serving_engine
from .guide import cards_label, catalogue_model_header, figure_cell, gpu_header, model_bundle, tokens_label
from .model import Cell, Column, Fig, Flag, Link, Msg, Row, Table, Text

NATIVE = "the checkpoint’s format"
DOES_NOT_START = "does not start"


def engine_name(guide: Guide, weight_format) -> str:
    """The engine a verdict for the format names (calc/serving.serving_engine)."""
    return serving_engine(guide.data.engines, weight_format).name


def format_header(view: CatalogueView, weight_format) -> Cell:
    native = weight_format.id == view.native_format().id
    return Cell(Text(weight_format.name), sub=Msg.of(NATIVE) if native else None)


def refusal_cell(answer: Verdict) -> Cell:
    """Why the engine gives no figure here: the feature the card lacks, or that it does not start."""
    if answer.needs:
        return Cell(Msg.of("no {feature}", feature=Text(answer.needs.upper())), flags=("no",))
    return Cell(Flag(DOES_NOT_START), flags=("no",))


def choice_cell(guide: Guide, choice) -> Cell:
    """'2× H100 SXM' over the engine's name, or that no configuration we rent starts it."""
    if choice is None:
        return Cell(Flag(DOES_NOT_START), flags=("no", "sales"))
    card = guide.gpu(choice.offer.gpu.id)
    link = Link(("gpu", card.id), Text(card.name))
    what = link if choice.offer.count == 1 else cards_label(choice.offer.count, link)
    return Cell(what, sub=Text(choice.verdict.engine.name), flags=("multi",) if choice.offer.count > 1 else (),
                order=choice.offer.usd)


def model_formats_table(guide: Guide, model: str) -> Table:
    """The model's weights in each format, the one it ships in first: bits per weight with scales and 16-bit
    parts, the bytes in memory, the bytes a token reads, and the engine that loads the format."""
    view = guide.catalogue_model(model)
    columns = (Column(Msg.of("Bits per weight"), True, "bits_per_weight"),
               Column(Msg.of("Weights"), True, "weights_gb"),
               Column(Msg.of("Read per token"), True, "read_gb"),
               Column(Msg.of("Engine"), False, "engine"))
    rows = tuple(Row(format_header(view, weight_format),
                     (figure_cell(view.format_bits(weight_format.id)), figure_cell(view.format_weights(weight_format.id)),
                      figure_cell(view.format_read(weight_format.id)),
                      Cell(Text(engine_name(guide, weight_format)))), weight_format.id)
                 for weight_format in view.formats())
    return Table(id=f"model-weights-{view.id}", caption=Msg.of("{model} weights by format", model=Text(view.name)),
                 corner=Msg.of("Format"), columns=columns, rows=rows, bundle=model_bundle(view))


def model_serving_table(guide: Guide, model: str) -> Table:
    """For each format, the configuration the site's selection rule prefers among those on which the format's
    engine starts at the site's context and batch: the weights each card holds, the order, its price, and the
    tokens of KV cache each card has room for."""
    view = guide.catalogue_model(model)
    columns = (Column(Msg.of("Weights per card"), True, "weights_per_card_gb"),
               Column(Msg.of("Configuration"), False, "configuration"),
               Column(Msg.of("Price"), True, "price"),
               Column(Msg.of("KV cache room per card"), True, "kv_tokens"))
    rows = []
    for weight_format in view.formats():
        choice = view.serving_choice(weight_format.id)
        header = format_header(view, weight_format)
        if choice is None:
            rows.append(Row(header, (Cell(), choice_cell(guide, None), Cell(), Cell()), weight_format.id))
            continue
        rows.append(Row(header, (figure_cell(in_gb(choice.verdict.weights_gib)), choice_cell(guide, choice),
                                 figure_cell(guide.gpu(choice.offer.gpu.id).order(choice.offer.count), period=True),
                                 figure_cell(room_tokens(choice.verdict, view.model, guide.serving_kv()))),
                        weight_format.id))
    caption = Msg.of("Where {model} starts, by format", model=Text(view.name))
    return Table(id=f"model-serving-{view.id}", caption=caption, corner=Msg.of("Format"), columns=columns,
                 rows=tuple(rows), bundle=model_bundle(view))


def _per_card(guide: Guide, view: CatalogueView, kind: str, caption: Msg, card_figure, cell_of,
              context: int | None = None) -> Table:
    """A row per card (largest memory first), a column per format; ``cell_of(card, answer)`` fills a cell where
    the engine starts with ``context`` tokens (default: the site's) and it has a figure, else the reason it does
    not."""
    shown = view.formats()
    columns = tuple(Column(Text(weight_format.name), True, weight_format.id) for weight_format in shown)
    rows = []
    for card in guide.gpus_by_memory():
        cells = []
        for weight_format in shown:
            answer = view.serve(weight_format.id, card.gpu, 1, context=context, sequences=1)
            cells.append((answer.starts and cell_of(card, answer)) or refusal_cell(answer))
        rows.append(Row(gpu_header(card, Fig(card_figure(card))), tuple(cells), card.id))
    return Table(id=f"model-{kind}-{view.id}", caption=caption, corner=Msg.of("GPU"), columns=columns, rows=tuple(rows),
                 bundle=model_bundle(view))


def model_context_table(guide: Guide, model: str) -> Table:
    """The longest context one sequence may have on one card, per format, under the format's engine."""
    view = guide.catalogue_model(model)

    def cell(card, answer: Verdict) -> Cell | None:
        tokens = longest_context(answer, view.model, guide.serving_kv())
        return figure_cell(tokens) if tokens else None

    return _per_card(guide, view, "context", Msg.of("Longest context of {model} on one card", model=Text(view.name)),
                     lambda card: card.memory, cell)


def model_sequences_table(guide: Guide, model: str, context: int) -> Table:
    """How many sequences of ``context`` tokens one card holds, per format, once the engine starts with that
    context."""
    view = guide.catalogue_model(model)

    def cell(card, answer: Verdict) -> Cell | None:
        held = sequences_held(answer, view.model, guide.serving_kv(), context)
        return figure_cell(held) if held else None

    caption = Msg.of("Sequences of {context} tokens {model} serves on one card", context=tokens_label(context),
                     model=Text(view.name))
    return _per_card(guide, view, "sequences", caption, lambda card: card.memory, cell, context)



def _configuration_header(card, cards: int) -> Cell:
    link = Link(("gpu", card.id), Text(card.name))
    return Cell(link if cards == 1 else cards_label(cards, link), flags=("multi",) if cards > 1 else ())


def model_speed_table(guide: Guide, model: str, context: int | None = None) -> Table | None:
    """For each card, in the format the model ships in, the fewest of it on which the engine starts it, at
    ``context`` tokens (default: the site's): one sequence's decode speed, the sequences the engine decodes
    together and their speed, and the time to the first token of a prompt that long (calc/serving_speed.py);
    None where nothing starts it or the site states no speeds."""
    view = guide.catalogue_model(model)
    native = view.native_format().id
    columns = (Column(Msg.of("One sequence"), True, "tokens_per_s_one"),
               Column(Msg.of("Sequences at once"), True, "sequences"),
               Column(Msg.of("All sequences"), True, "tokens_per_s_all"),
               Column(Msg.of("First token"), True, "ttft_s"))
    rows = []
    for card, cards in view.configurations(native):
        speed = view.speed(native, card.gpu, cards, context=context)
        if speed is None:
            continue
        cells = (figure_cell(speed.one.tokens_per_s()), figure_cell(speed.sequences),
                 figure_cell(speed.batch.tokens_per_s()), figure_cell(speed.first_token.seconds))
        rows.append(Row(_configuration_header(card, cards), cells, f"{cards}x-{card.id}"))
    if not rows:
        return None
    caption = Msg.of("Decode speed of {model} at {context} tokens, {method}", model=Text(view.name),
                     context=tokens_label(context or guide.data.inference.context_tokens),
                     method=Text(view.native_format().name))
    return Table(id=f"model-speed-{view.id}", caption=caption, corner=Msg.of("Configuration"), columns=columns,
                 rows=tuple(rows), bundle=model_bundle(view))


def model_cost_table(guide: Guide, model: str) -> Table | None:
    """In the format the model ships in, for each card the fewest of it on which its engine starts: the price per
    hour, and what a million output tokens cost decoding one sequence and the engine's full batch; the cheapest
    at the full batch is marked."""
    view = guide.catalogue_model(model)
    native = view.native_format().id
    best = view.cheapest_to_run_format(native)
    columns = (Column(Msg.of("Price per hour"), True, "usd_per_hour"),
               Column(Msg.of("Per million tokens, one sequence"), True, "usd_per_million_tokens_one"),
               Column(Msg.of("Per million tokens, full batch"), True, "usd_per_million_tokens_all"))
    rows = []
    for card, cards in view.configurations(native):
        one = view.usd_per_million_tokens(card, native, cards, full_batch=False)
        full = view.usd_per_million_tokens(card, native, cards)
        if full is None:
            continue
        flags = ("cheapest",) if best == (card, cards) else ()
        cells = (figure_cell(view.hourly(card, cards)), figure_cell(one),
                 Cell(Fig(full), sub=Flag("cheapest") if flags else None, flags=flags, value=full))
        rows.append(Row(_configuration_header(card, cards), cells, f"{cards}x-{card.id}"))
    if not rows:
        return None
    rows.sort(key=lambda row: (row.cells[2].value.value, row.key))
    return Table(id=f"model-cost-{view.id}",
                 caption=Msg.of("What {model} costs per million output tokens, {method}", model=Text(view.name),
                                method=Text(view.native_format().name)),
                 corner=Msg.of("Configuration"), columns=columns, rows=tuple(rows), bundle=model_bundle(view))


def gpu_models_table(guide: Guide, gpu: str) -> Table | None:
    """Every real model in the format it ships in on one card of ``gpu``: the engine, the weights, the KV cache
    room it leaves at the site's context, and where the site states speeds, one sequence's estimated decode speed
    and what a million output tokens cost at the engine's full batch; or why it does not start (None where the
    site has no catalogue or no engines)."""
    if not guide.catalogue or not guide.serves:
        return None
    card = guide.gpu(gpu)
    columns = [Column(Msg.of("Format"), False, "format"), Column(Msg.of("Engine"), False, "engine"),
               Column(Msg.of("Weights"), True, "weights_gb"),
               Column(Msg.of("KV cache room per card"), True, "kv_tokens")]
    speeds = card.states_speeds
    if speeds:
        columns += [Column(Msg.of("One sequence"), True, "tokens_per_s_one"),
                    Column(Msg.of("Per million tokens, full batch"), True, "usd_per_million_tokens_all")]
    rows = []
    for view in guide.catalogue:
        native = view.native_format()
        answer = view.serve(native.id, card.gpu)
        room = figure_cell(room_tokens(answer, view.model, guide.serving_kv())) if answer.fits else refusal_cell(answer)
        cells = [Cell(Text(native.name)), Cell(Text(answer.engine.name)), figure_cell(in_gb(answer.weights_gib)), room]
        if speeds:
            speed = view.speed(native.id, card.gpu) if answer.fits else None
            cells += [figure_cell(speed.one.tokens_per_s()) if speed else Cell(),
                      figure_cell(view.usd_per_million_tokens(card, native.id)) if speed else Cell()]
        rows.append(Row(catalogue_model_header(view), tuple(cells), view.id))
    return Table(id=f"gpu-models-{card.id}", caption=Msg.of("Real models on one {card}", card=Text(card.name)),
                 corner=Msg.of("Model"), columns=tuple(columns), rows=tuple(rows), stacks=True)


SERVING_TABLES = {
    "model_weights": model_formats_table,
    "model_serving": model_serving_table,
    "model_context": model_context_table,
    "model_sequences": model_sequences_table,
    "model_speed": model_speed_table,
    "model_cost": model_cost_table,
    "gpu_models": gpu_models_table,
}
