"""The Chinese pages of both sites read by the conventions of Chinese technical writing.

What a reader sees (the HTML's text, the charts' texts and the Markdown twins) is checked for each
class of mistake: "VRAM" in Chinese prose (the word is 显存), a byte unit written "B" after a number
(in "7B" the B means billion parameters; bytes are 字节), ASCII punctuation next to Chinese, a space
between two Chinese characters, two columns of one table with one heading, "。 " and "？：".
Each check also runs on a planted example of its mistake, so that a check that finds nothing fails.
"""

from __future__ import annotations

import re

import pytest

from live_sites import live_build, live_trees
from site_support import SITES, XHTML, parse_html

SVG = "{http://www.w3.org/2000/svg}"
HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
ZH = "zh-cn/"

BLOCKS = {f"{XHTML}{tag}" for tag in ("title", "h1", "h2", "h3", "h4", "p", "li", "th", "td", "caption",
                                      "figcaption", "dt", "dd", "summary", "a", "strong")}
BLOCKS |= {f"{SVG}{tag}" for tag in ("text", "title", "desc")}
"""Elements whose joined text is a run of prose a reader sees as one piece."""
ATTRIBUTES = ("alt", "aria-label", "title")
HIDDEN = {f"{XHTML}script", f"{XHTML}style"}

VRAM_IN_CHINESE = re.compile(rf"{HAN}[^。！？\n]*?VRAM|VRAM[^。！？\n]*?{HAN}")
BYTES_AS_B = re.compile(r"\d[\d,.]*\s+B(?![A-Za-z0-9])")
ASCII_PUNCTUATION = re.compile(rf"{HAN}\s*[,:;?!()]|[,:;?!()]\s*{HAN}")
SPACE_IN_CHINESE = re.compile(rf"{HAN}[ \u00a0\t]+{HAN}")
STOP_THEN_SPACE = re.compile(r"[。！？][ \u00a0]")
QUESTION_COLON = re.compile(r"？[：:]")

CHECKS = {
    "VRAM in Chinese prose (write 显存)": VRAM_IN_CHINESE,
    "a byte unit written B after a number (write 字节)": BYTES_AS_B,
    "ASCII punctuation next to Chinese (write it full-width)": ASCII_PUNCTUATION,
    "a space between two Chinese characters": SPACE_IN_CHINESE,
    "a space after a full stop": STOP_THEN_SPACE,
    "？ followed by ：": QUESTION_COLON,
}

