"""`build.py diff REV` reports everything the site publishes: every language, the files besides
the pages (downloads, charts, sitemap, llms.txt), and every site of the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from babel.messages.pofile import read_po, write_po

import data_edits as edits
from cli_support import run_cli
from seed_sites import assemble_seed_site
from vramsite.changes import NO_CHANGE, SiteText, compare, format_report, site_text
from vramsite.changes.text_diff import highlight

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Editor", "GIT_AUTHOR_EMAIL": "editor@example.invalid",
           "GIT_COMMITTER_NAME": "Editor", "GIT_COMMITTER_EMAIL": "editor@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def commit_all(repo, message: str = "the site as published") -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A repository like this one: the seed 000 site at its top, the seed 003 site in sites/quick."""
    repo = tmp_path_factory.mktemp("published")
    assemble_seed_site(repo, "000")
    assemble_seed_site(repo / "sites" / "quick", "003")
    commit_all(repo)
    return repo


@pytest.fixture
def repo(published, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(published, copy, symlinks=True)
    return copy


def diff(site, rev: str = "HEAD") -> str:
    run = run_cli("diff", rev, "--site", str(site))
    assert run.returncode == 0, run.stderr
    return run.stdout


def sections(report: str) -> dict[str, str]:
    """Each `####` section's body, by its heading."""
    found = {}
    for block in report.split("\n#### ")[1:]:
        heading, _, body = block.partition("\n")
        found[heading] = body.split("\n### ", 1)[0]
    return found


def page_headings(report: str) -> list[str]:
    return [heading for heading in sections(report) if heading.endswith("`)")]


def replace(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_nothing_changed_in_any_site(repo):
    assert diff(repo) == NO_CHANGE + "\n"


def test_a_chinese_sentence_appears_under_its_page_and_language(repo):
    pricing = repo / "content" / "zh-cn" / "pricing.md"
    pricing.write_text(pricing.read_text(encoding="utf-8") + "\n\n价格每季度核对一次。\n", encoding="utf-8")
    report = diff(repo)
    headings = page_headings(report)
    assert headings == [next(h for h in headings if h.endswith("· zh-CN (`zh-cn/pricing.html`)"))], report
    assert "- added: 价格每季度核对一次。" in sections(report)[headings[0]]
    assert "1 change on 1 page in zh-CN." in report


def test_a_chinese_ui_string_appears_on_every_chinese_page_that_shows_it(repo):
    nav = "Pricing"  # the menu label of the pricing page, on every page
    path = repo / "locales" / "zh_CN" / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="zh_CN")
    old = catalog[nav].string
    catalog[nav].string = "租用价格"
    with path.open("wb") as handle:
        write_po(handle, catalog, width=0)
    report = diff(repo)
    headings = page_headings(report)
    assert "· zh-CN (`zh-cn/pricing.html`)" in "\n".join(headings)
    assert headings and all("· zh-CN (`zh-cn/" in heading for heading in headings), headings
    assert f"`{old}` → `租用价格`" in report
    assert "(`en/" not in report


def test_a_price_lists_the_changed_records_of_each_download(repo):
    replace(repo / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    report = diff(repo)
    others = sections(report)["Other published files (downloads, charts, sitemap, llms.txt)"]
    for segment in ("en", "zh-cn"):
        assert f"- `data/{segment}/cost.json`, `data/{segment}/cost.csv`:\n  - `a40`: price.value `240` → `300`;" in others
    assert "- `assets/charts/zh-cn-cost.svg`: redrawn" in others
    assert "- `llms.txt`:" in others and "$300/月" in others
    # both languages' pages, each under its own heading
    assert any(h.endswith("· en (`en/pricing.html`)") for h in page_headings(report))
    assert any(h.endswith("· zh-CN (`zh-cn/pricing.html`)") for h in page_headings(report))


def test_a_change_in_a_models_file_of_tables_is_reported_table_by_table():
    from vramsite.changes.files import file_changes

    table = {"id": "model-kv-m", "language": "en", "caption": "M KV cache", "rows": [
        {"key": "bf16", "header": "BF16", "cells": {"kv_8192": {"value": "1.07", "exact": "1.073741824", "unit": "GB"}}}]}
    other = {**table, "id": "model-weights-m", "rows": []}
    before = json.dumps({"language": "en", "tables": [table, other]}).encode()
    table["rows"][0]["cells"]["kv_8192"]["value"] = "1.1"
    after = json.dumps({"language": "en", "tables": [table, other]}).encode()
    path = "data/en/models/m.json"
    assert file_changes({path: before}, {path: after}, [path]) == [
        f"- `{path}`:", "  - `model-kv-m bf16`: kv_8192.value `1.07` → `1.1`"]


def test_a_change_seen_only_in_a_download_is_reported(tmp_path):
    site = assemble_seed_site(tmp_path / "site", "000")
    before = site_text(site)
    download = json.loads(before.files["data/en/cost.json"])
    row = next(row for row in download["rows"] if row["key"] == "a40")
    row["cells"]["price"]["value"] = "240.5"
    after = SiteText(before.pages, {**before.files, "data/en/cost.json": json.dumps(download).encode("utf-8")})
    report = format_report(compare(before, after), "main")
    assert page_headings(report) == []
    assert "1 other file changed." in report
    assert "- `data/en/cost.json`:\n  - `a40`: price.value `240` → `240.5`\n" in report


def test_a_change_to_the_quick_site_gets_its_own_section(repo):
    replace(repo / "sites" / "quick" / "data" / "prices.yaml", "{gpu: h100, usd: 1.65}", "{gpu: h100, usd: 1.75}")
    report = diff(repo)
    assert report.startswith("### What this change does to `sites/quick` (compared with `HEAD`)\n")
    assert "### What this change does to the site" not in report  # the first site did not change
    headings = page_headings(report)
    assert any(h.endswith("· en (`en/gpus/h100.html`)") for h in headings)
    assert any(h.endswith("· zh-CN (`zh-cn/gpus/h100.html`)") for h in headings)
    assert "  - `h100`: price.value `1.65` → `1.75`" in report
    # the quick site alone
    alone = diff(repo / "sites" / "quick")
    assert alone.startswith("### What this change does to the site (compared with `HEAD`)\n")
    assert page_headings(alone) == headings


def test_a_problem_in_the_quick_site_is_named_from_the_repository(repo):
    replace(repo / "sites" / "quick" / "data" / "prices.yaml", "{gpu: h100, usd: 1.65}", "{gpu: h100, usd: -1}")
    run = run_cli("diff", "HEAD", "--site", str(repo))
    assert run.returncode == 1
    assert run.stderr.startswith("sites/quick/data/prices.yaml:"), run.stderr
    assert "Traceback" not in run.stderr


def test_a_site_new_since_the_revision_reports_every_page_new(repo):
    shutil.copytree(repo / "sites" / "quick", repo / "sites" / "copy")
    report = diff(repo)
    assert report.startswith("### What this change does to `sites/copy` (compared with `HEAD`)\n")
    assert "- new page, with" in report
    assert "- `sitemap.xml`: new file" in report


def test_chinese_sentences_mark_the_characters_that_differ():
    assert highlight("价格按每卡每月计。", "价格按每张卡每月计。") == ("价格按每卡每月计。", "价格按每**张**卡每月计。")
    assert highlight("用 48 GB 的 A40，$240/月；", "用 48 GB 的 RTX A6000，$290/月；") == (
        "用 48 GB 的 **A40**，**$240**/月；", "用 48 GB 的 **RTX A6000**，**$290**/月；")


def test_a_new_card_adds_its_pages_to_the_sitemap_and_its_downloads(repo):
    edits.add_example_card(repo, "900")
    report = diff(repo)
    headings = page_headings(report)
    assert any(h.endswith("· zh-CN (`zh-cn/gpus/rtx-pro-6000.html`)") for h in headings)
    assert any(h.endswith("· en (`en/gpus/rtx-pro-6000.html`)") for h in headings)
    others = sections(report)["Other published files (downloads, charts, sitemap, llms.txt)"]
    sitemap = others[others.index("- `sitemap.xml`:\n"):].split("\n- ", 1)[0]
    assert "  - added: `https://gpu-rent-hub.example/zh-cn/gpus/rtx-pro-6000.html`" in sitemap
    assert "  - added: `https://gpu-rent-hub.example/en/gpus/rtx-pro-6000.html`" in sitemap
    assert "- `data/en/prices-rtx-pro-6000.json`, `data/en/prices-rtx-pro-6000.csv`: new file" in others
    assert "  - record added: `rtx-pro-6000`" in others
