"""What the calculator shows for one case, by the tables' own calculation (calc/lookup.py, calc/rules.py)
and formatting (``Formatter``, ``explain``): the memory lines, the KV cache per token, every offer that
holds the need in the order the site's selection rule prefers them, and the choice or the nodes it would
take. Plain JSON; calculator.js ``answer`` gives the same for the same case."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from functools import cache, lru_cache

from ...calc import attention, cost, rules, serving_speed, throughput
from ...calc.figure import COUNT, WEIGHTS, Figure, given
from ...calc.serving import (bytes_in_gb, kv_room_gib, per_card_sequences, served_headroom, sized_to_request,
                             stored_weights)
from ...units import BYTES_PER_GIB
from ...calc.guide import Guide
from ...calc.model_views import view_of
from ...calc.lookup import cheapest_after, configuration, lookup, ranked_card_offers, ranked_offers
from ...load.model import MethodKind
from ...tables.guide import cards_label
from ...tables.model import Text
from ..derivation import explain
from ..format import Formatter
from ..i18n import Catalog
from ..inline import InlineRenderer
from .case import (SCALED_CONTEXT, Case, model_of, need_of, per_token_figure, resolve_method, serving_engine_of,
                   serving_format)

def _line(fmt: Formatter, figure: Figure) -> dict:
    return {"label": fmt.gettext(figure.label), "value": fmt.figure(figure), "explain": explain(figure, fmt)}


def _per_token(guide: Guide, case: Case, fmt: Formatter) -> dict | None:
    """The KV cache one token adds, as a line (MB for a reference shape, bytes for a real model's layer groups)."""
    figure = per_token_figure(guide, case)
    return None if figure is None else _line(fmt, figure)


def _view(guide: Guide, model, method):
    """The model's view, which works out decode ceilings; None where there is none (not inference)."""
    if method.kind != MethodKind.INFERENCE or method.precision is None:
        return None
    return view_of(guide, model)


@lru_cache(maxsize=4096)
def _config_text(fmt: Formatter, gpu, count: int) -> str:
    """'A40', or '8× MI300X': the tables' own wording of a configuration (``cards_label``)."""
    return InlineRenderer.plain(fmt).render(Text(gpu.name) if count == 1 else cards_label(count, Text(gpu.name)))


def answer(guide: Guide, fmt: Formatter, catalog: Catalog, case: Case, drawn: int | None = None) -> dict:
    """What the calculator shows for ``case``, by the tables' own calculation and formatting; ``drawn``: see
    ``served_answer``."""
    weight_format = serving_format(guide, case)
    if weight_format is not None:
        return served_answer(guide, fmt, catalog, case, weight_format, drawn)
    method = resolve_method(guide, case)
    need = need_of(guide, case)
    lines = [_line(fmt, need.weights)]
    if method.adapter:
        lines.append(_line(fmt, need.adapter))
    if method.kv_cache:
        lines.append(_line(fmt, need.kv_cache))
    if need.margin.value:
        lines.append(_line(fmt, need.margin))
    if need.overhead.value:
        lines.append(_line(fmt, need.overhead))
    lines.append(_line(fmt, need.total))
    market = guide.market
    model = model_of(guide, case)
    # The need on a number of cards (a real model's cache splits over them), worked out once per number: the offers
    # share a few.
    need_on = cache(lambda cards: need_of(guide, case, cards).total)
    view = _view(guide, model, method)
    offers, prices = [], []
    for offer in _offers_asked(guide, case, method):
        held = need_on(offer.count)
        if not rules.fits(held.value, offer.gpu.memory_gb, offer.count):
            continue
        config = configuration(held, offer.gpu, offer.count, market)
        ceiling = view.decode_ceiling(offer.gpu.id, method.precision.id, offer.count) if view else None
        offers.append({
            "key": f"{offer.count}x-{offer.gpu.id}", "config": _config_text(fmt, offer.gpu, offer.count),
            "per_card": fmt.figure(config.need_per_card), "headroom": fmt.figure(config.headroom_per_card),
            "headroom_explain": explain(config.headroom_per_card, fmt),
            "price": fmt.figure(config.price, period=True), "price_explain": explain(config.price, fmt),
            "ceiling": fmt.figure(ceiling) if ceiling else "", "ceiling_explain": explain(ceiling, fmt) if ceiling else "",
            **_speed_cells(fmt, {}), "tight": config.tight,
        })
        prices.append(config.price.value)
    if offers:
        choice = _first_choice(offers, prices)
    elif case.card is not None:
        choice = {"none": catalog.gettext("No configuration of {card} we rent holds it.")
                  .replace("{card}", guide.data.gpu(case.card).name)}
    else:
        found = lookup(need.total, method, market, need_on)
        choice = {"nodes": fmt.figure(found.nodes) if found.nodes is not None else "—",
                  "sales": catalog.gettext("talk to sales")}
    return {"lines": lines, "per_token": _per_token(guide, case, fmt), "offers": offers, "choice": choice,
            "total": True, "caption": catalog.gettext("Cards that fit")}


# -- a catalogue model served by its engine (calc/serving.py) ---------------------------------------------


def served_answer(guide: Guide, fmt: Formatter, catalog: Catalog, case: Case, format_id: str,
                  drawn: int | None = None) -> dict:
    """The case as the format's engine answers it: the weights and the sequences' cache as lines, then every
    offer on which the engine starts with the case's context and holds its sequences, from the same verdicts the
    model pages give (calc/serving.py); calculator.js ``servedAnswer`` works the same from the data.

    ``drawn``: only the first ``drawn`` offers get their speed cells, the rest empty ones (the page draws those
    offers, the script the rest), and ``speeds`` says whether any offer would have them; None: every offer."""
    view = guide.catalogue_model(case.model)
    weight_format = guide.weight_format(format_id)
    engine = serving_engine_of(guide, case, format_id)
    kv = case.kv_precision
    kept = dict(engine.kv_cache_formats)
    precision = guide.kv_precision(kv) if kv else guide.kv_precision()
    b = attention.element_bytes(precision)
    layers = attention.model_layers(view.model)
    stored = given(stored_weights(view.model, weight_format, 1).value, "B", COUNT, "bytes")
    weights = bytes_in_gb(stored, WEIGHTS, "weights")
    lines = [_line(fmt, weights), _line(fmt, attention.sequences_memory(layers, b, case.context, case.batch))]
    result = {"lines": lines, "per_token": _per_token(guide, case, fmt), "offers": [], "total": False,
              "engine": engine.name,
              "caption": catalog.gettext("Where {engine} starts").replace("{engine}", engine.name)}
    scaling = view.model.context_scaling
    if scaling and case.context > scaling.as_shipped:
        result["scaling"] = (catalog.gettext(SCALED_CONTEXT)
                             .replace("{tokens}", fmt.figure(given(scaling.as_shipped, "", COUNT), bare=True)))
    if not engine.loads(format_id):
        result["choice"] = {"none": catalog.gettext("{engine} does not load {format}.")
                            .replace("{engine}", engine.name).replace("{format}", weight_format.name)}
        return result
    if precision.id not in kept:
        result["choice"] = {"none": catalog.gettext("{engine} does not store this KV cache format.")
                            .replace("{engine}", engine.name)}
        return result
    speed_of = _speed_of(guide, fmt, view, weight_format, engine, b, case)
    market = guide.market
    prices = []
    speeds = False
    for offer in guide.serving_offers(_card_asked(guide, case)):
        verdict = view.serve(format_id, offer.gpu, offer.count, engine_id=engine.id)
        room = kv_room_gib(verdict)
        if room is None:
            continue
        speed = speed_of if drawn is None or len(result["offers"]) < drawn else _no_speeds(fmt)
        row = _served_row(fmt, market, engine, view, offer, room.value * BYTES_PER_GIB,
                          verdict.weights_gib.value * BYTES_PER_GIB, b, case, speed)
        if row is not None:
            row, price = row
            result["offers"].append(row)
            prices.append(price)
            speeds = speeds or guide.gpu(offer.gpu.id).states_speeds
    if drawn is not None:
        result["speeds"] = speeds
    if result["offers"]:
        result["choice"] = _first_choice(result["offers"], prices)
    elif case.card is not None:
        result["choice"] = {"none": catalog.gettext("{engine} starts it on no configuration of {card} we rent.")
                            .replace("{engine}", engine.name).replace("{card}", guide.data.gpu(case.card).name)}
    else:
        result["choice"] = {"none": catalog.gettext("{engine} starts it on none of our configurations.")
                            .replace("{engine}", engine.name)}
    return result


@lru_cache(maxsize=4096)
def _card_asked(guide: Guide, case: Case):
    """The card the case keeps to; None: any."""
    return None if case.card is None else guide.data.gpu(case.card)


def _offers_asked(guide: Guide, case: Case, method) -> list:
    """The offers the case is answered from, in the order the selection rule prefers them: one card's where the
    case keeps to it, read from that card's price alone (a GPU page's calculator reads no other price)."""
    card = _card_asked(guide, case)
    return ranked_offers(method, guide.market) if card is None else ranked_card_offers(card, method, guide.market)


def _first_choice(offers: list[dict], prices: list[Decimal]) -> dict:
    """The first of ``offers``, the one the selection rule prefers, with the cheapest of them beside it where that
    costs less (calc/lookup.cheapest_after); ``prices`` are the offers' prices."""
    first = offers[0]
    choice = {"config": first["config"], "price": first["price"], "tight": first["tight"]}
    found = cheapest_after(prices)
    if found is not None:
        choice["cheapest"] = {"config": offers[found]["config"], "price": offers[found]["price"]}
    return choice


def _speed_of(guide: Guide, fmt: Formatter, view, weight_format, engine, b: Figure, case: Case):
    """(offer, the bytes each of its cards keeps for sequences) -> its speed cells (``SPEED_CELLS``, each with its
    explanation; all "" where the pages give the card no speeds): one sequence's decode speed and what a million
    of its tokens cost, the full batch the engine holds there, its speed and what a million tokens cost at it,
    and the time to the first token of a prompt of the case's context (calc/serving_speed.py)."""
    speed = guide.data.speed
    by_tensor = not sized_to_request(engine)
    per_sequence = attention.sequence_bytes(attention.model_layers(view.model), b, case.context)

    def cells_on(offer, room_bytes: Decimal) -> dict:
        card = guide.gpu(offer.gpu.id)
        if not card.states_speeds:
            return _speed_cells(fmt, {})
        rates, hourly = guide.card_rates(offer.gpu, weight_format), view.hourly(card, offer.count)
        # The same offer recurs across cases (other batches, other engines that split alike, the other
        # language): its cells are kept by what they depend on.
        key = (fmt.locale.segment, view.id, weight_format.id, by_tensor, offer.gpu.id, offer.count, case.context,
               b.value)

        def decode(sequences: int) -> Figure:
            return serving_speed.decode_step(view.model, weight_format, per_sequence, sequences, rates, offer.count,
                                             by_tensor, speed.layer_step_s).tokens_per_s()

        def one_sequence() -> dict:
            one = decode(1)
            work = serving_speed.prefill_work_of(view.model, weight_format, per_sequence, case.context)
            first = throughput.step(work, rates, offer.count, by_tensor, speed.layer_step_s).seconds
            return _speed_cells(fmt, {"one": one, "per_million_one": cost.usd_per_million_tokens(hourly, one),
                                      "first_token": first})

        def full_batch(sequences: int) -> dict:
            full = decode(sequences)
            return _speed_cells(fmt, {"sequences": given(sequences, "sequences", COUNT, "sequences at once"),
                                      "full": full, "per_million": cost.usd_per_million_tokens(hourly, full)})

        sequences = _full_batch(engine, view, offer, b, case, room_bytes)
        return {**guide._verdicts.fetch(("calculator one sequence", *key), one_sequence),
                **guide._verdicts.fetch(("calculator full batch", *key, sequences), lambda: full_batch(sequences))}
    return cells_on


def _no_speeds(fmt: Formatter):
    """An offer's speed cells left empty (``served_answer``'s offers past those drawn)."""
    return lambda offer, room_bytes: _speed_cells(fmt, {})


def _full_batch(engine, view, offer, b: Figure, case: Case, room_bytes: Decimal) -> int:
    """The sequences of the case's context the engine decodes at once on the offer: those its room holds, at most
    its limit (calc/serving_speed.full_batch); the sequences asked for where it sizes its cache to the request."""
    if sized_to_request(engine):
        return case.batch
    _, one = per_card_sequences(engine, view.model, offer.count, b, case.context, 1)
    held = given((room_bytes / one.value).to_integral_value(rounding=ROUND_FLOOR), "sequences", COUNT,
                 "sequences the room holds")
    return int(serving_speed.full_batch(held, engine, serving_speed.sequence_limit(engine, offer.gpu)).value)


SPEED_CELLS = ("one", "per_million_one", "sequences", "full", "per_million", "first_token")
"""An offer's speed cells, each with its explanation; markup.py ``SPEED_HEADS`` heads them."""


def _speed_cells(fmt: Formatter, figures: dict) -> dict:
    """The text and the explanation of each of ``figures`` (by cell name), "" for a cell not given."""
    cells = {}
    for name in SPEED_CELLS:
        figure = figures.get(name)
        if figure is not None or name in figures or not figures:
            cells[name] = fmt.figure(figure) if figure else ""
            cells[f"{name}_explain"] = explain(figure, fmt) if figure else ""
    return cells


def _served_row(fmt, market, engine, view, offer, room_bytes, weights_bytes, b, case, speed_of) -> tuple | None:
    """One offer where the engine starts with the case's context and holds its sequences, and its price;
    None where not."""
    cards = offer.count
    per_token, need = per_card_sequences(engine, view.model, cards, b, case.context, case.batch)
    if room_bytes < need.value:
        return None
    if not sized_to_request(engine):
        tokens = (room_bytes / per_token.value).to_integral_value(rounding=ROUND_FLOOR) \
            if per_token.value and room_bytes > 0 else 0
        if tokens <= 0 or tokens < case.context:
            return None
    headroom = served_headroom(given(room_bytes, "B", COUNT, "room"), need)
    price = cost.order_price(offer.gpu, cards, market.pricing, market.discounts)
    per_card = bytes_in_gb(given(weights_bytes, "B", COUNT, "bytes"), WEIGHTS, "per card")
    return {
        "key": f"{cards}x-{offer.gpu.id}", "config": _config_text(fmt, offer.gpu, cards),
        "per_card": fmt.figure(per_card), "headroom": fmt.figure(headroom), "headroom_explain": "",
        "price": fmt.figure(price, period=True), "price_explain": explain(price, fmt),
        "ceiling": "", "ceiling_explain": "", **speed_of(offer, room_bytes),
        "tight": rules.is_tight(headroom.value, cards, market.rules),
    }, price.value
