"""What the calculator shows for one case, by the tables' own calculation (calc/lookup.py, calc/rules.py)
and formatting (``Formatter``, ``explain``): the memory lines, the KV cache per token, every offer that
holds the need in the order the site's selection rule prefers them, and the choice or the nodes it would
take. Plain JSON; calculator.js ``answer`` gives the same for the same case."""

from __future__ import annotations

from functools import cache

from ...calc import rules
from ...calc.figure import Figure
from ...calc.guide import CatalogueView, Guide, ModelView
from ...calc.lookup import configuration, lookup, ranked_offers
from ...load.model import MethodKind, Model
from ...tables.guide import cards_label
from ...tables.model import Text
from ..derivation import explain
from ..format import Formatter
from ..i18n import Catalog
from ..inline import InlineRenderer
from .case import Case, model_of, need_of, per_token_figure, resolve_method

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
    return ModelView(guide, model) if isinstance(model, Model) else CatalogueView(guide, model)


def _config_text(fmt: Formatter, gpu, count: int) -> str:
    """'A40', or '8× MI300X': the tables' own wording of a configuration (``cards_label``)."""
    return InlineRenderer.plain(fmt).render(Text(gpu.name) if count == 1 else cards_label(count, Text(gpu.name)))


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
    # A real model's need on a number of cards, worked out once per number: the offers share a few.
    need_on = None if isinstance(model, Model) else cache(lambda cards: need_of(guide, case, cards).total)
    view = _view(guide, model, method)
    offers = []
    for offer in ranked_offers(method, market):
        held = need_on(offer.count) if need_on else need.total
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
            "tight": config.tight,
        })
    found = lookup(need.total, method, market, need_on)
    if found.choice:
        choice = {"config": _config_text(fmt, found.choice.gpu, found.choice.count),
                  "price": fmt.figure(found.choice.price), "tight": found.choice.tight}
    else:
        choice = {"nodes": fmt.figure(found.nodes) if found.nodes is not None else "—",
                  "sales": catalog.gettext("talk to sales")}
    return {"lines": lines, "per_token": _per_token(guide, case, fmt), "offers": offers, "choice": choice}
