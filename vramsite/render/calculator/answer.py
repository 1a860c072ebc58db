"""What the calculator shows for one case, by the tables' own calculation (calc/lookup.py, calc/rules.py)
and formatting (``Formatter``, ``explain``): the memory lines, the KV cache per token, every offer that
holds the need in the order the site's selection rule prefers them, and the choice or the nodes it would
take. Plain JSON; calculator.js ``answer`` gives the same for the same case."""

from __future__ import annotations

from ...calc import attention, cost, memory, rules, throughput
from ...calc.figure import Figure
from ...calc.guide import Guide
from ...calc.lookup import configuration, lookup, ranked_offers
from ...load.model import MethodKind, Model
from ..derivation import explain
from ..format import Formatter
from ..i18n import Catalog
from .case import Case, model_of, need_of, per_token_figure, resolve_method

def _line(fmt: Formatter, figure: Figure) -> dict:
    return {"label": fmt.gettext(figure.label), "value": fmt.figure(figure), "explain": explain(figure, fmt)}


def _per_token(guide: Guide, case: Case, fmt: Formatter) -> dict | None:
    """The KV cache one token adds, as a line (MB for a reference shape, bytes for a real model's layer groups)."""
    figure = per_token_figure(guide, case)
    return None if figure is None else _line(fmt, figure)


def _ceiling(guide: Guide, case: Case, offer, method) -> Figure | None:
    """Bandwidth of the cards ÷ the weights one decoded token reads; inference only."""
    if method.kind != MethodKind.INFERENCE or method.precision is None:
        return None
    model = model_of(guide, case)
    bandwidth = throughput.combined_bandwidth(cost.card_bandwidth(offer.gpu), offer.count)
    if isinstance(model, Model):
        return throughput.decode_ceiling(bandwidth, memory.weights(model, memory.precision_bytes(method.precision)))
    return throughput.decode_ceiling(bandwidth, attention.decode_read(model, method.precision))


def _config_text(fmt: Formatter, catalog: Catalog, gpu, count: int) -> str:
    if count == 1:
        return gpu.name
    return catalog.gettext("{count}× {card}").replace("{count}", fmt.number(count)).replace("{card}", gpu.name)


def answer(guide: Guide, fmt: Formatter, catalog: Catalog, case: Case) -> dict:
    """What the calculator shows for ``case``, by the tables' own calculation and formatting."""
    method = resolve_method(guide, case)
    need = need_of(guide, case)
    lines = [_line(fmt, need.weights)]
    if method.adapter:
        lines.append(_line(fmt, need.adapter))
    if method.kv_cache:
        lines.append(_line(fmt, need.kv_cache))
    if need.margin.value:
        lines.append(_line(fmt, need.margin))
    lines += [_line(fmt, need.overhead), _line(fmt, need.total)]
    market = guide.market
    model = model_of(guide, case)
    need_on = None if isinstance(model, Model) else (lambda cards: need_of(guide, case, cards).total)
    offers = []
    for offer in ranked_offers(method, market):
        held = need_on(offer.count) if need_on else need.total
        if not rules.fits(held.value, offer.gpu.memory_gb, offer.count):
            continue
        config = configuration(held, offer.gpu, offer.count, market)
        ceiling = _ceiling(guide, case, offer, method)
        offers.append({
            "key": f"{offer.count}x-{offer.gpu.id}", "config": _config_text(fmt, catalog, offer.gpu, offer.count),
            "per_card": fmt.figure(config.need_per_card), "headroom": fmt.figure(config.headroom_per_card),
            "headroom_explain": explain(config.headroom_per_card, fmt),
            "price": fmt.figure(config.price, period=True), "price_explain": explain(config.price, fmt),
            "ceiling": fmt.figure(ceiling) if ceiling else "", "ceiling_explain": explain(ceiling, fmt) if ceiling else "",
            "tight": config.tight,
        })
    found = lookup(need.total, method, market, need_on)
    if found.choice:
        choice = {"config": _config_text(fmt, catalog, found.choice.gpu, found.choice.count),
                  "price": fmt.figure(found.choice.price), "tight": found.choice.tight}
    else:
        choice = {"nodes": fmt.figure(found.nodes) if found.nodes is not None else "—",
                  "sales": catalog.gettext("talk to sales")}
    return {"lines": lines, "per_token": _per_token(guide, case, fmt), "offers": offers, "choice": choice}
