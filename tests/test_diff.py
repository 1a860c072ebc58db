"""`build.py diff REV`: every figure an edit changes, by page, table, row and column, and in the prose."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import data_edits as edits
from seed_sites import assemble_seed_site
from vramsite.changes import NO_CHANGE
from vramsite.changes.compare import _change
from vramsite.changes.site_text import _sentences
from vramsite.changes.text_diff import highlight
from vramsite.publish import diff as diff_module
from vramsite.publish.diff import diff_report

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Editor", "GIT_AUTHOR_EMAIL": "editor@example.invalid",
           "GIT_COMMITTER_NAME": "Editor", "GIT_COMMITTER_EMAIL": "editor@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    run = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=GIT_ENV, check=True)
    return run.stdout


def make_repo(repo: Path, site: str = ".") -> Path:
    """A git repository holding the seed 000 site's sources at ``site`` (frozen data), committed."""
    folder = assemble_seed_site(repo / site, "000")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the site as published")
    return folder


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("repo"))


@pytest.fixture
def repo(published, tmp_path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(published, copy, symlinks=True)
    return copy


def diff(site: Path, rev: str = "HEAD") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "diff", rev, "--site", str(site)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=GIT_ENV)


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_nothing_changed(repo):
    run = diff(repo)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "No figure changed.\n"


def _builds_of(monkeypatch) -> list[Path]:
    """The site folders each later ``diff_report`` builds, in order."""
    built, build = [], diff_module.site_text
    monkeypatch.setattr(diff_module, "site_text", lambda root: built.append(Path(root)) or build(root))
    return built


def test_sources_as_at_the_revision_are_built_once(repo, monkeypatch):
    built = _builds_of(monkeypatch)
    assert diff_report(repo, "HEAD") == NO_CHANGE + "\n"
    assert built == [repo]


def test_sources_that_differ_in_any_byte_are_built_at_both(repo, monkeypatch):
    """A comment changes no figure, but only the two builds can say so."""
    prices = repo / "data" / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8") + "# checked again today\n", encoding="utf-8")
    built = _builds_of(monkeypatch)
    assert diff_report(repo, "HEAD") == NO_CHANGE + "\n"
    assert len(built) == 2 and built[0] == repo and built[1] != repo


def test_a_price_change_shows_its_whole_reach(repo):
    replace(repo / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 300}")
    run = diff(repo)
    assert run.returncode == 0, run.stderr
    report = run.stdout
    sections = {}
    for block in report.split("\n#### ")[1:]:
        heading, _, body = block.partition("\n")
        if heading.endswith("`)"):  # a page; the other files have a section of their own
            sections[heading[heading.rindex("(`") + 2:-2]] = body

    # the lookup grid: the A40 loses its cells to the RTX A6000 at $290
    vram = sections["en/vram.html"]
    assert "**The cheapest card that fits** (`lookup`)" in vram
    assert "- 13B · LoRA (27 GB): A40 $240/month → RTX A6000 $290/month\n" in vram
    assert "- 405B · QLoRA (235 GB): 8× A40 $1,728/month → 8× RTX A6000 $2,088/month\n" in vram
    # the cost table, on the guide and on the pricing page
    for page in ("en/vram.html", "en/pricing.html"):
        assert "- A40 · Price per month: $240/month → $300/month\n" in sections[page]
        assert "- A40 · $ per GB per month: $5.00 → $6.25\n" in sections[page]
    # the catalogue and the card's own page, title included
    assert "- A40 · Price per month: $240/month → $300/month" in sections["en/gpus/index.html"]
    a40 = sections["en/gpus/a40.html"]
    assert "- title: A40: 48 GB GDDR6, $240/month → A40: 48 GB GDDR6, $300/month" in a40
    assert "- 2× A40 · Order per month: $456/month → $570/month" in a40
    # the prose: the changed sentence, before → after, changed words in bold
    assert ("- The same model under QLoRA needs 41 GB: one **A40** at **$240/month**.  \n"
            "  → The same model under QLoRA needs 41 GB: one **RTX A6000** at **$290/month**.") in vram
    # a chart drawn from these figures
    if 'chart("cost")' in (ROOT / "content" / "en" / "vram.md").read_text(encoding="utf-8"):
        assert "- chart `cost` redrawn" in vram
    # pages the price does not reach are not mentioned
    assert "en/gpus/h200-sxm.html" not in sections
    # every language shows the change, each page under its own heading
    assert "- A40 · 月租: $240/月 → $300/月\n" in sections["zh-cn/pricing.html"]
    assert "zh-cn/gpus/h200-sxm.html" not in sections
    assert report.startswith("### What this change does to the site (compared with `HEAD`)")


def test_a_committed_change_compared_with_the_previous_commit(repo):
    replace(repo / "data" / "models.yaml", "    layers: 80\n", "    layers: 88\n")
    git(repo, "commit", "-q", "-am", "70B: 88 layers")
    assert diff(repo, "HEAD").stdout == "No figure changed.\n"
    report = diff(repo, "HEAD~1").stdout
    assert "- 70B · KV cache at 8k, batch 1: 2.7 GB → 3.0 GB\n" in report
    assert "(row heading): 70B — 80 layers · GQA · 8 KV heads → 70B — 88 layers · GQA · 8 KV heads" in report


def test_a_new_card_in_a_site_in_a_subfolder(tmp_path):
    site = make_repo(tmp_path, "sites/demo")
    edits.add_example_card(site, "900")
    report = diff_report(site, "HEAD")
    assert "#### RTX PRO 6000" in report and "(`en/gpus/rtx-pro-6000.html`)" in report
    assert "- new page, with" in report
    assert "- row added: RTX PRO 6000" in report and "$900/month" in report


def test_an_unknown_revision_is_an_error(repo):
    run = diff(repo, "no-such-branch")
    assert run.returncode == 2
    assert run.stderr.startswith("diff: ") and run.stdout == ""


def test_a_broken_working_tree_is_reported_like_a_build(repo):
    replace(repo / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: -1}")
    run = diff(repo)
    assert run.returncode == 1
    assert "data/prices.yaml:" in run.stderr and "prices[a40].usd: must be at least 1 USD per card-month" in run.stderr


def test_sentences_skip_tables_and_their_captions():
    twin = ("# Title\n\n> A summary. Two sentences.\n\n**Caption**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "- **192 GB**: the most VRAM\n- [A40](gpus/a40.html.md) at $240\n\n## Heading {#h}\n\n句子一。句子二。\n")
    assert _sentences(twin) == ["A summary.", "Two sentences.", "**192 GB**: the most VRAM", "A40 at $240",
                                "Heading {#h}", "句子一。", "句子二。"]


def test_a_shared_lead_moves_to_the_label():
    assert _change("13B · LoRA", "27 GB: A40 $240", "27 GB: RTX A6000 $290") == \
        "- 13B · LoRA (27 GB): A40 $240 → RTX A6000 $290"
    assert _change("A40 · Price", "$240/month", "$300/month") == "- A40 · Price: $240/month → $300/month"
    assert highlight("one A40 at $240.", "one L4 at $250.") == ("one **A40** at **$240**.", "one **L4** at **$250**.")
