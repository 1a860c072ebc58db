"""The numbers the calculator's script evaluates, for one language of one site: each model's parameters and
layer groups, the precisions, the methods' terms, the market's offers (calc/offers.py, in the order the
lookup ranks them), the display rules, and every word the script may print."""

from __future__ import annotations

import json
from decimal import Decimal

from babel.numbers import get_decimal_symbol, get_minus_sign_symbol

from ...calc import rules
from ...calc.guide import Guide
from ...calc.model_kinds import LAYERS, REFERENCE, kind_of
from ...calc.serving import kv_room_gib, serving_engine, sized_to_request, stored_weights
from ...calc.serving_speed import read_parts, sequence_limit
from ...calc.throughput import card_links, compute_format, matmul_share
from ...units import BYTES_PER_GIB
from ...tables.selection_words import selection_words
from ..format import MONEY_PERIODS, UNIT_PATTERNS, Formatter
from ..i18n import Catalog
from .case import INFERENCE, SCALED_CONTEXT, default_kv_format, finetune_methods, kv_formats
from .formulas import Pool, calculator_formulas, model_formulas, offer_price, shown_labels

UI_STRINGS = (
    "Size your own model", "Find a model", "No model's name holds that.", "Model", "Custom model",
    "Parameters (billions)", "Layers", "KV heads",
    "Head dimension", "Method", "Inference", "Weight precision", "KV cache format", "Context (tokens)",
    "Concurrent sequences", "KV cache per token", "Cards that fit", "Configuration", "Per card",
    "Headroom per card", "Price", "Decode ceiling", "One sequence", "Per million tokens, one sequence", "Sequences at once",
    "All sequences", "Per million tokens, full batch", "First token", "tight", "Arithmetic", "Link to this answer",
    "More on {model}",
    "{count}× {card}", "{choice}, {price}", "Cheapest: {choice}, {price}", "Nothing fits: it takes {nodes}; talk to sales.", "talk to sales",
    "Needs {total}. {rule}: {choice}, {price}.", "Needs {total}. Nothing fits.",
    "Enter a number.", "Enter a whole number.", "Enter a number above zero.", "At most {max}.",
    "The model reads at most {max} tokens.", "Correct the marked fields to see the answer.",
    "Weight format", "Where {engine} starts", "{engine} starts it on none of our configurations.",
    "{engine} does not store this KV cache format.", "{engine} starts it. {rule}: {choice}, {price}.",
    "Serving engine", "The format's usual engine", "{engine} does not load {format}.", "Loading this model's figures…",
    "This model's figures could not be loaded; reload the page to try again.",
    "Card", "Any card", "No configuration of {card} we rent holds it.",
    "{engine} starts it on no configuration of {card} we rent.", "More configurations ({count})",
    "{figure} {flag}", "the larger of {a} and {b}", "the smaller of {a} and {b}",
    SCALED_CONTEXT,
)
"""The calculator's own words, translated in the catalogs and given to the script."""

INPUT_LIMITS = {"params": 100000, "layers": 1000, "kv_heads": 1024, "head_dim": 8192, "context": 100000000,
                "batch": 100000}
"""The largest number the calculator takes in each field: a custom shape's sizes (billions of parameters,
layers, KV heads, head dimension), the context and the concurrent sequences."""

OFFERS_SHOWN = 5
"""Offers an answer's table shows open; the rest wait behind a summary, so that the form's answer stays short."""


def _num(value) -> str:
    return format(Decimal(value), "f")


def _method_data(method) -> dict:
    """What the script's rules read of a method; its formula is a template (formulas.py)."""
    return {
        "id": method.id, "kind": method.kind.value, "precision": method.precision.id if method.precision else None,
        "feature": rules.required_feature(method), "kv_cache": method.kv_cache, "adapter": method.adapter,
        "all_to_all": method.needs_all_to_all,
    }


