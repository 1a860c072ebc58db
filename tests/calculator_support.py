"""What the calculator tests share: each site's calculator data, the cases every published table cell
stands for, random cases, and Node running templates/static/calculator.js.

A table cell the calculator also shows becomes an ``Expectation``: the calculator's case for that cell,
where in the answer the figure is, and the cell's text as the page prints it. Tables whose figures the
calculator does not show (card facts, prices per GPU-hour, longest contexts, concurrent sequences, cost
per million tokens) give none.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from functools import cached_property
from pathlib import Path

from live_sites import live_build
from vramsite.calc import attention
from vramsite.calc.offers import market_offers
from vramsite.load.model import MethodKind
from vramsite.render.calculator import (CUSTOM, INFERENCE, Case, Custom, answer, answer_html, calculator_data,
                                       model_file, model_files)
from vramsite.render.inline import InlineRenderer

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "templates" / "static" / "calculator.js"
SITES = {"default": ROOT, "quick": ROOT / "sites" / "quick"}
NODE = shutil.which("node")


@dataclass(frozen=True)
class Expectation:
    where: str
    """The table, row and column the cell is in."""
    case: Case
    path: tuple
    """Where the figure is in the answer: ("line", label) / ("per_token",) / ("offer", key, field) / ("choice", field)."""
    text: str


def state_of(case: Case) -> dict:
    """The case as the script's state (what the form holds once checked)."""
    state = {"model": case.model, "method": case.method, "precision": case.precision,
             "kv_precision": case.kv_precision, "context": case.context, "batch": case.batch,
             "format": case.weight_format, "engine": case.engine, "card": case.card}
    if case.custom is not None:
        state.update({key: (format(value, "f") if isinstance(value, Decimal) else value)
                      for key, value in asdict(case.custom).items()})
        state["params"] = format(case.custom.params_billion, "f")
    return state


def pick(result: dict, path: tuple) -> str | None:
    """The text at ``path`` in an answer (None where the answer has no such figure)."""
    kind = path[0]
    if kind == "line":
        return next((line["value"] for line in result["lines"] if line["label"] == path[1]), None)
    if kind == "per_token":
        return result["per_token"]["value"] if result["per_token"] else None
    if kind == "offer":
        return next((offer[path[2]] for offer in result["offers"] if offer["key"] == path[1]), None)
    return result["choice"].get(path[1])


