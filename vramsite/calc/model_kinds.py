"""The two kinds of model the site sizes, and the one place that tells them apart.

A reference shape (sizing.yaml's models, and the calculator's custom shape: parameters, and at most one group of
full-attention layers) is sized by calc/memory.py in the seeds' units, MB per token and GB. A real model (a model
of data/catalogue.yaml: layer groups, kind by kind) is sized by calc/attention.py in bytes, its cache split over
the cards that hold it, and a serving engine sizes its inference where the site has engines (calc/serving.py).
Code that takes a model of either kind asks ``kind_of(model)`` what it needs (a view: ``model_views.view_of``);
none tests a model's class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..load.model import CatalogueModel, Method, Model, Precision
from . import attention, memory
from .figure import Figure


@dataclass(frozen=True)
class ModelKind:
    shape: str
    """The kind's name in the calculator's data (calculator.js reads a model's sizes by it)."""
    served: bool
    """Whether a serving engine may size its inference (a real model's)."""
    method_memory: Callable[[Model | CatalogueModel, Method, memory.Sizing, int, int, int], memory.MemoryNeed]
    """(model, method, sizing, context, batch, cards) → the method's memory on that many cards."""
    kv_per_token: Callable[[Model | CatalogueModel, Precision], Figure | None]
    """(model, KV format) → the KV cache one token adds; None where the shape gives no layers."""
    kv_cache: Callable[[Model | CatalogueModel, Precision, int, int], Figure]
    """(model, KV format, context, batch) → the KV cache of ``batch`` sequences of ``context`` tokens, in GB."""
    decode_read: Callable[[Model | CatalogueModel, Precision], Figure]
    """(model, weight precision) → the weights one decoded token reads, in GB."""


def _reference_per_token(model: Model, kv_precision: Precision) -> Figure | None:
    return memory.kv_per_token_mb(model, kv_precision) if model.layers else None


def _layers_per_token(model: CatalogueModel, kv_precision: Precision) -> Figure:
    return attention.kv_bytes_per_token(attention.model_layers(model), attention.element_bytes(kv_precision))


def _layers_cache(model: CatalogueModel, kv_precision: Precision, context: int, batch: int) -> Figure:
    return attention.kv_cache(attention.model_layers(model), attention.element_bytes(kv_precision), context, batch)


def _all_weights(model: Model, precision: Precision) -> Figure:
    return memory.weights(model, memory.precision_bytes(precision))


REFERENCE = ModelKind(
    shape="reference", served=False,
    # One need whatever the cards: the seeds' formula keeps a reference shape's cache whole.
    method_memory=lambda model, method, sizing, context, batch, cards: memory.method_memory(
        model, method, sizing, context, batch),
    kv_per_token=_reference_per_token, kv_cache=memory.kv_cache,
    # A reference shape gives no active parameters: a token reads every weight.
    decode_read=_all_weights)

LAYERS = ModelKind(
    shape="layers", served=True, method_memory=attention.method_memory, kv_per_token=_layers_per_token,
    kv_cache=_layers_cache, decode_read=attention.decode_read)


def kind_of(model: Model | CatalogueModel) -> ModelKind:
    return REFERENCE if isinstance(model, Model) else LAYERS
