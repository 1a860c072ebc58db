"""The in-page calculator: the numbers its script evaluates, and the answer it shows, worked out here too.

``calculator_data`` reduces a site to what the formula needs (each model's
parameters and layer groups, the precisions, the methods' terms, the market's
offers from calc/offers.py) and gives the script the words and number format
of one language. ``answer`` computes what the calculator shows for one case
with the calculation the tables use (calc/memory.py, calc/attention.py,
calc/lookup.py), formatted by the tables' ``Formatter`` and ``explain``.
templates/static/calculator.js evaluates the same formula over the data; the
page is rendered with ``answer`` for its default case, and the tests hold the
script's answers to this module's and to every table cell they share.

An answer is plain JSON: the memory lines (each the figure's label, value and
arithmetic), the KV cache per token, every offer that holds the need in the
order the site's selection rule prefers them, and the choice (or the nodes it
would take).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from decimal import Decimal

from babel.numbers import get_decimal_symbol, get_group_symbol, get_minus_sign_symbol
from markupsafe import Markup

from ..calc import attention, cost, memory, rules, throughput
from ..calc.figure import Figure
from ..calc.guide import Guide
from ..calc.lookup import configuration, lookup, ranked_offers
from ..load.model import MethodKind, Model, Selection
from .derivation import explain
from .format import MONEY_PERIODS, UNIT_PATTERNS, Formatter
from .i18n import Catalog

INFERENCE = "inference"
"""The method choice that sizes inference at the chosen weight precision."""

CUSTOM = "custom"
"""The model choice whose shape the reader types in."""

UI_STRINGS = (
    "Size your own model", "Model", "Custom model", "Parameters (billions)", "Layers", "KV heads",
    "Head dimension", "Method", "Inference", "Weight precision", "KV cache format", "Context (tokens)",
    "Concurrent sequences", "KV cache per token", "Cards that fit", "Configuration", "Per card",
    "Headroom per card", "Price", "Decode ceiling", "tight", "Arithmetic", "Link to this answer",
    "{count}× {card}", "{choice}, {price}", "Nothing fits: it takes {nodes}; talk to sales.", "talk to sales",
    "Needs {total}. {rule}: {choice}, {price}.", "Needs {total}. Nothing fits.",
    "Enter a number.", "Enter a whole number.", "Enter a number above zero.", "At most {max}.",
    "The model reads at most {max} tokens.", "Correct the marked fields to see the answer.",
)
"""The calculator's own words, translated in the catalogs and given to the script."""


@dataclass(frozen=True)
class Custom:
    """A shape the reader types in: sized as a reference shape of data/models.yaml is."""

    params_billion: Decimal
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None


@dataclass(frozen=True)
class Case:
    """One question the calculator answers."""

    model: str
    """A model id (reference or catalogue) or ``CUSTOM``."""
    method: str
    """``INFERENCE`` or the id of a fine-tuning method."""
    precision: str
    kv_precision: str | None = None
    context: int | None = None
    batch: int | None = None
    custom: Custom | None = None


# -- the data the script evaluates -------------------------------------------


def kv_formats(guide: Guide) -> tuple:
    """The KV cache formats a reader may pick: sizing.yaml kv_precisions, else the inference block's own."""
    data = guide.data
    if not data.inference.kv_cache:
        return ()
    return data.kv_precisions or ((data.inference.kv_precision,) if data.inference.kv_precision else ())


def default_kv_format(guide: Guide):
    formats = kv_formats(guide)
    if not formats:
        return None
    default = guide.data.inference.kv_precision
    return next((p for p in formats if default is not None and p.id == default.id), formats[0])


def inference_precisions(guide: Guide) -> tuple:
    return guide.data.precisions


def finetune_methods(guide: Guide) -> tuple:
    return tuple(method for method in guide.data.methods if method.kind != MethodKind.INFERENCE)


def resolve_method(guide: Guide, case: Case):
    if case.method == INFERENCE:
        return guide.inference_method(case.precision)
    return guide.method(case.method)


def _num(value) -> str:
    return format(Decimal(value), "f")


def _method_data(method) -> dict:
    return {
        "id": method.id, "kind": method.kind.value, "precision": method.precision.id if method.precision else None,
        "bytes": _num(method.precision.bytes_per_param) if method.precision else
        (_num(method.bytes_per_param) if method.bytes_per_param is not None else None),
        "bytes_label": method.precision.label if method.precision else "",
        "feature": rules.required_feature(method),
        "training_state": method.training_state, "adapter": method.adapter, "kv_cache": method.kv_cache,
        "overhead": _num(method.overhead_gb), "margin": _num(method.margin_percent),
        "all_to_all": method.needs_all_to_all,
    }


