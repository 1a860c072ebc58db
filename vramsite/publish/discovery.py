"""Files that help crawlers and agents find the pages: sitemap, robots, llms.txt, FAQ JSON-LD."""

from __future__ import annotations

import json
from datetime import datetime
from html import escape as _escape


def escape(text: str) -> str:
    """Text for XML character data."""
    return _escape(text, quote=False)


def quoteattr(text: str) -> str:
    """A quoted XML attribute value."""
    return '"' + _escape(text, quote=True) + '"'


HOME = "index"


def x_default(base_url: str, key: str, locales) -> str:
    """Where a reader whose language the site lacks is sent: the root's language chooser for the home page,
    the default language's version of every other page (the chooser only offers the home pages)."""
    if key == HOME:
        return f"{base_url}/"
    return f"{base_url}/{locales[0].segment}/{key}.html"


def lastmod(moments) -> str:
    """The W3C datetime of the latest of ``moments`` (dates, or datetimes in UTC), as a sitemap's lastmod."""
    latest = max(moments, key=lambda moment: (moment.isoformat() if isinstance(moment, datetime)
                                              else f"{moment.isoformat()}T00:00:00"))
    if isinstance(latest, datetime):
        return latest.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    return latest.isoformat()


def sitemap(base_url: str, keys: list[str], locales, modified: str) -> bytes:
    """Every page in every language, each with its alternates (itself and x-default included) and ``modified``
    as its lastmod; the root chooser shows no dated input, so it has none."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
             'xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for key in keys:
        pages = [(locale.tag, f"{base_url}/{locale.segment}/{key}.html") for locale in locales]
        alternates = pages + [("x-default", x_default(base_url, key, locales))]
        for _, url in pages:
            lines.append("  <url>")
            lines.append(f"    <loc>{escape(url)}</loc>")
            lines.append(f"    <lastmod>{escape(modified)}</lastmod>")
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


def llms_txt(site_name: str, summary: str, details: str,
             sections: list[tuple[str, list[tuple[str, str, str]]]]) -> bytes:
    """The llms.txt proposal: an H1, a > summary, a paragraph of details, then ## sections of
    [title](url): description links. The proposal's parser reads a summary only where text follows it
    before the first section."""
    lines = [f"# {site_name}", "", f"> {summary}", "", details, ""]
    for heading, links in sections:
        lines += [f"## {heading}", ""]
        lines += [f"- [{title}]({url}): {description}" for title, url, description in links]
        lines.append("")
    return "\n".join(lines).encode("utf-8")


def faq_jsonld(pairs: list[tuple[str, str]]) -> str | None:
    """schema.org FAQPage from (question, answer) pairs of plain text, or None if there is none."""
    pairs = [(question, answer) for question, answer in pairs if question and answer]
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
