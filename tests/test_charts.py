"""Charts: well-formed SVG, accessible, legible on a phone, and drawn from the calculation."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from site_support import parse_html
from vramsite.errors import UnknownId
from vramsite.render.charts import CHARTS, FONT, MIN_PX, PAPER, chart_title, contrast, render_chart
from vramsite.render.scope import HTML, MD, Scope

SVG = "{http://www.w3.org/2000/svg}"
PHONE_COLUMN = 358
"""The column of a 390 px wide phone: the page keeps 1rem on each side."""
LANGUAGES = ("en", "zh-cn")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def built(seed_000_built):
    """The seed 000 site (frozen data): the charts' particular figures are the seed's."""
    return seed_000_built


def _locale(build, segment):
    return next(locale for locale in build.data.site.locales if locale.segment == segment)


def _fmt(build, segment):
    return build.formatter(_locale(build, segment))


def _chart(build, name, segment="en", standalone=False):
    return ET.fromstring(build.chart(name, _locale(build, segment), standalone=standalone))


def _texts(element) -> list[str]:
    return ["".join(text.itertext()) for text in element.iter(f"{SVG}text")]


def _groups(root, css_class):
    return [g for g in root.iter(f"{SVG}g") if css_class in (g.get("class") or "").split()]


def _label(group) -> str:
    """The visible text of a bar: the <text> that is its direct child."""
    return "".join(group.find(f"{SVG}text").itertext())


@pytest.mark.parametrize("segment", LANGUAGES)
@pytest.mark.parametrize("name", list(CHARTS))
def test_chart_is_well_formed_and_accessible(built, name, segment):
    build, _ = built
    for standalone in (False, True):
        root = _chart(build, name, segment, standalone)  # ElementTree raises on malformed XML
        assert root.tag == f"{SVG}svg" and root.get("role") == "img"
        title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
        assert title.get("id") == root.get("aria-labelledby") and title.text.strip()
        assert desc.get("id") == root.get("aria-describedby") and re.search(r"\d", desc.text)
        assert title.text == chart_title(name, _fmt(build, segment))
        x, y, width, height = (float(part) for part in root.get("viewBox").split())
        assert x == y == 0 and width > 0 and height > 0
        if standalone:
            assert (float(root.get("width")), float(root.get("height"))) == (width, height)
        else:
            assert root.get("width") == "100%"
        ids = [element.get("id") for element in root.iter() if element.get("id")]
        assert len(ids) == len(set(ids))
        assert all(identifier.startswith(f"chart-{segment}-{name}") for identifier in ids)


@pytest.mark.parametrize("name", list(CHARTS))
def test_output_is_deterministic(built, name):
    build, _ = built
    fmt = _fmt(build, "en")
    assert render_chart(name, build.guide, fmt, "en") == render_chart(name, build.guide, fmt, "en")
    assert render_chart(name, build.guide, fmt, "en") == build.chart(name, _locale(build, "en"))


@pytest.mark.parametrize("name", list(CHARTS))
def test_text_stays_legible_on_a_phone(built, name):
    """Shrunk to a phone's column (or to its minimum width, then scrolled), no text is under MIN_PX."""
    build, _ = built
    root = _chart(build, name)
    width = float(root.get("viewBox").split()[2])
    min_width = float(re.search(r"min-width:(\d+)px", root.get("style")).group(1))
    scale = max(PHONE_COLUMN, min_width) / width
    sizes = [float(text.get("font-size") or root.get("font-size")) for text in root.iter(f"{SVG}text")]
    assert sizes and min(sizes) >= FONT
    assert min(sizes) * scale >= MIN_PX
    if name != "lookup_heatmap":  # the heat map is wider and scrolls sideways, as the lookup table does
        assert min_width <= PHONE_COLUMN


