"""Random data edits cannot make the guide's prose false.

Each case perturbs a copy of the data with a seeded generator (prices, cards
added and removed, model shapes, discounts), renders the VRAM guide, and
checks every claim sentence that was rendered against figures recomputed here
from the data: not against the page facts that chose the sentence.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal

import pytest
import yaml

import data_edits as edits
from vramsite.calc import Guide
from vramsite.load import load_site

SEEDS = range(10)
LINK = r"\[(?P<{0}>[^\]]+)\]\([^)]*\)"
"""A card's name as the twin links it: [A40](gpus/a40.html.md)."""


# -- perturbing the data -----------------------------------------------------------


def protected_cards(site) -> set[str]:
    """Cards the page params name: an editor who removes one must edit pages.yaml too."""
    pages = yaml.safe_load((site / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]
    named = set()
    for page in pages:
        params = page.get("params", {})
        named |= {params[key] for key in ("reference_card", "production_card") if key in params}
        named |= {card for card, _ in params.get("comparison", ())}
        if "example" in params:
            named.add(params["example"][0])
    return named


def perturb(site, rng: random.Random) -> None:
    keep = protected_cards(site)
    prices = edits.read(site, "prices")
    for entry in prices["prices"]:
        entry["usd"] = max(20, int(entry["usd"] * rng.uniform(0.4, 1.8)))
    edits.write(site, "prices", prices)
    removable = sorted(gpu["id"] for gpu in edits.read(site, "gpus")["gpus"] if gpu["id"] not in keep)
    for card_id in rng.sample(removable, rng.randint(0, 4)):
        edits.remove_card(site, card_id)
    templates = [gpu["id"] for gpu in edits.read(site, "gpus")["gpus"] if not gpu.get("rentable_counts")]
    for number in range(rng.randint(0, 3)):
        edits.add_card(site, rng.choice(templates), f"new-{number}", rng.randint(60, 4000),
                       memory_gb=rng.choice([16, 24, 32, 48, 64, 80, 96, 128, 141, 192, 256]),
                       bandwidth_gbps=rng.randint(200, 9000), launched=rng.randint(2017, 2026),
                       features=rng.choice([[], ["fp8"]]))
    models = edits.read(site, "models")
    for model in models["models"]:
        model["layers"] = max(8, int(model["layers"] * rng.uniform(0.7, 1.3)))
        divisors = [n for n in range(1, model["attention_heads"] + 1) if model["attention_heads"] % n == 0]
        model["kv_heads"] = rng.choice(divisors)
        model["attention"] = "mha" if model["kv_heads"] == model["attention_heads"] else "gqa"
    edits.write(site, "models", models)
    discounts = edits.read(site, "discounts")
    percents = sorted(rng.randint(0, 30) for _ in discounts["multi_card"])
    for discount, percent in zip(discounts["multi_card"], percents):
        discount["percent"] = percent
    edits.write(site, "discounts", discounts)


# -- reading the data directly -------------------------------------------------------


class Data:
    """The raw YAML of a site, and the figures the checks recompute from it."""

    def __init__(self, site):
        self.site = site
        self.gpus = {gpu["id"]: gpu for gpu in edits.read(site, "gpus")["gpus"]}
        self.usd = {entry["gpu"]: Decimal(str(entry["usd"])) for entry in edits.read(site, "prices")["prices"]}
        self.models = {model["id"]: model for model in edits.read(site, "models")["models"]}
        self.sizing = edits.read(site, "sizing")
        self.by_name = {gpu["name"]: gpu for gpu in self.gpus.values()}

    def usd_per_gb(self, card_id) -> Decimal:
        return self.usd[card_id] / Decimal(self.gpus[card_id]["memory_gb"])

    def gbps_per_usd(self, card_id) -> Decimal:
        return Decimal(self.gpus[card_id]["bandwidth_gbps"]) / self.usd[card_id]

    def slower_than_most(self, card_id) -> bool:
        bandwidth = self.gpus[card_id]["bandwidth_gbps"]
        others = [gpu["bandwidth_gbps"] for gpu in self.gpus.values() if gpu["id"] != card_id]
        return sum(other > bandwidth for other in others) * 2 > len(others)

    def inference_need(self, model_id: str, bytes_per_param, context: int) -> Decimal:
        """(weights + KV cache) × (1 + margin) + overhead, in GB, at a batch of 1."""
        model, inference = self.models[model_id], self.sizing["inference"]
        kv_bytes = next(p["bytes_per_param"] for p in self.sizing["precisions"] if p["id"] == inference["kv_precision"])
        weights = Decimal(str(model["params_billion"])) * Decimal(str(bytes_per_param))
        kv = (2 * model["layers"] * model["kv_heads"] * model["head_dim"] * Decimal(str(kv_bytes)) * context
              * inference["batch"] / Decimal(10) ** 9)
        margin = 1 + Decimal(str(inference["margin_percent"])) / 100
        return (weights + kv) * margin + Decimal(str(inference["overhead_gb"]))


def bandwidth(text: str) -> tuple[Decimal, Decimal]:
    """A printed bandwidth in GB/s, and how far rounding may have moved it."""
    number, unit = re.fullmatch(r"([\d.,]+) (GB/s|TB/s)", text).groups()
    value = Decimal(number.replace(",", ""))
    return (value * 1000, Decimal(50)) if unit == "TB/s" else (value, Decimal("0.5"))


def close(printed: str, exact, unit: str = "GB/s") -> bool:
    value, slack = bandwidth(printed) if unit == "GB/s" else (Decimal(printed.replace(",", "")), Decimal("0.5"))
    return abs(value - Decimal(str(exact))) <= slack


def names(listed: str) -> set[str]:
    return set(re.split(r",? and |, ", listed))


# -- the claims ---------------------------------------------------------------------


def check_long_context_fit(text: str, zh: str, data: Data, guide: Guide, params: dict) -> None:
    found = re.search(r"The (?P<model>\S+) at FP8 fits one (?P<memory>\d+) GB card at \S+ with .*? Push it to \S+ and "
                      r"the cache alone is [\d.,]+ GB, for a total of (?P<need>[\d.,]+) GB: "
                      r"(?P<branch>it still fits|it no longer fits)", text)
    answer = guide.cell(params["reference_model"], "infer-fp8")
    if not (answer.choice and answer.choice.count == 1):
        assert "fits one" not in text.split("**Where it breaks.**")[-1][:200]
        return
    assert found, "the long-context sentence is missing"
    memory = Decimal(found["memory"])
    assert memory == answer.choice.gpu.memory_gb
    assert data.inference_need(params["reference_model"], 1, data.sizing["inference"]["context_tokens"]) <= memory
    need = data.inference_need(params["reference_model"], 1, params["long_contexts"][0])
    assert abs(Decimal(found["need"].replace(",", "")) - need) <= Decimal("0.5")
    assert (found["branch"] == "it still fits") == (need <= memory)
    assert ("仍然装得下" in zh) == (need <= memory) and ("装不下了" in zh) == (need > memory)
    if need > memory and "exist as products" in text:
        listed = re.search(r"That is why (.*?) exist as products", text)[1]
        for name in re.findall(LINK.format("name"), listed):
            assert Decimal(data.by_name[name]["memory_gb"]) >= need


def check_card_counts(text: str, data: Data, guide: Guide, params: dict) -> None:
    opening = next(paragraph for paragraph in text.split("\n\n") if "rents a dedicated card for each" in paragraph)
    for precision in ("INT4", "FP8", "BF16"):
        answer = guide.cell(params["reference_model"], f"infer-{precision.lower()}")
        said = re.search(rf"{precision} on (?:(?P<one>one)|(?P<count>\d+)×) (?P<memory>\d+) GB {LINK.format('name')}",
                         opening)
        if answer.choice is None:
            assert f"{precision} on no configuration we rent" in opening
            continue
        assert said, f"{precision}: no card in the opening"
        assert (said["one"] is not None) == (answer.choice.count == 1)
        if said["count"]:
            assert int(said["count"]) == answer.choice.count
        assert said["name"] == answer.choice.gpu.name
        assert Decimal(said["memory"]) == Decimal(data.by_name[said["name"]]["memory_gb"])
    tldr = re.search(rf"\*\*A \S+ (?:on one card|on (?P<count>\d+) cards) at BF16:\*\* {LINK.format('name')}", text)
    answer = guide.cell(params["reference_model"], "infer-bf16")
    if answer.choice:
        assert tldr and tldr["name"] == answer.choice.gpu.name
        assert (tldr["count"] is None) == (answer.choice.count == 1)


def check_cheapest_per_gb(text: str, data: Data) -> None:
    cheapest = min(data.usd, key=lambda card: (data.usd_per_gb(card), card))
    card = data.gpus[cheapest]
    said = re.search(rf"The {LINK.format('name')} holds a GB for \$[\d.,]+ a month(?P<rest>[^.]*(?:\.\d+[^.]*)*)\.",
                     text)
    assert said and said["name"] == card["name"]
    rest = said["rest"]
    year = re.search(r"a card from (\d{4})", rest)
    if year:
        assert int(year[1]) == card["launched"]
        assert card["launched"] < max(gpu.get("launched", 0) for gpu in data.gpus.values())
    speed = re.search(r"(only )?([\d.,]+ [GT]B/s) (?:is )?behind it", rest)
    if speed:
        assert close(speed[2], card["bandwidth_gbps"])
        assert bool(speed[1]) == data.slower_than_most(cheapest)
    same = re.search(rf"of what the {LINK.format('other')} charges for the same ([\d.,]+) GB", rest)
    if same:
        other = data.by_name[same["other"]]
        assert other["memory_gb"] == card["memory_gb"] and other["id"] != cheapest
        assert data.usd_per_gb(other["id"]) == max(data.usd_per_gb(g) for g in data.usd
                                                   if data.gpus[g]["memory_gb"] == card["memory_gb"] and g != cheapest)
    stats_line = re.search(r"the cheapest VRAM we rent, per GB per month \(([^)]+)\)", text)
    assert stats_line and stats_line[1] == card["name"]


def check_bandwidth_leader(text: str, data: Data) -> None:
    per_gb = min(data.usd, key=lambda card: (data.usd_per_gb(card), card))
    leader = min(data.usd, key=lambda card: (-data.gbps_per_usd(card), card))
    different = "Different cards lead the price-per-GB and the bandwidth-per-dollar columns" in text
    assert different == (per_gb != leader)
    if not different:
        assert "One card leads both" in text
        return
    said = re.search(rf"The {LINK.format('name')} delivers [\d.,]+ GB/s per dollar.*?, because (?P<why>.*?)\.(?: |$)",
                     text, re.MULTILINE)
    assert said and said["name"] == data.gpus[leader]["name"]
    year = re.search(r"a card from (\d{4}) with ([\d.,]+ [GT]B/s)", said["why"])
    if year:
        assert int(year[1]) == data.gpus[leader]["launched"]
        assert close(year[2], data.gpus[leader]["bandwidth_gbps"])


def check_tight_and_roomy(text: str, data: Data, guide: Guide) -> None:
    said = re.search(rf"leaves [\d.,]+ GB on the {LINK.format('name')}, whose (?P<bw>[\d.,]+ [GT]B/s) is "
                     r"(?P<branch>the slowest memory we rent|slower than most cards we rent|faster than most cards we rent)",
                     text)
    if said is None:
        assert "The tightest cell is" not in text
        return
    tight = data.by_name[said["name"]]
    assert close(said["bw"], tight["bandwidth_gbps"])
    slowest = tight["bandwidth_gbps"] == min(gpu["bandwidth_gbps"] for gpu in data.gpus.values())
    if said["branch"] == "the slowest memory we rent":
        assert slowest
    else:
        assert not slowest
        assert (said["branch"] == "slower than most cards we rent") == data.slower_than_most(tight["id"])
    roomy = re.search(rf"the \$[\d,]+ {LINK.format('name')} is the roomy alternative, with (?P<bw>[\d.,]+ [GT]B/s)", text)
    if roomy:
        card = data.by_name[roomy["name"]]
        assert card["bandwidth_gbps"] > tight["bandwidth_gbps"]
        assert close(roomy["bw"], card["bandwidth_gbps"])
        need = guide.tightest_cell()[2].need.value
        assert Decimal(card["memory_gb"]) - need >= Decimal(str(data.sizing["lookup"]["tight"]["single_card_gb"]))


def check_fp8_support(text: str, data: Data) -> None:
    lacking = {gpu["name"] for gpu in data.gpus.values() if "fp8" not in gpu.get("features", ())}
    said = re.search(r"FP8 needs hardware support\. The (.+?) lack it\.", text)
    if lacking:
        assert said and names(said[1]) == lacking
    else:
        assert "Every card we rent has it." in text


def check_learner(text: str, data: Data, guide: Guide) -> None:
    said = re.search(rf"\*\*Learning, any model up to (?P<model>\S+):\*\* {LINK.format('name')}", text)
    cheapest = min(data.usd, key=lambda card: (data.usd[card], card))
    if said is None:
        return
    assert said["name"] == data.gpus[cheapest]["name"]
    room = Decimal(data.gpus[cheapest]["memory_gb"]) - Decimal(str(data.sizing["lookup"]["tight"]["single_card_gb"]))
    model = next(m for m in guide.models if m.name == said["model"])
    bytes_int4 = next(p["bytes_per_param"] for p in data.sizing["precisions"] if p["id"] == "int4")
    assert data.inference_need(model.id, bytes_int4, data.sizing["inference"]["context_tokens"]) <= room
    assert model.need("qlora").total.value <= room


def check_quantized(text: str, zh: str, data: Data, params: dict) -> None:
    said = re.search(rf"The (?P<model>\S+) at BF16 needs [\d.,]+ GB, which means (?:the \$[\d,]+ |\d+× )"
                     rf"{LINK.format('dense')}.*? caps it at (?P<dense_cap>[\d.,]+) tokens/s\. The same model at INT4 "
                     rf"needs [\d.,]+ GB and fits the \$[\d,]+ {LINK.format('small')}.*? caps it at "
                     rf"(?P<small_cap>[\d.,]+) tokens/s\. (?P<verdict>[^.]*)\.", text)
    if said is None:
        assert "**A quantized model on a small card" not in text
        return
    model = data.models[params["mid_model"]]
    params_b = Decimal(str(model["params_billion"]))
    dense, small = data.by_name[said["dense"]], data.by_name[said["small"]]
    context = data.sizing["inference"]["context_tokens"]
    int4 = next(p["bytes_per_param"] for p in data.sizing["precisions"] if p["id"] == "int4")
    assert data.inference_need(model["id"], int4, context) <= Decimal(small["memory_gb"])
    dense_cap = Decimal(dense["bandwidth_gbps"]) / (params_b * 2)
    small_cap = Decimal(small["bandwidth_gbps"]) / (params_b * Decimal(str(int4)))
    assert abs(Decimal(said["dense_cap"].replace(",", "")) - dense_cap) <= 1
    assert abs(Decimal(said["small_cap"].replace(",", "")) - small_cap) <= 1
    faster, cheaper = small_cap > dense_cap, data.usd[small["id"]] < data.usd[dense["id"]]
    verdict = said["verdict"]
    assert verdict.startswith("Faster") == faster
    assert re.search(r"\*\*A quantized model on a small card (beats|can rival) full", text)[1] == (
        "beats" if faster else "can rival")
    assert re.search(r"\*\*小卡跑量化模型，(胜过|未必输给)大卡跑全精度", zh)[1] == ("胜过" if faster else "未必输给")
    assert ("cheaper" in verdict and "not cheaper" not in verdict and "nor cheaper" not in verdict) == cheaper


def check_pair(text: str, data: Data, params: dict) -> None:
    said = re.search(r"\*\*A pair of cheap cards, sometimes\.\*\* (?P<count>\d+)× (?P<name>.+?) give (?P<memory>[\d.,]+) GB "
                     r"for \$[\d.,]+/month, against (?P<single_memory>[\d.,]+) GB on one (?P<single>.+?) for "
                     r"\$[\d.,]+/month: (?P<more>more|as much) memory (?P<price>for|at) ", text)
    if said is None:
        return
    card, single = data.by_name[said["name"]], data.by_name[said["single"]]
    assert card["id"] == min(data.usd, key=lambda c: (data.usd_per_gb(c), c))
    together = card["memory_gb"] * int(said["count"])
    assert Decimal(said["memory"].replace(",", "")) == together
    assert (said["more"] == "more") == (together > single["memory_gb"])
    percent = next((d["percent"] for d in edits.read(data.site, "discounts")["multi_card"]
                    if d["cards"] == int(said["count"])), 0)
    order = data.usd[card["id"]] * int(said["count"]) * (1 - Decimal(str(percent)) / 100)
    assert (said["price"] == "for") == (order < data.usd[single["id"]])


# -- the test ------------------------------------------------------------------------


def vram_params(site) -> dict:
    pages = yaml.safe_load((site / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]
    return next(page for page in pages if page["id"] == "vram")["params"]


def check_all(site) -> None:
    data, guide, params = Data(site), Guide(load_site(site)), vram_params(site)
    pages = edits.render_page(site, "vram")
    text, zh = pages["en"], pages["zh-cn"]
    check_long_context_fit(text, zh, data, guide, params)
    check_card_counts(text, data, guide, params)
    check_cheapest_per_gb(text, data)
    check_bandwidth_leader(text, data)
    check_tight_and_roomy(text, data, guide)
    check_fp8_support(text, data)
    check_learner(text, data, guide)
    check_quantized(text, zh, data, params)
    check_pair(text, data, params)


def test_the_claims_hold_for_the_site_as_it_is(tmp_path):
    check_all(edits.live_copy(tmp_path / "site"))


def test_a_96_gb_card_for_the_70b_at_fp8_makes_it_still_fit(tmp_path):
    site = edits.site_copy(tmp_path / "site")
    edits.add_card(site, "h100-pcie", "big-96", 900, memory_gb=96)
    check_all(site)
    assert "it still fits" in edits.render_page(site, "vram")["en"]


def test_a_quantized_model_slower_than_full_precision_rivals_it_rather_than_beats_it(tmp_path):
    site = edits.site_copy(tmp_path / "site")
    pages_file = site / "content" / "pages.yaml"
    text = pages_file.read_text(encoding="utf-8")
    assert "mid_model: 34B" in text
    pages_file.write_text(text.replace("mid_model: 34B", "mid_model: 70B"), encoding="utf-8")
    check_all(site)
    rendered = edits.render_page(site, "vram")
    assert "on a small card can rival full precision" in rendered["en"] and "Slower, but" in rendered["en"]
    assert "小卡跑量化模型，未必输给大卡跑全精度" in rendered["zh-cn"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_claims_hold_after_random_data_edits(tmp_path, seed):
    site = edits.site_copy(tmp_path / "site")
    perturb(site, random.Random(seed))
    check_all(site)


def test_the_guide_description_spans_the_smallest_to_the_largest_model_size(tmp_path):
    site = edits.live_copy(tmp_path / "site")
    edits.append(site / "data" / "models.yaml", """
  - id: 3B
    name: 3B
    params_billion: 3
    layers: 28
    attention: gqa
    attention_heads: 24
    kv_heads: 8
    head_dim: 128
    hidden_size: 3072
    examples: [Llama 3.2 3B]
""")
    described = {segment: re.search(r'<meta name="description" content="([^"]*)"', page.html.decode())[1]
                 for segment, page in edits.rendered_page(site, "vram").items()}
    assert "fine-tuning 3B to 405B models" in described["en"]
    assert "部署和微调 3B 到 405B 模型" in described["zh-cn"]
