"""The "measured" table: each figure of a measuring run beside the formula's prediction for it."""

from __future__ import annotations

from ..calc.guide import Guide
from ..calc.measured import Comparison, MeasuredRun
from .guide import method_label, tokens_label
from .model import Cell, Column, Fig, Msg, Row, Table, Text

GB_DECIMALS = 2
"""Measured and predicted sizes differ in the second decimal: shown to it, so the difference is visible."""
PERCENT_DECIMALS = 1

WHAT = {
    "card_memory": Msg.of("Card memory: sold as, reported"),
    "overhead": Msg.of("Runtime overhead: assumed, CUDA context and workspace"),
    "bandwidth": Msg.of("Bandwidth: data sheet, achieved streaming weights"),
}
"""Row labels of the comparisons that concern the card, not a model."""
MEASURED_AS = {
    "card_memory": Msg.of("memory the device reports"),
    "overhead": Msg.of("memory in use after the first matmul"),
    "weights": Msg.of("bytes of the weights allocated"),
    "kv_cache": Msg.of("bytes of the KV cache held"),
    "prefill": Msg.of("peak during prefill, against weights + KV cache"),
    "serving": Msg.of("memory in use at the end, against the need"),
    "finetune": Msg.of("peak while training"),
    "bandwidth": Msg.of("median of the timed runs"),
}
"""What each measured figure is, under its label."""


def measured_table(guide: Guide, run: str | None = None) -> Table:
    """A row per comparison of the run ``run`` (the first run if not named); no rows where the site has none."""
    found = _run(guide, run)
    columns = (Column(Msg.of("Formula"), True, "formula"), Column(Msg.of("Measured"), True, "measured"),
               Column(Msg.of("Difference"), True, "difference"), Column(Msg.of("Difference, %"), True, "percent"))
    rows = tuple(_row(item, index) for index, item in enumerate(found.comparisons)) if found else ()
    assumes = (Text(found.run.provenance),) if found else ()
    return Table(id="measured", caption=Msg.of("Formula against measured"), corner=Msg.of("Figure"), columns=columns,
                 rows=rows, assumes=assumes)


def _run(guide: Guide, run_id: str | None) -> MeasuredRun | None:
    runs = guide.measured_runs
    if run_id is None:
        return runs[0] if runs else None
    guide.data.measurement(run_id)  # an unknown id says which runs there are
    return next(found for found in runs if found.run.id == run_id)


def _row(item: Comparison, index: int) -> Row:
    cells = (_cell(item.formula), _cell(item.measured), _cell(item.difference),
             _cell(item.percent, PERCENT_DECIMALS))
    key = "-".join(part for part in (item.key, item.shape and item.shape.id, item.method and item.method.id) if part)
    return Row(Cell(_label(item), sub=MEASURED_AS[item.key]), cells, key or str(index))


def _label(item: Comparison):
    if item.key in WHAT:
        return WHAT[item.key]
    model = Text(item.shape.like or item.shape.id)
    if item.key == "finetune":
        return Msg.of("{method}, {model}", method=method_label(item.method), model=model)
    context = tokens_label(item.context_tokens)
    if item.key == "weights":
        return Msg.of("{model}: weights", model=model)
    if item.key == "kv_cache":
        return Msg.of("{model}: KV cache at {context}", model=model, context=context)
    if item.key == "prefill":
        return Msg.of("{model}: prefill at {context}", model=model, context=context)
    return Msg.of("{model}: {method} at {context}", model=model, method=method_label(item.method), context=context)


def _cell(figure, decimals: int | None = GB_DECIMALS) -> Cell:
    if figure is None:
        return Cell(Text("—"))  # a percent of a zero prediction
    shown = decimals if figure.unit == "GB" or figure.unit == "%" else None
    return Cell(Fig(figure, decimals=shown), value=figure)


MEASURED_TABLES = {"measured": measured_table}
"""Tables content can place by name: {{ table("measured") }}."""
