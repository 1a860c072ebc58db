"""The guide's "Measured on a real GPU" section and a measured card's line: present with a run, absent without."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from live_sites import live_build
from site_support import heading_ids, markdown_table_rows, parse_html, table_rows
from vramsite.errors import InputError
from vramsite.publish.site import SiteBuild

ROOT = Path(__file__).resolve().parent.parent
RUN = Path("data/measurements/h200-2026-11-30.yaml")


@pytest.fixture(scope="module")
def built():
    return live_build("default")[1]


@pytest.fixture(scope="module")
def built_without_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("no-runs")
    for name in ("data", "content", "templates", "locales"):
        shutil.copytree(ROOT / name, root / name)
    shutil.rmtree(root / "data" / "measurements")
    (root / "data" / "throughput.yaml").unlink()  # its bandwidth share is a run's: without runs, no speeds
    return SiteBuild(root).render()


@pytest.mark.parametrize("segment, faq", [("en", "faq"), ("zh-cn", "faq")])
def test_the_section_sits_right_before_the_questions(built, segment, faq):
    ids = heading_ids(parse_html(built[f"{segment}/vram.html"]))
    assert ids.index("measured") + 1 == ids.index(faq)


@pytest.mark.parametrize("segment", ["en", "zh-cn"])
def test_the_html_and_markdown_tables_show_the_same_figures(built, segment):
    html = table_rows(parse_html(built[f"{segment}/vram.html"]), "measured")
    markdown = built[f"{segment}/vram.html.md"].decode()
    caption = "Formula against measured" if segment == "en" else "公式与实测对比"
    twin = markdown_table_rows(markdown, caption)
    assert len(html) == len(twin) >= 10
    assert [cells for cells in html.values()] == [cells for cells in twin.values()]
    provenance = {"en": "NVIDIA H200, torch 2.11.0+cu130, transformers 5.17, random weights, sdpa attention",
                  "zh-cn": "NVIDIA H200，torch 2.11.0+cu130，transformers 5.17，随机权重，sdpa 注意力"}[segment]
    assert provenance in markdown  # the provenance line, in the page's language


def test_the_table_downloads_and_the_chart_are_written(built):
    table = json.loads(built["data/en/measured.json"])
    assert [column["key"] for column in table["columns"]] == ["formula", "measured", "difference", "percent"]
    overhead = next(row for row in table["rows"] if row["key"] == "overhead")
    assert Decimal(overhead["cells"]["measured"]["value"]) < Decimal(overhead["cells"]["formula"]["value"])
    csv = built["data/en/measured.csv"].decode("utf-8-sig").splitlines()
    assert csv[0].startswith("key,header,formula,formula_exact,formula_unit,measured,measured_exact") and len(csv) == len(table["rows"]) + 1
    assert b"<svg" in built["assets/charts/en-measured.svg"]
    assert b'id="chart-en-measured"' in built["en/vram.html"]


def test_the_prose_s_conclusions_follow_the_figures(built):
    text = built["en/vram.html.md"].decode()
    assert "that assumption is conservative" in text  # 0.82 GB of context and workspace against 2 GB
    assert "81% of the 4.8 TB/s" in text


def test_a_measured_card_s_page_says_so_and_other_cards_do_not(built):
    assert "143,771 MiB" in built["en/gpus/h200-sxm.html.md"].decode()
    assert "143,771 MiB" in built["zh-cn/gpus/h200-sxm.html.md"].decode()
    assert "Measured on one of these cards" not in built["en/gpus/h100-sxm.html.md"].decode()


def test_without_a_run_there_is_no_section_table_or_line(built_without_runs):
    for segment in ("en", "zh-cn"):
        assert "measured" not in heading_ids(parse_html(built_without_runs[f"{segment}/vram.html"]))
        assert "#measured" not in built_without_runs[f"{segment}/vram.html.md"].decode()
        assert "MiB" not in built_without_runs[f"{segment}/gpus/h200-sxm.html.md"].decode()
    assert not any(path.endswith("/measured.json") for path in built_without_runs)
    assert not any("measured" in path for path in built_without_runs if path.startswith("assets/charts/"))


def test_without_a_run_the_model_pages_give_no_speeds_and_price_no_tokens(built_without_runs):
    page = built_without_runs["en/models/llama-3.1-8b.html.md"].decode()
    assert "{#speed}" not in page and "The site states no decode speeds, so it prices no tokens." in page
    assert "本站没有给出解码速度" in built_without_runs["zh-cn/models/llama-3.1-8b.html.md"].decode()


def test_removing_the_run_the_speeds_are_worked_from_is_an_error_at_that_line(tmp_path):
    for name in ("data", "content", "templates", "locales"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.rmtree(tmp_path / "data" / "measurements")
    with pytest.raises(InputError) as raised:
        SiteBuild(tmp_path)
    line = next(number for number, text in enumerate(
        (ROOT / "data" / "throughput.yaml").read_text(encoding="utf-8").splitlines(), start=1)
        if text.strip().startswith("measurement:"))
    assert f"data/throughput.yaml:{line}: bandwidth.measurement: unknown measurement" in str(raised.value)


def test_the_quick_site_has_no_measurements_and_no_section(seed_003_built):
    build, files = seed_003_built
    assert build.data.measurements == ()
    assert not any("measured" in path for path in files)
