"""Each site as a whole: links, twins, translations, hreflang, sitemap, strict HTML."""

from __future__ import annotations

import json
import posixpath
import re
import xml.etree.ElementTree as ET

import pytest

import data_edits as edits
from seed_sites import assemble_seed_site
from live_sites import live_build, live_trees
from site_support import XHTML
from vramsite.publish.site import SiteBuild

MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module", params=["default", "quick"])
def site_name(request) -> str:
    """Both sites the engine builds: every structural check holds for each."""
    return request.param


@pytest.fixture(scope="module")
def built(site_name):
    build, files = live_build(site_name)
    return files, build.data


@pytest.fixture(scope="module")
def site(built):
    return built[0]


@pytest.fixture(scope="module")
def data(built):
    return built[1]


@pytest.fixture(scope="module")
def trees(site_name):
    return live_trees(site_name)


def _ids(tree) -> set[str]:
    return {element.get("id") for element in tree.iter() if element.get("id")}


def _resolve(base: str, href: str) -> tuple[str, str]:
    path, _, anchor = href.partition("#")
    if not path:
        return base, anchor
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), path)), anchor


def test_every_html_page_parses_strictly(trees):
    assert len(trees) > 20  # html5lib raised on any parse error while building the fixture


def _target(page: str, href: str, base_url: str) -> tuple[str, str] | None:
    """The site path (and anchor) a link on ``page`` points at; None for other sites."""
    if href.startswith(base_url):
        path, _, anchor = href[len(base_url):].lstrip("/").partition("#")
        return path or "index.html", anchor
    if re.match(r"^[a-z]+:", href) or href.startswith("//"):
        return None
    return _resolve(page, href)


def test_every_link_and_asset_in_html_resolves(site, trees, data):
    base_url = data.site.base_url
    broken = []
    for page, tree in trees.items():
        for element in tree.iter():
            for attribute in ("href", "src"):
                href = element.get(attribute)
                found = _target(page, href, base_url) if href else None
                if found is None:
                    continue
                target, anchor = found
                if target not in site:
                    broken.append(f"{page}: {href}")
                elif anchor and target in trees and anchor not in _ids(trees[target]):
                    broken.append(f"{page}: {href} (no #{anchor})")
    assert not broken, "\n".join(broken[:20])


def test_every_link_in_twins_resolves_to_a_twin(site, data):
    base_url = data.site.base_url
    broken = []
    for page, content in site.items():
        if not page.endswith(".md"):
            continue
        for href in MD_LINK.findall(content.decode()):
            found = _target(page, href, base_url)
            if found is None or href.startswith("#"):
                continue
            target = found[0]
            if target not in site or target.endswith(".html"):
                broken.append(f"{page}: {href}")
    assert not broken, "\n".join(broken[:20])


def test_every_page_has_its_twin_and_its_translations(site, data):
    segments = [locale.segment for locale in data.site.locales]
    pages = [path for path in site if path.endswith(".html")]
    for path in pages:
        assert path + ".md" in site, f"{path} has no twin"
        first, _, rest = path.partition("/")
        if first in segments:
            for segment in segments:
                assert f"{segment}/{rest}" in site, f"{path} has no {segment} translation"


def test_hreflang_is_complete_and_reciprocal(trees, data):
    base_url = data.site.base_url
    tags = {locale.tag for locale in data.site.locales} | {"x-default"}
    for page, tree in trees.items():
        if page == "404.html":
            continue
        links = [e for e in tree.iter(f"{XHTML}link") if e.get("rel") == "alternate" and e.get("hreflang")]
        found = {e.get("hreflang"): e.get("href") for e in links}
        assert set(found) == tags, page
        canonical = next(e.get("href") for e in tree.iter(f"{XHTML}link") if e.get("rel") == "canonical")
        assert canonical in found.values(), f"{page} does not list itself"
        for tag, href in found.items():
            if tag == "x-default":
                home = page in ("index.html", *(f"{locale.segment}/index.html" for locale in data.site.locales))
                _, _, rest = page.partition("/")
                default = f"{base_url}/{data.site.locales[0].segment}/{rest}"
                assert href == (f"{base_url}/" if home else default), page
                continue
            target = href[len(base_url) + 1:] or "index.html"
            back = {e.get("href") for e in trees[target].iter(f"{XHTML}link")
                    if e.get("rel") == "alternate" and e.get("hreflang")}
            assert canonical in back or page == "index.html", f"{target} does not point back to {page}"


def test_og_locale_names_the_page_language_and_its_alternates(trees, data):
    locales = data.site.locales
    for page, tree in trees.items():
        if page == "404.html":
            continue
        segment = page.partition("/")[0]
        own = next((locale for locale in locales if locale.segment == segment), locales[0])
        metas = [(e.get("property"), e.get("content")) for e in tree.iter(f"{XHTML}meta") if e.get("property")]
        assert [content for name, content in metas if name == "og:locale"] == [own.gettext], page
        alternates = [content for name, content in metas if name == "og:locale:alternate"]
        assert alternates == [locale.gettext for locale in locales if locale != own], page