def _model_data(model) -> dict:
    if isinstance(model, Model):
        return {"id": model.id, "name": model.name, "shape": "reference", "params": _num(model.params_billion),
                "layers": model.layers, "kv_heads": model.kv_heads, "head_dim": model.head_dim}
    groups = [{"kind": group.kind, "count": group.count,
               **{name: (_num(value) if isinstance(value, Decimal) else value) for name, value in group.sizes}}
              for group in model.layers]
    return {"id": model.id, "name": model.name, "shape": "layers", "params": _num(model.params_billion),
            "active": _num(model.active_params_billion), "max_context": model.max_context, "groups": groups}


def _offer_data(offer, guide: Guide) -> dict:
    gpu = offer.gpu
    return {"card": gpu.id, "name": gpu.name, "count": offer.count, "memory": _num(gpu.memory_gb),
            "bandwidth": _num(gpu.bandwidth_gbps), "price": _num(guide.data.pricing.usd[gpu.id]),
            "usd": _num(offer.usd), "discount": _num(rules.discount_percent(offer.count, guide.data.discounts)),
            "features": sorted(gpu.features), "links": offer.links_all_to_all}


def _words(fmt: Formatter, catalog: Catalog) -> dict:
    """Every unit pattern, money pattern, figure label and UI string the script may print, translated."""
    check_plural_rule(catalog)
    units = {}
    for unit, (singular, plural) in UNIT_PATTERNS.items():
        if singular == "{n}":  # the bare number: never looked up (Formatter._with_unit)
            units[unit] = [singular, singular]
        elif singular in catalog.messages:  # a unit the catalog lacks is one no page can print
            units[unit] = ([catalog.gettext(singular)] * 2 if plural is None else
                           [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)])
    money = {unit: (catalog.gettext(pattern) if pattern in catalog.messages else None) if pattern else None
             for unit, pattern in MONEY_PERIODS.items()}
    return {"units": units, "money": money, "ui": {msgid: catalog.gettext(msgid) for msgid in UI_STRINGS}}


RULE_NAMES = {Selection.CHEAPEST: "Cheapest fit", Selection.SMALLEST_FIT: "Smallest fit"}
"""What the configuration the site's selection rule picks is called."""


def check_plural_rule(catalog: Catalog) -> None:
    """The script tells one from more than one; a catalog with other plural forms needs more than that."""
    forms = {catalog.plural(n) for n in range(2, 200)}
    if len(forms) != 1 or catalog.plural(1) not in (0, *forms):
        raise ValueError(f"{catalog.path}: the calculator handles plural forms of one and of more than one only")


def _labels(guide: Guide, fmt: Formatter, models: tuple) -> dict:
    """The translation of every label the calculator prints: its lines' labels, and the terms its
    arithmetic names (those of sums and differences), gathered from the figures themselves."""
    labels: dict[str, str] = {}

    def named_terms(figure: Figure) -> None:
        """The labels ``explain`` prints for a figure: its own terms', where it is a sum or a difference."""
        if figure.formula is not None and figure.formula.op in ("+", "−"):
            for term in figure.formula.terms:
                if term.label:
                    labels.setdefault(term.label, fmt.gettext(term.label))

    kv = default_kv_format(guide)
    counts = sorted({1, *guide.data.lookup.card_counts})
    for model in models:
        for method_id in (INFERENCE, *(method.id for method in finetune_methods(guide))):
            case = Case(model.id, method_id, guide.data.precisions[0].id, kv.id if kv else None)
            for cards in counts:
                need = need_of(guide, case, cards)
                for figure in (need.weights, need.adapter, need.kv_cache, need.margin, need.overhead, need.total):
                    if figure.label:
                        labels.setdefault(figure.label, fmt.gettext(figure.label))
                    named_terms(figure)
                for offer in guide.market.gpus[:1]:
                    named_terms(rules.headroom_figure(cost.card_memory(offer), need.total, cards))
            per_token = _per_token(guide, case, fmt, figure_only=True)
            if per_token is not None:
                labels.setdefault(per_token.label, fmt.gettext(per_token.label))
                named_terms(per_token)
    return labels


