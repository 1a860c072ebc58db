"""What readers see: the contents list and the home page's links (from the built pages), and, in headless
Chromium, phones, print, dark mode and figures' derivations.

The browser tests use the browser and the served sites of test_browser.py (and are skipped, saying why,
where Chromium or chromedriver is absent). Each looks at one page of every page type of both sites, in both
languages; test_browser.py's walk over every page checks that none scrolls sideways on a phone.
"""

from __future__ import annotations

import json
import re

import pytest

from browser_support import PHONE, emulate, load_anew, stop_emulating
from live_sites import live_trees
from site_support import XHTML, find_all, text_of
from test_browser import SITES, _pages, browser, pytestmark, served  # noqa: F401 - fixtures and the skip mark
from vramsite.render.charts import contrast

needs_browser = pytestmark
pytestmark = []

A4_CONTENT_PX = round((210 - 2 * 12) / 25.4 * 96)
"""The width of an A4 portrait page inside the print stylesheet's 12 mm margins, in CSS pixels."""


def page_types(out) -> list[str]:
    """One page of each kind, in each language: the first page of each folder and of each name of the top."""
    seen, chosen = set(), []
    for page in _pages(out):
        parts = page.split("/")
        kind = (parts[1] if len(parts) > 2 else parts[-1]) if len(parts) > 1 else "root:" + parts[0]
        key = (parts[0] if len(parts) > 1 else "", kind)
        if key not in seen:
            seen.add(key)
            chosen.append(page)
    return chosen


@pytest.fixture(scope="module", params=sorted(SITES))
def pages(request) -> dict[str, object]:
    """Each HTML page of a site, parsed."""
    return live_trees(request.param)


def _contents(tree):
    return next((nav for nav in find_all(tree, "nav") if nav.get("class") == "contents"), None)


def _sections(tree) -> list[tuple[str, str, bool]]:
    """(id, text, drawn by script) of each ## heading with an id, and of each section that names itself for the
    contents list (the calculator, which only a script shows), in page order."""
    found = []
    for element in tree.iter():
        if element.tag == f"{XHTML}h2" and element.get("id"):
            found.append((element.get("id"), text_of(element), False))
        elif element.tag == f"{XHTML}section" and element.get("data-contents") is not None:
            found.append((element.get("id"), element.get("data-contents"), True))
    return found


def test_long_pages_list_their_sections_in_their_own_language(pages):
    listed = 0
    for path, tree in pages.items():
        sections = _sections(tree)
        contents = _contents(tree)
        if len(sections) < 4:
            assert contents is None, f"{path}: a contents list for {len(sections)} sections"
            continue
        assert contents is not None, f"{path}: {len(sections)} sections and no contents list"
        links = [(a.get("href"), text_of(a), "needs-script" in (li.get("class") or ""))
                 for li in contents.iter(f"{XHTML}li") for a in li.iter(f"{XHTML}a")]
        assert links == [(f"#{id_}", text, script) for id_, text, script in sections], path
        title = text_of(contents.find(f"{XHTML}p"))
        assert title == {"zh-cn": "本页内容", "en": "On this page"}[path.split("/")[0]], path
        listed += 1
    assert listed >= 2, "the guide and the real models' pages have enough sections for a list"


def test_each_home_page_links_every_part_of_its_site(pages):
    for path, tree in pages.items():
        if path.count("/") != 1 or not path.endswith("/index.html"):
            continue
        nav = next(nav for nav in find_all(tree, "nav") if nav.get("class") == "site-nav")
        parts = {a.get("href") for a in nav.iter(f"{XHTML}a")}
        article = next(find_all(tree, "article"))
        linked = {a.get("href") for a in article.iter(f"{XHTML}a")}
        assert parts and parts <= linked, f"{path}: the body does not link {sorted(parts - linked)}"


@pytest.fixture
def media(browser):  # noqa: F811 - the fixture of test_browser.py
    """Set the window's width and the emulated media; both are restored afterwards."""
    yield lambda width, media_type="", scheme="light": emulate(browser, width, media_type, scheme)
    stop_emulating(browser)