def model_data(model, guide: Guide) -> dict:
    """A model's sizes as the templates take them: a reference shape's, or a real model's (its layers are in its
    own templates, in its calculator file: ``model_files``), with the format it ships in where an engine serves it."""
    shape = kind_of(model).shape
    return {"id": model.id, "name": model.name, "shape": shape, "params": _num(model.params_billion),
            **_SIZES[shape](model, guide)}


def _reference_sizes(model, guide: Guide) -> dict:
    return {size: model.shape(size) for size in ("layers", "kv_heads", "head_dim")}


def _layers_sizes(model, guide: Guide) -> dict:
    return {"active": _num(model.active_params_billion), "max_context": model.max_context,
            "layer_count": model.layer_count, "hidden": model.hidden_size,
            "experts": [model.experts.total, model.experts.active] if model.experts else None,
            **({"native": guide.catalogue_model(model.id).native_format().id} if guide.serves else {}),
            **({"as_shipped": model.context_scaling.as_shipped} if model.context_scaling else {})}


_SIZES = {REFERENCE.shape: _reference_sizes, LAYERS.shape: _layers_sizes}
"""What each kind of model (calc/model_kinds.py) hands the script beside its id, name, shape and parameters."""


def _offer_data(offer, guide: Guide, pool: Pool) -> dict:
    gpu = offer.gpu
    return {"card": gpu.id, "name": gpu.name, "count": offer.count, "memory": _num(gpu.memory_gb),
            "bandwidth": _num(gpu.bandwidth_gbps), "price": offer_price(guide, pool, offer),
            "features": sorted(gpu.features), "links": offer.links_all_to_all}


def _serving_entry(guide: Guide, view) -> dict:
    """Where the site has engines (calc/serving.py), for each format a real model offers: its own engine, the bytes
    of its weights, and what a decode step reads of them (the format it ships in is in the language's data)."""
    return {"formats": {weight_format.id: {
        "engine": serving_engine(guide.data.engines, weight_format).id,
        "weight_bytes": _num(stored_weights(view.model, weight_format, 1).value),
        **_read_parts(view.model, weight_format)} for weight_format in view.formats()}}


def _read_parts(model, weight_format) -> dict:
    """What a decode step reads whatever its batch, and the bytes of all the routed experts (calc/serving_speed.py)."""
    dense, experts = read_parts(model, weight_format)
    return {"dense_read": _num(dense.value), "expert_bytes": _num(experts.value)}


def serving_engines(guide: Guide) -> list[dict]:
    """Every engine: its id, name, whether it sizes its cache to the request, the weight formats it loads."""
    if not guide.serves:
        return []
    return [{"id": engine.id, "name": engine.name, "request": sized_to_request(engine),
             "loads": list(engine.weight_formats)} for engine in guide.data.engines.engines]


def model_files(guide: Guide, models: list[str] | None = None) -> dict:
    """model -> its calculator file, for the real models of ``models`` (default: every one): its own templates and
    their pool (``model_formulas``); where the site has engines, its ``_serving_entry``, and per format and engine
    what that engine keeps on each card of every priced configuration (``_engine_rooms``), a configuration where it
    sizes no cache left out. The script decides from these, for the context and sequences asked, what the tables
    decide from the same verdicts. Nothing here depends on the language, nor on the prices beyond the order of the
    configurations they price (``Guide.configurations``): one file per model serves every page, the language's data
    grows by a model's name and sizes alone, and a rebuild after a price edit that keeps that order keeps the
    files."""
    offers = guide.configurations()
    counts = _card_counts(offers)
    views = guide.catalogue if models is None else tuple(guide.catalogue_model(model) for model in models)
    found = {}
    for view in views:
        templates, pool = _model_formulas(guide, view.model, counts)
        found[view.id] = {"formulas": {**templates, "nodes": pool.nodes}}
        if guide.serves:
            found[view.id].update(serving=_serving_entry(guide, view), rooms=_model_rooms(guide, view, offers))
    return found


def _model_formulas(guide: Guide, model, counts: tuple[int, ...]) -> tuple[dict, Pool]:
    """``model_formulas``, worked out once per build: each language's data reads their labels."""
    return guide._verdicts.fetch(("calculator model formulas", model.id, counts),
                                 lambda: model_formulas(guide, model, list(counts)))


