"""The quick site's prose stays true when editors change its prices and cards.

Each seed perturbs a copy of sites/quick (prices dropped, changed or added,
cards removed or resized, a volume discount added), builds it in-process, and
checks every comparative or conditional sentence of the English twins against
the data, worked out here from the lookup answers, never from the page facts
that chose the sentence. A few claims are checked in the Chinese twins too.
"""

from __future__ import annotations

import random
import re
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
import yaml

from cli_support import copy_sources
from vramsite.calc import Guide
from vramsite.errors import InputError
from vramsite.facts import FACTS
from vramsite.load import load_site
from vramsite.publish.site import SiteBuild

QUICK = Path(__file__).resolve().parent.parent / "sites" / "quick"
KEPT = {"h100", "rtx-4090"}  # the cards the quick page's params name
SIZES = (4, 16, 24, 48, 80, 141, 288)
SEEDS = range(16)


# -- perturbing a copy -------------------------------------------------------------------


def _read(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _write(path: Path, value: dict) -> None:
    path.write_text(yaml.safe_dump(value, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _perturb(root: Path, rng: random.Random) -> None:
    data = root / "data"
    gpus, prices, discounts = _read(data / "gpus.yaml"), _read(data / "prices.yaml"), _read(data / "discounts.yaml")
    dropped = {gpu["id"] for gpu in gpus["gpus"] if gpu["id"] not in KEPT and rng.random() < 0.2}
    gpus["gpus"] = [gpu for gpu in gpus["gpus"] if gpu["id"] not in dropped]
    for gpu in gpus["gpus"]:
        if rng.random() < 0.3:
            gpu["memory_gb"] = rng.choice(SIZES)
    if rng.random() < 0.5:  # the card of the fine-tuning question: LoRA, QLoRA, both or neither fit
        next(gpu for gpu in gpus["gpus"] if gpu["id"] == "rtx-4090")["memory_gb"] = rng.choice((4, 16, 24, 48))
    prices["prices"] = [entry for entry in prices["prices"] if entry["gpu"] not in dropped]
    price_all = rng.random() < 0.25
    for entry in prices["prices"]:
        roll = rng.random()
        if roll < 0.25 and not price_all:
            entry["usd"] = None
        elif roll < 0.6 or (price_all and entry["usd"] is None):
            entry["usd"] = float(Decimal(rng.randint(10, 900)) / 100)
    if all(entry["usd"] is None for entry in prices["prices"]):
        prices["prices"][0]["usd"] = 1.0
    if rng.random() < 0.3:
        discounts["multi_card"] = [{"cards": 2, "percent": 5}, {"cards": 8, "percent": 10}]
    history = _read(data / "price_history.yaml")  # a card removed goes from every past list too
    for past in history["snapshots"]:
        past["prices"] = [entry for entry in past["prices"] if entry["gpu"] not in dropped]
    _write(data / "gpus.yaml", gpus)
    _write(data / "prices.yaml", prices)
    _write(data / "discounts.yaml", discounts)
    _write(data / "price_history.yaml", history)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda seed: f"seed{seed}")
def built(request, tmp_path_factory):
    root = copy_sources(tmp_path_factory.mktemp(f"quick{request.param}"), QUICK)
    _perturb(root, random.Random(request.param))
    files = SiteBuild(root).render()
    return Guide(load_site(root)), {path: content.decode() for path, content in files.items()
                                    if path.endswith(".html.md")}


# -- reading the twins ---------------------------------------------------------------------


def _section(text: str, heading_start: str) -> str:
    """The text under the heading that starts with ``heading_start``, up to the next heading."""
    match = re.search(rf"^#+ {re.escape(heading_start)}.*?$(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert match, f"no heading {heading_start!r}"
    return match.group(1).strip()


def _usd(value: Decimal) -> str:
    return f"${value.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,}"


def _clauses(paragraph: str) -> list[str]:
    """'16-bit: …; 8-bit: …; 4-bit: ….' -> one clause per method."""
    return [clause.strip() for clause in re.sub(r"^(Yes|No)\. ", "", paragraph).rstrip(".").split("; ")]


# -- the quick VRAM page -------------------------------------------------------------------


def test_single_gpu_answer(built):
    guide, twins = built
    answer = _section(twins["en/vram.html.md"], "Can a 70B")
    cells = [guide.cell("70B", method) for method in ("infer-16", "infer-8", "infer-4")]
    on_one = [cell.choice is not None and cell.choice.count == 1 for cell in cells]
    assert answer.startswith("Yes. ") == all(on_one)
    assert answer.startswith("No. ") == (not any(on_one))
    zh = _section(twins["zh-cn/vram.html.md"], "70B 模型能只用")
    assert zh.startswith("能。") == all(on_one)
    for clause, cell in zip(_clauses(answer), cells):
        if cell.choice is None:
            assert clause.endswith("which takes more than one machine")
        elif cell.choice.count == 1:
            assert "which one " in clause and clause.endswith(" holds")
            assert all(gpu.name in clause for gpu in cell.same_class)
        else:
            assert clause.endswith(f"which takes {cell.choice.count} × {cell.choice.gpu.name}")


def test_adapter_answer(built):
    guide, twins = built
    answer = _section(twins["en/vram.html.md"], "Can I fine-tune")
    card = guide.data.gpu("rtx-4090")
    lora, qlora = (guide.model("8B").need(method).total.value for method in ("lora", "qlora"))
    lora_fits, qlora_fits = lora <= card.memory_gb, qlora <= card.memory_gb
    assert answer.startswith("Yes. ") == (lora_fits and qlora_fits)
    assert answer.startswith("No. ") == (not lora_fits and not qlora_fits)
    assert answer.startswith("With QLoRA, yes") == (qlora_fits and not lora_fits)
    assert answer.startswith("With LoRA, yes") == (lora_fits and not qlora_fits)
    zh = _section(twins["zh-cn/vram.html.md"], "能在 RTX 4090")
    assert zh.startswith("能。") == (lora_fits and qlora_fits)
    full = guide.cell("8B", "full")
    if full.need.value <= card.memory_gb:
        assert "fits as well" in answer
    elif full.choice is None:
        assert answer.endswith("which takes more than one machine.")
    elif full.choice.count == 1:
        assert answer.endswith(f"which calls for one {full.choice.gpu.name}.")
    else:
        assert answer.endswith(f"which calls for {full.choice.count} × {full.choice.gpu.name}.")


def test_quoted_prices(built):
    guide, twins = built
    answer = _section(twins["en/vram.html.md"], "What does renting")
    for gpu_id in ("h100", "rtx-4090"):
        view = guide.gpu(gpu_id)
        quoted = re.search(rf"the {re.escape(view.name)}(?: started)? at (\$\d[\d,]*\.\d\d)", answer)
        if view.price is None:
            assert quoted is None
        else:
            assert quoted and quoted.group(1) == _usd(view.price.value)


def test_unpriced_cards_are_named_where_there_are_any(built):
    guide, twins = built
    unpriced = [gpu.name for gpu in guide.data.gpus if guide.data.pricing.usd.get(gpu.id) is None]
    rules = _section(twins["en/vram.html.md"], "How the numbers")
    listed = re.search(r"cards without a published price \(([^)]*)\)", rules)
    assert bool(listed) == bool(unpriced)
    if unpriced:
        named = re.split(r", and |, | and ", listed.group(1))
        assert sorted(named) == sorted(unpriced)
    catalogue = twins["en/gpus.html.md"]
    assert ("is offered, but no price of it is published" in catalogue) == bool(unpriced)


def test_far_more_for_fine_tuning(built):
    guide, twins = built
    full, serving = (guide.model("70B").need(method).total.value for method in ("full", "infer-16"))
    intro = twins["en/vram.html.md"].split("\n## ", 1)[0]
    assert ("Fine-tuning takes far more" in intro) == (full >= 2 * serving)


# -- the card pages ------------------------------------------------------------------------


def _card_twin(twins: dict, gpu_id: str) -> str:
    return twins[f"en/gpus/{gpu_id}.html.md"]


def test_card_price_and_discount_sentences(built):
    guide, twins = built
    no_discount = all(discount.percent == 0 for discount in guide.data.discounts)
    named_anywhere = {gpu.id for _, _, cell in guide.grid_cells() for gpu in cell.same_class}
    for view in guide.gpus:
        text = _card_twin(twins, view.id)
        title = text.split("\n", 1)[0]
        if view.price is not None:
            assert title.endswith(f", from {_usd(view.price.value)} per GPU-hour")
            assert ("with no volume discount" in text) == no_discount
            assert ("earns a volume discount" in text) == (not no_discount)
        else:
            assert "per GPU-hour" not in title
            assert ("names it among the cards of its memory size" in text) == (view.id in named_anywhere)


def test_card_wins_list(built):
    guide, twins = built
    for view in guide.gpus:
        text = _card_twin(twins, view.id)
        won = view.cells_won()
        if not won:
            assert "Where the quick table chooses it" not in text
            continue
        bullets = [line for line in _section(text, "Where the quick table").split("\n") if line.startswith("- ")]
        assert len(bullets) == len(won)
        for bullet, (model, _, cell) in zip(bullets, won):
            assert bullet.startswith(f"- {model.name}, ")
            price = _usd(cell.choice.price.value)
            if cell.choice.count == 1:
                assert bullet.endswith(f"on one card, from {price} per GPU-hour.")
            else:
                assert bullet.endswith(f"on {cell.choice.count} cards, from {price} an hour for all of them.")


def test_perturbations_reach_both_sides_of_the_claims():
    """The seeds flip the claims: each condition is seen true and false across them."""
    seen: dict[str, set] = {}
    for seed in SEEDS:
        for key, value in _outcomes(seed).items():
            seen.setdefault(key, set()).add(value)
    assert all(values == {True, False} for values in seen.values()), seen


def _outcomes(seed: int) -> dict[str, bool]:
    with tempfile.TemporaryDirectory() as folder:
        root = copy_sources(Path(folder), QUICK)
        _perturb(root, random.Random(seed))
        guide = Guide(load_site(root))
    cells = [guide.cell("70B", method) for method in ("infer-16", "infer-8", "infer-4")]
    card = guide.data.gpu("rtx-4090")
    return {
        "all 70B serving on one card": all(c.choice is not None and c.choice.count == 1 for c in cells),
        "LoRA fits the 4090": guide.model("8B").need("lora").total.value <= card.memory_gb,
        "QLoRA fits the 4090": guide.model("8B").need("qlora").total.value <= card.memory_gb,
        "some card unpriced": any(value is None for value in guide.data.pricing.usd.values()),
        "no volume discount": all(d.percent == 0 for d in guide.data.discounts),
    }


def test_quick_facts_name_a_missing_param():
    guide = Guide(load_site(QUICK))
    with pytest.raises(InputError) as caught:
        FACTS["quick"](guide, {"reference_model": "70B", "quoted_cards": ["h100"], "qlora_method": "qlora",
                               "lora_method": "lora", "full_method": "full",
                               "serving_methods": ["infer-16", "infer-8", "infer-4"]})
    assert str(caught.value).startswith("content/pages.yaml: params: missing 'adapter_model'")


@pytest.mark.parametrize("field, known, unknown, kind", [
    ("adapter_card", "rtx-4090", "rtx-4091", "card"),
    ("lora_method", "lora", "dora", "method"),
])
def test_an_unknown_id_in_the_params_is_refused_at_its_line(tmp_path, field, known, unknown, kind):
    root = copy_sources(tmp_path / "quick", QUICK)
    pages = root / "content" / "pages.yaml"
    text = pages.read_text(encoding="utf-8")
    given = f"\n      {field}: {known}\n"
    pages.write_text(text.replace(given, f"\n      {field}: {unknown}\n"), encoding="utf-8")
    line = text[: text.index(given)].count("\n") + 2
    with pytest.raises(InputError) as caught:
        SiteBuild(root).render()
    assert f"content/pages.yaml:{line}: pages[vram].params.{field}: unknown {kind} '{unknown}'" in str(caught.value)
