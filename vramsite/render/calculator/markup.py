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
    return Case(model=defaults["model"], method=defaults["method"], precision=defaults["precision"],
                kv_precision=defaults["kv_precision"], context=defaults["context"], batch=defaults["batch"],
                weight_format=defaults.get("format"), engine=defaults.get("engine") or None,
                card=defaults.get("card") or None)


CUSTOM_FIELDS = (("params", "Parameters (billions)", False), ("layers", "Layers", True),
                 ("kv_heads", "KV heads", True), ("head_dim", "Head dimension", True))
"""The custom shape's fields: name, label, whether it takes whole numbers."""


def opening_on(data: dict, model: str | None, card: str | None = None) -> dict:
    """The language's calculator data, opening on ``model`` (the site's first model where None), in the format it
    ships in where its engine sizes it, and on ``card`` alone where given."""
    defaults = dict(data["defaults"])
    if model is not None:
        entry = next(item for item in data["models"] if item["id"] == model)
        defaults.update(model=model, format=entry.get("native"))
    if card is not None:
        defaults["card"] = card
    return data if defaults == data["defaults"] else {**data, "defaults": defaults}


PAGE_UI = ("Loading the calculator's figures…",
           "The calculator's figures could not be loaded; reload the page to try again.")
"""What a page's calculator may say before its language's data (``calculator_file``) is in hand."""
PASTE_UI = {"summary": "Paste a config.json", "label": "A model's config.json as its publisher gives it: your "
            "browser reads it by the rules the site's own models are read by, and sizes it as it sizes them.",
            "button": "Size this model", "name": "Your config.json", "empty": "Paste a config.json first.",
            "loading": "Loading the importer (about 15 MB, once)…", "sizing": "Sizing your config.json…",
            "failed": "The importer could not be loaded; reload the page to try again."}
"""What "Paste a config.json" says (assets/paste.js), in the page alone: the language's data stays the same size
for every page that has no paste field."""


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def calculator_block(guide: Guide, fmt: Formatter, catalog: Catalog, language_data: dict,
                     model: str | None = None, card: str | None = None) -> dict:
    """What partials/calculator.html draws: the form's choices (``language_data`` of ``calculator_data``, opening
    on ``model`` and ``card``), the page's own JSON for the script (its defaults and the words it says while the
    language's data loads), the default answer's markup."""
    if model is not None:
        model_of(guide, Case(model, INFERENCE, guide.data.precisions[0].id))  # an unknown id is refused here
    if card is not None and not any(item["id"] == card for item in language_data["cards"]):
        raise KeyError(f"no priced card {card!r}")
    data = opening_on(language_data, model, card)
    page = {"defaults": data["defaults"], "ui": {msgid: catalog.gettext(msgid) for msgid in PAGE_UI}}
    # Inside <script>, "</script>" or "<!--" in a name would end the data early: no "<" is written raw.
    opening = next(item for item in data["models"] if item["id"] == data["defaults"]["model"])
    return {"data": data, "defaults": data["defaults"], "opening_model": opening, "ui": data["ui"],
            "paste_ui": {key: catalog.gettext(msgid) for key, msgid in PASTE_UI.items()},
            "custom_fields": CUSTOM_FIELDS,
            "data_json": Markup(_json(page).replace("<", "\\u003c")),
            "answer_html": Markup(answer_html(answer(guide, fmt, catalog, default_case(data), data["offers_shown"]),
                                              data))}


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
        pair = ui["{choice}, {price}"].replace("{choice}", choice["config"]).replace("{price}", choice["price"])
        out.append(f'<p class="calc-choice"><strong>{_e(data["rule"])}</strong> {_flagged(pair, choice["tight"], ui)}</p>')
        if "cheapest" in choice:
            cheapest = (ui["Cheapest: {choice}, {price}"].replace("{choice}", choice["cheapest"]["config"])
                        .replace("{price}", choice["cheapest"]["price"]))
            out.append(f'<p class="calc-cheapest">{_e(cheapest)}</p>')
    if result.get("scaling"):
        out.append(f'<p class="calc-note">{_e(result["scaling"])}</p>')
    steps = [line["explain"] for line in rows if line["explain"]]
    if offers:
        steps += [offers[0][key] for key in ("headroom_explain", "price_explain", "ceiling_explain", "full_explain",
                                             "per_million_explain") if offers[0][key]]
    out.append(f'<details class="calc-arith"><summary>{_e(ui["Arithmetic"])}</summary><ul>')
    out += [f'<li>{_e(step)}</li>' for step in steps]
    out.append('</ul></details>')
    if offers:
        heads = offer_heads(result)
        shown = data["offers_shown"]
        out.append(_offers_table(offers[:shown], heads, ui, result["caption"], caption=True))
        if len(offers) > shown:
            more = ui["More configurations ({count})"].replace("{count}", str(len(offers) - shown))
            # The rest are drawn by the script when the reader opens this: at thousands of models, every
            # model page carrying a closed table of some forty configurations was a quarter of the site's bytes.
            out.append(f'<details class="calc-more"><summary>{_e(more)}</summary></details>')
    return ''.join(out)