def _model_rooms(guide: Guide, view, offers) -> dict:
    """format -> engine -> ``_engine_rooms``, for each engine that loads the format and stores the site's KV
    cache format."""
    engines, kv = guide.data.engines.engines, guide.serving_kv().id
    return {weight_format.id: {engine.id: _engine_rooms(view, weight_format.id, engine.id, offers)
                               for engine in engines if engine.loads(weight_format.id) and engine.accepts(kv)}
            for weight_format in view.formats()}


def _card_counts(offers) -> tuple[int, ...]:
    """The card counts of the offers the calculator lists, in its order (the templates are worked out for each)."""
    return tuple(offer.count for offer in offers)


MODEL_FOLDER = "data/calculator"
"""Where the site publishes ``model_files``, one file per real model (``model_path``), beside the languages' data
(data/<language>/calculator.json): a page's script fetches the file of the model a reader asks about, no other."""


def model_path(model_id: str) -> str:
    return f"{MODEL_FOLDER}/{model_id}.json"


def model_file(found: dict) -> bytes:
    """One model's calculator file as published: compact JSON, keys sorted, so the same figures give the same
    bytes."""
    return json.dumps(found, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def calculator_path(segment: str) -> str:
    """Where a language's calculator data is published, beside its tables' downloads: one file that every page's
    calculator fetches, so that a page holds only its own defaults and a price edit changes no page that shows
    no figure of that price."""
    return f"data/{segment}/calculator.json"


def calculator_file(language_data: dict) -> bytes:
    """``calculator_data`` as the published file: compact JSON, keys sorted."""
    return json.dumps(language_data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def _engine_rooms(view, format_id: str, engine_id: str, offers) -> dict:
    rooms, weights = {}, {}
    for offer in offers:
        answer = view.serve(format_id, offer.gpu, offer.count, engine_id=engine_id)
        room = kv_room_gib(answer)
        if room is None:
            continue
        loaded = _bytes(answer.weights_gib.value)
        usual = weights.setdefault(str(offer.count), loaded)
        rooms[f"{offer.count}x-{offer.gpu.id}"] = _bytes(room.value) if loaded == usual else [_bytes(room.value), loaded]
    return {"weights_per_card": weights, "rooms": rooms}


def _bytes(gib: Decimal) -> str:
    """GiB as bytes, the shortest exact text: the script reads the same number, in a third of the characters."""
    return format((gib * BYTES_PER_GIB).normalize(), "f")


def serving_kv(guide: Guide) -> dict:
    """The bits of each KV cache format each engine stores, by engine id (data/engines.yaml)."""
    if not guide.serves:
        return {}
    engines = guide.data.engines
    return {engine.id: {format_id: _num(engines.kv_cache_format(format_id).bits)
                        for format_id, _ in engine.kv_cache_formats} for engine in engines.engines}


def format_labels(guide: Guide) -> list[dict]:
    """Every format some catalogue model offers, in first-offered order, with its name."""
    if not guide.serves:
        return []
    ids = dict.fromkeys(weight_format.id for view in guide.catalogue for weight_format in view.formats())
    return [{"id": format_id, "label": guide.weight_format(format_id).name} for format_id in ids]


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


def check_plural_rule(catalog: Catalog) -> None:
    """The script tells one from more than one; a catalog with other plural forms needs more than that."""
    forms = {catalog.plural(n) for n in range(2, 200)}
    if len(forms) != 1 or catalog.plural(1) not in (0, *forms):
        raise ValueError(f"{catalog.path}: the calculator handles plural forms of one and of more than one only")


def calculator_data(guide: Guide, fmt: Formatter, catalog: Catalog, default_model: str | None = None,
                    model_page: str | None = None) -> dict:
    """What the script needs for one language of one site; ``default_model`` is the model it opens with,
    ``model_page`` where a real model's page in this language is, as a URL from the folder of the data's file
    (``calculator_path``) with the model's id as ``{model}``."""
    data = guide.data
    models = (*data.models, *data.catalogue)
    kv = default_kv_format(guide)
    offers = guide.serving_offers()
    counts = _card_counts(offers)
    templates, pool = calculator_formulas(guide, list(counts))
    offered = [_offer_data(offer, guide, pool) for offer in offers]
    own = [_model_formulas(guide, model, counts) for model in data.catalogue]
    return {
        "models": [model_data(model, guide) for model in models],
        "model_page": model_page,
        "engines": serving_engines(guide),
        "serving_kv": serving_kv(guide),
        "formats": format_labels(guide),
        "cards": _cards(guide, offers),
        "defaults": {"model": default_model or models[0].id, "method": INFERENCE, "format": None, "engine": "",
                     "card": "",
                     "precision": guide.default_inference().precision.id, "kv_precision": kv.id if kv else None,
                     "context": data.inference.context_tokens, "batch": data.inference.batch},
        "precisions": [{"id": p.id, "label": p.label, "feature": p.requires_feature} for p in guide.data.precisions],
        "inference": {p.id: _method_data(guide.inference_method(p.id)) for p in guide.data.precisions},
        "methods": [{**_method_data(method), "label": fmt.gettext(method.label).replace(
            "{precision}", method.precision.label if method.precision else "")} for method in finetune_methods(guide)],
        "kv_precisions": [{"id": p.id, "label": p.label, "bytes": _num(p.bytes_per_param)} for p in kv_formats(guide)],
        "offers": offered,
        "formulas": {**templates, "nodes": pool.nodes},
        "limits": INPUT_LIMITS,
        "market": {"period": data.pricing.period.value, "selection": data.lookup.selection.value,
                   "node_cards": max(data.lookup.card_counts),
                   "tight_single": _num(data.lookup.tight_single_gb),
                   "tight_per_card": _num(data.lookup.tight_per_card_gb)},
        "display": {kind: {"decimals": spec.decimals, "trim": spec.trim, "below_10": spec.below_10}
                    for kind, spec in fmt.specs.items()},
        "number": {"decimal": get_decimal_symbol(fmt.locale.gettext), "group": fmt.digit_group,
                   "minus": get_minus_sign_symbol(fmt.locale.gettext)},
        "labels": {label: fmt.gettext(label) for label in sorted(shown_labels(templates, pool, own))},
        "rule": catalog.gettext(selection_words(data.lookup.selection).rule),
        "offers_shown": OFFERS_SHOWN,
        **_words(fmt, catalog),
    }


def _cards(guide: Guide, offers) -> list[dict]:
    """Each card the offers rent, once, in gpus.yaml's order: what the reader may keep the answer to, and where the
    site states speeds, what the speed templates take of it (formulas.py ``_speed_templates``)."""
    offered = {offer.gpu.id for offer in offers}
    return [{"id": gpu.id, "name": gpu.name, **_card_rates(guide, gpu)} for gpu in guide.data.gpus
            if gpu.id in offered]


def _card_rates(guide: Guide, gpu) -> dict:
    """The card's link, price per GPU-hour, per weight format some model offers its dense rate in the format it
    computes in and the share of it it reaches, and each engine's limit on the sequences it decodes at once on it;
    nothing where the site states no speeds or the card's dense rate is unknown."""
    hourly = guide.gpu(gpu.id).hourly
    if guide.data.speed is None or gpu.dense_tflops is None or hourly is None:
        return {}
    rates = {}
    for entry in format_labels(guide):
        fmt = compute_format(guide.weight_format(entry["id"]), gpu)
        rates[entry["id"]] = [_num(gpu.dense_tflops.rate(fmt)),
                              _num(matmul_share(guide.data.speed.matmuls, gpu.id, fmt).value)]
    limits = {engine.id: _num(limit) for engine in guide.data.engines.engines
              if (limit := sequence_limit(engine, gpu)) is not None}
    link, peer_link = card_links(gpu)
    return {"link": _num(link.value), "peer_link": _num(peer_link.value), "hourly": _num(hourly.value), "rates": rates, "limits": limits}
