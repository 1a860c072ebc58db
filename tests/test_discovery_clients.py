"""The site-wide files as their real clients read them: llms.txt by the llms.txt proposal's own parser,
the sitemap by a sitemap parser and the sitemap schema's rules, every page by the Nu HTML Checker.

Each reader also runs on a planted fault, so that a reader that accepts anything fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

import pytest

from npm_package import npm_file
from live_sites import live_build, live_trees
from site_support import SITES, XHTML, write_files
from vramsite.load.dates import parse_moment
from vramsite.publish.pages import language_name

VNU_VERSION = "26.9.27"
VNU_SHA512 = "TkQd5DFfOaWC9ebtvozTsrH2Vaod3jYg+vrOeREzIXxBexLz9+rS2DNtjn7+RPUiZhgli0SghgBX6RJRNea0KA=="
"""vnu-jar's tarball integrity as the npm registry lists it (sha512, base64)."""
JAVA = shutil.which("java")

SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL_CHILDREN = ("loc", "lastmod", "changefreq", "priority")
"""The sitemap schema's tUrl sequence: these, in this order, loc required, each at most once."""
W3C_DATETIME = re.compile(r"\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?")
MAX_URLS, MAX_LOC = 50_000, 2_048


@pytest.fixture(scope="module", params=sorted(SITES))
def built(request):
    """The site's files, its data and its pages parsed."""
    build, files = live_build(request.param)
    return files, build.data, live_trees(request.param)


# llms.txt


def _meta(tree, name: str) -> str:
    for element in tree.iter(f"{XHTML}meta"):
        if name in (element.get("name"), element.get("property")):
            return element.get("content")
    raise AssertionError(f"no meta {name}")


ATOM = "{http://www.w3.org/2005/Atom}"


def _expected_llms(site: dict, data, trees) -> dict:
    """What llms.txt must say, read from the pages themselves: each language's pages, titles and descriptions."""
    base_url = data.site.base_url
    sections = {}
    for locale in data.site.locales:
        links = {}
        for path in site:
            if path.startswith(f"{locale.segment}/") and path.endswith(".html"):
                tree = trees[path]
                links[f"{base_url}/{path}.md"] = (_meta(tree, "og:title"), _meta(tree, "description"))
        feed = site.get(f"{locale.segment}/feed.xml")  # where the site keeps a price history: its title, subtitle
        if feed is not None:
            root = ET.fromstring(feed)
            links[f"{base_url}/{locale.segment}/feed.xml"] = (root.findtext(f"{ATOM}title"),
                                                              root.findtext(f"{ATOM}subtitle"))
        sections[language_name(locale)] = links
    home = trees[f"{data.site.locales[0].segment}/index.html"]
    return {"title": data.site.name, "summary": _meta(home, "description"), "sections": sections}


def llms_problems(text: str, expected: dict) -> list[str]:
    """Where llms.txt, as the proposal's parser reads it, differs from ``expected``."""
    from llms_txt import parse_llms_file

    parsed = parse_llms_file(text)
    problems = []
    for field in ("title", "summary"):
        if parsed.get(field) != expected[field]:
            problems.append(f"{field}: {parsed.get(field)!r}, expected {expected[field]!r}")
    if not (parsed.get("info") or "").strip():
        problems.append("info: no details between the summary and the first section")
    sections = parsed.get("sections") or {}
    if list(sections) != list(expected["sections"]):
        problems.append(f"sections: {list(sections)}, expected {list(expected['sections'])}")
    for name, links in expected["sections"].items():
        found = {link["url"]: (link["title"], link["desc"]) for link in sections.get(name, [])}
        if found != links:
            wrong = sorted(set(found.items()) ^ set(links.items()))
            problems.append(f"section {name}: {len(wrong)} links differ, first {wrong[:1]}")
    return problems