SPEED_HEADS = {"one": "One sequence", "per_million_one": "Per million tokens, one sequence",
               "sequences": "Sequences at once", "full": "All sequences",
               "per_million": "Per million tokens, full batch", "first_token": "First token"}
"""A served offer's speed cells (answer.py ``SPEED_CELLS``) and their column heads, in order."""


def offer_heads(result: dict) -> list[str]:
    """The offers table's columns: what a reader rents on first (the configuration, its price, its headroom), so a
    phone shows them; then the weights per card, and a method's decode ceiling or a served offer's estimated
    speeds where an offer has them."""
    offers = result["offers"]
    heads = ["Configuration", "Price", "Headroom per card", "Per card"]
    if any(offer["ceiling"] for offer in offers):
        heads.append("Decode ceiling")
    if result.get("speeds", any(offer["one"] for offer in offers)):
        heads += SPEED_HEADS.values()
    return heads


def _offers_table(offers: list[dict], heads: list[str], ui: dict, name: str, caption: bool) -> str:
    """Offers as a table in a region of its own that scrolls sideways where the columns outgrow a phone, reachable
    by keyboard; ``caption``: the table names itself (the first), else the summary above it does."""
    out = [f'<div class="calc-offers" role="region" tabindex="0" aria-label="{_e(name)}"><table>']
    if caption:
        out.append(f'<caption>{_e(name)}</caption>')
    out.append('<thead><tr>')
    out += [f'<th scope="col">{_e(ui[head])}</th>' for head in heads]
    out.append('</tr></thead><tbody>')
    for offer in offers:
        cells = [f'<th scope="row">{_e(offer["config"])}</th>',
                 f'<td title="{_e(offer["price_explain"])}">{_e(offer["price"])}</td>',
                 f'<td title="{_e(offer["headroom_explain"])}">{_flagged(offer["headroom"], offer["tight"], ui)}</td>',
                 f'<td>{_e(offer["per_card"])}</td>']
        if "Decode ceiling" in heads:
            cells.append(f'<td title="{_e(offer["ceiling_explain"])}">{_e(offer["ceiling"])}</td>')
        if "One sequence" in heads:
            cells += [f'<td title="{_e(offer[key + "_explain"])}">{_e(offer[key])}</td>' for key in SPEED_HEADS]
        out.append('<tr>' + ''.join(cells) + '</tr>')
    out.append('</tbody></table></div>')
    return ''.join(out)


def _flagged(text: str, tight: bool, ui: dict) -> str:
    """``text`` escaped, with the tight flag after it where ``tight``, joined as the language joins them."""
    if not tight:
        return _e(text)
    flag = f'<span class="flag">{_e(ui["tight"])}</span>'
    return _e(ui["{figure} {flag}"]).replace("{flag}", flag).replace("{figure}", _e(text))


def _e(text: str) -> str:
    """HTML-escaped text: & < > " ' (calculator.js escapes the same five)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
            .replace("'", "&#39;"))
