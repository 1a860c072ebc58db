"""The model pages: one per real model of data/catalogue.yaml, in every language and format, and their figures.

Figures are checked against plain arithmetic on the catalogue entry (read here from the YAML, not from the
calculation), through the JSON downloads the pages link; the prose's comparison of the cheapest card that fits
with the cheapest card to run is checked on a copy of the site whose prices are edited.
"""

from __future__ import annotations

import gzip
import json
import posixpath
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

import data_edits as edits
from data_edits import live_copy, render_page, set_price
from live_sites import live_build
from site_support import table_download
from vramsite.render.calculator import model_path

ROOT = Path(__file__).resolve().parent.parent
BILLION = Decimal(10) ** 9


@pytest.fixture(scope="module")
def built():
    return live_build("default")


@pytest.fixture(scope="module")
def entries() -> dict[str, dict]:
    document = yaml.safe_load((ROOT / "data" / "catalogue.yaml").read_text(encoding="utf-8"))
    return {entry["id"]: entry for entry in document["models"]}


def _download(files, table_id: str) -> dict:
    return table_download(files, table_id)


def _cells(files, table_id: str, row: str) -> dict:
    return next(item for item in _download(files, table_id)["rows"] if item["key"] == row)["cells"]


def _first(entries, kind: str) -> dict:
    return next(entry for entry in entries.values() if any(group["kind"] == kind for group in entry["layers"]))


def _bytes_per_token(entry: dict, element_bytes: Decimal) -> Decimal:
    """By hand: 2 × layers × KV heads × head dim × b for full and sliding groups; layers × (rank + rope) × b
    for latent ones; nothing for linear ones."""
    total = Decimal(0)
    for group in entry["layers"]:
        if group["kind"] in ("full", "sliding"):
            total += 2 * group["count"] * group["kv_heads"] * group["head_dim"] * element_bytes
        elif group["kind"] == "latent":
            total += group["count"] * (group["kv_lora_rank"] + group["rope_head_dim"]) * element_bytes
    return total


def _cache_gb(entry: dict, element_bytes: Decimal, context: int) -> Decimal:
    """By hand: each group's bytes per token × the tokens it keeps (a window at most), in GB."""
    total = Decimal(0)
    for group in entry["layers"]:
        held = min(context, group["window"]) if group["kind"] == "sliding" else context
        if group["kind"] in ("full", "sliding"):
            total += 2 * group["count"] * group["kv_heads"] * group["head_dim"] * element_bytes * held
        elif group["kind"] == "latent":
            total += group["count"] * (group["kv_lora_rank"] + group["rope_head_dim"]) * element_bytes * held
    return total / BILLION


def test_every_model_has_its_page_in_every_language_and_format(built, entries):
    build, files = built
    assert entries, "data/catalogue.yaml lists no model"
    for segment in ("zh-cn", "en"):
        for suffix in (".html", ".html.md"):
            assert f"{segment}/models/index{suffix}" in files
            for model_id in entries:
                assert f"{segment}/models/{model_id}{suffix}" in files, (segment, model_id, suffix)
        index = files[f"{segment}/models/index.html"].decode("utf-8")
        for model_id in entries:
            assert f'href="{model_id}.html"' in index, (segment, model_id)


def test_the_guide_and_the_home_page_link_the_catalogue(built):
    _, files = built
    for segment in ("zh-cn", "en"):
        for page in ("index", "vram"):
            assert 'href="models/index.html"' in files[f"{segment}/{page}.html"].decode("utf-8"), (segment, page)
        assert 'href="../models/index.html"' in files[f"{segment}/gpus/a40.html"].decode("utf-8"), "nav entry"


@pytest.mark.parametrize("kind", ["full", "sliding", "latent"])
def test_the_kv_figures_are_the_hand_arithmetic_of_the_catalogue_entry(built, entries, kind):
    build, files = built
    entry = _first(entries, kind)
    for precision in build.data.kv_precisions:
        b = Decimal(precision.bytes_per_param)
        cells = _cells(files, f"model-kv-{entry['id']}", precision.id)
        assert Decimal(cells["per_token_bytes"]["exact"]) == _bytes_per_token(entry, b)
        for context in (8192, 32768, 131072, entry["max_context"]):
            cell = cells[f"kv_{context}"]
            assert Decimal(cell["exact"]) == _cache_gb(entry, b, context), (entry["id"], precision.id, context)
            assert ("past" in cell.get("flags", ())) == (context > entry["max_context"]), (entry["id"], context)