def test_llms_txt_reads_as_the_proposal_parser_reads_it(built):
    pytest.importorskip("llms_txt", reason="the llms-txt package is part of the test extra: pip install -e '.[test]'")
    site, data, trees = built
    expected = _expected_llms(site, data, trees)
    assert sum(len(links) for links in expected["sections"].values()) > 5
    assert llms_problems(site["llms.txt"].decode("utf-8"), expected) == []


def test_the_llms_txt_check_finds_planted_faults(built):
    pytest.importorskip("llms_txt", reason="the llms-txt package is part of the test extra: pip install -e '.[test]'")
    site, data, trees = built
    expected = _expected_llms(site, data, trees)
    text = site["llms.txt"].decode("utf-8")
    summary_line = f"> {expected['summary']}"
    details = text.split(summary_line + "\n\n", 1)[1].split("\n", 1)[0]
    first_link = next(line for line in text.split("\n") if line.startswith("- ["))
    planted = {
        "summary with nothing after it": text.replace(details + "\n\n", "", 1),
        "another title": text.replace(f"# {data.site.name}", "# Another site", 1),
        "a page left out": text.replace(first_link + "\n", "", 1),
        "a section renamed": text.replace(f"## {language_name(data.site.locales[-1])}", "## Other", 1),
    }
    for fault, planted_text in planted.items():
        assert llms_problems(planted_text, expected), fault


# sitemap


def _lastmod_of_the_data(data) -> datetime:
    """The latest date among the inputs the pages show: prices.yaml's updated date, in the footer of each."""
    moment = parse_moment(data.pricing.updated)
    if isinstance(moment, datetime):
        return moment.replace(tzinfo=timezone.utc)
    return datetime(moment.year, moment.month, moment.day)  # a day names no time zone


def schema_problems(xml: bytes) -> list[str]:
    """The sitemap XSD's rules for a urlset, checked by hand: element order, required loc, lengths, dates."""
    root = ET.fromstring(xml)
    problems = [] if root.tag == f"{{{SITEMAP}}}urlset" else [f"root element {root.tag}"]
    urls = list(root)
    if len(urls) > MAX_URLS:
        problems.append(f"{len(urls)} urls, more than {MAX_URLS}")
    for url in urls:
        own = [child.tag[len(SITEMAP) + 2:] for child in url if child.tag.startswith(f"{{{SITEMAP}}}")]
        loc = url.findtext(f"{{{SITEMAP}}}loc") or ""
        if url.tag != f"{{{SITEMAP}}}url":
            problems.append(f"{url.tag} inside urlset")
        if not own or own[0] != "loc" or own != sorted(own, key=URL_CHILDREN.index) or len(set(own)) != len(own):
            problems.append(f"{loc}: children {own}, expected a subsequence of {URL_CHILDREN} starting with loc")
        if not re.fullmatch(r"https?://\S+", loc) or len(loc) > MAX_LOC:
            problems.append(f"{loc!r}: not an absolute URL of at most {MAX_LOC} characters")
        lastmod = url.findtext(f"{{{SITEMAP}}}lastmod")
        if lastmod is not None and not W3C_DATETIME.fullmatch(lastmod):
            problems.append(f"{loc}: lastmod {lastmod!r} is not a W3C datetime")
    return problems


def parser_problems(xml: bytes, site: dict, data) -> list[str]:
    """Where the sitemap, as ultimate-sitemap-parser reads it, misses a page or dates one otherwise."""
    from usp.tree import sitemap_from_str

    parsed = sitemap_from_str(xml.decode("utf-8"))
    base_url, expected = data.site.base_url, _lastmod_of_the_data(data)
    pages = {page.url: page.last_modified for page in parsed.all_pages()}
    wanted = {f"{base_url}/{path}" for path in site if path.endswith(".html") and "/" in path}
    problems = [f"{url}: not in the sitemap" for url in sorted(wanted - set(pages))]
    problems += [f"{url}: lastmod {moment}, expected {expected}"
                 for url, moment in sorted(pages.items()) if url in wanted and moment != expected]
    return problems