ROW_LABELS = """
const problems = [], frames = [...document.querySelectorAll('.table-scroll')];
for (const [number, frame] of frames.entries()) {
  const name = frame.closest('figure').id;
  if (frame.scrollWidth <= frame.clientWidth) continue;
  const box = frame.getBoundingClientRect();
  for (const row of frame.querySelectorAll('tbody tr')) {
    const label = row.querySelector('th');
    if (label.getBoundingClientRect().width > frame.clientWidth / 2)
      problems.push(`${name}: the label ${label.textContent.trim()} takes over half the frame`);
  }
  frame.scrollLeft = frame.scrollWidth;
  for (const row of frame.querySelectorAll('tbody tr')) {
    row.scrollIntoView({block: 'center'});
    const label = row.querySelector('th'), last = row.lastElementChild;
    const rect = label.getBoundingClientRect(), end = last.getBoundingClientRect(), now = frame.getBoundingClientRect();
    const x = rect.left + Math.min(8, rect.width / 2), y = rect.top + rect.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (rect.left < now.left - 1 || !hit || !label.contains(hit))
      problems.push(`${name}: the label ${label.textContent.trim()} is out of view when the row is scrolled`);
    if (end.right > now.right + 1)
      problems.push(`${name}: the row ${label.textContent.trim()} does not scroll to its last value`);
  }
  frame.scrollLeft = 0;
}
return [frames.length, frames.filter(f => f.scrollWidth > f.clientWidth).length, problems];
"""


@needs_browser
def test_row_labels_stay_in_view_while_a_table_scrolls_on_a_phone(served, browser, media):  # noqa: F811
    out, base = served
    media(PHONE)
    problems, scrolled = [], 0
    for page in page_types(out):
        load_anew(browser, f"{base}/{page}")
        _, wide, found = browser.execute_script(ROW_LABELS)
        scrolled += wide
        problems += [f"{page}: {problem}" for problem in found]
    assert scrolled >= 1, "no table is wider than a phone: the check checked nothing"
    assert not problems, "\n".join(problems[:40])


@needs_browser
def test_printed_pages_fit_a4_without_navigation(served, browser, media):  # noqa: F811
    out, base = served
    media(A4_CONTENT_PX, "print")
    problems = []
    for page in page_types(out):
        load_anew(browser, f"{base}/{page}")
        width = browser.execute_script("return document.documentElement.scrollWidth")
        if width > A4_CONTENT_PX:
            problems.append(f"{page}: {width} px wide on a {A4_CONTENT_PX} px page")
        cut = browser.execute_script(
            "return [...document.querySelectorAll('.table-scroll')]"
            ".filter(f => f.querySelector('table').getBoundingClientRect().width > f.clientWidth + 1)"
            ".map(f => f.closest('figure').id)")
        problems += [f"{page}: {table} is cut off" for table in cut]
        shown = browser.execute_script(
            "return [...document.querySelectorAll('.site-header, .contents')]"
            ".filter(e => getComputedStyle(e).display !== 'none').length")
        if shown:
            problems.append(f"{page}: navigation is printed")
        rows = browser.execute_script(
            "return getComputedStyle(document.querySelector('tr') || document.body).breakInside")
        if browser.execute_script("return !!document.querySelector('tr')") and rows != "avoid":
            problems.append(f"{page}: table rows may split across pages ({rows})")
    assert not problems, "\n".join(problems)