def test_a_context_past_the_maximum_is_marked_on_the_page(built, entries):
    _, files = built
    short = next(entry for entry in entries.values() if entry["max_context"] < 131072)
    assert "past" in _cells(files, f"model-kv-{short['id']}", "bf16")["kv_131072"]["flags"]
    assert "past the model’s maximum" in files[f"en/models/{short['id']}.html.md"].decode("utf-8")
    assert "超出模型上限" in files[f"zh-cn/models/{short['id']}.html.md"].decode("utf-8")


def _bf16_read_per_token(entry: dict) -> Decimal:
    """By hand, in GB: two bytes for every weight a token reads — every tensor class but the embedding table and
    the experts, the experts it is routed to, and one row of the embedding table."""
    classes = entry["parameters"]
    read = sum(classes[name] for name in ("output_head", "attention", "dense_mlp", "experts_active", "shared_experts",
                                          "router", "other"))
    return 2 * (Decimal(read) + entry["hidden_size"]) / BILLION


def _one_sequence_step(entry: dict, gpu, data: dict, context: int) -> Decimal:
    """By hand, one sequence's decode step on one card in BF16: the longer of (the weights one token reads and
    the sequence's KV cache) ÷ the achieved bandwidth and 2 × active parameters ÷ the achieved dense rate, plus
    the layers' fixed cost (data/throughput.yaml; the bandwidth share from its measured run)."""
    speed, run = data["throughput"], data["run"]
    share = Decimal(run["bandwidth"]["bytes"]) / Decimal(str(run["bandwidth"]["median_s"])) / BILLION
    share /= Decimal(data["gpus"][run["gpu"]]["bandwidth_gbps"])
    read = _bf16_read_per_token(entry) * BILLION + _bytes_per_token(entry, Decimal(2)) * context
    reading = read / (Decimal(gpu["bandwidth_gbps"]) * share * BILLION)
    matmuls = {(item["card"], item["format"]): Decimal(str(item["tflops"])) / Decimal(str(item["of"]))
               for item in speed["matmul"]["measured"]}
    matmul = matmuls.get((gpu["id"], "bf16"))
    if matmul is None:
        ordered = sorted(matmuls.values())
        middle = len(ordered) // 2
        matmul = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    computing = 2 * Decimal(str(entry["active_params_billion"])) * BILLION / (
        Decimal(str(gpu["dense_tflops"]["bf16"])) * matmul * 10 ** 12)
    layers = sum(group["count"] for group in entry["layers"])
    return max(reading, computing) + layers * Decimal(str(speed["layer_step"]["seconds"]))


def test_a_mixture_of_experts_decodes_one_sequence_at_its_routed_experts(built, entries):
    build, files = built
    entry = next(entry for entry in entries.values() if entry.get("experts") and entry["native_format"] == "bf16")
    data = {"throughput": yaml.safe_load((ROOT / "data" / "throughput.yaml").read_text(encoding="utf-8")),
            "gpus": {gpu["id"]: gpu for gpu in yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text(
                encoding="utf-8"))["gpus"]}}
    run_id = data["throughput"]["bandwidth"]["measurement"]
    data["run"] = yaml.safe_load((ROOT / "data" / "measurements" / f"{run_id}.yaml").read_text(encoding="utf-8"))
    context = build.data.inference.context_tokens
    rows = _download(files, f"model-speed-{entry['id']}")["rows"]
    checked = 0
    for row in rows:
        if not row["key"].startswith("1x-"):
            continue
        gpu = data["gpus"][row["key"].removeprefix("1x-")]
        step = _one_sequence_step(entry, gpu, data, context)
        assert abs(Decimal(row["cells"]["tokens_per_s_one"]["exact"]) * step - 1) < Decimal("1e-20"), gpu["id"]
        checked += 1
    assert checked