class SiteCalculator:
    """One site's build, with what the calculator tests ask of it."""

    def __init__(self, name: str):
        self.name = name
        self.build, _files = live_build(name)  # rendered: every table the site publishes, counted as shown
        self.guide = self.build.guide

    def locales(self):
        return self.build.data.site.locales

    def fmt(self, locale):
        return self.build.formatter(locale)

    def catalog(self, locale):
        return self.build.catalogs[locale.segment]

    def data(self, locale, model: str | None = None) -> dict:
        """The page's data, with every real model's file the script fetches (data/calculator/<model>.json) in hand."""
        return {**calculator_data(self.guide, self.fmt(locale), self.catalog(locale), model),
                "model_files": self.model_files}

    @cached_property
    def model_files(self) -> dict:
        return {model: json.loads(model_file(found)) for model, found in model_files(self.guide).items()}

    def answer(self, locale, case: Case) -> dict:
        return answer(self.guide, self.fmt(locale), self.catalog(locale), case)

    def html(self, locale, case: Case, data: dict) -> str:
        return answer_html(self.answer(locale, case), data)

    # -- cases ---------------------------------------------------------------

    @cached_property
    def defaults(self) -> dict:
        return self.data(self.locales()[0])["defaults"]

    def case(self, model: str, method, context: int | None = None, batch: int | None = None,
             kv_precision: str | None = None) -> Case:
        """The case of a table cell: a method of the data (inference by its precision) at the defaults."""
        d = self.defaults
        if method.kind == MethodKind.INFERENCE:
            method_id, precision = INFERENCE, method.precision.id
        else:
            method_id, precision = method.id, d["precision"]
        return Case(model, method_id, precision, kv_precision or d["kv_precision"], context or d["context"],
                    batch or d["batch"])

    def random_cases(self, count: int, seed: int) -> list[Case]:
        rng = random.Random(seed)
        data = self.build.data
        models = [m.id for m in (*data.models, *data.catalogue)]
        methods = [INFERENCE] + [m.id for m in data.methods if m.kind != MethodKind.INFERENCE]
        kv = [p["id"] for p in self.data(self.locales()[0])["kv_precisions"]] or [None]
        counts_kv = bool(kv[0])
        formats = [None, *(item.id for item in data.weight_formats)]  # one a model does not offer falls back
        engines = [None, *(engine.id for engine in data.engines.engines)] if data.engines else [None]
        priced = [card["id"] for card in self.data(self.locales()[0])["cards"]]
        cards = [None] * len(priced) + priced  # half the cases keep to one card, as a GPU page's calculator does
        cases = []
        for _ in range(count):
            model = rng.choice(models + [CUSTOM])
            custom = None
            if model == CUSTOM:
                params = Decimal(rng.randint(1, 2_000_000)) / Decimal(10) ** rng.randint(0, 4)
                custom = Custom(params, *((rng.randint(1, 160), rng.choice([1, 2, 4, 8, 16, 64]),
                                           rng.choice([64, 80, 96, 128, 256])) if counts_kv else ()))
            limit = next((m.max_context for m in data.catalogue if m.id == model), 1_000_000)
            context = rng.choice([1, 512, 4096, 8192, 32768, 131072, rng.randint(1, limit)]) if counts_kv else None
            context = min(context, limit) if context else None
            batch = rng.choice([1, 2, 3, 8, 32, rng.randint(1, 512)]) if counts_kv else None
            cases.append(Case(model, rng.choice(methods), rng.choice([p.id for p in data.precisions]),
                              rng.choice(kv), context, batch, custom, rng.choice(formats), rng.choice(engines),
                              rng.choice(cards)))
        return cases

    # -- the tables ----------------------------------------------------------

    def rents_alone(self, card: str, method) -> bool:
        """Whether one card is an offer the calculator lists: priced, rented singly, with the method's hardware."""
        return any(offer.gpu.id == card and offer.count == 1 and offer.allows(method)
                   for offer in market_offers(self.guide.market))

    def expectations(self, locale) -> list[Expectation]:
        """Every cell of every published table that the calculator shows too, with its text on the page."""
        fmt, found = self.fmt(locale), []
        text = InlineRenderer.plain(fmt).render
        models = {m.id for m in (*self.build.data.models, *self.build.data.catalogue)}
        for table in self.build.tables.shown():
            for row in table.rows:
                for column, cell in zip(table.columns, row.cells):
                    where = f"{table.id} / {row.key} / {column.key}"
                    for case, path, shown in self._cell(table.id, row.key, column.key, cell, models, fmt, text):
                        found.append(Expectation(where, case, path, shown))
        return found

    def _cell(self, table: str, row: str, column: str, cell, models, fmt, text):
        guide, data = self.guide, self.build.data
        label = fmt.gettext
        if cell.lookup is not None:
            found = cell.lookup
            model = row if row in models else table.removeprefix("model-methods-")
            case = self.case(model, found.method)
            if found.choice:
                yield case, ("choice", "config"), _config_text(text(cell.answer[0]))
                yield case, ("choice", "price"), fmt.figure(found.choice.price, period=True)
            else:
                yield case, ("choice", "nodes"), fmt.figure(found.nodes) if found.nodes is not None else "—"
            return
        if table.startswith("model-serving-") and column in ("configuration", "price"):
            if "no" in cell.flags or cell.value is None and column == "price":
                return  # a format no configuration starts: the row says so, in words the calculator does not use
            model = table.removeprefix("model-serving-")
            case = replace(self.case(model, guide.default_inference()), weight_format=row)
            if column == "configuration":
                yield case, ("choice", "config"), text(cell.content)
            else:
                yield case, ("choice", "price"), fmt.figure(cell.value, period=True)
            return
        if cell.value is None:
            return
        shown = text(cell.content)
        if table == "precisions" and column in models:
            yield self.case(column, guide.inference_method(row)), ("line", label("weights")), shown
        elif table == "inference":
            if column == "kv_cache":
                yield self.case(row, guide.default_inference()), ("line", label("KV cache")), shown
            else:
                yield self.case(row, guide.method(column)), ("line", label("total")), shown
        elif table == "context":
            case = self.case(row, guide.default_inference(), context=_tokens(column))
            path = ("per_token",) if column == "kv_per_token" else ("line", label("KV cache"))
            yield case, path, shown
        elif table == "finetune":
            yield self.case(row, guide.method(column)), ("line", label("total")), shown
        elif table.startswith("fits-"):
            card, case = table.removeprefix("fits-"), self.case(row, guide.method(column))
            yield case, ("line", label("total")), shown
            if "fits" in cell.flags and self.rents_alone(card, guide.method(column)):
                yield case, ("offer", f"1x-{card}", "per_card"), shown
                yield case, ("offer", f"1x-{card}", "headroom"), fmt.figure(dict(cell.sub.args)["left"].figure)
        elif table.startswith("ceilings-") and self.rents_alone(table.removeprefix("ceilings-"), guide.method(column)):
            yield self.case(row, guide.method(column)), ("offer", f"1x-{table.removeprefix('ceilings-')}", "ceiling"), shown
        elif table == "models" and column == "kv_per_token":
            yield self.case(row, guide.default_inference()), ("per_token",), shown
        elif table.startswith("model-kv-"):
            model = table.removeprefix("model-kv-")
            if column == "per_token_bytes":
                yield self.case(model, guide.default_inference(), kv_precision=row), ("per_token",), shown
            elif not _keeps_state(data.catalogue_model(model)):  # the table's cache leaves out the state
                case = self.case(model, guide.default_inference(), context=_tokens(column), batch=1, kv_precision=row)
                yield case, ("line", label("KV cache and state")), shown
        elif table.startswith("model-methods-") and column == "need_gb":
            yield self.case(table.removeprefix("model-methods-"), guide.method(row)), ("line", label("total")), shown


def _tokens(column: str) -> int | None:
    return int(column.removeprefix("kv_")) if column.startswith("kv_") and column[3:].isdigit() else None


def _keeps_state(model) -> bool:
    return attention.state_per_sequence(attention.model_layers(model)).value != 0


def _config_text(label: str) -> str:
    return re.sub(r"\s+", " ", label).strip()


def run_node(data: dict, states: list[dict], what: str = "answer") -> list:
    """calculator.js's ``what`` (answer, answerHtml of the answer, check) for each state, run in Node."""
    program = """
const calc = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.states.map(s => {
  if (input.what === "check") return calc.check(input.data, s);
  const found = calc.answer(input.data, s);
  return input.what === "html" ? calc.answerHtml(found, input.data) : found;
});
process.stdout.write(JSON.stringify(out));
"""
    done = subprocess.run([NODE, "-e", program, str(SCRIPT)], input=json.dumps({"data": data, "states": states,
                          "what": what}), capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"calculator.js failed in Node:\n{done.stderr}")
    return json.loads(done.stdout)
