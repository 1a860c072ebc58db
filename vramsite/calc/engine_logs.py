"""The engines' budgets (calc/engines.py) set against published logs (data/engine_logs.yaml).

A log is compared where the engine, the model's shapes and the card's memory are
known: the weights the engine loaded (ours: calc/serving.py's, in the logged
format on the logged card), the KV cache it kept (ours: the engine's budget given
the weights it logged, so that the budget is judged apart from the weights), and
whether it started. ``comparison`` gives one log's figures side by side;
``not_covered`` says why a log cannot be compared. A log's settings are in its
engine's own names; data/engine_logs.yaml says which is which (``LogNames``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..load.model import EngineLog, LogNames, SiteData
from .engines import GIB, MIB_PER_GIB, Budget, card_gib, engine_budget
from .figure import MEMORY, Figure, given
from .serving import sized_to_request, verdict
from .weight_formats import format_by_id

NOMINAL_CARD_GIB = Decimal(1024)
"""An engine sizing its cache to the request: where a log does not say the card's memory, its cache is still
compared, on a card too large to refuse anything (its start is then not judged)."""


def _gib(value) -> Figure:
    return given(Decimal(str(value)), GIB, MEMORY)


def card_memory(log: EngineLog, data: SiteData) -> Figure | None:
    """The memory the log's card reports, in GiB: as logged, else the card's of data/gpus.yaml where the data has
    its driver figure; None where neither is known."""
    if log.memory_gib is not None:
        return _gib(log.memory_gib)
    if log.card is not None and data.gpu(log.card).reported_memory is not None:
        return card_gib(data.gpu(log.card))
    return None


def kv_format_id(log: EngineLog, data: SiteData) -> str:
    """The KV cache format the log's engine ran with, from the engine's own name for it (data/engines.yaml); the
    engine's own where the log names none."""
    engine = data.engines.engine(log.engine)
    named = log.setting(data.log_names(log.engine).kv_cache)
    by_name = {name: format_id for format_id, name in engine.kv_cache_formats}
    return by_name.get(named or "", engine.default_kv_format)


def not_covered(log: EngineLog, data: SiteData) -> str | None:
    """Why the log cannot be compared; None where it can."""
    engines = {engine.id for engine in data.engines.engines}
    if log.engine not in engines:
        return f"engine {log.engine!r} is not modelled"
    if log.model is None:
        return "no catalogue model has the log's model's shapes"
    engine, names = data.engines.engine(log.engine), data.log_names(log.engine)
    if sized_to_request(engine):
        if logged_kv_gib(log) is None:
            return "the log reports no KV cache"
        if not log.setting(names.context):
            return "the log does not say the context the cache was sized for"
        return None
    if card_memory(log, data) is None:
        return f"the memory card {log.card_named!r} reports is not known"
    if log.figure("weights_gib") is None:
        return "the log reports no weights"
    if log.figure("kv_cache_gib") is None and not log.figure("kv_tokens") and log.figure("started") is not False:
        return "the log reports neither the KV cache nor a failure to start"
    if log.engine_version and not version_modelled(names, log.engine_version):
        return f"{engine.name} {log.engine_version} is outside the versions modelled"
    return None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def version_modelled(names: LogNames, version: str) -> bool:
    if names.versions is None:
        return True
    low, high = names.versions
    return _version(low) <= _version(version) < _version(high)


def older_settings(log: EngineLog, names: LogNames) -> dict[str, Decimal]:
    """The settings an older engine ran with, where the log is of one: a version before the data's, or, giving
    none, a logged line only those print."""
    older = names.older
    if older is None:
        return {}
    if log.engine_version:
        is_older = _version(log.engine_version) < _version(older.before)
    else:
        is_older = any(older.line in line for line in log.logged)
    return dict(older.settings) if is_older else {}


def logged_weights(log: EngineLog) -> Figure | None:
    """The weights the engine logged, in GiB (llama.cpp: its model buffer, where it gives no GiB figure)."""
    if log.figure("weights_gib") is not None:
        return _gib(log.figure("weights_gib"))
    if log.figure("model_buffer_mib") is not None:
        return _gib(Decimal(str(log.figure("model_buffer_mib"))) / MIB_PER_GIB)
    return None


