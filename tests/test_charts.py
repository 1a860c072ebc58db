"""Charts: well-formed SVG, accessible, legible on a phone, and drawn from the tables the pages print."""

from __future__ import annotations

import math
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from markupsafe import Markup

from history_support import with_past_prices
from seed_sites import FIXTURES, assemble_seed_site
from site_support import parse_html
from vramsite.calc.figure import COUNT, given
from vramsite.errors import UnknownId
from vramsite.publish.site import SiteBuild
from vramsite.render.charts import CHARTS, FONT, MIN_PX, PAPER, chart_file, chart_title, contrast, render_chart
from vramsite.render.inline import InlineRenderer
from vramsite.render.scope import HTML, MD, Scope
from vramsite.tables import ALL_TABLES, Cell, Fig, Flag, Link, Msg, Names, Text

SVG = "{http://www.w3.org/2000/svg}"
PHONE_COLUMN = 358
"""The column of a 390 px wide phone: the page keeps 1rem on each side."""
LANGUAGES = ("en", "zh-cn")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The seed 000 site (frozen data) with a frozen measuring run added, so that every chart is drawn:
    the charts' particular figures are the seed's."""
    root = assemble_seed_site(tmp_path_factory.mktemp("seed-000-measured"), "000")
    shutil.copytree(FIXTURES / "measurements", root / "data" / "measurements")
    with_past_prices(root, "2026-06-01", a40=320)  # and a price history, for the price chart
    build = SiteBuild(root)
    return build, build.render()


def _locale(build, segment):
    return next(locale for locale in build.data.site.locales if locale.segment == segment)


def _fmt(build, segment):
    return build.formatter(_locale(build, segment))


OPTIONS = {"price_history": {"gpu": "a40"}}
"""What a chart drawn for one item needs to name it."""
GUIDE_CHARTS = [name for name in CHARTS if name not in OPTIONS]
"""The charts the guide places; the others sit on an item's page."""


def _chart(build, name, segment="en", standalone=False):
    return ET.fromstring(build.chart(name, _locale(build, segment), standalone=standalone, **OPTIONS.get(name, {})))


def _tables(guide, **changed):
    """Tables as the build makes them, without recording them for downloads; ``changed``: a table by name
    replaced by a function of the table as built."""
    def table(name, **options):
        built = ALL_TABLES[name](guide, **options)
        return changed[name](built) if name in changed else built
    return table


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
    tables = _tables(build.guide)
    options = OPTIONS.get(name, {})
    assert render_chart(name, tables, fmt, "en", **options) == render_chart(name, tables, fmt, "en", **options)
    assert render_chart(name, tables, fmt, "en", **options) == build.chart(name, _locale(build, "en"), **options)


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
        end = next(text for text in group.iter(f"{SVG}text") if "end" in text.get("class", "").split())
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
    assert inline == {f"chart-en-{name}" for name in GUIDE_CHARTS}
    twin = files["en/vram.html.md"].decode()
    fmt = _fmt(build, "en")
    for name in GUIDE_CHARTS:
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
    card = files["en/gpus/a40.html"].decode()  # a card's price chart sits on its page, before its table
    start = card.index('id="price-history"')
    assert start < card.index('id="chart-en-price_history--gpu-a40"') < card.index('id="table-price-history-a40"')
    assert files["en/gpus/a40.html.md"].decode().count("](../../assets/charts/en-price_history--gpu-a40.svg)") == 1


def test_chart_text_is_chinese_on_chinese_pages(built):
    build, files = built
    locale = _locale(build, "zh-cn")
    for name in CHARTS:
        scope = Scope(build, locale, HTML, "zh-cn/vram.html")
        options = OPTIONS.get(name, {})
        root = ET.fromstring(str(scope.chart(name, **options)).split("\n", 1)[1].rsplit("\n", 1)[0])
        title, desc = root.find(f"{SVG}title").text, root.find(f"{SVG}desc").text
        assert CJK.search(title) and CJK.search(desc)
        words = " ".join(_texts(root))
        assert CJK.search(words)
        for english in ("talk to sales", "log scale", "per month", "Context length", "Memory needed"):
            assert english not in words and english not in desc
        twin = Scope(build, locale, MD, "zh-cn/vram.html").chart(name, **options)
        assert twin == f"![{title}](../assets/{chart_file(name, 'zh-cn', options)})"
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