def test_the_bf16_weights_are_two_bytes_for_every_parameter_of_every_class(built, entries):
    _, files = built
    for entry in entries.values():
        classes = entry["parameters"]
        every = sum(count for name, count in classes.items() if name != "experts_active")
        cells = _cells(files, f"model-weights-{entry['id']}", "bf16")
        assert Decimal(cells["weights_gb"]["exact"]) == 2 * Decimal(every) / BILLION, entry["id"]
        assert Decimal(cells["bits_per_weight"]["exact"]) == 16 * Decimal(every) / (
            Decimal(str(entry["params_billion"])) * BILLION), entry["id"]


def test_the_weights_table_leads_with_the_checkpoints_own_format(built, entries):
    _, files = built
    for entry in entries.values():
        rows = _download(files, f"model-weights-{entry['id']}")["rows"]
        assert rows[0]["key"] == entry["native_format"], entry["id"]
        assert len({row["key"] for row in rows}) == len(rows)


def test_the_json_download_holds_the_kv_per_token_and_the_caches(built, entries):
    _, files = built
    for model_id in entries:
        cells = _cells(files, f"model-kv-{model_id}", "bf16")
        for key in ("per_token_bytes", "kv_8192", "kv_32768", "kv_131072"):
            assert Decimal(cells[key]["exact"]) >= 0, (model_id, key)
        assert cells["per_token_bytes"]["unit"] == "B" and cells["kv_8192"]["unit"] == "GB"


def test_a_latent_cache_is_whole_on_every_card_of_a_split(built, entries):
    """The lookup holds a split model to what each card keeps: the latent cache is not divided."""
    build, _ = built
    entry = _first(entries, "latent")
    view = build.guide.catalogue_model(entry["id"])
    method = build.guide.default_inference()
    one, eight = view.need(method, 1), view.need(method, 8)
    assert eight.kv_cache.value == 8 * one.kv_cache.value
    assert eight.total.value - one.total.value == 7 * one.kv_cache.value
    found = view.lookup(method)
    assert found.need.value == view.need(method, found.choice.count).total.value


def test_sitemap_and_llms_txt_list_the_model_pages(built, entries):
    build, files = built
    sitemap, llms = files["sitemap.xml"].decode("utf-8"), files["llms.txt"].decode("utf-8")
    for segment in ("zh-cn", "en"):
        for model_id in (*entries, "index"):
            assert f"/{segment}/models/{model_id}.html<" in sitemap, (segment, model_id)
            assert f"/{segment}/models/{model_id}.html.md)" in llms, (segment, model_id)


def _run_paragraph(markdown: str) -> str:
    start = markdown.index("## Where it starts, and what it costs to run")
    return markdown[start:markdown.index("**", start)]


def test_the_cheapest_to_run_sentence_follows_the_prices(tmp_path, built):
    """vLLM starts Gemma 3 27B on one card most cheaply, but its tokens cost least on another; make that card
    cheap enough and the two are one configuration, and the sentence says so."""
    build, _ = built
    view = build.guide.catalogue_model("gemma-3-27b-it")
    fit = view.serving_choice("bf16").offer
    worth, count = view.cheapest_to_run_format("bf16")
    assert (fit.gpu.id, fit.count) != (worth.id, count), "the live data should show the two apart"
    live_copy(tmp_path)
    before = _run_paragraph(render_page(tmp_path, "models/gemma-3-27b-it")["en"])
    assert "It is the same configuration" not in before
    assert "the same tokens cost" in before
    set_price(tmp_path, fit.gpu.id, 10)
    after = render_page(tmp_path, "models/gemma-3-27b-it")
    assert "It is the same configuration" in _run_paragraph(after["en"])
    assert "这正是同一个配置" in after["zh-cn"]


