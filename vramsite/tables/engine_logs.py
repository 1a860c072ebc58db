"""The "engine_logs" table: published serving-engine logs (data/engine_logs.yaml) beside the engines' budgets
(calc/engine_logs.py): weights, KV cache and whether the engine started, each as logged and as ours."""

from __future__ import annotations

from ..calc.guide import Guide
from ..units import GIB_DECIMALS
from .model import Cell, Column, Fig, Flag, Msg, Row, Table, Text



def _gib(figure) -> Cell:
    if figure is None:
        return Cell(Text("—"))
    return Cell(Fig(figure, decimals=GIB_DECIMALS), value=figure)


def _start(started: bool | None) -> Cell:
    if started is None:
        return Cell(Text("—"))
    if started:
        return Cell(Msg.of("started"))
    return Cell(Flag("did not start"), flags=("no",))


def _run(guide: Guide, log) -> list[str]:
    """What was run, as the log names it: the engine and its version, the cards, the weight format."""
    data = guide.data
    engine = data.engines.engine(log.engine).name
    parts = [f"{engine} {log.engine_version}" if log.engine_version else engine]
    card = data.gpu(log.card).name if log.card else log.card_named
    if card:
        parts.append(f"{log.cards}× {card}" if log.cards > 1 else card)
    parts.append(guide.weight_format(log.weights).name)
    return parts


def engine_logs_table(guide: Guide) -> Table | None:
    """A row per published log the engines' model can be set against, in file order (None where the site has no
    logs): the engine, card and format as run, then each figure as logged and as ours, and the thread it is from."""
    data = guide.data
    if not guide.engine_log_comparisons:
        return None
    columns = (Column(Msg.of("Weights, logged"), True, "weights_logged"),
               Column(Msg.of("Weights, ours"), True, "weights_ours"),
               Column(Msg.of("KV cache, logged"), True, "kv_logged"),
               Column(Msg.of("KV cache, ours"), True, "kv_ours"),
               Column(Msg.of("Started, logged"), False, "started_logged"),
               Column(Msg.of("Starts, ours"), False, "starts_ours"),
               Column(Msg.of("Source"), False, "source"))
    rows = []
    for item in guide.engine_log_comparisons:
        log = item.log
        header = Cell(Text(data.catalogue_model(log.model).name), sub=Text(" · ".join(_run(guide, log))))
        cells = (_gib(item.weights_logged), _gib(item.weights_ours), _gib(item.kv_logged), _gib(item.kv_ours),
                 _start(item.started), _start(item.starts), Cell(Text(log.source)))
        rows.append(Row(header, cells, log.id))
    return Table(id="engine-logs", caption=Msg.of("Published engine logs against our figures"), corner=Msg.of("Model"),
                 columns=columns, rows=tuple(rows))


ENGINE_LOG_TABLES = {"engine_logs": engine_logs_table}
"""Tables content can place by name: {{ table("engine_logs") }}."""
