"""The quick site's page facts: every claim its prose makes, decided here once for all languages.

Three builders: ``quick`` for the quick VRAM page (its params name the models
and cards the prose is about), ``quick-catalogue`` for the GPU catalogue and
``quick-card`` for a card's own page.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..calc.figure import COUNT, Figure, given
from ..errors import InputError, Problem
from ..load.model import Method, Reference
from ..load.pages import PAGES_FILE
from ..tables.model import Msg
from . import register
from .base import Facts
from .views import Card, Model, Offer, holds, model, offer
from .views import card as card_facts

FAR_MORE = Decimal(2)
""""Far more" memory: at least twice as much."""


def _names(gpus) -> tuple[str, ...]:
    return tuple(gpu.name for gpu in gpus)


def _unpriced(guide) -> tuple[str, ...]:
    return tuple(view.name for view in guide.gpus if view.price is None)


def _no_volume_discount(guide) -> bool:
    return all(discount.percent == 0 for discount in guide.data.discounts)


def _machine_cards(guide) -> Figure:
    return given(max(guide.data.lookup.card_counts), "cards", COUNT, "cards per machine")


# -- the quick VRAM page ---------------------------------------------------------------------


@dataclass(frozen=True)
class Answer(Facts):
    """One lookup answer, with the cards of the chosen size that hold it on one card each."""

    method: Method
    offer: Offer
    holders: tuple[str, ...]
    """Names of every card of the chosen size (a single-card answer names them all)."""


@dataclass(frozen=True)
class AdapterQuestion(Facts):
    """Can a model be fine-tuned on one given card: LoRA, QLoRA, and full fine-tuning beside them."""

    model: Model
    card: Card
    lora: Figure
    qlora: Figure
    lora_fits: bool
    qlora_fits: bool
    both_fit: bool
    neither_fits: bool
    full: Offer
    full_fits_card: bool


@dataclass(frozen=True)
class Quick(Facts):
    serve16: Method
    serve8: Method
    serve4: Method
    bytes16: Figure
    bytes8: Figure
    bytes4: Figure
    serving_margin: Figure
    lora_margin: Figure
    full_bytes: Figure
    qlora_bytes: Figure
    training_state: tuple[Msg, ...]
    """'weights (2 B)', item by item: a list for the ``names`` filter."""
    finetune_far_more: bool
    """Full fine-tuning takes at least twice the memory of 16-bit serving."""
    adapters_save_most: bool
    """LoRA and QLoRA each take less than half of full fine-tuning."""
    zero: Reference
    qlora: Reference
    unpriced: tuple[str, ...]
    machine_cards: Figure
    example: Model
    example_serving: tuple[Answer, ...]
    example_finetune: tuple[Figure, Figure, Figure]
    """QLoRA, LoRA and full fine-tuning needs of the example model."""
    all_serve_on_one: bool
    none_serve_on_one: bool
    example_16bit: Figure
    """The example's 16-bit need, for its derivation."""
    adapters: AdapterQuestion
    """Can adapter_model be fine-tuned on adapter_card."""
    quoted: tuple[Card, ...]
    """The cards whose prices the prose quotes, where they have one."""