MD_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
MD_CODE = re.compile(r"`[^`]*`")
MD_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _runs(element) -> list[str]:
    """The element's text in runs: a cell's main and sub lines are shown as blocks of their own (style.css)."""
    runs, current = [], [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and (child.get("class") or "").split()[:1] in (["main"], ["sub"]):
            runs.append("".join(current))
            runs += _runs(child)
            current = []
        elif isinstance(child.tag, str) and child.tag not in HIDDEN:
            inner = _runs(child)
            current.append(inner[0])
            if len(inner) > 1:
                runs.append("".join(current))
                runs += inner[1:-1]
                current = [inner[-1]]
        current.append(child.tail or "")
    return runs + ["".join(current)]


def html_texts(tree) -> list[str]:
    """Each run of prose of a parsed HTML page as a reader sees it, charts included, plus the attributes read
    aloud."""
    texts = []
    for element in tree.iter():
        if not isinstance(element.tag, str) or element.tag in HIDDEN:
            continue
        if element.tag in BLOCKS:
            texts += [_squash(run) for run in _runs(element)]
        texts += [_squash(element.get(name)) for name in ATTRIBUTES if element.get(name)]
    return [text for text in texts if text]


def markdown_texts(content: bytes) -> list[str]:
    """Each line of a Markdown twin as it reads, without link targets and code."""
    lines = []
    for line in content.decode("utf-8").split("\n"):
        if MD_TABLE_RULE.match(line):
            continue
        line = MD_CODE.sub("code", MD_LINK_TARGET.sub("]", line))
        lines += [_squash(cell) for cell in line.split("|")] if line.lstrip().startswith("|") else [_squash(line)]
    return [line for line in lines if line]


def wording_problems(texts: list[str]) -> list[str]:
    problems = []
    for text in texts:
        for name, pattern in CHECKS.items():
            found = pattern.search(text)
            if found:
                problems.append(f"{name}: …{text[max(found.start() - 12, 0):found.end() + 12]}…")
    return problems


def html_heading_problems(tree) -> list[str]:
    """Two columns of one table of a parsed HTML page under one heading."""
    problems = []
    for table in tree.iter(f"{XHTML}table"):
        for row in table.iter(f"{XHTML}thead"):
            for header in row.iter(f"{XHTML}tr"):
                problems += _duplicates([_squash("".join(cell.itertext())) for cell in header])
    return problems


def markdown_heading_problems(content: bytes) -> list[str]:
    """Two columns of one Markdown table under one heading: the row above each |---| rule."""
    lines = content.decode("utf-8").split("\n")
    problems = []
    for number, line in enumerate(lines[1:], start=1):
        if MD_TABLE_RULE.match(line) and lines[number - 1].lstrip().startswith("|"):
            problems += _duplicates([_squash(cell) for cell in lines[number - 1].strip().strip("|").split("|")])
    return problems


def _duplicates(headings: list[str]) -> list[str]:
    named = [heading for heading in headings if heading]
    return [f"two columns headed {heading!r}: {named}" for heading in sorted(set(named)) if named.count(heading) > 1]


def page_problems(path: str, content: bytes, tree=None) -> list[str]:
    """What breaks the conventions on a page (an HTML page's ``tree``: its parse, where it is at hand)."""
    if path.endswith(".html"):
        tree = parse_html(content) if tree is None else tree
        found = wording_problems(html_texts(tree)) + html_heading_problems(tree)
    else:
        found = wording_problems(markdown_texts(content)) + markdown_heading_problems(content)
    return [f"{path}: {problem}" for problem in dict.fromkeys(found)]


@pytest.fixture(scope="module", params=sorted(SITES))
def zh_pages(request) -> dict[str, tuple]:
    """Each Chinese page and twin: its bytes, and a page's parse (live_sites)."""
    _build, site = live_build(request.param)
    trees = live_trees(request.param)
    return {path: (content, trees.get(path)) for path, content in site.items()
            if path.startswith(ZH) and path.endswith((".html", ".html.md"))}


def test_the_chinese_pages_follow_the_conventions(zh_pages):
    assert len(zh_pages) > 5
    problems = [problem for path, (content, tree) in sorted(zh_pages.items())
                for problem in page_problems(path, content, tree)]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


PLANTED = {
    "VRAM in Chinese prose (write 显存)": "<p>部署这个模型需要多少 VRAM？</p>",
    "a byte unit written B after a number (write 字节)": "<p>BF16 下每个参数占 2 B。</p>",
    "ASCII punctuation next to Chinese (write it full-width)": "<p>7B, 全量微调: 129 GB</p>",
    "a space between two Chinese characters": "<p>405B 用 全量微调 的 7,452 GB</p>",
    "a space after a full stop": "<p>价格更新于 2026年9月1日。 <a href=\"x\">本页</a></p>",
    "？ followed by ：": "<p>我需要多少显存？：</p>",
}


def _page(body: str) -> str:
    return f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>t</title></head><body>{body}</body></html>'


@pytest.mark.parametrize("check", sorted(PLANTED))
def test_each_wording_check_finds_its_planted_mistake(check):
    html = _page(PLANTED[check])
    assert [problem for problem in page_problems("zh-cn/x.html", html.encode()) if problem.split(": ")[1] == check]
    markdown = re.sub(r"<[^>]+>", "", PLANTED[check]).encode()
    assert [problem for problem in page_problems("zh-cn/x.html.md", markdown) if problem.split(": ")[1] == check]
    assert not page_problems("zh-cn/x.html", _page("<p>7B 模型每个参数需要 16 字节。本页的 Markdown 版本</p>").encode())


def test_the_heading_check_finds_two_columns_with_one_heading():
    html = _page("<table><thead><tr><th>显卡</th><th>显存</th><th>显存</th></tr></thead>"
                 "<tbody><tr><td>a</td><td>1</td><td>2</td></tr></tbody></table>")
    assert any("显存" in problem for problem in page_problems("zh-cn/x.html", html.encode()))
    markdown = "| 显卡 | 显存 | 显存 |\n|---|---:|---:|\n| a | 1 | 2 |\n"
    assert any("显存" in problem for problem in page_problems("zh-cn/x.html.md", markdown.encode()))
    assert not page_problems("zh-cn/x.html.md", "| 显卡 | 显存 |\n|---|---:|\n| a | 1 |\n".encode())
