"""The kinds of layer a real model is made of, one module each, and the one list of them.

A kind's module holds everything about it: the memory its layers keep
(base.py says what each kind answers), its fields and their schema in
data/catalogue.yaml, how ``build.py model add`` recognises it in a Hugging
Face config, and the msgids of its words. The rest of the engine asks a kind's
attributes, never its name. A new kind is a module here, listed in ``KINDS``
(docs/editing.md, "Add a layer kind").
"""

from __future__ import annotations

from functools import lru_cache

from ...errors import UnknownId
from ...load.model import CatalogueModel, LayerGroup
from .base import LayerKind
from .full import FullAttention
from .latent import LatentAttention
from .linear import LinearAttention
from .sliding import SlidingAttention

KINDS: tuple[type[LayerKind], ...] = (FullAttention, SlidingAttention, LatentAttention, LinearAttention)
"""Every kind, in the order data/catalogue.yaml's schema lists them."""
GENERIC = FullAttention
"""The kind of the generic KV cache formula: a model made of it alone follows the formula as it is."""
_BY_NAME = {kind.kind: kind for kind in KINDS}


def kind_named(name: str) -> type[LayerKind]:
    """The kind data/catalogue.yaml calls ``name``; UnknownId naming the known ones otherwise."""
    if name not in _BY_NAME:
        raise UnknownId("layer kind", name, tuple(_BY_NAME))
    return _BY_NAME[name]


def layer_kind(group: LayerGroup) -> LayerKind:
    return kind_named(group.kind)(count=group.count, **dict(group.sizes))


@lru_cache(maxsize=4096)
def model_layers(model: CatalogueModel) -> tuple[LayerKind, ...]:
    """The model's layer groups as kinds, made once per model: every verdict on every card asks for them."""
    return tuple(layer_kind(group) for group in model.layers)


__all__ = ["GENERIC", "KINDS", "FullAttention", "LatentAttention", "LayerKind", "LinearAttention",
           "SlidingAttention", "kind_named", "layer_kind", "model_layers"]
