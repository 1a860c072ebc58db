"""`build.py plan`: its arguments, and the answer printed as lines or as JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from ..errors import InputError, Problem
from ..units import GIB_DECIMALS

SPEED_DECIMALS = {"decode_tokens_per_s": 1, "ttft_s": 3, "usd_per_million_tokens": 4}
"""The speed fields (docs/editing.md, "Plan one model on one card"), each rounded half up to so many decimals;
null where the engine does not hold the sequences, the card is given by its memory alone, or the site states no
speeds."""


def add_plan_command(commands, site_option: Callable, debug_option: Callable) -> argparse.ArgumentParser:
    plan = commands.add_parser(
        "plan", help="whether a serving engine starts one model on a card (or cards), and the KV room it leaves",
        description="Answer for one catalogue model on one card or a set of cards split by tensor: the weights each "
                    "card holds in the chosen format (16-bit parts and scales included), the KV cache budget the "
                    "engine leaves per card, the tokens it holds, whether the engine starts with the asked context "
                    "and holds the asked sequences, and the headroom. Reads the site's data; builds nothing. "
                    "Editing guide: docs/editing.md, \"Plan one model on one card\".")
    plan.add_argument("model", metavar="MODEL", help="an id of the site's data/catalogue.yaml")
    card = plan.add_mutually_exclusive_group(required=True)
    card.add_argument("--gpu", metavar="ID", help="the card: an id of data/gpus.yaml (its reported memory and features)")
    card.add_argument("--memory-gib", type=_positive_decimal, metavar="X",
                      help="a card of X GiB as the driver reports it, instead of --gpu (no feature check: formats "
                           "needing one, and kernels chosen by one, are taken as stored)")
    plan.add_argument("--gpus", type=_positive_int, default=1, metavar="N",
                      help="cards splitting the model by tensor (default: 1)")
    plan.add_argument("--weights", default="native", metavar="FORMAT",
                      help="an id of a format of data/weight_formats.yaml, or native: the format the checkpoint ships "
                           "in (the default)")
    plan.add_argument("--kv-cache", metavar="FORMAT",
                      help="a KV cache format of data/engines.yaml the engine stores (default: the engine's own, the "
                           "first it lists)")
    plan.add_argument("--engine", metavar="ENGINE",
                      help="an id of an engine of data/engines.yaml (default: the format's, as the pages name it: "
                           "default_engine where it loads the format)")
    plan.add_argument("--gpu-memory-utilization", type=_positive_decimal, metavar="U",
                      help="the engine's gpu_memory_utilization setting: its share of the card's memory (default: "
                           "its default in data/engines.yaml)")
    plan.add_argument("--context", type=_positive_int, metavar="N",
                      help="the longest sequence, in tokens (default: data/sizing.yaml's context_tokens)")
    plan.add_argument("--sequences", type=_positive_int, default=1, metavar="B",
                      help="sequences held at once at that context (default: 1)")
    plan.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    site_option(plan)
    debug_option(plan, default=argparse.SUPPRESS)
    plan.set_defaults(run=run_plan)
    return plan


def run_plan(args) -> int:
    from ..errors import UnknownId
    from ..load import load_site
    from .answer import PlanRequest, plan

    data = load_site(args.site)
    _needs_plan_data(data)
    context = args.context or data.inference.context_tokens
    if context is None:
        raise InputError([Problem("--context", None, "", "give the context: the site's sizing sets no default")])
    settings = (("gpu_memory_utilization", args.gpu_memory_utilization),) if args.gpu_memory_utilization else ()
    request = PlanRequest(model=args.model, gpu=args.gpu, memory_gib=args.memory_gib, cards=args.gpus,
                          weights=args.weights, kv_cache=args.kv_cache, engine=args.engine, context=context,
                          sequences=args.sequences, settings=settings)
    try:
        answer = plan(data, request)
    except UnknownId as error:
        raise InputError([Problem(_option_of(error), None, "", str(error))]) from None
    print(json.dumps(as_json(answer), ensure_ascii=False) if args.json else "\n".join(as_lines(answer)))
    return 0


def as_json(answer) -> dict:
    """The answer as plain JSON values, GiB rounded half up to ``GIB_DECIMALS`` (render/numbers.py's rule)."""
    from ..render.numbers import quantize

    def gib(figure):
        return None if figure is None else float(quantize(figure.value, GIB_DECIMALS))

    request = answer.request
    fields = {
        "model": answer.model, "card": answer.card, "gpus": request.cards, "weights": answer.weights,
        "kv_cache": answer.kv_cache, "engine": answer.engine, "context": answer.context,
        "sequences": request.sequences, "settings": {name: _plain_number(value) for name, value in answer.settings},
        "weights_gib": gib(answer.weights_gib), "kv_cache_gib": gib(answer.kv_cache_gib),
        "kv_tokens": None if answer.kv_tokens is None else int(answer.kv_tokens.value),
        "starts": answer.starts, "fits": answer.fits, "headroom_gib": gib(answer.headroom_gib),
        "reason": answer.reason,
    }
    speed = answer.speed
    for name, decimals in SPEED_DECIMALS.items():
        figure = getattr(speed, name) if speed else None
        fields[name] = None if figure is None else float(quantize(figure.value, decimals))
    return fields


def as_lines(answer) -> list[str]:
    plain = as_json(answer)
    verdict = "fits" if answer.fits else ("starts, but does not hold the sequences" if answer.starts
                                          else "does not start")
    lines = [f"{plain['model']} on {plain['gpus']} × {plain['card']}, {plain['weights']} weights, "
             f"{plain['kv_cache']} KV cache, {plain['engine']}, {plain['context']:,} tokens × "
             f"{plain['sequences']} {'sequence' if plain['sequences'] == 1 else 'sequences'}: {verdict}",
             f"  weights per card   {plain['weights_gib']} GiB"]
    if plain["kv_cache_gib"] is not None:
        lines += [f"  KV cache per card  {plain['kv_cache_gib']} GiB ({plain['kv_tokens']:,} tokens)",
                  f"  headroom per card  {plain['headroom_gib']} GiB"]
    if plain["decode_tokens_per_s"] is not None:
        lines += [f"  decode, all sequences  {plain['decode_tokens_per_s']:,} tokens/s (estimated)",
                  f"  first token        {plain['ttft_s']} s for a prompt of {plain['context']:,} tokens"]
    if plain["usd_per_million_tokens"] is not None:
        lines.append(f"  per million tokens  ${plain['usd_per_million_tokens']}")
    if answer.reason:
        lines.append(f"  {answer.reason}")
    return lines


def _plain_number(value: Decimal) -> int | float:
    """A setting as JSON writes it: a whole number as an integer (8192, not 8192.0), else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


def _needs_plan_data(data) -> None:
    missing = [name for name, present in (("data/engines.yaml", data.engines is not None),
                                          ("data/weight_formats.yaml", bool(data.weight_formats))) if not present]
    if missing:
        raise InputError([Problem(name, None, "", "plan needs this file: the site has none") for name in missing])


def _option_of(error) -> str:
    """The option an unknown id came from, for the message's first word."""
    what = error.what
    for option, words in (("--gpu", "GPU"), ("--weights", "weight format"), ("--kv-cache", "KV cache format"),
                          ("--engine", "engine"), ("MODEL", "catalogue model")):
        if what.startswith(words):
            return option
    return "plan"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= 10_000_000:
        raise argparse.ArgumentTypeError(f"must be from 1 to 10,000,000, got {value}")
    return value


def _positive_decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value.is_finite() or not 0 < value <= 100_000:
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most 100,000, got {text}")
    return value
