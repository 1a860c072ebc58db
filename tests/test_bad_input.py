"""Broken input, as an editor would break it, through the real command line.

Each case edits a temporary copy of the site (the frozen seed 000 data/, whose
lines the cases name, and the live content/, templates/, locales/) after a
first successful build, then runs
``build.py build --site <copy> --out <copy>/site``. The build must fail with
exit status 1, a one-line message naming the file, the line and the field
(or the template and its line), no traceback, and leave the previous site/
byte for byte as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bad_input_support import (EDITED, At, Bad, Edit, built_site, check_refused_and_kept, edit,  # noqa: F401
                               site)
from cli_support import run_build

PO_ZH = "locales/zh_CN/LC_MESSAGES/messages.po"
AS_405B = "    params_billion: 405\n"

CASES = [
    # -- data/*.yaml: YAML itself
    Bad("YAML syntax error", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 240"),
        "data/prices.yaml", At(None, 1), "", "YAML syntax error: expected ',' or '}'"),
    Bad("tab indentation", edit("data/gpus.yaml", "    memory_gb: 192\n", "\tmemory_gb: 192\n"),
        "data/gpus.yaml", EDITED, "", "a tab character; indent YAML with spaces"),
    Bad("duplicate key", edit("data/models.yaml", "    layers: 80\n", "    layers: 80\n    layers: 81\n"),
        "data/models.yaml", At("    layers: 81"), "models[70B].layers", "duplicate key 'layers'"),
    Bad("unsafe YAML tag", edit("data/gpus.yaml", "    name: MI300X\n", "    name: !!python/object/apply:os.system [echo hi]\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].name", "YAML tag '!!python/object/apply:os.system' is not allowed"),
    Bad("YAML merge key", edit("data/gpus.yaml", "    vendor: amd\n", "    <<: {vendor: amd}\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x]", "merge keys (<<) are not supported"),
    Bad("non-UTF-8 file", edit("data/gpus.yaml", "    name: MI300X\n", "    name: MI300X Café\n".encode("latin-1")),
        "data/gpus.yaml", EDITED, "", "not UTF-8 text (byte 0xe9)"),
    Bad("empty file", edit("data/models.yaml", None, ""), "data/models.yaml", 1, "", "the file is empty"),
    Bad("only comments", edit("data/discounts.yaml", None, "# nothing yet\n"), "data/discounts.yaml", 1, "",
        "holds no data"),
    # -- data/*.yaml: shape, types, ranges
    Bad("unknown key", edit("data/gpus.yaml", "    memory_type: HBM3e\n    bandwidth_gbps: 4800",
                            "    memory_type: HBM3e\n    bandwith_gbps: 4800"),
        "data/gpus.yaml", At("    bandwith_gbps"), "gpus[h200-sxm].bandwith_gbps", "unknown key 'bandwith_gbps'"),
    Bad("missing field", edit("data/gpus.yaml", "    bandwidth_gbps: 696\n", ""),
        "data/gpus.yaml", At("  - id: a40\n"), "gpus[a40].bandwidth_gbps", "missing required field"),
    Bad("wrong type", edit("data/models.yaml", "    layers: 80\n", "    layers: eighty\n"),
        "data/models.yaml", EDITED, "models[70B].layers", "expected a whole number, got text 'eighty'"),
    Bad("string for a number", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: '240'}"),
        "data/prices.yaml", EDITED, "prices[a40].usd", "expected a number or nothing, got text '240'"),
    Bad("true for a number", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: yes\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb", "expected a number, got text 'yes'"),
    Bad("negative price", edit("data/prices.yaml", "{gpu: l4, usd: 250}", "{gpu: l4, usd: -250}"),
        "data/prices.yaml", EDITED, "prices[l4].usd", "must be at least 1 USD per card-month, got -250"),
    Bad("zero memory", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 0\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb", "must be at least 1 GB, got 0"),
    Bad("NaN", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: .nan}"),
        "data/prices.yaml", EDITED, "prices[a40].usd", "'.nan' is not a finite number"),
    Bad("infinity", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: .inf\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb", "'.inf' is not a finite number"),
    Bad("absurd model size", edit("data/models.yaml", AS_405B, "    params_billion: 405000000\n"),
        "data/models.yaml", EDITED, "models[405B].params_billion", "must be at most 100000, got 405000000 (a typo?)"),
    Bad("absurd price", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 240000000000}"),
        "data/prices.yaml", EDITED, "prices[a40].usd", "must be at most"),
    Bad("absurd memory", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 1.92e+9\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb", "must be at most 4096"),
    Bad("card launched before any GPU", edit("data/gpus.yaml", "    architecture: CDNA 3\n    launched: 2023\n",
                                              "    architecture: CDNA 3\n    launched: 1923\n"),
        "data/gpus.yaml", At("    launched: 1923"), "gpus[mi300x].launched", "must be at least 2000, got 1923"),
    # -- data/*.yaml: references between files
    Bad("duplicate card id", edit("data/gpus.yaml", "  - id: rtx-a5000\n", "  - id: rtx-3090\n"),
        "data/gpus.yaml", EDITED, "gpus[rtx-3090].id", "duplicate id 'rtx-3090' (first at line"),
    Bad("duplicate model id", edit("data/models.yaml", "  - id: 13B\n", "  - id: 7B\n"),
        "data/models.yaml", EDITED, "models[7B].id", "duplicate id '7B' (first at line"),
    Bad("price for an unknown card", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a41, usd: 240}"),
        "data/prices.yaml", EDITED, "prices[a41].gpu", "price for unknown card 'a41'"),
    Bad("card without a price", edit("data/prices.yaml", "  - {gpu: l4, usd: 250}\n", ""),
        "data/prices.yaml", At("prices:"), "prices[l4]", "card 'l4' (gpus.yaml line"),
    Bad("discount for a card count the grid lacks", edit("data/discounts.yaml", "{cards: 4, percent: 8}",
                                                         "{cards: 3, percent: 8}"),
        "data/discounts.yaml", EDITED, "multi_card[3].cards", "3 cards is not one of the lookup card_counts"),
    # -- URLs: slugs and collisions
    Bad("card slug with ../", edit("data/gpus.yaml", "  - id: mi300x\n", "  - id: ../mi300x\n"),
        "data/gpus.yaml", EDITED, "gpus[../mi300x].id", "must be a URL slug"),
    Bad("page slug with ../", edit("content/pages.yaml", "  - id: pricing\n", "  - id: ../pricing\n"),
        "content/pages.yaml", EDITED, "pages[../pricing].id", "must be a URL slug"),
    Bad("language folder with ../", edit("data/site.yaml", "{segment: en, tag: en, gettext: en}",
                                         "{segment: ../en, tag: en, gettext: en}"),
        "data/site.yaml", EDITED, "locales[../en].segment", "must be a lower-case URL segment"),
    Bad("two pages write one path", edit("content/pages.yaml", "  - id: pricing\n",
                                         "  - id: gpus/a40\n    template: page.html\n\n  - id: pricing\n"),
        "content/pages.yaml", EDITED, "pages[gpus/a40].id",
        "page 'gpus/a40' is already made by pages[gpus/{card}]"),
    Bad("card id that clashes with a page", (Edit("data/gpus.yaml", "  - id: rtx-a5000\n", "  - id: index\n"),
                                             Edit("data/prices.yaml", "{gpu: rtx-a5000,", "{gpu: index,")),
        "data/gpus.yaml", At("  - id: index\n"), "gpus[index].id",
        "its page 'gpus/index' is already made by pages[gpus/index] (content/pages.yaml line"),
    Bad("duplicate page id", edit("content/pages.yaml", "  - id: pricing\n", "  - id: vram\n"),
        "content/pages.yaml", EDITED, "pages[vram].id", "page 'vram' is already made by pages[vram]"),
    Bad("page with a missing template", edit("content/pages.yaml", "    template: guide.html\n",
                                             "    template: guides.html\n"),
        "content/pages.yaml", EDITED, "pages[vram].template", "no template 'guides.html' in templates/"),
    # -- content
    Bad("content names an unknown model", edit("content/en/pricing.md", '{{ table("cost") }}', '{{ model("9000B").name }}'),
        "content/en/pricing.md", EDITED, "", "expression names unknown model '9000B' (known: 7B"),
    Bad("content names an unknown card", edit("content/en/pricing.md", '{{ table("cost") }}', '{{ gpu("b300").name }}'),
        "content/en/pricing.md", EDITED, "", "expression names unknown GPU 'b300'"),
    Bad("page params name an unknown card", edit("content/pages.yaml", "example: [a100-sxm, 4]", "example: [a100-sx, 4]"),
        "content/pages.yaml", EDITED, "pages[pricing].params.example[0]", "unknown card 'a100-sx'"),
    Bad("content names an unknown table", edit("content/en/pricing.md", '{{ table("cost") }}', '{{ table("costs") }}'),
        "content/en/pricing.md", EDITED, "", "expression names unknown table 'costs'"),
    Bad("content uses an undefined name", edit("content/en/pricing.md", '{{ table("cost") }}', '{{ prcing.updated }}'),
        "content/en/pricing.md", EDITED, "", "'prcing' is undefined"),
    Bad("Jinja syntax error in content", edit("content/en/pricing.md", '{{ table("cost") }}', '{{ table("cost") }'),
        "content/en/pricing.md", EDITED, "", "template syntax error: unexpected '}'"),
    Bad("unknown front matter key", edit("content/en/pricing.md", "title: Pricing\n", "title: Pricing\ntitel: Prices\n"),
        "content/en/pricing.md", At("titel:"), "titel", "unknown key 'titel'"),
    Bad("content file missing for one language", (Edit("content/zh-cn/pricing.md", "", None),),
        "content/pages.yaml", At("  - id: pricing\n"), "pages[pricing]", "no zh-CN text: content/zh-cn/pricing.md is missing"),
    # -- layout templates
    Bad("Jinja syntax error in a template", edit("templates/page.html", "<h1>{{ page.title }}</h1>",
                                                 "<h1>{{ page.title }</h1>"),
        "templates/page.html", EDITED, "", "template syntax error: unexpected '}'"),
    Bad("Jinja syntax error in a partial", edit("templates/partials/table.html", "{% for row in table.rows %}",
                                                "{% for row in table.rows %"),
        "templates/partials/table.html", At(None, 1), "", "template syntax error: unexpected '<'"),
    Bad("undefined name in a template", edit("templates/page.html", "<h1>{{ page.title }}</h1>",
                                             "<h1>{{ page.titel }}</h1>"),
        "templates/page.html", EDITED, "", "has no attribute 'titel'"),
    # -- translations (strict)
    Bad("fuzzy translation", edit(PO_ZH, 'msgid "Bandwidth"\n', '#, fuzzy\nmsgid "Bandwidth"\n'),
        PO_ZH, At('msgid "Bandwidth"'), "msgid 'Bandwidth'", "is marked fuzzy; review it and remove the fuzzy flag"),
    Bad("empty translation", edit(PO_ZH, 'msgid "Bandwidth"\nmsgstr "带宽"\n', 'msgid "Bandwidth"\nmsgstr ""\n'),
        PO_ZH, At('msgid "Bandwidth"'), "msgid 'Bandwidth'", "has an empty translation"),
    Bad("missing translation", edit("content/pages.yaml", "    nav: Pricing\n", "    nav: Prices and plans\n"),
        PO_ZH, None, "msgid 'Prices and plans'", "is missing; add it to the catalog"),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_fails_clearly_and_keeps_the_previous_site(site, case):
    check_refused_and_kept(site, case)


def test_every_case_breaks_something_different():
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)


# -- input that must build -----------------------------------------------------------


def _all_text(folder: Path) -> dict[str, str]:
    """Every page, twin and text file (CSV and JSON downloads hold data, not markup, and are left out)."""
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in folder.rglob("*") if path.suffix in (".html", ".md", ".txt", ".xml", ".svg")}


def test_html_in_a_card_name_builds_and_comes_out_escaped(site):
    Edit("data/gpus.yaml", "    name: MI300X\n", '    name: MI300X <script>alert("x")</script> & co\n').apply(site)
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    texts = _all_text(site / "site")
    unescaped = sorted(path for path, text in texts.items() if "<script>alert" in text)
    assert not unescaped, f"<script> from data appears unescaped in {unescaped}"
    page, twin = texts["en/gpus/mi300x.html"], texts["en/gpus/mi300x.html.md"]
    assert "MI300X &lt;script&gt;alert(" in page
    assert "&amp;lt;script" not in page, "the name is escaped twice"
    assert "MI300X &lt;script&gt;alert(" in twin
    assert "MI300X &lt;script&gt;alert(" in texts["en/vram.html.md"]


def test_a_model_that_fits_no_configuration_builds_with_talk_to_sales(site):
    Edit("data/models.yaml", "models:\n", """models:
  - id: 50T
    name: 50T
    params_billion: 50000
    layers: 200
    attention: gqa
    attention_heads: 128
    kv_heads: 8
    head_dim: 128
    hidden_size: 16384

""").apply(site)
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    twin = (site / "site" / "en" / "vram.html.md").read_text(encoding="utf-8")
    row = next(line for line in twin.splitlines() if line.startswith("| 50T |") and "talk to sales" in line)
    cells = [cell.strip() for cell in row.strip("|").split("|")][1:]
    assert cells and all("talk to sales" in cell for cell in cells), row
    page = (site / "site" / "en" / "vram.html").read_text(encoding="utf-8")
    assert 'data-flags="sales"' in page