# -- charts follow the tables ----------------------------------------------------

def _renamed_row(table, key, name):
    rows = tuple(replace(row, header=replace(row.header, content=Text(name))) if row.key == key else row
                 for row in table.rows)
    return replace(table, rows=rows)


def _relabelled_column(table, key, label):
    columns = tuple(replace(column, label=label) if column.key == key else column for column in table.columns)
    return replace(table, columns=columns)


def _drawn(build, name, segment="en", **changed):
    return ET.fromstring(render_chart(name, _tables(build.guide, **changed), _fmt(build, segment), segment))


def test_cost_chart_names_the_cards_as_the_cost_table_does(built):
    build, _ = built
    root = _drawn(build, "cost", cost=lambda table: _renamed_row(table, "a40", "A40 <48 GB>"))
    bars = [bar for bar in _groups(root, "bar") if bar.get("data-key") == "a40"]
    assert len(bars) == 2 and all(bar.find(f"{SVG}title").text == "A40 <48 GB>: " + _label(bar) for bar in bars)
    assert _texts(root).count("A40 <48 GB>") == 2 and "A40" not in _texts(root)
    assert "on the A40 <48 GB>" in root.find(f"{SVG}desc").text  # the cheapest per GB


def test_cost_chart_prints_the_cells_of_the_cost_table(built):
    build, _ = built

    def unpriced(table):
        index = [column.key for column in table.columns].index("usd_per_gb_month")
        rows = tuple(replace(row, cells=row.cells[:index] + (Cell(Msg.of("Bandwidth")),) + row.cells[index + 1:])
                     if row.key == "a40" else row for row in table.rows)
        return replace(table, rows=rows)

    root = _drawn(build, "cost", cost=unpriced)
    panel = next(g for g in root.iter(f"{SVG}g") if g.get("data-panel") == "usd_per_gb")
    assert "a40" not in [bar.get("data-key") for bar in _groups(panel, "bar")]
    assert "Bandwidth" in _texts(panel)  # the cell's own wording where it has no figure


def test_finetune_chart_names_methods_as_the_table_heads_them(built):
    build, _ = built
    key = build.table("finetune").columns[0].key
    root = _drawn(build, "finetune", finetune=lambda table: _relabelled_column(table, key, Text("Adapters only")))
    assert "Adapters only" in _texts(root)
    bar = next(bar for bar in _groups(root, "bar") if bar.get("data-method") == key)
    assert ", Adapters only: " in bar.find(f"{SVG}title").text


def test_kv_context_labels_contexts_and_models_from_the_context_table(built):
    build, _ = built

    def changed(table):
        table = _relabelled_column(table, "kv_131072", Text("the longest"))
        return replace(_renamed_row(table, "70B", "Seventy"), assumes=(Text("as assumed"),))

    root = _drawn(build, "kv_context", context=changed)
    assert "the longest" in _texts(root) and "as assumed" in _texts(root)
    end = next(text for text in root.iter(f"{SVG}text")
               if "end" in text.get("class", "").split() and "Seventy" in text.text)
    assert end.text.startswith("Seventy: ")
    desc = root.find(f"{SVG}desc").text
    assert "to the longest tokens" in desc and "as assumed" in desc


def test_heatmap_words_each_cell_as_the_lookup_table_answers(built):
    build, _ = built

    def answered(table):
        rows = tuple(replace(row, cells=tuple(replace(cell, answer=(Text("a rack"), Text("ask us")))
                                               if (row.key, column.key) == ("70B", "infer-int4") else cell
                                               for column, cell in zip(table.columns, row.cells)))
                     for row in table.rows)
        return replace(table, rows=rows)

    root = _drawn(build, "lookup_heatmap", lookup=answered)
    cell = next(cell for cell in _groups(root, "cell")
                if (cell.get("data-model"), cell.get("data-method")) == ("70B", "infer-int4"))
    assert [text.text for text in cell.findall(f"{SVG}text")] == ["a rack", "ask us"]
    assert cell.find(f"{SVG}title").text.endswith(": a rack, ask us")


