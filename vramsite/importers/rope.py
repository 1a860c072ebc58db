"""The longest context an engine takes from a config: max_position_embeddings, lengthened by its RoPE scaling.

vLLM's rule (load/model.py ``scaled_context``): a scaling other than su, longrope and llama3 multiplies the length
by its ``factor`` (1 where it gives none), and YaRN's multiplies ``original_max_position_embeddings`` instead;
``max_model_len`` beyond that is refused. A config that ships without a scaling may be given the one its vendor
documents (``model add --rope-scaling``, as ``vllm serve --rope-scaling`` takes it): the entry then records it,
and an engine must be started with it to take the longer context.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..load.model import scaled_context
from .config_values import ConfigSection

KEEPS_LENGTH = ("su", "longrope", "llama3")
"""Scalings whose config states the scaled length itself (Llama 3.1's llama3, Phi-3's longrope)."""
LONGEST = 100_000_000
"""The catalogue's bound on a context, in tokens."""
LARGEST_FACTOR = Decimal(1000)


@dataclass(frozen=True)
class Scaling:
    """A RoPE scaling as read: its kind, its factor and, for YaRN, the context the model was trained for."""

    kind: str
    factor: Decimal
    """what the length is multiplied by: 1 for the kinds that keep it (KEEPS_LENGTH)"""
    original: int | None


@dataclass(frozen=True)
class Context:
    """A model's longest context, and how it is reached."""

    tokens: int
    as_shipped: int
    """max_position_embeddings: what an engine takes without the given scaling"""
    given_scaling: Scaling | None = None
    """the RoPE scaling given beside the config (the vendor's), None where the config's own is used"""


def longest_context(section: ConfigSection, given: ConfigSection | None, already_scaled: bool) -> Context | None:
    """``section``'s longest context under ``given`` scaling, else its own ``rope_scaling`` (not applied again
    where the family's length ``already_scaled`` counts it); None where a value has a problem."""
    shipped = section.size("max_position_embeddings")
    scaling = given or _own_scaling(section)
    if shipped is None or scaling is False:
        return None
    if scaling is None or (given is None and already_scaled):
        return Context(shipped, shipped)
    read = _read(scaling)
    if read is None:
        return None
    tokens = _scaled(scaling, read, shipped)
    if tokens is None:
        return None
    if given and tokens <= shipped:
        given.problem("factor", f"gives {tokens:,} tokens, no more than the config's own {shipped:,}: a scaling "
                                "given beside the config is for a longer context")
        return None
    return Context(tokens, shipped, read if given else None)


def _own_scaling(section: ConfigSection) -> ConfigSection | None | bool:
    """The config's ``rope_scaling`` (or transformers 5's ``rope_parameters``) as a section; None where it has
    none, False where it is not one object of the whole model's scaling."""
    key = "rope_scaling" if section.given("rope_scaling") else "rope_parameters"
    if not section.given(key):
        return None
    value = section.value[key]
    if not isinstance(value, dict):
        section.problem(key, "must be an object (its rope_type, factor, ...) or null")
        return False
    if key == "rope_parameters" and "rope_type" not in value and "type" not in value:
        section.problem(key, "one scaling per layer type is not read: give the whole model's (its rope_type, "
                             "factor, ...)")
        return False
    return ConfigSection(section.file, (*section.path, key), section.problems)


def _read(scaling: ConfigSection) -> Scaling | None:
    """The scaling's kind, factor and YaRN's trained context; None where one has a problem (noted)."""
    kind = _kind(scaling)
    if kind is None:
        return None
    if kind in KEEPS_LENGTH:
        return Scaling(kind, Decimal(1), None)
    factor = _factor(scaling)
    original = _original(scaling) if kind == "yarn" else None
    if factor is None or (kind == "yarn" and original is None):
        return None
    return Scaling(kind, factor, original)


def _scaled(scaling: ConfigSection, read: Scaling, shipped: int) -> int | None:
    tokens = scaled_context(read.kind, read.factor, read.original, shipped)
    if not 0 < tokens <= LONGEST:
        scaling.problem("factor", f"gives {tokens:,} tokens ({read.original or shipped:,} × {read.factor}): not a "
                                  f"context (1 to {LONGEST:,})")
        return None
    return tokens


def _original(scaling: ConfigSection) -> int | None:
    """YaRN's own base: the context the model was trained for."""
    if not scaling.given("original_max_position_embeddings"):
        scaling.problem("original_max_position_embeddings", "missing: YaRN scales the context the model was "
                                                            "trained for, which it names here")
        return None
    return scaling.size("original_max_position_embeddings")


def _kind(scaling: ConfigSection) -> str | None:
    """``rope_type``, or the older ``type`` (transformers reads either)."""
    if not scaling.given("rope_type") and not scaling.given("type"):
        scaling.problem("rope_type", "missing: a RoPE scaling names its rope_type (yarn, linear, ...)")
        return None
    return scaling.text("rope_type" if scaling.given("rope_type") else "type")


def _factor(scaling: ConfigSection) -> Decimal | None:
    value = scaling.raw("factor", 1)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)) or not 0 < value <= LARGEST_FACTOR:
        scaling.problem("factor", f"must be a number above 0 and at most {LARGEST_FACTOR}")
        return None
    return Decimal(value)
