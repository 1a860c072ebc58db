"""Files that help crawlers and agents find the pages: sitemap, robots, llms.txt, FAQ JSON-LD."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from xml.sax.saxutils import escape, quoteattr


def sitemap(base_url: str, keys: list[str], locales) -> bytes:
    """Every page in every language, each with its alternates (itself and x-default included)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
             'xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for key in keys:
        alternates = [(locale.tag, f"{base_url}/{locale.segment}/{key}.html") for locale in locales]
        alternates.append(("x-default", f"{base_url}/"))
        for _, url in alternates[:-1]:
            lines.append("  <url>")
            lines.append(f"    <loc>{escape(url)}</loc>")
            for tag, href in alternates:
                lines.append(f'    <xhtml:link rel="alternate" hreflang={quoteattr(tag)} href={quoteattr(href)}/>')
            lines.append("  </url>")
    lines.append("  <url>")
    lines.append(f"    <loc>{escape(base_url)}/</loc>")
    for locale in locales:
        href = f"{base_url}/{locale.segment}/index.html"
        lines.append(f'    <xhtml:link rel="alternate" hreflang={quoteattr(locale.tag)} href={quoteattr(href)}/>')
    lines.append(f'    <xhtml:link rel="alternate" hreflang="x-default" href={quoteattr(base_url + "/")}/>')
    lines.append("  </url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def robots(base_url: str) -> bytes:
    return f"User-agent: *\nAllow: /\n\nSitemap: {base_url}/sitemap.xml\n".encode("utf-8")


def llms_txt(site_name: str, summary: str, sections: list[tuple[str, list[tuple[str, str, str]]]]) -> bytes:
    """The llms.txt proposal: an H1, a > summary, then ## sections of [title](url): description links."""
    lines = [f"# {site_name}", "", f"> {summary}", ""]
    for heading, links in sections:
        lines += [f"## {heading}", ""]
        lines += [f"- [{title}]({url}): {description}" for title, url, description in links]
        lines.append("")
    return "\n".join(lines).encode("utf-8")


class _FaqParser(HTMLParser):
    """Collects (question, answer text) pairs from the section that follows <h2 id="faq">."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_faq = False
        self.capture: str | None = None
        self.pairs: list[list[str]] = []
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "h2":
            self.in_faq = attributes.get("id") == "faq"
            self.capture = None
        elif self.in_faq and tag == "h3":
            self.pairs.append(["", ""])
            self.capture = "question"
        elif self.in_faq and tag == "p" and self.pairs:
            self.capture = "answer"
            if self.pairs[-1][1]:
                self.pairs[-1][1] += " "

    def handle_endtag(self, tag):
        if tag in ("h3", "p"):
            self.capture = None

    def handle_data(self, data):
        if self.capture == "question":
            self.pairs[-1][0] += data
        elif self.capture == "answer":
            self.pairs[-1][1] += data


def faq_jsonld(body_html: str) -> str | None:
    """schema.org FAQPage from the rendered FAQ section, or None if the page has none."""
    if 'id="faq"' not in body_html:
        return None
    parser = _FaqParser()
    parser.feed(body_html)
    pairs = [(q.strip(), " ".join(a.split())) for q, a in parser.pairs if q.strip() and a.strip()]
    if not pairs:
        return None
    data = {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "mainEntity": [
            {"@type": "Question", "name": question,
             "acceptedAnswer": {"@type": "Answer", "text": answer}}
            for question, answer in pairs
        ],
    }
    # No markup inside a <script> element's JSON: "<", ">" and "&" as JSON escapes (text from data may hold them).
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
