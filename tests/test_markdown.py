"""The Markdown step: heading ids, the twin's headings, an FAQ read from the parsed text, and nothing live from content."""

from __future__ import annotations

import pytest

from vramsite.publish.discovery import faq_jsonld
from vramsite.render.markdown import UnsafeMarkup, make_markdown, section_pairs

SOURCE = """\
## Before {#intro}

### Not a question

Not an answer.

## Questions {#faq}

### Does `BF16` fit?

Yes: <span class="fig" title="70 × 2">140&nbsp;GB</span> on
two cards &amp; a switch.

> Quoted, and still part of the answer.

- a tight list
- is not

### An unanswered heading

## After {#after}

### Outside again

Text.
"""


def test_heading_ids_become_the_html_headings_ids():
    html = make_markdown().render(SOURCE)
    assert '<h2 id="faq">Questions</h2>' in html


def test_the_faq_is_the_h3_headings_and_paragraphs_of_its_section_as_plain_text():
    pairs = section_pairs(make_markdown().parse(SOURCE), "faq")
    assert pairs == [
        ("Does BF16 fit?", "Yes: 140 GB on two cards & a switch. Quoted, and still part of the answer."),
        ("An unanswered heading", ""),
    ]


def test_faq_jsonld_keeps_answered_questions_and_escapes_markup():
    text = faq_jsonld([("Why <b>?", "Because & so"), ("Empty", "")])
    assert "<" not in text and "&" not in text and "Empty" not in text
    assert faq_jsonld([("Empty", "")]) is None


# -- nothing live from content (markdown.engine_markup_only) ------------------------------------------------------

LIVE = [
    "<script>alert(1)</script>",
    "Text, then <script>alert(1)</script> inline.",
    "<ScRiPt>alert(1)</ScRiPt>",
    '<script type="text/javascript">alert(1)</script>',
    '<script src="https://evil.example/x.js"></script>',
    '<script src="../assets/calculator.js">alert(1)</script>',
    '<script type="application/json">{}</script><script>alert(1)</script>',
    '<a href="javascript:alert(1)">a</a>',
    '<a href="jav&#x61;script:alert(1)">a</a>',
    '<a href="java&#9;script:alert(1)">a</a>',
    '<a href="&#x0A; JaVaScRiPt:alert(1)">a</a>',
    '<a href="data:text/html,x">a</a>',
    "<img src=x onerror=alert(1)>",
    '<span class="fig" onmouseover="alert(1)">x</span>',
    "<DIV onClick=alert(1)>",
    "<details open ontoggle=alert(1)>",
    '<form action="javascript:alert(1)"><input></form>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<div>\n<iframe src=x></iframe>\n</div>",
    '<svg><foreignObject><p>x</p></foreignObject></svg>',
    '<svg><animate attributeName="href" to="javascript:alert(1)"/></svg>',
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<base href=x>",
    "<!-- <script>alert(1)</script> -->",
    "[a](javascript:alert(1))",
    "[a](jav&#x61;script:alert(1))",
    "[a](javascript&colon;alert(1))",
    "[a](<javascript:alert(1)>)",
    "[a](vbscript:msgbox(1))",
    "[a](data:text/html,<script>alert(1)</script>)",
    "![i](data:image/png;base64,AAAA)",
    "![i](data:image/svg+xml;base64,AAAA)",
    "[a](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "[a][r]\n\n[r]: javascript:alert(1)",
]


@pytest.mark.parametrize("markdown", LIVE)
def test_content_reaches_no_page_with_script_a_handler_or_an_unsafe_url(markdown):
    with pytest.raises(UnsafeMarkup) as refused:
        make_markdown().render(markdown)
    assert "is not allowed in content" in str(refused.value) and "\n" not in str(refused.value)


INERT = {
    "[a](https://example.org/x)": '<p><a href="https://example.org/x">a</a></p>\n',
    "[a](../gpus/a40.html#specs)": '<p><a href="../gpus/a40.html#specs">a</a></p>\n',
    "[a](mailto:sales@example.org)": '<p><a href="mailto:sales@example.org">a</a></p>\n',
    "<https://example.org>": '<p><a href="https://example.org">https://example.org</a></p>\n',
    "`<script>`": "<p><code>&lt;script&gt;</code></p>\n",
    "    <script>alert(1)</script>": "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n",
    "a < b, c > d": "<p>a &lt; b, c &gt; d</p>\n",
    "<img/src=x/onerror=alert(1)>": "<p>&lt;img/src=x/onerror=alert(1)&gt;</p>\n",
    "[a](\\javascript:alert(1))": '<p><a href="%5Cjavascript:alert(1)">a</a></p>\n',
}


@pytest.mark.parametrize("markdown", INERT)
def test_markdown_links_code_and_text_that_only_look_like_markup_stay_as_they_were(markdown):
    assert make_markdown().render(markdown) == INERT[markdown]


def test_the_engine_s_own_blocks_pass():
    """The markup the engine writes into content: a figure, a link, the calculator's scripts, a chart's SVG."""
    blocks = ['A <span class="fig" tabindex="0" title="2 × 80 layers × … = 2.7 GB">2.7 GB</span> and '
              '<a href="../gpus/a40.html">A40</a>.',
              '<section class="calc" id="calculator" data-calc aria-label="x">\n'
              '<script type="application/json">{"a":"\\u003c/script>"}</script>\n</section>\n'
              '<script src="../../assets/calculator.js" defer></script>',
              '<div class="chart" style="overflow-x:auto;margin:1.5rem 0">\n<svg xmlns="http://www.w3.org/2000/svg" '
              'viewBox="0 0 10 10" role="img"><title id="t">x</title><rect x="1" y="1" width="2" height="2" '
              'fill="#fff"/></svg>\n</div>']
    for block in blocks:
        make_markdown().render(block)