def test_a_linear_attention_model_keeps_a_fixed_state_and_caches_only_its_other_layers(tmp_path):
    """The live catalogue has no linear-attention model: Qwen3-Next is added to a copy as an editor would, with
    `build.py model add` from its config fixture."""
    live_copy(tmp_path)
    config = ROOT / "tests" / "fixtures" / "hf_configs" / "qwen3-next-80b-a3b.json"
    subprocess.run([sys.executable, str(ROOT / "build.py"), "model", "add", str(config), "--site", str(tmp_path),
                    "--id", "qwen3-next-80b-a3b", "--name", "Qwen3-Next-80B-A3B",
                    "--source-repository", "huggingface/transformers", "--source-revision", "008e574"],
                   check=True, capture_output=True)
    entry = next(item for item in yaml.safe_load((tmp_path / "data" / "catalogue.yaml").read_text(encoding="utf-8"))
                 ["models"] if item["id"] == "qwen3-next-80b-a3b")
    linear = next(group for group in entry["layers"] if group["kind"] == "linear")
    state = linear["count"] * 4 * (
        (2 * linear["key_heads"] * linear["key_head_dim"] + linear["value_heads"] * linear["value_head_dim"])
        * (linear["conv_kernel"] - 1)
        + linear["value_heads"] * linear["value_head_dim"] * linear["key_head_dim"])
    per_token = _bytes_per_token(entry, Decimal(2))
    pages = render_page(tmp_path, f"models/{entry['id']}")
    assert f"fixed state of {state:,} bytes per sequence" in pages["en"]
    others = sum(group["count"] for group in entry["layers"] if group["kind"] != "linear")
    assert f"Only the other {others:,} layers grow with the context" in pages["en"]
    assert f"its KV cache costs {int(per_token):,} bytes per token" in pages["en"]
    assert f"{state:,} 字节的固定状态" in pages["zh-cn"]


def _twin_and_html(site: Path, page_id: str) -> tuple[dict[str, str], dict[str, str]]:
    """One page's Markdown twin and HTML in every language, by URL segment, from one build."""
    rendered = edits.rendered_page(site, page_id)
    return ({segment: page.markdown.decode() for segment, page in rendered.items()},
            {segment: page.html.decode() for segment, page in rendered.items()})


def test_the_methods_section_and_the_calculator_name_the_selection_rule(tmp_path):
    """The cheapest rule takes one card before several, so a pair of cards may cost less than its choice:
    the model page's methods sentence and the calculator's answer say so. Under the smallest-fit rule they
    state that rule instead."""
    live_copy(tmp_path)
    page = "models/gemma-3-27b-it"
    cheapest_twin, cheapest_html = _twin_and_html(tmp_path, page)
    assert "the cheapest single card, several cards only where no single card starts it" in cheapest_twin["en"]
    assert "最便宜的单卡，只有单卡都启动不了时才用多卡" in cheapest_twin["zh-cn"]
    assert '<p class="calc-choice"><strong>Cheapest fit (one card first)</strong>' in cheapest_html["en"]
    assert '<p class="calc-choice"><strong>最便宜的够用配置（单卡优先）</strong>' in cheapest_html["zh-cn"]

    edits.set_selection(tmp_path, "smallest_fit")
    smallest_twin, smallest_html = _twin_and_html(tmp_path, page)
    assert "cheapest single card" not in smallest_twin["en"]
    assert "最便宜的单卡" not in smallest_twin["zh-cn"]
    assert "the fewest cards, then the least memory, then the lowest price" in smallest_twin["en"]
    assert "先取最少卡数，再取显存最小的卡，最后取价格最低的" in smallest_twin["zh-cn"]
    assert '<p class="calc-choice"><strong>Smallest fit</strong>' in smallest_html["en"]
    assert '<p class="calc-choice"><strong>最小的够用配置</strong>' in smallest_html["zh-cn"]


def test_each_model_has_one_file_of_tables_per_language_linked_from_its_page(built):
    """At thousands of models, two files per table per language would be ~32 files a model: its tables are one
    JSON per language instead, each table's record what the table's own download would hold."""
    from vramsite.publish.downloads import table_record
    from vramsite.render.inline import InlineRenderer

    build, files = built
    tables = {table.id: table for table in build.tables.shown()}
    for locale in build.data.site.locales:
        say = InlineRenderer.plain(build.formatter(locale))
        for model in build.data.catalogue:
            path = f"data/{locale.segment}/models/{model.id}.json"
            document = json.loads(files[path])
            page = files[f"{locale.segment}/models/{model.id}.html"].decode()
            shown = sorted(set(re.findall(r'id="table-(model-[a-z]+-' + re.escape(model.id) + ')"', page)))
            assert [table["id"] for table in document["tables"]] == shown, (locale.segment, model.id)
            assert document["tables"] == [table_record(tables[table_id], say) for table_id in shown]
            assert page.count(f'href="../../data/{locale.segment}/models/{model.id}.json"') == len(shown)
            assert not any(f"data/{locale.segment}/{table_id}.{ext}" in files for table_id in shown
                           for ext in ("json", "csv"))


