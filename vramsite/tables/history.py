"""Tables of the price history: a card's price in each dated list, and when the prices last moved a model's pick."""

from __future__ import annotations

from ..calc.guide import Guide
from ..calc.price_history import AnswerChange
from ..load.model import MethodKind, Period
from .guide import configuration_label, figure_cell, method_label, model_bundle
from .model import Cell, Column, Fig, Msg, Row, Table, Text, When
from .serving import choice_cell


def gpu_price_history_table(guide: Guide, gpu: str) -> Table:
    """One card's price in each dated list, newest first; a marketplace's median and listings where it gave them."""
    card = guide.gpu(gpu)
    points = card.past_prices
    extras = [(Column(label, True, key), key) for label, key in ((Msg.of("Median listing"), "median"),
                                                                (Msg.of("Available listings"), "listings"))
              if any(getattr(point, key) is not None for point in points)]
    rows = tuple(Row(Cell(When(point.at)),
                     (figure_cell(point.price, period=True),
                      *(_optional_cell(getattr(point, key)) for _, key in extras)), point.at)
                 for point in reversed(points))
    price = Msg.of("Per month" if guide.data.pricing.period == Period.MONTH else "Per GPU-hour")
    return Table(id=f"price-history-{card.id}", caption=Msg.of("{card}: its price in each dated list",
                                                                card=Text(card.name)),
                 corner=Msg.of("Date"), columns=(Column(price, True, "price"), *(column for column, _ in extras)),
                 rows=rows)


def _optional_cell(figure) -> Cell:
    return Cell(Text("—")) if figure is None else figure_cell(figure)


def model_pick_history_table(guide: Guide, model: str) -> Table:
    """For serving in the model's own format and each fine-tuning method of the grid: the pick now, since when
    the dated prices have given it, and the pick before that."""
    view = guide.catalogue_model(model)
    native = view.native_format()
    rows = [_change_row(Cell(Msg.of("Serving, {format}", format=Text(native.name))),
                        view.serving_change(native.id), "serving", lambda choice: choice_cell(guide, choice))]
    rows += [_change_row(Cell(method_label(method)), view.method_change(method), method.id, _pick_cell)
             for method in guide.columns if method.kind != MethodKind.INFERENCE]
    columns = (Column(Msg.of("Now"), False, "now"), Column(Msg.of("Since"), False, "since"),
               Column(Msg.of("Before"), False, "before"))
    return Table(id=f"model-picks-{view.id}", caption=Msg.of("{model}: when the prices last changed the pick",
                                                            model=Text(view.name)),
                 corner=Msg.of("Question"), columns=columns, rows=tuple(rows), stacks=True, bundle=model_bundle(view))


def _pick_cell(found) -> Cell:
    """What the lookup picked and its price then, as words: no calculator's case, since a past answer is not what
    the calculator, at today's prices, gives."""
    if found.choice is None:
        return Cell(Msg.of("talk to sales"), flags=("sales",))
    return Cell(configuration_label(found.choice), sub=Fig(found.choice.price, period=True))


def _change_row(header: Cell, change: AnswerChange, key: str, cell_of) -> Row:
    if change.since is None:
        since, before = Cell(Msg.of("every list since {date}", date=When(change.first))), Cell(Text("—"))
    else:
        since, before = Cell(When(change.since)), cell_of(change.before)
    return Row(header, (cell_of(change.now), since, before), key)


HISTORY_TABLES = {
    "gpu_price_history": gpu_price_history_table,
    "model_pick_history": model_pick_history_table,
}