def _hex(rgb: str) -> str:
    red, green, blue = (int(part) for part in re.findall(r"\d+", rgb)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


CHART_TEXT = """
return [...document.querySelectorAll('.chart svg')].map(svg => {
  const paper = getComputedStyle(svg.querySelector(':scope > rect')).fill;
  const texts = [...svg.querySelectorAll('text')].filter(t => !t.closest('g.cell:not(.sales)'))
    .map(t => [t.textContent, getComputedStyle(t).fill]);
  const lines = [...svg.querySelectorAll('polyline')].map(l => getComputedStyle(l).stroke);
  return [svg.id, paper, texts, lines];
});
"""


@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_follow_the_colour_scheme_and_stay_readable(served, browser, media, scheme):  # noqa: F811
    out, base = served
    media(1280, "", scheme)
    problems, charts = [], 0
    for page in page_types(out):
        load_anew(browser, f"{base}/{page}")
        page_paper = _hex(browser.execute_script("return getComputedStyle(document.documentElement).backgroundColor"))
        dark_page = contrast(page_paper, "#000000") < contrast(page_paper, "#ffffff")
        if dark_page != (scheme == "dark"):
            problems.append(f"{page}: the page's background {page_paper} is not {scheme}")
        for chart, paper, texts, lines in browser.execute_script(CHART_TEXT):
            charts += 1
            if _hex(paper) != page_paper:
                problems.append(f"{page}: {chart}: background {_hex(paper)} on a {page_paper} page")
            for text, fill in texts:
                if contrast(_hex(fill), _hex(paper)) < 4.5:
                    problems.append(f"{page}: {chart}: {text!r} in {_hex(fill)} on {_hex(paper)}")
            for stroke in lines:
                if contrast(_hex(stroke), _hex(paper)) < 3:
                    problems.append(f"{page}: {chart}: a line in {_hex(stroke)} on {_hex(paper)}")
    drawn = sum((out / page).read_text(encoding="utf-8").count('<div class="chart"') for page in page_types(out))
    assert charts == drawn, "every chart of the pages was looked at"
    assert not problems, "\n".join(problems[:40])


@needs_browser
def test_a_figures_derivation_shows_on_tap_and_keyboard_focus(served, browser, media):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    _, base = served
    media(PHONE)
    load_anew(browser, f"{base}/en/index.html")
    load_anew(browser, f"{base}/en/" + browser.execute_script(
        "return document.querySelector('.site-nav a').getAttribute('href')"))
    figures = browser.find_elements("css selector", ".fig[title]")
    assert figures, "the guide shows figures with their derivations"
    figure = figures[len(figures) // 2]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", figure)
    hidden = browser.execute_script("return getComputedStyle(arguments[0], '::after').content", figure)
    assert hidden in ("none", "normal"), "the derivation is hidden until asked for"
    browser.execute_script(
        "const all = [...document.querySelectorAll('a[href], [tabindex=\"0\"]')];"
        "all[all.indexOf(arguments[0]) - 1].focus();", figure)
    ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.execute_script("return document.activeElement === arguments[0]", figure), "Tab reaches the figure"
    assert "fixed" == browser.execute_script("return getComputedStyle(arguments[0], '::after').position", figure)
    browser.execute_script("document.activeElement.blur()")
    figure.click()
    shown = browser.execute_script(
        "const after = getComputedStyle(arguments[0], '::after');"
        "return [document.activeElement === arguments[0], after.content, after.position];", figure)
    assert shown[0], "a tap focuses the figure"
    assert figure.get_attribute("title") in shown[1]
    assert shown[2] == "fixed", "the derivation shows above the page, whatever frame the figure is in"


STACKED = """
const problems = [], frames = [...document.querySelectorAll('.table-stacks .table-scroll')];
for (const frame of frames) {
  const name = frame.closest('figure').id;
  const heads = [...frame.querySelectorAll('thead th')].slice(1).map(th => th.textContent.trim());
  if (frame.scrollWidth > frame.clientWidth) problems.push(`${name} scrolls sideways`);
  for (const row of frame.querySelectorAll('tbody tr')) {
    [...row.querySelectorAll('td')].forEach((cell, index) => {
      const label = getComputedStyle(cell, '::before').content.replace(/^"|"$/g, '');
      if (label !== heads[index]) problems.push(`${name}: '${label}' shown beside a value of '${heads[index]}'`);
      if (cell.getBoundingClientRect().right > frame.getBoundingClientRect().right + 1)
        problems.push(`${name}: a value of '${heads[index]}' runs past the frame`);
    });
  }
}
return [frames.length, problems];
"""


@needs_browser
def test_a_table_read_item_by_item_stacks_each_row_under_its_column_names_on_a_phone(served, browser, media):  # noqa: F811
    """The models index on a phone: each model a block, every value beside its column's name, nothing sideways."""
    out, base = served
    indexes = [page for page in _pages(out) if page.endswith("models/index.html")]
    if not indexes:
        pytest.skip("this site has no models index")
    media(PHONE)
    stacked, problems = 0, []
    for page in indexes:
        load_anew(browser, f"{base}/{page}")
        found, page_problems = browser.execute_script(STACKED)
        stacked += found
        problems += [f"{page}: {problem}" for problem in page_problems]
    assert stacked == len(indexes), "a models index without its stacking table: the check checked nothing"
    assert not problems, "\n".join(problems[:20])


FIND_VIEW = """
const rows = [...document.querySelectorAll('#table-models tbody tr')].filter(row => !row.hidden);
const form = document.querySelector('form.table-find');
return {
  keys: rows.map(row => row.querySelector('th a').getAttribute('href').replace(/\\.html$/, '')),
  prices: rows.map(row => row.cells[3].getAttribute('data-sort')),
  count: document.querySelector('.table-find-count').textContent,
  shown: !form.hidden && form.getBoundingClientRect().height > 0,
  right: Math.max(...[...form.elements].map(e => e.getBoundingClientRect().right)),
  width: document.documentElement.clientWidth,
  search: location.search,
};
"""


@needs_browser
def test_the_models_index_finds_and_orders_models_and_its_address_reproduces_the_view(  # noqa: F811
        served, browser, media):  # noqa: F811
    """In each language, at a desktop's and a phone's width: typing keeps the models whose row holds the words,
    an order sorts by the column's figures (the price of the configuration for 'where it starts', models that
    start nowhere last), the count says so in the page's words, and the address brings the same view back."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    out, base = served
    indexes = sorted(page for page in _pages(out) if page.endswith("models/index.html"))
    if not indexes:
        pytest.skip("this site has no models index")
    for page in indexes:
        language = page.split("/")[0]
        record = json.loads((out / "data" / language / "models.json").read_text(encoding="utf-8"))
        params = {row["key"]: float(row["cells"]["params"]["exact"]) for row in record["rows"]}
        names = {row["key"]: row["header"].lower() for row in record["rows"]}
        for width in (1280, PHONE):
            media(width)
            load_anew(browser, f"{base}/{page}")
            form = browser.find_element(By.CSS_SELECTOR, "form.table-find")
            template = form.get_attribute("data-count")
            view = browser.execute_script(FIND_VIEW)
            total = len(record["rows"])
            assert view["shown"] and view["right"] <= view["width"], f"{page} at {width}px: the finder is not in view"
            assert view["keys"] == list(params), f"{page}: the rows are not in the catalogue's order at first"
            assert view["count"] == template.format(shown=total, total=total)

            form.find_element(By.NAME, "q").send_keys("qwen3")
            Select(form.find_element(By.NAME, "order")).select_by_value("params:desc")
            view = browser.execute_script(FIND_VIEW)
            wanted = sorted((key for key in params if "qwen3" in names[key]), key=lambda key: -params[key])
            assert len(wanted) >= 2, "the check needs two Qwen3 models to order"
            assert view["keys"] == wanted
            assert view["count"] == template.format(shown=len(wanted), total=total)
            assert view["search"] == "?q=qwen3&order=params%3Adesc"

            load_anew(browser, f"{base}/{page}{view['search']}")
            assert browser.execute_script(FIND_VIEW)["keys"] == wanted, "the address does not reproduce the view"

            form = browser.find_element(By.CSS_SELECTOR, "form.table-find")
            form.find_element(By.NAME, "q").clear()
            form.find_element(By.NAME, "q").send_keys(" ")  # an input event; blank words keep every row
            Select(form.find_element(By.NAME, "order")).select_by_value("starts_on:asc")
            view = browser.execute_script(FIND_VIEW)
            priced = [float(price) for price in view["prices"] if price is not None]
            assert len(view["keys"]) == total and priced == sorted(priced) and len(priced) >= 2
            assert view["prices"][:len(priced)] == [price for price in view["prices"] if price is not None], \
                "a model that starts on no configuration is not last"