def calculator_data(guide: Guide, fmt: Formatter, catalog: Catalog, default_model: str | None = None) -> dict:
    """What the script needs for one language of one site; ``default_model`` is the model it opens with."""
    data = guide.data
    models = (*data.models, *data.catalogue)
    kv = default_kv_format(guide)
    market = guide.market
    offers = [offer for offer in ranked_offers(_any_method(guide), market)]
    return {
        "models": [_model_data(model) for model in models],
        "defaults": {"model": default_model or models[0].id, "method": INFERENCE,
                     "precision": guide.default_inference().precision.id, "kv_precision": kv.id if kv else None,
                     "context": data.inference.context_tokens, "batch": data.inference.batch},
        "precisions": [{"id": p.id, "label": p.label, "bytes": _num(p.bytes_per_param),
                        "feature": p.requires_feature} for p in inference_precisions(guide)],
        "inference": {p.id: _method_data(guide.inference_method(p.id)) for p in inference_precisions(guide)},
        "methods": [{**_method_data(method), "label": fmt.gettext(method.label).replace(
            "{precision}", method.precision.label if method.precision else "")} for method in finetune_methods(guide)],
        "kv_precisions": [{"id": p.id, "label": p.label, "bytes": _num(p.bytes_per_param)} for p in kv_formats(guide)],
        "training_state": [[name, _num(value)] for name, value in data.finetune.training_state_bytes],
        "adapter": ({"share": _num(data.finetune.adapter.share_percent),
                     "bytes": _num(data.finetune.adapter.bytes_per_param)} if data.finetune.adapter else None),
        "offers": [_offer_data(offer, guide) for offer in offers],
        "market": {"period": data.pricing.period.value, "selection": data.lookup.selection.value,
                   "node_cards": max(data.lookup.card_counts),
                   "tight_single": _num(data.lookup.tight_single_gb),
                   "tight_per_card": _num(data.lookup.tight_per_card_gb)},
        "display": {kind: {"decimals": spec.decimals, "trim": spec.trim, "below_10": spec.below_10}
                    for kind, spec in fmt.specs.items()},
        "number": {"decimal": get_decimal_symbol(fmt.locale.gettext), "group": get_group_symbol(fmt.locale.gettext),
                   "minus": get_minus_sign_symbol(fmt.locale.gettext)},
        "labels": _labels(guide, fmt, models),
        "rule": catalog.gettext(RULE_NAMES[data.lookup.selection]),
        **_words(fmt, catalog),
    }


def _any_method(guide: Guide):
    """A method with no hardware rule: the ranking of every offer (the script applies each method's rules)."""
    return replace(guide.default_inference(), precision=None, needs_all_to_all=False)


# -- the answer -----------------------------------------------------------------


def _model(guide: Guide, case: Case):
    if case.model == CUSTOM:
        shape = case.custom
        return Model(CUSTOM, CUSTOM, shape.params_billion, shape.layers, None, None, shape.kv_heads, shape.head_dim)
    data = guide.data
    found = [model for model in (*data.models, *data.catalogue) if model.id == case.model]
    if not found:
        raise KeyError(f"no model {case.model!r}")
    return found[0]


def _sizing(guide: Guide, case: Case) -> memory.Sizing:
    formats = {p.id: p for p in kv_formats(guide)}
    if case.kv_precision is None or case.kv_precision not in formats:
        return guide.sizing
    return replace(guide.sizing, inference=replace(guide.data.inference, kv_precision=formats[case.kv_precision]))


def need_of(guide: Guide, case: Case, cards: int = 1) -> memory.MemoryNeed:
    """The method's memory for the case on ``cards`` cards (a reference shape's need is one need)."""
    model, method, sizing = _model(guide, case), resolve_method(guide, case), _sizing(guide, case)
    if isinstance(model, Model):
        return memory.method_memory(model, method, sizing, case.context, case.batch)
    return attention.method_memory(model, method, sizing, case.context, case.batch, cards)


def _line(fmt: Formatter, figure: Figure) -> dict:
    return {"label": fmt.gettext(figure.label), "value": fmt.figure(figure), "explain": explain(figure, fmt)}


def _per_token(guide: Guide, case: Case, fmt: Formatter, figure_only: bool = False):
    """The KV cache one token adds (MB for a reference shape, bytes for a real model's layer groups)."""
    model, sizing = _model(guide, case), _sizing(guide, case)
    if not sizing.inference.kv_cache or not resolve_method(guide, case).kv_cache:
        return None
    kv = sizing.inference.kv_precision
    if isinstance(model, Model):
        if model.layers is None:
            return None
        figure = memory.kv_per_token_mb(model, kv)
    else:
        figure = attention.kv_bytes_per_token(attention.model_layers(model), attention.element_bytes(kv))
    return figure if figure_only else _line(fmt, figure)


