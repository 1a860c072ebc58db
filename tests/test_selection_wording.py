"""Every sentence, caption and label that names the lookup's answer follows sizing.yaml's selection rule.

Under ``cheapest`` the answer is the cheapest card that holds a need; under ``smallest_fit`` it is the
fewest, smallest cards. Each site is built under both rules, in every language, and no page may word its
answer by the other rule. The allowed phrases are about something else (what a token costs to run, what a
GB costs, the smallest order a card is rented in), or are the smallest fit's own tie-break by price.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import data_edits as edits
from cli_support import copy_sources, named_models_only
from vramsite.publish.site import SiteBuild

ROOT = Path(__file__).resolve().parent.parent

OTHER_RULE_WORDS = {
    "cheapest": {"en": r"smallest|fewest", "zh-cn": r"最小|最少"},
    "smallest_fit": {"en": r"cheapest", "zh-cn": r"最便宜"},
}
"""Under each rule: the words of the other rule's answer, by language."""

NOT_ABOUT_THE_ANSWER = {
    "en": [r"cheapest (?:card )?(?:to run|worth running)", r"cheapest VRAM", r"— cheapest\b",
           r"the cheapest card we rent", r'"the cheapest card that holds it" or',
           r"smallest order is", r"smallest unit we rent", r"the cheapest card of that size",
           r"\b[Cc]heapest: ", r"names the cheapest one after it"],
    "zh-cn": [r"最便宜的能跑", r"值得拿来跑它的最便宜的卡", r"最便宜显存", r"每 GB 最便宜", r"— 最便宜",
              r"我们出租的最便宜的卡", r"而不是“能装下它的最便宜的卡”", r"最小订单", r"最小单位",
              r"有标价的最便宜一款",
              r"最便宜：", r"单元格会在后面列出最便宜的那个", r"比这个选择更便宜"],
}
"""Phrases that use those words of something other than the lookup's answer."""


def _readable(page_html: str) -> str:
    """What a reader sees of a page, and its description; a table's flag reads as in the twin ('— flag')."""
    description = " ".join(re.findall(r'<meta name="description" content="([^"]*)"', page_html))
    text = re.sub(r"<script\b.*?</script>", " ", page_html, flags=re.S)
    text = text.replace('<span class="flag">', "— ")
    return html.unescape(description + " " + re.sub(r"<[^>]+>", " ", text))


def _misworded(site: Path, selection: str) -> list[str]:
    """Each place, on any page in any language, that words the answer by the rule the site does not use."""
    build = SiteBuild(site)
    assert build.data.lookup.selection == selection
    found = []
    for page in build.pages:
        for locale in build.data.site.locales:
            rendered = build.render_page(page, locale)
            for text in (rendered.markdown.decode(), _readable(rendered.html.decode())):
                text = re.sub(r"\s+", " ", text)
                for allowed in NOT_ABOUT_THE_ANSWER[locale.segment]:
                    text = re.sub(allowed, " ", text)
                for match in re.finditer(OTHER_RULE_WORDS[selection][locale.segment], text, flags=re.I):
                    found.append(f"{locale.segment}/{page.id}: …{text[max(0, match.start() - 60):match.end() + 40]}…")
    return found


@pytest.mark.parametrize("source, selection", [
    (ROOT, "cheapest"), (ROOT, "smallest_fit"),
    (ROOT / "sites" / "quick", "smallest_fit"), (ROOT / "sites" / "quick", "cheapest"),
], ids=["main-cheapest", "main-smallest_fit", "quick-smallest_fit", "quick-cheapest"])
def test_no_page_words_its_answer_by_the_other_rule(tmp_path, source, selection):
    """Every page of each site under each rule; a site's real models cut to those its other data names, whose pages
    take every branch a model page's words have (layer kinds, formats, engines)."""
    copy_sources(tmp_path, source)
    if (tmp_path / "data" / "catalogue.yaml").exists():
        named_models_only(tmp_path)
    edits.set_selection(tmp_path, selection)
    misworded = _misworded(tmp_path, selection)
    assert not misworded, "\n".join(misworded[:20])


def test_the_check_finds_a_sentence_worded_by_the_other_rule(tmp_path):
    named_models_only(copy_sources(tmp_path, ROOT))
    edits.set_selection(tmp_path, "smallest_fit")
    gpu_page = tmp_path / "content" / "en" / "gpu.md"
    gpu_page.write_text(gpu_page.read_text(encoding="utf-8") + "\nThe cheapest card that fits.\n", encoding="utf-8")
    assert any(place.startswith("en/gpus/") and "The cheapest card that fits." in place
               for place in _misworded(tmp_path, "smallest_fit"))


@pytest.mark.parametrize("selection, en, zh", [
    ("cheapest", "The cheapest card that fits", "能装下的最便宜显卡"),
    ("smallest_fit", "The smallest card that fits", "能装下的最小显卡"),
])
def test_the_lookup_caption_and_its_chart_name_the_rule(tmp_path, selection, en, zh):
    copy_sources(tmp_path, ROOT)
    edits.set_selection(tmp_path, selection)
    pages = edits.rendered_page(tmp_path, "vram")
    assert f"**{en}**" in pages["en"].markdown.decode() and f"**{zh}**" in pages["zh-cn"].markdown.decode()
    assert f">{en}, for each model and method, coloured by price on a log scale." in pages["en"].html.decode()
    assert f">{zh}：每个模型和方法各一格，按价格以对数刻度着色。" in pages["zh-cn"].html.decode()