def test_cost_bars_are_the_cards_in_memory_order(built):
    build, _ = built
    guide, fmt = build.guide, _fmt(build, "en")
    root = _chart(build, "cost")
    panels = {g.get("data-panel"): g for g in root.iter(f"{SVG}g") if g.get("data-panel")}
    assert set(panels) == {"usd_per_gb", "gbps_per_usd"}
    cards = [gpu for gpu in guide.gpus_by_memory() if gpu.price is not None]
    for key, value_of, shown in (("usd_per_gb", lambda g: g.usd_per_gb, lambda f: fmt.figure(f)),
                                 ("gbps_per_usd", lambda g: g.gbps_per_usd, lambda f: fmt.figure(f, bare=True))):
        bars = _groups(panels[key], "bar")
        assert [bar.get("data-key") for bar in bars] == [gpu.id for gpu in cards]
        ratios = []
        for bar, gpu in zip(bars, cards):
            assert _label(bar) == shown(value_of(gpu))
            ratios.append(float(bar.find(f"{SVG}rect").get("width")) / float(value_of(gpu).value))
        assert max(ratios) - min(ratios) < 0.2  # bar length is proportional to the value
    a40 = next(bar for bar in _groups(panels["usd_per_gb"], "bar") if bar.get("data-key") == "a40")
    assert _label(a40) == "$5.00"
    desc = root.find(f"{SVG}desc").text
    assert "$5.00" in desc and "A40" in desc


def test_kv_context_has_a_line_per_model_on_a_log_2_axis(built):
    build, _ = built
    guide, fmt = build.guide, _fmt(build, "en")
    root = _chart(build, "kv_context")
    series = _groups(root, "series")
    assert [g.get("data-key") for g in series] == [model.id for model in guide.models]
    contexts = [1024 * 2 ** step for step in range(8)]
    zero = next(line for line in root.iter(f"{SVG}line") if line.get("stroke") == "#1d2330")  # the 0 GB axis
    points_bottom = float(zero.get("y1"))
    rises = []
    for group, model in zip(series, guide.models):
        points = [tuple(float(n) for n in pair.split(",")) for pair in group.find(f"{SVG}polyline").get("points").split()]
        assert len(points) == len(contexts) == len(group.findall(f"{SVG}circle"))
        steps = [b[0] - a[0] for a, b in zip(points, points[1:])]
        assert max(steps) - min(steps) < 0.3  # each doubling of the context is one step
        for (tokens, (_, y)) in zip(contexts, points):  # one linear GB scale for every line
            rises.append((float(model.kv(context=tokens).value), points_bottom - y))
        end = next(text for text in group.iter(f"{SVG}text") if text.get("class") == "end")
        assert end.text == f"{model.name}: {fmt.figure(model.kv(context=contexts[-1]))}"
    scale = max(rise for _, rise in rises) / max(value for value, _ in rises)
    assert all(rise == pytest.approx(value * scale, abs=0.15) for value, rise in rises)
    assert "13B: 107.4 GB" in root.find(f"{SVG}desc").text


def test_finetune_has_a_bar_per_model_and_method_on_a_log_scale(built):
    build, _ = built
    guide, fmt = build.guide, _fmt(build, "en")
    methods = [method for method in guide.data.methods if method.kind == "finetune"]
    bars = _groups(_chart(build, "finetune"), "bar")
    assert [(bar.get("data-model"), bar.get("data-method")) for bar in bars] == \
        [(model.id, method.id) for model in guide.models for method in methods]
    lengths = {}
    for bar in bars:
        need = guide.model(bar.get("data-model")).need(bar.get("data-method")).total
        assert _label(bar) == fmt.figure(need)
        lengths[need.value] = float(bar.find(f"{SVG}rect").get("width"))
    values = sorted(lengths)
    slope = (lengths[values[-1]] - lengths[values[0]]) / math.log10(values[-1] / values[0])
    for value in values:  # length grows with the logarithm of the value
        assert lengths[value] - lengths[values[0]] == pytest.approx(slope * math.log10(value / values[0]), abs=0.2)


