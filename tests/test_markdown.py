"""The Markdown step: heading ids, the twin's headings, and an FAQ read from the parsed text."""

from __future__ import annotations

from vramsite.publish.discovery import faq_jsonld
from vramsite.render.markdown import make_markdown, section_pairs, strip_heading_ids

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


def test_heading_ids_go_to_the_html_and_leave_the_twin():
    html = make_markdown().render(SOURCE)
    assert '<h2 id="faq">Questions</h2>' in html
    assert "{#" not in strip_heading_ids(SOURCE) and "## Questions\n" in strip_heading_ids(SOURCE)


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
