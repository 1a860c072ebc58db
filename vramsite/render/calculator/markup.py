"""The calculator as the page draws it: the block partials/calculator.html renders (the data, its JSON, the
default answer's markup), and the answer's markup, character for character what calculator.js
``answerHtml`` writes for the same answer."""

from __future__ import annotations

import json

from markupsafe import Markup

from ...calc.guide import Guide
from ..format import Formatter
from ..i18n import Catalog
from .answer import answer
from .case import INFERENCE, Case, model_of

def default_case(data: dict) -> Case:
    defaults = data["defaults"]
    return Case(defaults["model"], defaults["method"], defaults["precision"], defaults["kv_precision"],
                defaults["context"], defaults["batch"], weight_format=defaults.get("format"),
                engine=defaults.get("engine") or None)


CUSTOM_FIELDS = (("params", "Parameters (billions)", False), ("layers", "Layers", True),
                 ("kv_heads", "KV heads", True), ("head_dim", "Head dimension", True))
"""The custom shape's fields: name, label, whether it takes whole numbers."""


def opening_on(data: dict, model: str | None) -> dict:
    """The language's calculator data, opening on ``model`` (the site's first model where None), in the format it
    ships in where its engine sizes it."""
    if model is None:
        return data
    served = data.get("serving", {}).get(model)
    return {**data, "defaults": {**data["defaults"], "model": model, "format": served["native"] if served else None}}


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def encoded_parts(language_data: dict) -> dict[str, tuple]:
    """key -> (value, its JSON) for each field of a language's calculator data: the pages' blocks share
    every field but their defaults, so each is encoded once."""
    return {key: (value, _json(value)) for key, value in language_data.items()}


def data_json(data: dict, encoded: dict[str, tuple]) -> str:
    """``data`` as compact JSON with sorted keys, taking the JSON of a field from ``encoded`` (of
    ``encoded_parts``) where it holds that very value."""
    parts = []
    for key in sorted(data):
        value = data[key]
        known = encoded.get(key)
        parts.append(_json(key) + ":" + (known[1] if known is not None and known[0] is value else _json(value)))
    return "{" + ",".join(parts) + "}"


def calculator_block(guide: Guide, fmt: Formatter, catalog: Catalog, language_data: dict,
                     model: str | None = None, encoded: dict[str, tuple] | None = None) -> dict:
    """What partials/calculator.html draws: the data (``language_data`` of ``calculator_data``, opening on
    ``model``), its JSON for the script (``encoded``: the language's ``encoded_parts``, where already
    made), the default answer's markup."""
    if model is not None:
        model_of(guide, Case(model, INFERENCE, guide.data.precisions[0].id))  # an unknown id is refused here
    data = opening_on(language_data, model)
    # Inside <script>, "</script>" or "<!--" in a name would end the data early: no "<" is written raw.
    text = data_json(data, encoded or {}).replace("<", "\\u003c")
    return {"data": data, "defaults": data["defaults"], "ui": data["ui"], "custom_fields": CUSTOM_FIELDS,
            "data_json": Markup(text),
            "answer_html": Markup(answer_html(answer(guide, fmt, catalog, default_case(data)), data))}


def answer_html(result: dict, data: dict) -> str:
    """The answer's markup, character for character what the script writes for the same answer."""
    ui, out = data["ui"], []
    rows = [*result["lines"], *([result["per_token"]] if result["per_token"] else [])]
    out.append('<dl class="calc-lines">')
    for index, line in enumerate(rows):
        total = ' calc-total' if result["total"] and index == len(result["lines"]) - 1 else ''
        out.append(f'<div class="calc-line{total}"><dt>{_e(line["label"])}</dt><dd>{_e(line["value"])}</dd></div>')
    out.append('</dl>')
    choice, offers = result["choice"], result["offers"]
    if "none" in choice:
        out.append(f'<p class="calc-choice">{_e(choice["none"])}</p>')
    elif "nodes" in choice:
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
        out.append(f'<div class="calc-offers"><table><caption>{_e(result["caption"])}</caption><thead><tr>')
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
