"""The engines' budgets (calc/engines.py) set against published logs (data/engine_logs.yaml).

A log is compared where the engine, the model's shapes and the card's memory are
known: the weights the engine loaded (ours: calc/serving.py's, in the logged
format on the logged card), the KV cache it kept (ours: the engine's budget given
the weights it logged, so that the budget is judged apart from the weights), and
whether it started. ``comparison`` gives one log's figures side by side;
``not_covered`` says why a log cannot be compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..load.model import EngineLog, SiteData
from .engines import GIB, MIB_PER_GIB, Budget, card_gib, engine_budget
from .figure import MEMORY, Figure, given
from .serving import verdict
from .weight_formats import format_by_id

NOMINAL_CARD_GIB = Decimal(1024)
"""llama.cpp sizes its cache to the request: where a log does not say the card's memory, its cache is still
compared, on a card too large to refuse anything (its start is then not judged)."""
LLAMA_CPP_SETTINGS = {"n_ubatch": "ubatch", "flash_attn": "flash_attention"}
"""llama.cpp's log names for the settings data/engines.yaml models."""
VLLM_MODELLED = ((0, 6, 4), (0, 21))
"""The vLLM versions data/engines.yaml models: from 0.6.4 up to, not including, 0.21."""


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
    """The KV cache format the log's engine ran with, from the engine's own name for it (data/engines.yaml)."""
    engine = data.engines.engine(log.engine)
    named = log.setting("type_k") if log.engine == "llama.cpp" else log.setting("kv_cache_dtype")
    by_name = {name: format_id for format_id, name in engine.kv_cache_formats}
    return by_name.get(named or "", engine.default_kv_format)


def not_covered(log: EngineLog, data: SiteData) -> str | None:
    """Why the log cannot be compared; None where it can."""
    engines = {engine.id for engine in data.engines.engines}
    if log.engine not in engines:
        return f"engine {log.engine!r} is not modelled"
    if log.model is None:
        return "no catalogue model has the log's model's shapes"
    if log.engine == "llama.cpp":
        if log.figure("kv_cache_mib") is None:
            return "the log reports no KV cache"
        if not log.setting("n_ctx"):
            return "the log does not say the context the cache was sized for"
        return None
    if card_memory(log, data) is None:
        return f"the memory card {log.card_named!r} reports is not known"
    if log.figure("weights_gib") is None:
        return "the log reports no weights"
    if log.figure("kv_cache_gib") is None and not log.figure("kv_tokens") and log.figure("started") is not False:
        return "the log reports neither the KV cache nor a failure to start"
    if log.engine == "vllm" and log.engine_version and not vllm_version_modelled(log.engine_version):
        return f"vLLM {log.engine_version} is outside the versions modelled"
    return None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def vllm_version_modelled(version: str) -> bool:
    low, high = VLLM_MODELLED
    return low <= _version(version) < high


def vllm_v0(log: EngineLog) -> bool:
    """The V0 engine: a version before 0.8, or a log that counts its cache in blocks ("# GPU blocks: N", V0's
    executor line; V1 logs "GPU KV cache size: N tokens")."""
    if log.engine_version:
        return _version(log.engine_version) < (0, 8)
    return any("GPU blocks" in line for line in log.logged)


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
    engine = data.engines.engine(log.engine)
    model = data.catalogue_model(log.model)
    kv = data.engines.kv_cache_format(kv_format_id(log, data))
    weights = weights or logged_weights(log) or _gib(0)
    if log.engine == "llama.cpp":
        sequences = log.setting("n_seq") or 1
        chosen = {ours: Decimal(int(log.setting(theirs))) for theirs, ours in LLAMA_CPP_SETTINGS.items()
                  if log.setting(theirs) is not None}
        return engine_budget(engine, card_memory(log, data) or _gib(NOMINAL_CARD_GIB), weights, model, log.cards,
                             log.setting("n_ctx") // sequences, sequences, kv, chosen)
    modelled = {setting.name for setting in engine.settings}
    chosen = {name: Decimal(str(value)) for name, value in log.settings
              if name in modelled and value is not None and not isinstance(value, bool)}
    if log.engine == "vllm" and vllm_v0(log):
        chosen["chunked_prefill"] = Decimal(0)
    context = log.setting("max_model_len") or model.max_context
    return engine_budget(engine, card_memory(log, data), weights, model, log.cards, context, 1, kv, chosen)


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
    """The log beside our figures (``not_covered`` must be None). The engine logs llama.cpp's weights for the whole
    model, so ours are counted for every card there."""
    ours = our_weights(log, data)
    if log.engine == "llama.cpp":
        ours = given(ours.value * log.cards, GIB, MEMORY, "weights")
    budget = log_budget(log, data)
    judged = log.engine != "llama.cpp" or card_memory(log, data) is not None
    return Comparison(log, logged_weights(log), ours, logged_kv_gib(log), budget.kv_cache_gib,
                      log.figure("started") if judged else None, budget.starts if judged else None)


def comparisons(data: SiteData) -> tuple[Comparison, ...]:
    """Every log of the site that can be compared, in file order."""
    return tuple(comparison(log, data) for log in data.engine_logs if not_covered(log, data) is None)