def test_lookup_cells_carry_the_answer_the_heatmap_prints(built):
    build, _ = built
    fmt = _fmt(build, "en")
    say = InlineRenderer.plain(fmt)
    lookup = build.table("lookup")
    answers = {(row.key, column.key): tuple(say(line) for line in cell.answer)
               for row in lookup.rows for column, cell in zip(lookup.columns, row.cells)}
    assert answers[("70B", "infer-int4")] == ("A40", "$240")
    assert answers[("405B", "infer-bf16")] == ("8× MI300X", "$11,448")
    assert answers[("405B", "full-act")][1] == "talk to sales"
    for cell in _groups(_chart(build, "lookup_heatmap"), "cell"):
        assert tuple(text.text for text in cell.findall(f"{SVG}text")) == \
            answers[(cell.get("data-model"), cell.get("data-method"))]


def test_a_catalogs_wording_of_the_lookup_answer_reaches_the_heatmap(seed_000_copy):
    catalog = seed_000_copy / "locales" / "zh_CN" / "LC_MESSAGES" / "messages.po"
    text = catalog.read_text(encoding="utf-8")
    for msgid, old, new in (("{count}× {card}", "{count}× {card}", "{card} 共 {count} 张"),
                            ("talk to sales", "需询价", "请联系销售")):
        entry = f'msgid "{msgid}"\nmsgstr "{old}"\n'
        assert entry in text
        text = text.replace(entry, f'msgid "{msgid}"\nmsgstr "{new}"\n')
    catalog.write_text(text, encoding="utf-8")
    build = SiteBuild(seed_000_copy)
    root = _chart(build, "lookup_heatmap", "zh-cn")
    by_key = {(cell.get("data-model"), cell.get("data-method")): cell for cell in _groups(root, "cell")}
    assert by_key[("405B", "infer-bf16")].find(f"{SVG}text").text == "MI300X 共 8 张"
    assert [text.text for text in by_key[("405B", "full-act")].findall(f"{SVG}text")][1] == "请联系销售"
    assert "请联系销售" in _texts(root)  # the legend's swatch too
    assert "需询价" not in _texts(root)


def test_charts_of_chosen_models_show_those_rows_in_that_order(built):
    build, _ = built
    tables, fmt = _tables(build.guide), _fmt(build, "en")
    kv = ET.fromstring(render_chart("kv_context", tables, fmt, "en", model_ids=["70B", "13B"]))
    assert [g.get("data-key") for g in _groups(kv, "series")] == ["70B", "13B"]
    finetune = ET.fromstring(render_chart("finetune", tables, fmt, "en", model_ids=["70B"]))
    assert {bar.get("data-model") for bar in _groups(finetune, "bar")} == {"70B"}
    with pytest.raises(UnknownId, match="unknown model 'nope'"):
        render_chart("finetune", tables, fmt, "en", model_ids=["nope"])


def test_a_kv_chart_of_models_without_a_shape_says_so(built, seed_003_guide):
    build, _ = built
    with pytest.raises(ValueError, match="no KV cache shape .* for model"):
        render_chart("kv_context", _tables(seed_003_guide), _fmt(build, "en"), "en")


def test_pieces_as_plain_text_are_what_a_reader_sees_unescaped(built):
    build, _ = built
    fmt = _fmt(build, "en")
    say = InlineRenderer.plain(fmt)
    a40 = Link(("gpu", "a40"), Text("A40 <*48*>"))
    pieces = (Msg.of("{count}× {card}", count=Fig(given(2, "", COUNT)), card=a40), Text(" & "), Flag("tight"),
              Text(" "), Names((Text("B"), a40)))
    assert say(pieces) == "2× A40 <*48*> & tight B and A40 <*48*>"
    assert isinstance(say(pieces), str) and not isinstance(say(pieces), Markup)
    html = InlineRenderer(fmt, HTML, lambda target: "gpus/a40.html")(pieces)
    assert "A40 &lt;*48*&gt;" in html and '<a href="gpus/a40.html">' in html  # the page modes as they were
