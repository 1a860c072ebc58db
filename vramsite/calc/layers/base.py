"""What every layer kind answers, and the figures the kinds share.

A kind reads its group's sizes (data/catalogue.yaml) and answers, with ``b``
the bytes of one cached element:

    bytes_per_token(b)    bytes one token of a sequence adds in these layers
    tokens_held(context)  how many of a sequence's tokens these layers keep
    state()               bytes a sequence keeps whatever its length
    on_one_card(cards)    the same layers as one card holds them when ``cards``
                          cards split the model by tensor (by heads)

What sets a kind apart is said by its attributes, which the rest of the
engine asks instead of naming kinds:

    window_tokens()       the most tokens of a sequence it keeps; None: every one
    caches_tokens         whether a token adds bytes to it at all
    split_over_cards      the fields tensor parallelism divides among the cards;
                          none: the layers are kept whole on every card
    projects_kv_heads     whether each layer has query, key, value and output
                          projections of ``kv_heads`` × ``head_dim`` (its weights
                          split by KV head, its parameters counted as such)

and about itself:

    kind                  its name in data/catalogue.yaml (``kind:``)
    words                 the msgid of its name on the pages
    per_token_label       the msgid of its bytes per token in a derivation (a
                          kind that caches tokens)
    schema                the JSON Schema of each of its fields in
                          data/catalogue.yaml (``count`` and ``kind`` apart; a
                          field without a default is required)
    config_layer_type     the name a Hugging Face config's ``layer_types`` gives
                          these layers (None: configs never name them there)
    config_keys           each field and the config.json key ``build.py model
                          add`` reads it from
"""

from __future__ import annotations

from dataclasses import MISSING, fields, replace
from typing import ClassVar

from ...load.model import Precision
from ..figure import COUNT, FACTOR, Figure, Formula, given

KEYS_AND_VALUES = given(2, "", FACTOR, "keys and values")
"""The leading 2 of the KV cache formula: a layer keeps a key and a value per head."""
NO_BYTES = given(0, "B", COUNT, "nothing")
ONE_BYTE = given(1, "B", FACTOR, "one byte per element")
"""``b`` that counts a cache in elements rather than bytes."""


def layers_figure(count: int) -> Figure:
    return given(count, "layers", COUNT, "layers")


def count_figure(value: int, label: str, unit: str = "") -> Figure:
    return given(value, unit, COUNT, label)


def element_bytes(precision: Precision) -> Figure:
    """b: the bytes of one cached element in this format."""
    return given(precision.bytes_per_param, "B", FACTOR, f"{precision.label} bytes per element")


def heads_per_card(heads: int, cards: int) -> int:
    """Heads one card holds when ``cards`` cards share ``heads``: where there are more cards than heads,
    a head is copied onto several cards, so every card holds at least one."""
    return -(-heads // cards)


class LayerKind:
    """The base of every kind: each is a frozen dataclass of ``count`` and its own fields."""

    kind: ClassVar[str]
    words: ClassVar[str]
    per_token_label: ClassVar[str]
    schema: ClassVar[dict[str, dict]]
    config_layer_type: ClassVar[str | None] = None
    config_keys: ClassVar[dict[str, str]]
    caches_tokens: ClassVar[bool] = True
    split_over_cards: ClassVar[tuple[str, ...]] = ()
    projects_kv_heads: ClassVar[bool] = False

    count: int

    def bytes_per_token(self, b: Figure) -> Figure:
        raise NotImplementedError

    def window_tokens(self) -> int | None:
        return None

    def tokens_held(self, context: Figure) -> Figure:
        if not self.caches_tokens:
            return given(0, "tokens", COUNT, "tokens held")
        window = self.window_tokens()
        if window is None:
            return context
        kept = given(window, "tokens", COUNT, "window")
        return Figure(value=min(context.value, kept.value), unit="tokens", kind=COUNT, label="tokens held",
                      formula=Formula("min", (context, kept)))

    def state(self) -> Figure:
        return NO_BYTES

    def on_one_card(self, cards: int) -> "LayerKind":
        if not self.split_over_cards:
            return self
        return replace(self, **{name: heads_per_card(getattr(self, name), cards) for name in self.split_over_cards})

    @classmethod
    def required_fields(cls) -> tuple[str, ...]:
        """The fields an entry must give: those without a default (``count`` apart)."""
        return tuple(field.name for field in fields(cls)
                     if field.name != "count" and field.default is MISSING and field.default_factory is MISSING)

