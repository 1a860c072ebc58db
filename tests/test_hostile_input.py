"""Hostile input through the real command line: bombs, control characters, absurd values.

The pattern of tests/bad_input_support.py (a built copy of the site, one edit,
``build.py build``): exit status 1, a one-line message naming the file, the
line and the field where the mistake is, no traceback, and the previous
site/ byte for byte as it was. These cases are the ones a careless or
malicious edit makes: YAML that expands without end, text that breaks the
tables, params, catalogs and dates that publish nonsense.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bad_input_support import (EDITED, At, Bad, Edit, assert_refused, built_seed_site, built_site,  # noqa: F401
                               check_refused_and_kept, expected_line, fresh_copy, site)
from cli_support import run_cli
from vramsite.errors import InputError
from vramsite.load import yaml_source

PO_ZH = "locales/zh_CN/LC_MESSAGES/messages.po"
PO_EN = "locales/en/LC_MESSAGES/messages.po"


def edit(file, old, new):
    return (Edit(file, old, new),)


def alias_bomb(levels: int = 9, width: int = 24) -> str:
    """A mapping whose every level lists the previous one ``width`` times: ``width ** levels`` strings."""
    lines = ["lol:", '  l0: &l0 ["lol"]']
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


BOMB = alias_bomb()
DEEP_FLOW = "    memory_gb: " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_BLOCK = "".join("  " * depth + f"k{depth}:\n" for depth in range(1, 30)) + "  " * 30 + "x\n"

CASES = [
    # -- YAML that would expand without end, or nest without end
    Bad("alias bomb in a data file", edit("data/gpus.yaml", "gpus:\n", BOMB + "gpus:\n"),
        "data/gpus.yaml", At("  l0: &l0"), "lol.l0", "YAML anchor &l0 is not allowed"),
    Bad("recursive alias", edit("data/models.yaml", "    examples: [Mistral 7B]\n", "    examples: &self [*self]\n"),
        "data/models.yaml", EDITED, "models[0].examples", "YAML anchor &self is not allowed"),
    Bad("alias to another card's value", edit("data/gpus.yaml", "    memory_type: HBM3\n    bandwidth_gbps: 5300\n",
                                              "    memory_type: *hbm\n    bandwidth_gbps: 5300\n"),
        "data/gpus.yaml", EDITED, "gpus[0].memory_type", "YAML alias *hbm is not allowed"),
    Bad("nesting three thousand lists deep", edit("data/gpus.yaml", "    memory_gb: 192\n", DEEP_FLOW),
        "data/gpus.yaml", EDITED, "gpus[0].memory_gb" + "[0]" * 14, "nested more than 16 levels deep"),
    Bad("nesting thirty mappings deep", edit("data/site.yaml", "identity_checks: false\n", "deep:\n" + DEEP_BLOCK),
        "data/site.yaml", At("k16:"), "deep." + ".".join(f"k{depth}" for depth in range(1, 16)),
        "nested more than 16 levels deep"),
    Bad("anchor in pages.yaml", edit("content/pages.yaml", "      precision_models: [7B, 70B]\n",
                                     "      precision_models: &models [7B, 70B]\n"),
        "content/pages.yaml", EDITED, "pages[0].params.precision_models", "YAML anchor &models is not allowed"),
    Bad("alias in front matter", edit("content/en/pricing.md", "title: Pricing\n", "title: &t Pricing\nlead: *t\n"),
        "content/en/pricing.md", EDITED, "title", "YAML anchor &t is not allowed"),
    Bad("a number of five thousand digits", edit("data/models.yaml", "    layers: 80\n", "    layers: " + "8" * 5000 + "\n"),
        "data/models.yaml", EDITED, "models[70B].layers", "a number of more than 100 characters"),
    Bad("a control character in the YAML text", edit("data/gpus.yaml", "    name: MI300X\n", "    name: MI\x07300X\n"),
        "data/gpus.yaml", EDITED, "", "the control character U+0007 cannot stand in a YAML file"),
    # -- text that breaks tables and headings
    Bad("line break in a card name", edit("data/gpus.yaml", "    name: A40\n", '    name: "A40\\nX"\n'),
        "data/gpus.yaml", EDITED, "gpus[a40].name", "must be one line of text without control characters; found a line break"),
    Bad("bidirectional override in a model name", edit("data/models.yaml", "    name: 70B\n", '    name: "70B\\u202e"\n'),
        "data/models.yaml", EDITED, "models[70B].name", "found the control character U+202E at character 4"),
    Bad("tab in a method label", edit("data/sizing.yaml", "label: QLoRA,", 'label: "Q\\tLoRA",'),
        "data/sizing.yaml", EDITED, "methods[qlora].label", "found a tab at character 2"),
    Bad("line break in a city", edit("data/site.yaml", "en: Dallas}", 'en: "Dal\\nlas"}'),
        "data/site.yaml", EDITED, "regions[DFW-1].city.en", "found a line break"),
    Bad("line break in a page title", edit("content/en/pricing.md", "title: Pricing\n", 'title: "Pri\\ncing"\n'),
        "content/en/pricing.md", EDITED, "title", "found a line break at character 4"),
    Bad("duplicate front matter key", edit("content/en/pricing.md", "title: Pricing\n", "title: Pricing\ntitle: Prices\n"),
        "content/en/pricing.md", At("title: Prices"), "title", "duplicate key 'title' (first at line 2)"),
    # -- pages.yaml params
    Bad("negative pair", edit("content/pages.yaml", "      pair: 2\n", "      pair: -3\n"),
        "content/pages.yaml", EDITED, "pages[vram].params.pair", "must be at least 1, got -3"),
    Bad("pair the grid does not rent", edit("content/pages.yaml", "      pair: 2\n", "      pair: 3\n"),
        "content/pages.yaml", EDITED, "pages[vram].params.pair", "3 cards is not one of the lookup card_counts (1, 2, 4, 8)"),
    Bad("fractional batch", edit("content/pages.yaml", "      serving_batch: 32\n", "      serving_batch: 2.5\n"),
        "content/pages.yaml", EDITED, "pages[vram].params.serving_batch", "expected a whole number, got 2.5"),
    Bad("unknown model in params", edit("content/pages.yaml", "[7B, 70B]", "[7B, 9000B]"),
        "content/pages.yaml", EDITED, "pages[vram].params.precision_models[1]", "unknown model '9000B' (data/models.yaml has"),
    Bad("unknown card in params", edit("content/pages.yaml", "[rtx-5090, 2]", "[rtx-5091, 2]"),
        "content/pages.yaml", EDITED, "pages[vram].params.comparison[0][0]", "unknown card 'rtx-5091' (data/gpus.yaml has"),
    Bad("context that is no multiple of 1k", edit("content/pages.yaml", "      long_context: 131072\n", "      long_context: 1000\n"),
        "content/pages.yaml", EDITED, "pages[vram].params.long_context", "must be a whole multiple of 1024, got 1000"),
    Bad("budget as text", edit("content/pages.yaml", "      budget_usd: 600\n", "      budget_usd: '600'\n"),
        "content/pages.yaml", EDITED, "pages[vram].params.budget_usd", "expected a number, got text '600'"),
    Bad("misspelt param", edit("content/pages.yaml", "      pair: 2\n", "      pair: 2\n      pairs: 2\n"),
        "content/pages.yaml", At("      pairs:"), "pages[vram].params.pairs", "unknown key 'pairs'"),
    # -- translations
    Bad("unterminated string in a catalog", edit(PO_ZH, 'msgstr "带宽"\n', 'msgstr "带\n'),
        PO_ZH, EDITED, "", 'a string is not closed: end it with " on the same line'),
    Bad("placeholder typo in a translation", edit(PO_ZH, 'msgstr "下载：{json} · {csv}"', 'msgstr "下载：{jsn} · {csv}"'),
        PO_ZH, EDITED, "msgid 'Download: {json} · {csv}'", "msgstr lacks {json} and has {jsn}, which the msgid does not"),
    Bad("duplicate msgid", edit(PO_EN, 'msgid "Bandwidth"\nmsgstr "Bandwidth"\n',
                                'msgid "Bandwidth"\nmsgstr "Bandwidth"\n\nmsgid "Bandwidth"\nmsgstr "Memory bandwidth"\n'),
        PO_EN, At('msgid "Bandwidth"', 3), "msgid 'Bandwidth'", "is listed twice (first at line 15); keep one"),
    Bad("stray line in a catalog", edit(PO_ZH, 'msgid "Bandwidth"\n', 'Bandwidth\nmsgid "Bandwidth"\n'),
        PO_ZH, EDITED, "", "cannot read this line: 'Bandwidth'"),
    Bad("msgid without msgstr", edit(PO_ZH, 'msgid "Bandwidth"\nmsgstr "带宽"\n', 'msgid "Bandwidth"\n'),
        PO_ZH, EDITED, "msgid 'Bandwidth'", "has no msgstr"),
    # -- dates, blamed on the data file
    Bad("month 13", edit("data/prices.yaml", "updated: 2026-09-01\n", "updated: 2026-13-45\n"),
        "data/prices.yaml", EDITED, "updated", "text '2026-13-45' is not a real date or time (month must be in 1..12)"),
    Bad("February 30", edit("data/prices.yaml", "updated: 2026-09-01\n", "updated: 2026-02-30\n"),
        "data/prices.yaml", EDITED, "updated", "is not a real date or time (day is out of range for month)"),
    Bad("hour 25", edit("data/prices.yaml", "updated: 2026-09-01\n", 'updated: "2026-09-01 25:00 UTC"\n'),
        "data/prices.yaml", EDITED, "updated", "is not a real date or time (hour must be in 0..23)"),
    # -- absurd values
    Bad("a tenth of a cent a month", edit("data/prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 0.001}"),
        "data/prices.yaml", EDITED, "prices[a40].usd", "must be at least 1 USD per card-month, got 0.001"),
    Bad("a card of 1e-9 GB", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 1.0e-9\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb", "must be at least 1 GB, got 1.0E-9"),
    Bad("a 99.9999 % discount", edit("data/discounts.yaml", "{cards: 8, percent: 10}", "{cards: 8, percent: 99.9999}"),
        "data/discounts.yaml", EDITED, "multi_card[8].percent", "must be less than 90, got 99.9999"),
    Bad("launched in 1850", edit("data/gpus.yaml", "    launched: 2023\n    features: [fp8]\n    stack: rocm\n",
                                 "    launched: 1850\n    features: [fp8]\n    stack: rocm\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].launched", "must be at least 2000, got 1850"),
    Bad("bandwidth of 1 GB/s", edit("data/gpus.yaml", "    bandwidth_gbps: 5300\n", "    bandwidth_gbps: 1\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].bandwidth_gbps", "must be at least 50, got 1"),
    Bad("a model of a thousand parameters", edit("data/models.yaml", "    params_billion: 7\n", "    params_billion: 0.000001\n"),
        "data/models.yaml", EDITED, "models[7B].params_billion", "must be at least 0.01"),
    Bad("a month of 1000 hours", edit("data/prices.yaml", "hours_per_month: 720\n", "hours_per_month: 1000\n"),
        "data/prices.yaml", EDITED, "hours_per_month", "must be at most 744, got 1000"),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_input_fails_clearly_and_keeps_the_previous_site(site, case):
    check_refused_and_kept(site, case)


def test_the_alias_bomb_is_refused_at_once_by_check_too(site):
    Edit("data/gpus.yaml", "gpus:\n", BOMB + "gpus:\n").apply(site)
    started = time.monotonic()
    run = run_cli("check", "--site", str(site), timeout=60)
    assert time.monotonic() - started < 30, "the bomb was expanded before it was refused"
    assert_refused(run, CASES[0], expected_line(CASES[0], site, 0))


def test_the_reader_refuses_the_bomb_before_composing_a_node(monkeypatch):
    def no_compose(*args, **kwargs):
        raise AssertionError("the file was composed before its aliases were refused")

    monkeypatch.setattr(yaml_source.yaml, "compose", no_compose)
    with pytest.raises(InputError) as refused:
        yaml_source.parse_yaml(BOMB + "gpus: []\n", "data/gpus.yaml")
    assert [str(problem) for problem in refused.value.problems] == [
        "data/gpus.yaml:2: lol.l0: YAML anchor &l0 is not allowed; write the value out where it is used"]


def test_the_bomb_is_small_and_would_expand_to_gigabytes():
    assert len(BOMB.encode()) < 8_000
    assert 24 ** 8 * len("lol") > 10**9


def test_enough_distinct_cases():
    assert len(CASES) >= 25
    assert len({case.name for case in CASES}) == len(CASES)


# -- the quick site: hourly prices, its own files --------------------------------------------------


@pytest.fixture(scope="module")
def built_quick(tmp_path_factory) -> Path:
    return built_seed_site(tmp_path_factory.mktemp("quick") / "site-src", "003")


QUICK_CASES = [
    Bad("an hourly price of a tenth of a cent", edit("data/prices.yaml", "{gpu: rtx-3090, usd: 0.19}", "{gpu: rtx-3090, usd: 0.001}"),
        "data/prices.yaml", EDITED, "prices[rtx-3090].usd", "must be at least 0.01 USD per card-hour, got 0.001"),
    Bad("an hourly price of a monthly one", edit("data/prices.yaml", "{gpu: rtx-3090, usd: 0.19}", "{gpu: rtx-3090, usd: 1590}"),
        "data/prices.yaml", EDITED, "prices[rtx-3090].usd", "must be at most 1000 USD per card-hour, got 1590"),
    Bad("an anchor in the quick site's pages", edit("content/pages.yaml", "  - id: index\n", "  - &index id: index\n"),
        "content/pages.yaml", EDITED, "pages[1]", "YAML anchor &index is not allowed"),
    Bad("a snapshot at minute 61", edit("data/prices.yaml", 'updated: "2026-10-31 17:40 UTC"', 'updated: "2026-10-31 17:61 UTC"'),
        "data/prices.yaml", EDITED, "updated", "is not a real date or time (minute must be in 0..59)"),
]


@pytest.mark.parametrize("case", QUICK_CASES, ids=[case.name for case in QUICK_CASES])
def test_hostile_input_to_the_quick_site(built_quick, tmp_path, case):
    check_refused_and_kept(fresh_copy(built_quick, tmp_path / "quick"), case)
