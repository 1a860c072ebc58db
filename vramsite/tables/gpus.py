"""Tables about cards: the catalogue, and each card's own page."""

from __future__ import annotations

from ..calc import rules
from ..calc.cost import discount_percent, per_card_hour
from ..calc.figure import COUNT, given
from ..calc.card_view import GpuView
from ..calc.guide import Guide
from ..calc.memory import max_context
from ..errors import UnknownId
from ..load.cards import CARD, FIGURE, OWN, SHOWN, WORDS, YES_NO, CardEntry, CardField
from ..load.model import MethodKind, Period
from .guide import figure_cell, gpu_header, lacks_cell, method_label, model_header, not_held_cell
from .model import Cell, Column, Fig, Flag, Link, Msg, Row, Table, Text


def yes_no(value: bool) -> Cell:
    return Cell(Msg.of("yes" if value else "no"))


def memory_cell(gpu: GpuView) -> Cell:
    return Cell(Text(gpu.memory_type + (" ECC" if gpu.gpu.ecc else "")))


def interconnect_cell(gpu: GpuView) -> Cell:
    parts = (Msg.of(f"link:{gpu.interconnect_kind}"), Text(" "), Fig(gpu.link))
    if gpu.all_to_all_cards is None:
        return Cell(parts)
    if gpu.peer_link is not None:
        return Cell(parts, sub=Msg.of("all-to-all across {cards}, {peer} to any one", cards=Fig(gpu.all_to_all_cards),
                                      peer=Fig(gpu.peer_link)))
    return Cell(parts, sub=Msg.of("all-to-all across {cards}", cards=Fig(gpu.all_to_all_cards)))


def regions_cell(gpu: GpuView) -> Cell:
    if not gpu.regions:
        return Cell(Msg.of("all regions"))
    parts: list = []
    for region in gpu.regions:
        if parts:
            parts.append(Text(", "))
        if region.stock is None:
            parts.append(Text(region.id))
        else:
            parts.append(Msg.of("{region}: {stock} free", region=Text(region.id),
                                stock=Fig(given(region.stock, "", COUNT))))
    return Cell(tuple(parts))


OWN_CELLS = {"memory_type": memory_cell, "interconnect": interconnect_cell, "regions": regions_cell}
"""The cells of the fields load/cards.py draws with ``OWN``, by key."""


def _value(entry: CardEntry, gpu: GpuView):
    return None if entry.view is None else getattr(gpu, entry.view)


def card_cell(entry: CardEntry, gpu: GpuView) -> Cell:
    """The card's cell for one entry of load/cards.py, as its ``cell`` says; a field the card leaves out is '—'."""
    if entry.cell == OWN:
        return OWN_CELLS[entry.key](gpu)
    value = _value(entry, gpu)
    if entry.cell == FIGURE:
        if value is None and isinstance(entry, CardField):
            return Cell(Text("—"))
        return figure_cell(value, period=entry.period)  # a price not given: "not listed"
    if value is None:
        return Cell(Text("—"))
    if entry.cell == YES_NO:
        return yes_no(value)
    if entry.cell == WORDS:
        return Cell(Msg.of(f"{entry.words}{value}"))
    return Cell(Text(str(value)))


def catalogue_columns(columns: list[str] | None = None) -> tuple[CardEntry, ...]:
    """The entries of load/cards.py the catalogue shows: those ``columns`` names, in the declaration's order,
    or every ``SHOWN`` one."""
    every = tuple(entry for entry in CARD if entry.catalogue)
    keys = tuple(entry.key for entry in every)
    for key in columns or ():
        if key not in keys:
            raise UnknownId("catalogue column", key, keys)
    if columns is None:
        return tuple(entry for entry in every if entry.catalogue == SHOWN)
    return tuple(entry for entry in every if entry.key in columns)