def logged_kv_gib(log: EngineLog) -> Figure | None:
    """The KV cache the engine logged, in GiB."""
    if log.figure("kv_cache_mib") is not None:
        return _gib(Decimal(str(log.figure("kv_cache_mib"))) / MIB_PER_GIB)
    if log.figure("kv_cache_gib") is not None:
        return _gib(log.figure("kv_cache_gib"))
    return None


def log_budget(log: EngineLog, data: SiteData, weights: Figure | None = None) -> Budget:
    """The engine's budget for the log's run, with the weights it logged per card, or ``weights`` (GiB)."""
    engine, names = data.engines.engine(log.engine), data.log_names(log.engine)
    model = data.catalogue_model(log.model)
    kv = data.engines.kv_cache_format(kv_format_id(log, data))
    weights = weights or logged_weights(log) or _gib(0)
    chosen = {**_modelled_settings(log, names, {setting.name for setting in engine.settings}),
              **older_settings(log, names)}
    if sized_to_request(engine):
        sequences = (log.setting(names.sequences) if names.sequences else None) or 1
        return engine_budget(engine, card_memory(log, data) or _gib(NOMINAL_CARD_GIB), weights, model, log.cards,
                             log.setting(names.context) // sequences, sequences, kv, chosen)
    context = log.setting(names.context) or model.max_context
    return engine_budget(engine, card_memory(log, data), weights, model, log.cards, context, 1, kv, chosen)


def _modelled_settings(log: EngineLog, names: LogNames, modelled: set[str]) -> dict[str, Decimal]:
    """The log's settings that data/engines.yaml models, by its names (true and false as 1 and 0)."""
    renamed = dict(names.settings)
    chosen = {}
    for name, value in log.settings:
        ours = renamed.get(name, name)
        if ours in modelled and value is not None:
            chosen[ours] = Decimal(int(value)) if isinstance(value, bool) else Decimal(str(value))
    return chosen


def our_weights(log: EngineLog, data: SiteData) -> Figure:
    """The weights per card we say the engine loads for the log's model, format and card (GiB): on the card the log
    names where the data has it (its features choose the engine's kernel), else on its memory alone."""
    model = data.catalogue_model(log.model)
    weight_format = format_by_id(data.weight_formats, log.weights)
    card = data.gpu(log.card) if log.card is not None and log.memory_gib is None else \
        (card_memory(log, data) or _gib(NOMINAL_CARD_GIB))
    engine = data.engines.engine(log.engine)
    return verdict(data.engines, model, weight_format, card, log.cards, 8192, 1, engine=engine).weights_gib


@dataclass(frozen=True)
class Comparison:
    """One log's figures beside ours."""

    log: EngineLog
    weights_logged: Figure | None
    weights_ours: Figure
    kv_logged: Figure | None
    kv_ours: Figure
    started: bool | None
    """None where the log does not show it, or where the card's memory is not known (so no start is judged)."""
    starts: bool | None


def comparison(log: EngineLog, data: SiteData) -> Comparison:
    """The log beside our figures (``not_covered`` must be None). Where the engine logs the weights of the whole
    model, ours are counted for every card."""
    ours = our_weights(log, data)
    if data.log_names(log.engine).whole_model_weights:
        ours = given(ours.value * log.cards, GIB, MEMORY, "weights")
    budget = log_budget(log, data)
    judged = not sized_to_request(data.engines.engine(log.engine)) or card_memory(log, data) is not None
    return Comparison(log=log, weights_logged=logged_weights(log), weights_ours=ours, kv_logged=logged_kv_gib(log),
                      kv_ours=budget.kv_cache_gib, started=log.figure("started") if judged else None,
                      starts=budget.starts if judged else None)


def comparisons(data: SiteData) -> tuple[Comparison, ...]:
    """Every log of the site that can be compared, in file order."""
    return tuple(comparison(log, data) for log in data.engine_logs if not_covered(log, data) is None)