def _ceiling(guide: Guide, case: Case, offer, method) -> Figure | None:
    """Bandwidth of the cards ÷ the weights one decoded token reads; inference only."""
    if method.kind != MethodKind.INFERENCE or method.precision is None:
        return None
    model = _model(guide, case)
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
    model = _model(guide, case)
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



def default_case(data: dict) -> Case:
    defaults = data["defaults"]
    return Case(defaults["model"], defaults["method"], defaults["precision"], defaults["kv_precision"],
                defaults["context"], defaults["batch"])


CUSTOM_FIELDS = (("params", "Parameters (billions)", False), ("layers", "Layers", True),
                 ("kv_heads", "KV heads", True), ("head_dim", "Head dimension", True))
"""The custom shape's fields: name, label, whether it takes whole numbers."""


def calculator_block(guide: Guide, fmt: Formatter, catalog: Catalog, model: str | None = None) -> dict:
    """What partials/calculator.html draws: the data, its JSON for the script, the default answer's markup."""
    if model is not None:
        _model(guide, Case(model, INFERENCE, guide.data.precisions[0].id))  # an unknown id is refused here
    data = calculator_data(guide, fmt, catalog, model)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # Inside <script>, "</script>" or "<!--" in a name would end the data early: no "<" is written raw.
    text = text.replace("<", "\\u003c")
    return {"data": data, "defaults": data["defaults"], "ui": data["ui"], "custom_fields": CUSTOM_FIELDS,
            "data_json": Markup(text),
            "answer_html": Markup(answer_html(answer(guide, fmt, catalog, default_case(data)), data))}


# -- the answer as markup (calculator.js answerHtml writes the same) ----------------


def answer_html(result: dict, data: dict) -> str:
    """The answer's markup, character for character what the script writes for the same answer."""
    ui, out = data["ui"], []
    rows = [*result["lines"], *([result["per_token"]] if result["per_token"] else [])]
    out.append('<dl class="calc-lines">')
    for index, line in enumerate(rows):
        total = ' calc-total' if index == len(result["lines"]) - 1 else ''
        out.append(f'<div class="calc-line{total}"><dt>{_e(line["label"])}</dt><dd>{_e(line["value"])}</dd></div>')
    out.append('</dl>')
    choice, offers = result["choice"], result["offers"]
    if "nodes" in choice:
        text = ui["Nothing fits: it takes {nodes}; talk to sales."].replace("{nodes}", choice["nodes"])
        out.append(f'<p class="calc-choice">{_e(text)}</p>')
    else:
        tight = f' <span class="flag">{_e(ui["tight"])}</span>' if choice["tight"] else ''
        pair = ui["{choice}, {price}"].replace("{choice}", choice["config"]).replace("{price}", choice["price"])
        out.append(f'<p class="calc-choice"><strong>{_e(data["rule"])}</strong> {_e(pair)}{tight}</p>')
    steps = [line["explain"] for line in rows if line["explain"]]
    if offers:
        steps += [offers[0][key] for key in ("headroom_explain", "price_explain", "ceiling_explain") if offers[0][key]]
    out.append(f'<details class="calc-arith"><summary>{_e(ui["Arithmetic"])}</summary><ul>')
    out += [f'<li>{_e(step)}</li>' for step in steps]
    out.append('</ul></details>')
    if offers:
        ceilings = any(offer["ceiling"] for offer in offers)
        heads = ["Configuration", "Per card", "Headroom per card", "Price", *(["Decode ceiling"] if ceilings else [])]
        out.append(f'<div class="calc-offers"><table><caption>{_e(ui["Cards that fit"])}</caption><thead><tr>')
        out += [f'<th scope="col">{_e(ui[head])}</th>' for head in heads]
        out.append('</tr></thead><tbody>')
        for offer in offers:
            flag = f' <span class="flag">{_e(ui["tight"])}</span>' if offer["tight"] else ''
            cells = [f'<th scope="row">{_e(offer["config"])}</th>', f'<td>{_e(offer["per_card"])}</td>',
                     f'<td title="{_e(offer["headroom_explain"])}">{_e(offer["headroom"])}{flag}</td>',
                     f'<td title="{_e(offer["price_explain"])}">{_e(offer["price"])}</td>']
            if ceilings:
                cells.append(f'<td title="{_e(offer["ceiling_explain"])}">{_e(offer["ceiling"])}</td>')
            out.append('<tr>' + ''.join(cells) + '</tr>')
        out.append('</tbody></table></div>')
    return ''.join(out)


def _e(text: str) -> str:
    """HTML-escaped text: & < > " ' (calculator.js escapes the same five)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
            .replace("'", "&#39;"))