def catalogue_table(guide: Guide, columns: list[str] | None = None) -> Table:
    """Every card, largest memory first; ``columns`` names the columns shown, by key, in the catalogue's
    order (its ``SHOWN`` columns unless given), so that a site leaves out what its data does not have or
    adds a column shown only on request. Each column is an entry of load/cards.py."""
    shown = catalogue_columns(columns)
    period = guide.data.pricing.period
    rows = tuple(Row(gpu_header(gpu, Text(gpu.architecture)), tuple(card_cell(entry, gpu) for entry in shown), gpu.id)
                 for gpu in guide.gpus_by_memory())
    return Table(id="catalogue", caption=Msg.of("Every card we rent"), corner=Msg.of("GPU"),
                 columns=tuple(Column(Msg.of(entry.label_for(period)), entry.numeric, entry.key) for entry in shown),
                 rows=rows, stacks=True)


def gpu_specs_table(guide: Guide, gpu: str, rows: list[str] | None = None) -> Table:
    """One card's specifications: a row per entry of load/cards.py shown on the card's page (``page``), where
    the card has the value; ``rows`` names the rows shown, by key, in the declaration's order (all unless given),
    so that a site leaves out what its data does not have."""
    card = guide.gpu(gpu)
    every = tuple(entry for entry in CARD if entry.page)
    keys = tuple(entry.key for entry in every)
    for key in rows or ():
        if key not in keys:
            raise UnknownId("specification", key, keys)
    period = guide.data.pricing.period
    shown = tuple(Row(Cell(Msg.of(entry.label_for(period))), (card_cell(entry, card),), entry.key)
                  for entry in every if (rows is None or entry.key in rows)
                  and (entry.cell == OWN or _value(entry, card) is not None))
    return Table(id=f"specs-{card.id}", caption=Msg.of("Specifications of the {card}", card=Text(card.name)),
                 corner=Msg.of("Specification"), columns=(Column(Text(card.name), False, "value"),), rows=shown)


def gpu_prices_table(guide: Guide, gpu: str) -> Table:
    """One card's price by order size: per order, discount, per card, per GPU-hour."""
    card = guide.gpu(gpu)
    counts = rules.allowed_counts(card.gpu, guide.data.lookup)
    columns = (
        Column(Msg.of("Order per month" if guide.data.pricing.period == Period.MONTH else "Order per hour"), True,
               "price"),
        Column(Msg.of("Discount"), True, "discount_percent"),
        Column(Msg.of("Per GPU-hour"), True, "usd_per_gpu_hour"),
    )
    rows = []
    for count in counts:
        order = card.order(count)
        if order is None:
            continue
        cells = (figure_cell(order, period=True), figure_cell(discount_percent(count, guide.data.discounts)),
                 figure_cell(per_card_hour(order, count, guide.data.pricing)))
        rows.append(Row(Cell(Msg.of("{count}× {card}", count=Fig(given(count, "", COUNT)), card=Text(card.name))),
                        cells, f"{count}"))
    return Table(id=f"prices-{card.id}", caption=Msg.of("{card} by order size", card=Text(card.name)),
                 corner=Msg.of("Order"), columns=columns, rows=tuple(rows))


def gpu_fits_table(guide: Guide, gpu: str) -> Table:
    """Which reference models one card holds, per method, at the default context."""
    card = guide.gpu(gpu)
    methods = guide.data.methods
    columns = tuple(Column(method_label(method), False, method.id) for method in methods)
    rows = []
    for model in guide.models:
        cells = []
        for method in methods:
            need = model.need(method.id).total
            lacking = lacks_cell(card.gpu, method)
            if lacking:
                cells.append(lacking)
            elif rules.fits(need.value, card.gpu.memory_gb):
                left = rules.headroom_figure(card.memory, need, 1)
                cells.append(Cell(Fig(need), sub=Msg.of("{left} left", left=Fig(left)), flags=("fits",), value=need))
            else:
                cells.append(Cell(Fig(need), sub=(Flag("does not fit"),), flags=("no",), value=need))
        rows.append(Row(model_header(model), tuple(cells), model.id))
    return Table(id=f"fits-{card.id}", caption=Msg.of("What one {card} holds", card=Text(card.name)),
                 corner=Msg.of("Model"), columns=columns, rows=tuple(rows))