def test_the_sitemap_reads_as_a_sitemap_parser_and_the_schema_read_it(built):
    pytest.importorskip("usp", reason="ultimate-sitemap-parser is part of the test extra: pip install -e '.[test]'")
    site, data, _trees = built
    assert schema_problems(site["sitemap.xml"]) == []
    assert parser_problems(site["sitemap.xml"], site, data) == []


def test_the_sitemap_checks_find_planted_faults(built):
    pytest.importorskip("usp", reason="ultimate-sitemap-parser is part of the test extra: pip install -e '.[test]'")
    site, data, _trees = built
    xml = site["sitemap.xml"].decode("utf-8")
    lastmod = re.search(r"<lastmod>([^<]+)</lastmod>", xml).group(1)
    first_loc = re.search(r"<loc>[^<]+</loc>", xml).group(0)
    for fault, planted in {"a day that is no W3C datetime": xml.replace(lastmod, "1 Sep 2026", 1),
                           "lastmod before loc": xml.replace(f"{first_loc}\n    <lastmod>{lastmod}</lastmod>",
                                                              f"<lastmod>{lastmod}</lastmod>\n    {first_loc}", 1),
                           "a relative loc": xml.replace(f"<loc>{data.site.base_url}/", "<loc>/", 1)}.items():
        assert schema_problems(planted.encode()), fault
    for fault, planted in {"another date": xml.replace(lastmod, "2001-01-01", 1),
                           "a page left out": re.sub(r"  <url>\n    <loc>[^<]+</loc>.*?</url>\n", "", xml,
                                                     count=1, flags=re.DOTALL)}.items():
        assert parser_problems(planted.encode(), site, data), fault


# the Nu HTML Checker


@pytest.fixture(scope="module")
def vnu():
    if JAVA is None:
        pytest.skip("Java is not installed: the Nu HTML Checker (vnu.jar) runs on a JRE (apt-get install default-jre)")
    return npm_file("vnu-jar", VNU_VERSION, VNU_SHA512, "package/build/dist/vnu.jar")


def nu_findings(vnu_jar, folder) -> list[str]:
    """Every error and warning the Nu HTML Checker reports on the HTML files under ``folder``. Its guess at each
    page's language is left out (--no-langdetect): it samples the text at random, and a Chinese model page, half
    of whose letters are model and card names, is called Norwegian in one run and Chinese in the next; that each
    page's lang is its locale's is test_site_structure.py's test_html_lang_matches_the_locale."""
    run = subprocess.run([JAVA, "-jar", str(vnu_jar), "--format", "json", "--skip-non-html", "--no-langdetect",
                          str(folder)],
                         capture_output=True, text=True, timeout=600)
    messages = json.loads(run.stderr or '{"messages": []}')["messages"]
    return [f"{message.get('url', '').rsplit(str(folder), 1)[-1]}:{message.get('lastLine', '?')}: "
            f"{message.get('subType', message['type'])}: {message['message']}"
            for message in messages if message["type"] == "error" or message.get("subType") == "warning"]


def test_the_nu_html_checker_finds_nothing_on_any_page(built, vnu, tmp_path):
    site, _data, _trees = built
    write_files(site, tmp_path)
    assert nu_findings(vnu, tmp_path) == []


def test_the_nu_html_checker_reports_a_planted_fault(built, vnu, tmp_path):
    site, _data, _trees = built
    page = site["en/index.html"].decode("utf-8")
    (tmp_path / "planted.html").write_text(page.replace("<main id=\"main\">", "<main id=\"main\"><p><div></p>", 1),
                                           encoding="utf-8")
    (tmp_path / "duplicate.html").write_text(page.replace("<main id=\"main\">", "<main id=\"main\"><i id=\"main\"></i>",
                                                          1), encoding="utf-8")
    findings = nu_findings(vnu, tmp_path)
    assert any("planted.html" in finding for finding in findings), findings
    assert any("duplicate.html" in finding for finding in findings), findings
