"""Tables about cards: the catalogue, and each card's own page."""

from __future__ import annotations

from ..calc import rules
from ..calc.cost import discount_percent, per_card_hour
from ..calc.figure import COUNT, given
from ..calc.guide import Guide, GpuView
from ..calc.memory import max_context
from ..errors import UnknownId
from ..load.model import MethodKind, Period
from .guide import figure_cell, gpu_header, lacks_cell, method_label, model_header, not_held_cell
from .model import Cell, Column, Fig, Flag, Link, Msg, Row, Table, Text


def yes_no(value: bool) -> Cell:
    return Cell(Msg.of("yes" if value else "no"))


def interconnect_cell(gpu: GpuView) -> Cell:
    parts = (Msg.of(f"link:{gpu.interconnect_kind}"), Text(" "), Fig(gpu.link))
    if gpu.all_to_all_cards is not None:
        return Cell(parts, sub=Msg.of("all-to-all across {cards}", cards=Fig(gpu.all_to_all_cards)))
    return Cell(parts)


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


def catalogue_table(guide: Guide, columns: list[str] | None = None) -> Table:
    """Every card, largest memory first; ``columns`` names the columns shown, by key, in the catalogue's
    order (all of them unless given), so that a site leaves out what its data does not have."""
    every = (
        Column(Msg.of("VRAM"), True, "memory_gb"),
        Column(Msg.of("Memory"), False, "memory_type"),
        Column(Msg.of("Bandwidth"), True, "bandwidth_gbps"),
        Column(Msg.of("FP8"), False, "fp8"),
        Column(Msg.of("Card-to-card link"), False, "interconnect"),
        Column(Msg.of("Software"), False, "stack"),
        Column(Msg.of("Price per month" if guide.data.pricing.period == Period.MONTH else "Price per GPU-hour"),
               True, "price"),
        Column(Msg.of("$ per GB per month"), True, "usd_per_gb_month"),
        Column(Msg.of("Regions and stock"), False, "regions"),
    )
    rows = []
    for gpu in guide.gpus_by_memory():
        memory = Text(gpu.memory_type + (" ECC" if gpu.gpu.ecc else ""))
        cells = (
            figure_cell(gpu.memory), Cell(memory), figure_cell(gpu.bandwidth), yes_no(gpu.has("fp8")),
            interconnect_cell(gpu), Cell(Msg.of(f"stack:{gpu.stack}")), figure_cell(gpu.price, period=True),
            figure_cell(gpu.usd_per_gb), regions_cell(gpu),
        )
        rows.append(Row(gpu_header(gpu, Text(gpu.architecture)), cells, gpu.id))
    keys = [column.key for column in every]
    for key in columns or ():
        if key not in keys:
            raise UnknownId("catalogue column", key, tuple(keys))
    keep = [index for index, column in enumerate(every) if columns is None or column.key in columns]
    rows = [Row(row.header, tuple(row.cells[index] for index in keep), row.key) for row in rows]
    return Table("catalogue", Msg.of("Every card we rent"), Msg.of("GPU"), tuple(every[index] for index in keep),
                 tuple(rows))


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
    return Table(f"prices-{card.id}", Msg.of("{card} by order size", card=Text(card.name)),
                 Msg.of("Order"), columns, tuple(rows))


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
    return Table(f"fits-{card.id}", Msg.of("What one {card} holds", card=Text(card.name)), Msg.of("Model"),
                 columns, tuple(rows))


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
    return Table(f"context-{card.id}", Msg.of("Longest context the memory of one {card} allows", card=Text(card.name)),
                 Msg.of("Model"), columns, tuple(rows))


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
    return Table(f"ceilings-{card.id}", Msg.of("Decode ceiling on one {card}", card=Text(card.name)),
                 Msg.of("Model"), columns, tuple(rows))


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
    return Table(f"wins-{card.id}", Msg.of("Lookup cells the {card} wins", card=Text(card.name)),
                 Msg.of("Model"), columns, tuple(rows))


GPU_TABLES = {
    "catalogue": catalogue_table,
    "gpu_prices": gpu_prices_table,
    "gpu_fits": gpu_fits_table,
    "gpu_context": gpu_context_table,
    "gpu_ceilings": gpu_ceiling_table,
    "gpu_wins": gpu_wins_table,
}
