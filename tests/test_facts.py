"""Page facts: each claim the prose makes is a computed condition about the card it names."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
import yaml

import data_edits as edits
from cli_support import ROOT
from vramsite.calc import Guide
from vramsite.facts import FACTS
from vramsite.facts.base import Facts
from vramsite.load import load_site
from vramsite.publish.site import SiteBuild


def vram_params(root=ROOT) -> dict:
    pages = yaml.safe_load((root / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]
    return next(page for page in pages if page["id"] == "vram")["params"]


def vram_facts(root):
    return FACTS["vram"](Guide(load_site(root)), vram_params(root))


@pytest.fixture
def copy(tmp_path):
    return edits.site_copy(tmp_path / "site")


def test_every_facts_name_in_pages_yaml_has_a_builder():
    pages = yaml.safe_load((ROOT / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]
    named = {page["facts"] for page in pages if "facts" in page}
    assert named >= {"vram", "gpu", "catalogue", "pricing"}
    assert named <= set(FACTS)


def test_facts_are_frozen_records_and_the_same_every_time(guide):
    first, second = FACTS["vram"](guide, vram_params()), FACTS["vram"](guide, vram_params())
    assert isinstance(first, Facts) and first == second
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.cost = None


def test_a_96_gb_card_that_holds_the_long_context_makes_it_still_fit(copy):
    edits.add_card(copy, "h100-pcie", "big-96", 900, memory_gb=96)
    facts = vram_facts(copy)
    assert facts.context.default.card.name == "BIG-96"
    assert facts.context.long_need.value < 96
    assert facts.context.still_fits
    assert facts.context.long_headroom.value == 96 - facts.context.long_need.value


def test_the_long_context_that_outgrows_the_card_does_not_fit(guide):
    facts = FACTS["vram"](guide, vram_params())
    assert facts.context.long_need.value > facts.context.default.card.memory.value
    assert not facts.context.still_fits
    assert all(card.memory.value >= facts.context.long_need.value for card in facts.context.roomier)


def test_the_cheapest_per_gb_card_brings_its_own_year_and_bandwidth(copy):
    edits.set_price(copy, "rtx-6000-ada", 100)
    facts = vram_facts(copy)
    card = facts.cost.per_gb
    assert card.name == "RTX 6000 Ada"
    assert card.launched.value == 2022 and card.bandwidth.value == 960
    assert facts.cost.same_size.name == "L40S"  # the dearest 48 GB card it is set against
    assert facts.cost.per_gb_older  # 2022, before the newest card (2025)
    others = [gpu["bandwidth_gbps"] for gpu in edits.read(copy, "gpus")["gpus"] if gpu["id"] != "rtx-6000-ada"]
    assert facts.cost.per_gb_slow == (sum(bandwidth > 960 for bandwidth in others) * 2 > len(others))
    assert facts.headline.cheapest_per_gb == card


def test_one_leader_for_both_columns_is_said_so(copy):
    edits.set_price(copy, "rtx-3090", 60)
    facts = vram_facts(copy)
    assert facts.cost.per_gb.name == facts.cost.per_bandwidth.name == "RTX 3090"
    assert not facts.cost.different_leaders


def test_a_multi_card_answer_is_not_one_card(copy):
    for card in ("mi300x", "b200", "h200-sxm"):
        edits.remove_card(copy, card)
    facts = vram_facts(copy)
    bf16 = facts.headline.serve.bf16
    assert bf16.fits and not bf16.one_card and bf16.count.value > 1
    assert facts.tldr.serve.bf16 == bf16


def test_the_roomy_alternative_has_faster_memory_and_room(guide):
    tight = FACTS["vram"](guide, vram_params()).grid.tight
    assert tight.roomy.card.bandwidth.value > tight.offer.card.bandwidth.value
    assert tight.roomy.headroom.value >= guide.data.lookup.tight_single_gb


def test_prose_survives_removing_the_a40_and_the_mi300x(copy):
    edits.remove_card(copy, "a40")
    edits.remove_card(copy, "mi300x")
    facts = vram_facts(copy)
    assert facts.grid.outlier is None  # no card off CUDA wins a cell
    assert facts.cost.per_gb.name != "A40"
    pages = edits.render_page(copy, "vram")
    assert "A40](" not in pages["en"] and "MI300X" not in pages["en"]


def test_adapter_methods_say_what_they_leave_out(copy):
    facts = vram_facts(copy)
    assert facts.finetune.adapters_leave_out_activations and facts.finetune.adapters_leave_out_overhead
    sizing = edits.read(copy, "sizing")
    for method in sizing["methods"]:
        if method["id"] in ("lora", "qlora"):
            method["margin_percent"] = 10
    edits.write(copy, "sizing", sizing)
    facts = vram_facts(copy)
    assert not facts.finetune.adapters_leave_out_activations
    assert facts.finetune.adapters_leave_out_overhead


def test_the_learning_card_holds_its_model_with_room(guide):
    learner = FACTS["vram"](guide, vram_params()).tldr.learner
    room = learner.card.memory.value - guide.data.lookup.tight_single_gb
    assert learner.int4.value <= room and learner.qlora.value <= room
    bigger = [m for m in guide.models if m.params.value > learner.up_to.params.value]
    assert all(m.inference("int4").total.value > room or m.need("qlora").total.value > room for m in bigger)


def test_facts_are_computed_once_per_page_not_per_language(monkeypatch):
    calls: dict[str, int] = {}
    for name, builder in list(FACTS.items()):
        def counting(guide, params, card=None, _name=name, _builder=builder):
            calls[_name] = calls.get(_name, 0) + 1
            return _builder(guide, params, card)
        monkeypatch.setitem(FACTS, name, counting)
    build = SiteBuild(ROOT)
    for page in build.pages:
        if page.id in ("vram", "pricing", "gpus/a40"):
            for locale in build.data.site.locales:
                build.render_page(page, locale)
    assert calls == {"vram": 1, "pricing": 1, "gpu": 1}


def test_an_unknown_facts_name_is_one_located_line(copy):
    pages = copy / "content" / "pages.yaml"
    pages.write_text(pages.read_text(encoding="utf-8").replace("facts: pricing", "facts: prices"), encoding="utf-8")
    build = SiteBuild(copy)
    page = next(page for page in build.pages if page.id == "pricing")
    with pytest.raises(Exception) as caught:
        build.render_page(page, build.data.site.locales[0])
    problem = caught.value.problems[0]
    assert problem.file == "content/pages.yaml" and problem.line
    assert "no page facts named 'prices'" in problem.message


def test_pricing_example_says_when_no_discount_applies(copy):
    discounts = edits.read(copy, "discounts")
    discounts["multi_card"] = [d for d in discounts["multi_card"] if d["cards"] != 4]
    edits.write(copy, "discounts", discounts)
    facts = FACTS["pricing"](Guide(load_site(copy)), {"example": ["a100-sxm", 4]})
    assert not facts.example.discounted
    assert facts.example.order.value == facts.example.list_price.value == Decimal(990 * 4)