@register("quick")
def quick(guide, params, subject=None) -> Quick:
    """The quick VRAM page. Params: reference_model, adapter_model, adapter_card, quoted_cards, and the sizing
    methods it works through: serving_methods (three, 16-bit first), qlora_method, lora_method, full_method."""
    serve16, serve8, serve4 = _serving_methods(guide, params)
    qlora, lora, full_method = (guide.method(_param(params, name)) for name in ("qlora_method", "lora_method",
                                                                                "full_method"))
    example = guide.model(_param(params, "reference_model"))
    serving = tuple(_answer(guide, example.cell(method.id), method) for method in (serve16, serve8, serve4))
    on_one = [answer.offer.one_card for answer in serving]
    full = example.need(full_method.id).total
    references = guide.data.site.references
    return Quick(
        serve16=serve16, serve8=serve8, serve4=serve4,
        bytes16=guide.precision_bytes(serve16.precision.id), bytes8=guide.precision_bytes(serve8.precision.id),
        bytes4=guide.precision_bytes(serve4.precision.id),
        serving_margin=given(serve16.margin_percent, "%", COUNT, "serving margin"),
        lora_margin=given(lora.margin_percent, "%", COUNT, "LoRA margin"),
        full_bytes=guide.bytes_per_param(full_method.id), qlora_bytes=guide.bytes_per_param(qlora.id),
        training_state=tuple(Msg.of("{item} ({bytes})", item=Msg.of(item.label), bytes=item)
                             for item in guide.training_state.values()),
        finetune_far_more=full.value >= FAR_MORE * example.need(serve16.id).total.value,
        adapters_save_most=all(example.need(method.id).total.value * 2 < full.value for method in (lora, qlora)),
        zero=references["zero"], qlora=references["qlora"],
        unpriced=_unpriced(guide), machine_cards=_machine_cards(guide),
        example=model(example), example_serving=serving,
        example_finetune=tuple(example.need(method.id).total for method in (qlora, lora, full_method)),
        all_serve_on_one=all(on_one), none_serve_on_one=not any(on_one),
        example_16bit=example.need(serve16.id).total,
        adapters=_adapter_question(guide, guide.model(_param(params, "adapter_model")),
                                   guide.gpu(_param(params, "adapter_card")), (lora, qlora, full_method)),
        quoted=tuple(card_facts(guide.gpu(gpu_id)) for gpu_id in _param(params, "quoted_cards")
                     if guide.gpu(gpu_id).price is not None),
    )


def _serving_methods(guide, params) -> tuple[Method, Method, Method]:
    """16-bit, 8-bit and 4-bit serving, as the params name them (three: the schema holds them to it)."""
    return tuple(guide.method(method_id) for method_id in _param(params, "serving_methods"))


def _param(params: dict, name: str):
    if name not in params:
        raise InputError([Problem(PAGES_FILE, None, "params", f"missing {name!r}: the quick page's prose is about it")])
    return params[name]


def _answer(guide, lookup, method: Method) -> Answer:
    return Answer(method, offer(guide, lookup), _names(lookup.same_class))


def _adapter_question(guide, model_view, card_view, methods: tuple[Method, Method, Method]) -> AdapterQuestion:
    """Whether ``methods`` (LoRA, QLoRA, full fine-tuning) fit ``model_view`` on ``card_view``."""
    lora_method, qlora_method, full_method = methods
    target = card_facts(card_view)
    lora, qlora = model_view.need(lora_method.id).total, model_view.need(qlora_method.id).total
    lora_fits, qlora_fits = holds(target, lora), holds(target, qlora)
    full = offer(guide, model_view.cell(full_method.id))
    return AdapterQuestion(model=model(model_view), card=target, lora=lora, qlora=qlora, lora_fits=lora_fits,
                           qlora_fits=qlora_fits, both_fit=lora_fits and qlora_fits,
                           neither_fits=not (lora_fits or qlora_fits), full=full,
                           full_fits_card=holds(target, full.need))


# -- the catalogue -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Catalogue(Facts):
    card_count: Figure
    unpriced: tuple[str, ...]


@register("quick-catalogue")
def quick_catalogue(guide, params, subject=None) -> Catalogue:
    return Catalogue(guide.card_count, _unpriced(guide))


# -- a card's page -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Win(Facts):
    """A cell of the quick table that chose this card."""

    model: Model
    method: Method
    offer: Offer


@dataclass(frozen=True)
class CardPage(Facts):
    card: Card
    no_volume_discount: bool
    named_in_table: bool
    """Some cell names the card among the cards of its size."""
    wins: tuple[Win, ...]


@register("quick-card")
def quick_card(guide, params, card=None) -> CardPage:
    wins = tuple(Win(model(guide.model(found_model.id)), method, offer(guide, found))
                 for found_model, method, found in card.cells_won())
    named = any(card.gpu in found.same_class for _, _, found in guide.grid_cells())
    return CardPage(card_facts(card), _no_volume_discount(guide), named, wins)
