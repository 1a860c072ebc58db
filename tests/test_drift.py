"""Edit the data, rebuild: every dependent figure follows, none is left behind.

The edits start from the frozen seed 000 data, whose figures the table below names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seed_sites import assemble_seed_site
from vramsite.publish.site import SiteBuild


def replace_in(root: Path, name: str, old: str, new: str) -> None:
    path = root / "data" / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def pages_text(files: dict[str, bytes]) -> dict[str, str]:
    return {path: content.decode("utf-8") for path, content in files.items() if path.endswith((".html", ".md"))}


@pytest.fixture(scope="module")
def before(seed_000_built):
    return pages_text(seed_000_built[1])


@pytest.fixture(scope="module")
def after(tmp_path_factory):
    root = assemble_seed_site(tmp_path_factory.mktemp("drift") / "site", "000")
    replace_in(root, "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 260}")
    replace_in(root, "models.yaml", "    layers: 80\n", "    layers: 64\n")
    replace_in(root, "sizing.yaml", "  context_tokens: 8192\n", "  context_tokens: 16384\n")
    return pages_text(SiteBuild(root).render())


# (text before the edit, text after it): the first must vanish from every page, the second appear.
CHANGES = [
    ("$240", "$260"),            # the A40's monthly price
    ("$5.00", "$5.42"),          # its price per GB: 260 ÷ 48
    ("$1,728", "$1,872"),        # 8× A40 with the 10 % discount
    ("$456", "$494"),            # 2× A40 with the 5 % discount
    ("0.33 MB", "0.26 MB"),      # 70B KV per token with 64 layers
    ("42.9 GB", "34.4 GB"),      # 70B KV cache at 128k
    ("8,192", "16,384"),         # the default context
]


@pytest.mark.parametrize("old,new", CHANGES, ids=[change[0] for change in CHANGES])
def test_dependent_figures_follow_the_data(before, after, old, new):
    guide_pages = [path for path in after if path.split("/")[-1].startswith("vram.html")]
    assert len(guide_pages) == 4  # two languages, HTML and Markdown
    assert any(old in before[path] for path in guide_pages), f"{old} was on the guide before the edit"
    stale = [path for path, text in after.items() if old in text]
    assert not stale, f"{old} still on {stale}"
    for path in guide_pages:
        assert new in after[path], f"{new} missing from {path}"


def test_a_changed_layer_count_reaches_the_prose_and_the_shape_column(before, after):
    for language, words in (("en", "{n} layers"), ("zh-cn", "{n} 层")):
        for suffix in (".html", ".html.md"):
            path = f"{language}/vram{suffix}"
            assert words.format(n=80) in before[path]
            assert words.format(n=80) not in after[path]
            assert words.format(n=64) in after[path]


def test_context_headings_follow_the_default_context(before, after):
    for path in ("en/vram.html.md", "zh-cn/vram.html.md"):
        assert "KV cache at 8k" in before["en/vram.html.md"]
        assert "16k" in after[path]