def test_a_models_files_are_its_pages_its_tables_and_its_engine_figures(built):
    """What the site writes for one model, which sets how the output grows with the catalogue."""
    _, files = built
    model = "llama-3.1-8b"
    named = sorted(path for path in files if path.rsplit("/", 1)[-1].startswith(f"{model}."))
    assert named == sorted([*(f"{segment}/models/{model}.html{twin}" for segment in ("en", "zh-cn")
                              for twin in ("", ".md")),
                            *(f"data/{segment}/models/{model}.json" for segment in ("en", "zh-cn")),
                            model_path(model)])


PAGE_WEIGHT = 40_000
"""The most a model page and what it loads with it may weigh, gzipped."""


def _loaded_with(page: str, html: str) -> list[str]:
    """The site files a page loads with it: its style sheets and scripts, and its calculator's language data."""
    found = re.findall(r'<link rel="stylesheet" href="([^"]+)"|<script src="([^"]+)"|data-source="([^"]+)"', html)
    here = posixpath.dirname(page)
    return [posixpath.normpath(posixpath.join(here, next(filter(None, match)))) for match in found]


def test_a_model_page_with_what_it_loads_weighs_under_40_kb_gzipped(built):
    """Each model page in each language, with its styles, its scripts and its calculator's language data, gzipped
    (the model's own calculator file is fetched when the reader changes the case: tests/test_calculator_browser.py);
    the heaviest is named."""
    build, files = built
    weights = {}
    for page in (path for path in files if re.fullmatch(r"[^/]+/models/[^/]+\.html", path) and
                 not path.endswith("/index.html")):
        loaded = _loaded_with(page, files[page].decode())
        assert any(path.endswith("calculator.json") for path in loaded), page
        weights[page] = sum(len(gzip.compress(files[path], 9)) for path in [page, *loaded])
    heaviest = max(weights, key=weights.get)
    assert len(weights) == len(build.data.site.locales) * len(build.data.catalogue)
    assert weights[heaviest] <= PAGE_WEIGHT, f"{heaviest}: {weights[heaviest]:,} bytes gzipped with what it loads"


@pytest.mark.parametrize("name, options", [("cost", {}), ("model_weights", {"model": "llama-3.1-8b"})])
def test_two_different_tables_with_one_id_are_a_problem_in_their_own_files_or_a_models(built, name, options):
    import dataclasses

    from vramsite.errors import InputError
    from vramsite.publish.downloads import download_files
    from vramsite.render.inline import InlineRenderer
    from vramsite.tables.model import Text

    build, _ = built
    table = build.tables.build(name, **options)
    other = dataclasses.replace(table, caption=Text("another table"))
    locale = build.data.site.locales[0]
    languages = {locale.segment: InlineRenderer.plain(build.formatter(locale))}
    with pytest.raises(InputError) as raised:
        download_files([("a", lambda: table), ("b", lambda: other)], languages)
    assert [problem.message for problem in raised.value.problems] == [
        f"two different tables have the id {table.id!r}; give each its own"]
    assert download_files([("a", lambda: table), ("b", lambda: table)], languages)


def test_a_calculator_opening_on_a_real_model_links_its_page_but_not_on_that_page(tmp_path):
    """The answer's link to its model's page, as the build draws it: present where the calculator opens on a real
    model elsewhere (the guide, opened on Gemma 3 27B by an editor), hidden on the model's own page."""
    live_copy(tmp_path)
    for segment in ("en", "zh-cn"):
        guide = tmp_path / "content" / segment / "vram.md"
        guide.write_text(guide.read_text(encoding="utf-8").replace("{{ calculator() }}",
                                                                     '{{ calculator("gemma-3-27b-it") }}'),
                         encoding="utf-8")
    _, guide_html = _twin_and_html(tmp_path, "vram")
    assert '<a class="calc-page" href="models/gemma-3-27b-it.html">More on Gemma 3 27B IT</a>' in guide_html["en"]
    assert '<a class="calc-page" href="models/gemma-3-27b-it.html">Gemma 3 27B IT 详情页</a>' in guide_html["zh-cn"]
    _, own_html = _twin_and_html(tmp_path, "models/gemma-3-27b-it")
    assert all('<a class="calc-page" hidden></a>' in html for html in own_html.values())