def test_heatmap_cells_name_the_card_and_price(built):
    build, _ = built
    guide, fmt = build.guide, _fmt(build, "en")
    root = _chart(build, "lookup_heatmap")
    cells = _groups(root, "cell")
    assert len(cells) == len(guide.models) * len(guide.columns)
    by_key = {(cell.get("data-model"), cell.get("data-method")): cell for cell in cells}
    a40 = by_key[("70B", "infer-int4")]
    assert a40.get("data-gpu") == "a40"
    assert [text.text for text in a40.findall(f"{SVG}text")] == ["A40", "$240"]
    assert [text.text for text in by_key[("405B", "infer-bf16")].findall(f"{SVG}text")] == ["8× MI300X", "$11,448"]
    sales = _groups(root, "sales")
    assert len(sales) == sum(1 for model in guide.models for method in guide.columns
                             if not guide.cell(model.id, method.id).fits)
    nodes = guide.cell("405B", "full-act").nodes
    assert [text.text for text in by_key[("405B", "full-act")].findall(f"{SVG}text")] == \
        [fmt.figure(nodes), "talk to sales"]
    shades = []
    for cell in cells:
        for text in cell.findall(f"{SVG}text"):
            assert contrast(text.get("fill"), cell.get("data-fill")) >= 4.5
        found = guide.cell(cell.get("data-model"), cell.get("data-method"))
        if found.fits:
            fill = cell.get("data-fill")
            shades.append((found.choice.price.value, contrast(fill, PAPER)))
    shades.sort()
    assert all(a[1] <= b[1] + 1e-9 for a, b in zip(shades, shades[1:]))  # dearer is never lighter
    assert shades[0][1] < shades[-1][1]


def test_charts_sit_in_the_english_guide_and_its_twin(built):
    build, files = built
    tree = parse_html(files["en/vram.html"])  # strict: inline SVG must not break the HTML
    inline = {svg.get("id") for svg in tree.iter("{http://www.w3.org/2000/svg}svg")}
    assert inline == {f"chart-en-{name}" for name in CHARTS}
    twin = files["en/vram.html.md"].decode()
    fmt = _fmt(build, "en")
    for name in CHARTS:
        link = f"![{chart_title(name, fmt)}](../assets/charts/en-{name}.svg)"
        assert twin.count(link) == 1
        for segment in LANGUAGES:
            standalone = files[f"assets/charts/{segment}-{name}.svg"]
            root = ET.fromstring(standalone)
            assert root.find(f"{SVG}title").text == chart_title(name, _fmt(build, segment))
    # each chart follows the table it illustrates, within the same section
    html = files["en/vram.html"].decode()
    for table, chart in (("context", "kv_context"), ("finetune", "finetune"), ("lookup", "lookup_heatmap"),
                         ("cost", "cost")):
        start = html.index(f'id="table-{table}"')
        assert start < html.index(f'id="chart-en-{chart}"') < html.index("<h2", start)


def test_chart_text_is_chinese_on_chinese_pages(built):
    build, files = built
    locale = _locale(build, "zh-cn")
    for name in CHARTS:
        scope = Scope(build, locale, HTML, "zh-cn/vram.html")
        root = ET.fromstring(str(scope.chart(name)).split("\n", 1)[1].rsplit("\n", 1)[0])
        title, desc = root.find(f"{SVG}title").text, root.find(f"{SVG}desc").text
        assert CJK.search(title) and CJK.search(desc)
        words = " ".join(_texts(root))
        assert CJK.search(words)
        for english in ("talk to sales", "log scale", "per month", "Context length", "Memory needed"):
            assert english not in words and english not in desc
        twin = Scope(build, locale, MD, "zh-cn/vram.html").chart(name)
        assert twin == f"![{title}](../assets/charts/zh-cn-{name}.svg)"
    assert "需询价" in _texts(_chart(build, "lookup_heatmap", "zh-cn"))
    tree = parse_html(files["zh-cn/vram.html"])
    for svg in tree.iter("{http://www.w3.org/2000/svg}svg"):  # charts the Chinese guide places, if any
        assert svg.get("id").startswith("chart-zh-cn-")
        assert CJK.search("".join(svg.find("{http://www.w3.org/2000/svg}title").itertext()))


def test_numbers_follow_the_locale(built):
    """The heat map's prices and the cost chart's rates come from the page's formatter in each language."""
    build, _ = built
    for segment in LANGUAGES:
        fmt = _fmt(build, segment)
        cost = _chart(build, "cost", segment)
        a40 = next(bar for bar in _groups(cost, "bar") if bar.get("data-key") == "a40")
        assert _label(a40) == fmt.figure(build.guide.gpu("a40").usd_per_gb)
        kv = _chart(build, "kv_context", segment)
        assert any(fmt.figure(build.guide.model("70B").kv(context=131072)) in text for text in _texts(kv))


def test_an_unknown_chart_is_named_in_the_error(built):
    build, _ = built
    scope = Scope(build, _locale(build, "en"), HTML, "en/vram.html")
    with pytest.raises(UnknownId, match="chart 'pie'"):
        scope.chart("pie")

