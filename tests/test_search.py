"""The site's search (vramsite/publish/search.py) as a reader uses it: `build.py build` writes the index beside the
pages; in Chromium, the header's search box on any page leads to the search page, which finds the Qwen3 model
pages for "qwen3" in English and the VRAM guide for "显存" in Chinese, from the site's own files alone.

Chromium and chromedriver come from the system, as for tests/test_browser.py; skipped, saying why, where absent.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from browser_support import chromium, load_anew, needs_chromium, serving
from cli_support import run_cli
from site_support import XHTML, parse_html
from vramsite.publish.search import INDEX_FOLDER, SEARCH_PAGE

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("searched") / "site"
    run = run_cli("build", "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out


def test_the_build_writes_an_index_per_language_beside_the_pages(built):
    index = built / INDEX_FOLDER
    assert (index / "pagefind-ui.js").is_file() and (index / "pagefind-entry.json").is_file()
    entry = (index / "pagefind-entry.json").read_text(encoding="utf-8")
    assert '"en"' in entry and '"zh-cn"' in entry


def test_the_index_is_the_same_bytes_every_build(built, tmp_path):
    """Pagefind keeps its languages in no fixed order; the build settles them, so a rebuild changes no file."""
    again = tmp_path / "site"
    assert run_cli("build", "--out", str(again)).returncode == 0

    def index(out):
        return {path.relative_to(out).as_posix(): path.read_bytes() for path in (out / INDEX_FOLDER).rglob("*")
                if path.is_file()}
    assert index(built) == index(again)


def test_every_page_has_a_search_box_that_leads_to_its_languages_search_page(built):
    for page in ("en/vram.html", "zh-cn/models/qwen3-8b.html", "en/gpus/a40.html"):
        tree = parse_html((built / page).read_bytes())
        form = next(form for form in tree.iter(f"{XHTML}form") if form.get("role") == "search")
        target = (built / page).parent / form.get("action")
        assert target.resolve() == (built / page.split("/")[0] / f"{SEARCH_PAGE}.html").resolve(), page
        assert [field.get("name") for field in form.iter(f"{XHTML}input")] == ["q"]


@pytest.fixture(scope="module")
def served(built):
    with serving(built) as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def _results(browser) -> list[str]:
    """The paths the search page lists, once it says what it found."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 15).until(lambda driver: driver.find_element("css selector", ".search-status").text)
    return [urlparse(link.get_attribute("href")).path for link in
            browser.find_elements("css selector", ".search-results a")]


@needs_chromium
@pytest.mark.parametrize("language, words, expected", [
    ("en", "qwen3", ["/en/models/qwen3-8b.html", "/en/models/qwen3-32b.html", "/en/models/qwen3-30b-a3b.html"]),
    ("zh-cn", "显存", ["/zh-cn/vram.html"]),
])
def test_the_header_search_finds_the_pages_in_the_readers_language(served, browser, language, words, expected):
    load_anew(browser, f"{served}/{language}/pricing.html")
    box = browser.find_element("css selector", "form[role=search] input[name=q]")
    box.send_keys(words)
    box.submit()
    found = _results(browser)
    assert set(expected) <= set(found), found
    assert all(path.startswith(f"/{language}/") for path in found), found
    assert not any(f"/{INDEX_FOLDER}/" in path for path in found)