def gpu_context_table(guide: Guide, gpu: str) -> Table | None:
    """The longest context each model can serve on one card, per inference precision."""
    card = guide.gpu(gpu)
    methods = [method for method in guide.data.methods if method.kind == MethodKind.INFERENCE and method.kv_cache]
    if not methods:
        return None
    columns = tuple(Column(method_label(method), True, method.id) for method in methods)
    rows = []
    for model in guide.models:
        cells = []
        for method in methods:
            tokens = None if rules.lacks_feature(card.gpu, method) else \
                max_context(model.model, method, guide.sizing, card.gpu.memory_gb)
            cells.append(figure_cell(tokens) if tokens is not None else Cell(Text("—"), flags=("no",)))
        rows.append(Row(model_header(model), tuple(cells), model.id))
    return Table(id=f"context-{card.id}",
                 caption=Msg.of("Longest context the memory of one {card} allows", card=Text(card.name)),
                 corner=Msg.of("Model"), columns=columns, rows=tuple(rows))


def gpu_ceiling_table(guide: Guide, gpu: str) -> Table:
    """Decode ceilings (bandwidth ÷ weights) per model and precision, on one card."""
    card = guide.gpu(gpu)
    methods = [method for method in guide.data.methods if method.kind == MethodKind.INFERENCE and method.precision]
    columns = tuple(Column(method_label(method), True, method.id) for method in methods)
    rows = []
    for model in guide.models:
        cells = []
        for method in methods:
            ceiling = model.decode_ceiling(card.id, method.precision.id)
            lacking = lacks_cell(card.gpu, method)
            if lacking:
                cells.append(lacking)
            elif rules.fits(model.need(method.id).total.value, card.gpu.memory_gb):
                cells.append(Cell(Fig(ceiling), value=ceiling))
            else:
                cells.append(not_held_cell())
        rows.append(Row(model_header(model), tuple(cells), model.id))
    return Table(id=f"ceilings-{card.id}", caption=Msg.of("Decode ceiling on one {card}", card=Text(card.name)),
                 corner=Msg.of("Model"), columns=columns, rows=tuple(rows))


def gpu_wins_table(guide: Guide, gpu: str) -> Table | None:
    """The lookup grid cells this card wins."""
    card = guide.gpu(gpu)
    wins = card.cells_won()
    if not wins:
        return None
    columns = (Column(Msg.of("Method"), False, "method"), Column(Msg.of("Needs"), True, "need_gb"),
               Column(Msg.of("Configuration"), False, "configuration"), Column(Msg.of("Price"), True, "price"))
    rows = []
    for model, method, found in wins:
        choice = found.choice
        config = Msg.of("{count}× {card}", count=Fig(given(choice.count, "", COUNT)), card=Text(card.name))
        cells = (Cell(method_label(method)), figure_cell(found.need), Cell(config, flags=("tight",) if choice.tight else ()),
                 figure_cell(choice.price, period=True))
        rows.append(Row(Cell(Link(("vram",), Text(model.name))), cells, f"{model.id}-{method.id}"))
    return Table(id=f"wins-{card.id}", caption=Msg.of("Lookup cells the {card} wins", card=Text(card.name)),
                 corner=Msg.of("Model"), columns=columns, rows=tuple(rows))


GPU_TABLES = {
    "catalogue": catalogue_table,
    "gpu_specs": gpu_specs_table,
    "gpu_prices": gpu_prices_table,
    "gpu_fits": gpu_fits_table,
    "gpu_context": gpu_context_table,
    "gpu_ceilings": gpu_ceiling_table,
    "gpu_wins": gpu_wins_table,
}