def test_every_page_links_its_markdown_twin(trees):
    for page, tree in trees.items():
        twins = [e.get("href") for e in tree.iter(f"{XHTML}link")
                 if e.get("rel") == "alternate" and e.get("type") == "text/markdown"]
        assert len(twins) == 1 and twins[0].endswith(".html.md"), page


def test_html_lang_matches_the_locale(trees, data):
    for locale in data.site.locales:
        for page, tree in trees.items():
            if page.startswith(locale.segment + "/"):
                assert tree.get("lang") == locale.tag, page


def test_sitemap_lists_existing_pages_with_alternates(site, data):
    base_url = data.site.base_url
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.fromstring(site["sitemap.xml"])
    urls = root.findall("s:url", namespace)
    assert len(urls) >= 2 * len([p for p in site if p.startswith("en/") and p.endswith(".html")])
    for url in urls:
        loc = url.find("s:loc", namespace).text
        path = loc[len(base_url) + 1:] or "index.html"
        assert path in site, loc
        alternates = [link.get("href") for link in url.findall("x:link", namespace)]
        assert loc in alternates or loc == f"{base_url}/"
        for href in alternates:
            assert (href[len(base_url) + 1:] or "index.html") in site


def test_robots_and_llms_txt(site, data):
    assert f"Sitemap: {data.site.base_url}/sitemap.xml" in site["robots.txt"].decode()
    llms = site["llms.txt"].decode().split("\n")
    assert llms[0].startswith("# ") and llms[2].startswith("> ")
    sections = [line for line in llms if line.startswith("## ")]
    assert len(sections) == len(data.site.locales)
    links = MD_LINK.findall("\n".join(llms))
    feeds = [link for link in links if link.endswith("/feed.xml")]  # where the site keeps a price history
    assert links and all(link.endswith(".html.md") for link in links if link not in feeds)
    assert sorted(feeds) == sorted(f"{data.site.base_url}/{path}" for path in site if path.endswith("/feed.xml"))
    for link in links:
        assert link[len(data.site.base_url) + 1:] in site


def test_faq_jsonld_matches_the_rendered_faq(trees):
    import json

    for language in ("en", "zh-cn"):
        tree = trees[f"{language}/vram.html"]
        scripts = [e for e in tree.iter(f"{XHTML}script") if e.get("type") == "application/ld+json"]
        assert len(scripts) == 1
        data = json.loads(scripts[0].text)
        questions = [q["name"] for q in data["mainEntity"]]
        h3 = []
        in_faq = False
        for element in tree.iter():
            if element.tag == f"{XHTML}h2":
                in_faq = element.get("id") == "faq"
            elif element.tag == f"{XHTML}h3" and in_faq:
                h3.append("".join(element.itertext()).strip())
        assert questions == h3 and len(questions) >= 5
        assert all(q["acceptedAnswer"]["text"] for q in data["mainEntity"])


def test_a_new_card_gets_pages_and_rows_everywhere(tmp_path):
    """On the seed 000 data, where the cell the new card wins is known."""
    assemble_seed_site(tmp_path, "000")
    edits.add_example_card(tmp_path, "690", link_gbps=63)
    files = SiteBuild(tmp_path).render()
    for segment in ("en", "zh-cn"):
        assert f"{segment}/gpus/rtx-pro-6000.html" in files
        assert f"{segment}/gpus/rtx-pro-6000.html.md" in files
        for page in (f"{segment}/gpus/index.html.md", f"{segment}/vram.html.md", f"{segment}/pricing.html.md"):
            assert "[RTX PRO 6000](" in files[page].decode(), page
    # 96 GB of FP8 for $690 now wins the 70B FP8 cell from the $1,490 H100 PCIe.
    assert "75 GB: [RTX PRO 6000](gpus/rtx-pro-6000.html.md) $690" in files["en/vram.html.md"].decode()
    assert "sitemap.xml" in files and b"/en/gpus/rtx-pro-6000.html" in files["sitemap.xml"]
    # Charts: a bar in the cost chart and the heat map cell it wins, in both languages.
    for segment in ("en", "zh-cn"):
        assert "RTX PRO 6000" in files[f"assets/charts/{segment}-cost.svg"].decode()
        assert "RTX PRO 6000" in files[f"assets/charts/{segment}-lookup_heatmap.svg"].decode()
    # Downloads: its rows in the catalogue and cost tables, the cell it wins, and its own tables.
    for table in ("catalogue", "cost"):
        rows = json.loads(files[f"data/en/{table}.json"])["rows"]
        assert "rtx-pro-6000" in [row["key"] for row in rows], table
        assert "rtx-pro-6000" in files[f"data/zh-cn/{table}.csv"].decode()
    lookup = json.loads(files["data/en/lookup.json"])["rows"]
    assert next(row for row in lookup if row["key"] == "70B")["cells"]["infer-fp8"]["gpu"] == "rtx-pro-6000"
    assert "data/en/prices-rtx-pro-6000.json" in files and "data/zh-cn/fits-rtx-pro-6000.csv" in files
