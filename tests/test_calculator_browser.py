"""The in-page calculator in headless Chromium, as a reader uses it: the page's own script and data give
the build's answers for every table case and random ones, the page opens on the build's answer without
moving, typing updates the answer and the link, bad input is named beside its field, nothing is fetched
from another host, and without JavaScript the page is the page it was.

Chromium and chromedriver come from the system, as for tests/test_browser.py; skipped, saying why, where
they are absent.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from urllib.parse import urlparse

import pytest

from browser_support import chromium, load_anew, needs_chromium, serving
from calculator_support import SITES, SiteCalculator, state_of
from vramsite.render.calculator import INFERENCE, Case, calculator_path, model_path
from vramsite.render.calculator.markup import PAGE_UI, default_case
from site_support import write_files
from test_model_import import CONFIGS

pytestmark = needs_chromium


@pytest.fixture(scope="module", params=sorted(SITES))
def served(request, tmp_path_factory):
    site = SiteCalculator(request.param)
    out = tmp_path_factory.mktemp(f"calculator-{request.param}")
    write_files(site.build.render(), out)
    with serving(out) as address:
        yield site, out, address


def _driver(javascript: bool = True):
    return chromium(javascript, size="1280,1200")


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def _guide_page(site) -> str:
    return "vram.html"


def _page_data(browser) -> dict:
    """The page's calculator data as its script holds it once it has fetched every file it may: the language's
    file it names (data-source), with the page's own defaults, and each real model's file in data-models."""
    page = json.loads(browser.execute_script(
        "return document.querySelector('[data-calc] script[type=\"application/json\"]').textContent"))
    fetched = browser.execute_async_script("""
        const done = arguments[arguments.length - 1], calc = document.querySelector("[data-calc]");
        fetch(calc.dataset.source).then(r => r.json()).then(data => {
          const models = calc.dataset.models ? data.models.filter(m => m.shape === "layers").map(m => m.id) : [];
          return Promise.all(models.map(m => fetch(calc.dataset.models + "/" + m + ".json").then(r => r.json())))
            .then(found => done(JSON.stringify([data, Object.fromEntries(models.map((m, i) => [m, found[i]]))])));
        });""")
    data, held = json.loads(fetched)
    return {**data, "defaults": page["defaults"], "model_files": held}


def test_calculator_in_chromium_answers_as_the_build_for_every_table_case(served, browser):
    site, _, base = served
    for index, locale in enumerate(site.locales()):
        load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
        data = _page_data(browser)
        cases = list(dict.fromkeys(e.case for e in site.expectations(locale)))
        cases += site.random_cases(200, seed=50 + index)
        scripted = json.loads(browser.execute_script(
            "return JSON.stringify(arguments[0].map(s => VramCalculator.answer(arguments[1], s)))",
            [state_of(case) for case in cases], data))
        wrong = [case for case, found in zip(cases, scripted) if found != site.answer(locale, case)]
        assert not wrong, f"{len(wrong)} of {len(cases)} differ in Chromium ({locale.segment}); first {wrong[0]}"


def test_the_page_opens_on_the_builds_answer_and_nothing_moves(served, browser):
    site, out, base = served
    for locale in site.locales():
        page = f"{locale.segment}/{_guide_page(site)}"
        built = (out / page).read_text(encoding="utf-8")
        load_anew(browser, f"{base}/{page}")
        # Shifts of the calculator's own nodes (what its script would move); the page's other shifts, such as
        # a late font on a loaded machine, are not the calculator's doing.
        shift = browser.execute_async_script("""
            const done = arguments[arguments.length - 1], calc = document.querySelector("section.calc");
            let total = 0;
            new PerformanceObserver(list => {
              for (const e of list.getEntries())
                if (e.sources.some(s => s.node && calc.contains(s.node))) total += e.value;
            }).observe({type: "layout-shift", buffered: true});
            setTimeout(() => done(total), 400);""")
        assert shift == 0
        shown = browser.execute_script("return document.querySelector('.calc-out').innerHTML")
        assert f'<div class="calc-out">{shown}</div>' in built.replace("&#34;", '"').replace("&#39;", "'")
        assert browser.find_element("css selector", "section.calc").is_displayed()


def _type(browser, name: str, text: str) -> None:
    from selenium.webdriver.common.keys import Keys

    field = browser.find_element("name", name)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    field.send_keys(text)


def _answer_text(browser) -> str:
    """The calculator's answer, once the engines' figures it waits for have come (it is busy until then)."""
    from selenium.webdriver.support.ui import WebDriverWait

    out = browser.find_element("css selector", ".calc-out")
    WebDriverWait(browser, 10).until(lambda _: out.get_attribute("aria-busy") != "true")
    return out.get_attribute("textContent")


def test_a_reader_changes_the_case_and_the_link_gives_it_back(served, browser):
    site, _, base = served
    from selenium.webdriver.support.ui import Select

    locale = site.locales()[-1]
    load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
    before = _answer_text(browser)
    data = _page_data(browser)
    Select(browser.find_element("name", "model")).select_by_value(data["models"][-1]["id"])
    if "native" in data["models"][-1]:  # a catalogue model: its engine sizes each format
        Select(browser.find_element("name", "format")).select_by_index(len(data["formats"]) - 1)
    else:
        Select(browser.find_element("name", "precision")).select_by_index(len(data["precisions"]) - 1)
    if data["kv_precisions"]:
        _type(browser, "batch", "3")
    after = _answer_text(browser)
    assert after != before
    assert browser.find_element("css selector", ".calc-status").text  # announced
    query = urlparse(browser.current_url).query
    assert f"model={data['models'][-1]['id']}" in query
    load_anew(browser, browser.current_url)
    assert _answer_text(browser) == after


def test_the_answer_links_to_its_models_page_where_the_site_has_one(served, browser):
    """A reference shape has no page and the link is hidden; a real model's answer links to its page, in the
    reader's language, which opens on that model and does not link to itself; another model there links on."""
    site, _, base = served
    from selenium.webdriver.support.ui import Select, WebDriverWait

    locale = site.locales()[-1]
    load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
    data = _page_data(browser)
    page_link = lambda: browser.find_element("css selector", ".calc-page")
    assert not page_link().is_displayed()
    real = [model for model in data["models"] if model["shape"] == "layers"]
    if not real:
        assert data["model_page"] is None
        return
    first, last = real[0], real[-1]
    Select(browser.find_element("name", "model")).select_by_value(last["id"])
    WebDriverWait(browser, 10).until(lambda _: page_link().is_displayed())
    assert page_link().text == data["ui"]["More on {model}"].replace("{model}", last["name"])
    page_link().click()
    WebDriverWait(browser, 10).until(lambda driver: driver.current_url.endswith(f"/{locale.segment}/models/{last['id']}.html"))
    assert browser.find_element("name", "model").get_attribute("value") == last["id"]
    assert not page_link().is_displayed() and page_link().get_attribute("href") is None
    _page_data(browser)
    WebDriverWait(browser, 10).until(lambda driver: len(Select(driver.find_element("name", "model")).options) > 2)
    Select(browser.find_element("name", "model")).select_by_value(first["id"])
    WebDriverWait(browser, 10).until(lambda _: page_link().is_displayed())
    assert urlparse(page_link().get_attribute("href")).path == f"/{locale.segment}/models/{first['id']}.html"


def test_a_pasted_config_is_answered_as_the_sites_own_model_from_it(served, browser):
    """Mistral 7B v0.1's config, pasted, is sized in the browser by the site's own importer and calculation (the
    in-page importer): its answer reads as the catalogue's Mistral 7B v0.1, which was imported from the same file;
    a config the importer refuses is refused beside the box, with its line and field."""
    site, out, base = served
    from selenium.webdriver.support.ui import Select, WebDriverWait

    locale = site.locales()[-1]
    load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
    data = _page_data(browser)
    if not (out / "assets" / "importer" / "pyodide.mjs").is_file():
        assert not browser.find_elements("css selector", ".calc-paste")
        pytest.skip("this site is built without the in-page importer")
    text = (CONFIGS / "mistral-7b-v0.1.json").read_text(encoding="utf-8")
    box, said = browser.find_element("id", "calc-config"), browser.find_element("id", "calc-config-error")
    browser.find_element("css selector", ".calc-paste summary").click()
    bad = text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 5')
    browser.execute_script("arguments[0].value = arguments[1]", box, bad)
    browser.find_element("css selector", ".calc-size").click()
    WebDriverWait(browser, 180).until(lambda _: "num_key_value_heads" in said.text)
    assert said.text.startswith("config.json:")
    browser.execute_script("arguments[0].value = arguments[1]", box, text)
    browser.find_element("css selector", ".calc-size").click()
    WebDriverWait(browser, 60).until(lambda driver: driver.find_element("name", "model").get_attribute("value")
                                     == "pasted-config")
    assert said.text == ""
    chosen = Select(browser.find_element("name", "model")).first_selected_option.text
    assert chosen == browser.find_element("css selector", ".calc-paste").get_attribute("data-name")
    pasted = _answer_text(browser)
    assert not browser.find_element("css selector", ".calc-link").is_displayed()
    Select(browser.find_element("name", "model")).select_by_value("mistral-7b-v0.1")
    WebDriverWait(browser, 10).until(lambda _: _answer_text(browser) == pasted)


def test_the_finder_narrows_the_model_list_to_what_the_reader_types(served, browser):
    """Typing part of a model's name (spaces and dashes aside) leaves the models that hold it and answers for the
    first; typing what no model holds says so and leaves the list as it was; emptying it lists every model."""
    site, _, base = served
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    locale = site.locales()[0]
    load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
    data = _page_data(browser)
    listed = lambda: browser.execute_script("return Array.from(document.querySelector('#calc-model').options, o => o.value)")
    WebDriverWait(browser, 10).until(lambda _: len(listed()) == len(data["models"]) + 1)
    context = data["defaults"]["context"] or 0  # the last model that reads the page's context
    wanted = [model for model in data["models"] if model.get("max_context", context) >= context][-1]
    finder = browser.find_element("id", "calc-find")
    finder.send_keys(wanted["name"].upper().replace(" ", "-"))
    narrowed = listed()
    assert wanted["id"] in narrowed and narrowed[-1] == "custom" and len(narrowed) < len(data["models"]) + 1
    first = next(model for model in data["models"] if model["id"] == narrowed[0])
    assert browser.find_element("name", "model").get_attribute("value") == first["id"]
    expected = site.answer(locale, replace(default_case(data), model=first["id"], weight_format=first.get("native")))
    assert expected["choice"].get("config")
    WebDriverWait(browser, 10).until(lambda _: expected["choice"]["config"] in _answer_text(browser))
    finder.send_keys("zzzz")
    assert browser.find_element("id", "calc-find-error").text == data["ui"]["No model's name holds that."]
    assert listed() == narrowed
    finder.send_keys(Keys.CONTROL, "a")
    finder.send_keys(Keys.BACKSPACE)
    assert len(listed()) == len(data["models"]) + 1 and browser.find_element("id", "calc-find-error").text == ""
    assert browser.find_element("name", "model").get_attribute("value") == first["id"]


def test_the_page_lists_its_own_model_and_the_script_lists_the_rest(served, browser):
    """The built page names only the model it opens on (its size does not grow with the catalogue); once the
    language's data is in, the list holds every model in the data's order, then the reader's own."""
    site, out, base = served
    from selenium.webdriver.support.ui import WebDriverWait

    locale = site.locales()[0]
    page = f"{locale.segment}/{_guide_page(site)}"
    built = (out / page).read_text(encoding="utf-8")
    listed = re.search(r'<select id="calc-model" name="model">(.*?)</select>', built, re.S).group(1)
    assert listed.count("<option") == 2 and 'value="custom"' in listed
    load_anew(browser, f"{base}/{page}")
    data = _page_data(browser)
    expected = [model["id"] for model in data["models"]] + ["custom"]
    found = lambda driver: driver.execute_script(
        "return Array.from(document.querySelector('#calc-model').options, o => o.value)")
    WebDriverWait(browser, 10).until(lambda driver: found(driver) == expected)
    assert browser.execute_script("return document.querySelector('#calc-model').value") == data["defaults"]["model"]


def test_more_configurations_are_drawn_when_the_reader_opens_them(served, browser):
    """The page and the script leave "More configurations" empty (a model page would otherwise carry a closed
    table of every configuration); opening it draws the rest of the answer's offers, closing it empties it. The
    model's calculator file is fetched then, not with the page: the page's own answer is its own case's."""
    site, out, base = served
    model = next(iter(site.build.data.catalogue), None)
    if model is None:
        pytest.skip("this site has no catalogue models")
    from selenium.webdriver.support.ui import WebDriverWait

    locale = site.locales()[0]
    page = f"{locale.segment}/models/{model.id}.html"
    built = (out / page).read_text(encoding="utf-8")
    assert re.search(r'<details class="calc-more"><summary>[^<]*</summary></details>', built)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "window.fetchedUrls = []; const pageFetch = window.fetch;"
        "window.fetch = (url, ...rest) => { window.fetchedUrls.push(String(url)); return pageFetch(url, ...rest); };")})
    load_anew(browser, f"{base}/{page}")
    WebDriverWait(browser, 10).until(lambda driver: driver.execute_script(
        "return document.querySelector('#calc-model').options.length") > 2)  # the language's data is in
    fetched = lambda: browser.execute_script("return window.fetchedUrls")
    assert not any(model_path(model.id) in url for url in fetched()), fetched()
    _answer_text(browser)
    expected = site.answer(locale, default_case(_page_data(browser)))
    rest = [offer["config"] for offer in expected["offers"][_page_data(browser)["offers_shown"]:]]
    assert rest
    rows = lambda driver: [cell.get_attribute("textContent")
                           for cell in driver.find_elements("css selector", ".calc-more tbody th")]
    assert rows(browser) == []
    browser.find_element("css selector", ".calc-more summary").click()
    WebDriverWait(browser, 5).until(lambda driver: rows(driver) == rest)
    browser.find_element("css selector", ".calc-more summary").click()
    WebDriverWait(browser, 5).until(lambda driver: rows(driver) == [])


def test_bad_input_is_named_beside_its_field(served, browser):
    site, _, base = served
    from selenium.webdriver.support.ui import Select

    locale = site.locales()[0]
    load_anew(browser, f"{base}/{locale.segment}/{_guide_page(site)}")
    data = _page_data(browser)
    Select(browser.find_element("name", "model")).select_by_value("custom")
    _type(browser, "params", "-3")
    error = browser.find_element("id", "calc-params-error")
    assert error.text == data["ui"]["Enter a number above zero."]
    assert browser.find_element("name", "params").get_attribute("aria-invalid") == "true"
    text = browser.find_element("css selector", "section.calc").text
    assert data["ui"]["Correct the marked fields to see the answer."] in text
    assert "NaN" not in text and "undefined" not in text
    _type(browser, "params", "13")
    if data["kv_precisions"]:
        for name, value in (("layers", "40"), ("kv_heads", "8"), ("head_dim", "128")):
            _type(browser, name, value)
    assert error.text == ""
    assert browser.find_elements("css selector", ".calc-out .calc-lines")


def test_nothing_is_fetched_from_another_host(served, browser):
    site, _, base = served
    load_anew(browser, f"{base}/{site.locales()[0].segment}/{_guide_page(site)}")
    hosts = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).host)")
    assert hosts and set(hosts) == {urlparse(base).netloc}


def test_without_javascript_the_page_is_the_page_it_was(served):
    site, out, base = served
    page = f"{site.locales()[0].segment}/{_guide_page(site)}"
    driver = _driver(javascript=False)
    try:
        driver.get(f"{base}/{page}")
        assert not driver.find_element("css selector", "section.calc").is_displayed()
        assert driver.find_element("css selector", "main").is_displayed()
    finally:
        driver.quit()
    twin = (out / (page + ".md")).read_text(encoding="utf-8")
    assert "calc" not in twin and "<script" not in twin


def _model_page(site, locale) -> str:
    return f"{locale.segment}/models/{site.build.data.catalogue[0].id}.html"


def test_a_reader_picks_another_engine_and_reads_its_answer(served, browser):
    """A model page fetches each engine's figures once; picking an engine gives that engine's answer, the same
    as the build's, and the link reproduces it."""
    site, _, base = served
    if not site.guide.serves:
        pytest.skip("this site has no serving engines")
    from selenium.webdriver.support.ui import Select, WebDriverWait

    locale = site.locales()[0]
    load_anew(browser, f"{base}/{_model_page(site, locale)}")
    data = _page_data(browser)
    model = site.build.data.catalogue[0].id
    for engine in data["engines"]:
        Select(browser.find_element("name", "engine")).select_by_value(engine["id"])
        WebDriverWait(browser, 5).until(lambda driver: engine["name"] in _answer_text(driver))
        format_id = Select(browser.find_element("name", "format")).first_selected_option.get_attribute("value")
        d = data["defaults"]
        expected = site.answer(locale, Case(model, INFERENCE, d["precision"], d["kv_precision"], d["context"],
                                            d["batch"], weight_format=format_id, engine=engine["id"]))
        text = _answer_text(browser)
        choice = expected["choice"]
        assert (choice.get("none") or choice["config"]) in text, engine
        for more in browser.find_elements("css selector", ".calc-more summary"):
            more.click()  # the rest of the configurations are drawn when the reader opens them (on its toggle event)

        def offers_shown(driver) -> list[str]:
            return [cell.get_attribute("textContent")
                    for cell in driver.find_elements("css selector", ".calc-offers tbody th")]
        configs = [row["config"] for row in expected["offers"]]
        WebDriverWait(browser, 5).until(lambda driver: len(offers_shown(driver)) >= len(configs))
        assert configs == offers_shown(browser), engine  # those behind "More configurations" too
        for more in browser.find_elements("css selector", ".calc-more summary"):
            more.click()  # closed again, as a reloaded page opens it
    query = urlparse(browser.current_url).query
    assert f"engine={data['engines'][-1]['id']}" in query
    after = _answer_text(browser)
    load_anew(browser, browser.current_url)
    WebDriverWait(browser, 5).until(lambda driver: _answer_text(driver) == after)


def _without(out, path: str):
    """The site with ``path`` taken away (a partial upload), put back when the block ends."""
    from contextlib import contextmanager

    @contextmanager
    def taken():
        gone = out / path
        kept = gone.read_bytes()
        gone.unlink()
        try:
            yield
        finally:
            gone.write_bytes(kept)
    return taken()


def test_without_the_models_file_the_reader_is_told_and_nothing_is_guessed(served):
    """A real model's calculator file unreachable: its answer says the figures could not be loaded instead of
    showing none or a wrong one; the page's own answer stays until the reader asks."""
    site, out, base = served
    if not site.guide.serves:
        pytest.skip("this site has no serving engines")
    from selenium.webdriver.support.ui import Select, WebDriverWait

    locale = site.locales()[0]
    data = site.data(locale)
    with _without(out, model_path(site.build.data.catalogue[0].id)):
        browser = _driver()  # a browser of its own: another one may hold the file in its cache
        try:
            load_anew(browser, f"{base}/{_model_page(site, locale)}")
            built = _answer_text(browser)
            Select(browser.find_element("name", "engine")).select_by_value(data["engines"][-1]["id"])
            failed = data["ui"]["This model's figures could not be loaded; reload the page to try again."]
            WebDriverWait(browser, 5).until(lambda driver: failed in _answer_text(driver))
            assert built != _answer_text(browser)
        finally:
            browser.quit()


def test_without_the_language_file_the_page_keeps_its_answer_and_the_reader_is_told(served):
    """The language's calculator data unreachable: the page's own answer stays as built; once the reader changes
    the case, the answer says the figures could not be loaded."""
    site, out, base = served
    from selenium.webdriver.support.ui import WebDriverWait

    locale = site.locales()[0]
    page = f"{locale.segment}/{_guide_page(site)}"
    failed = site.catalog(locale).gettext(PAGE_UI[1])
    from selenium.webdriver.support.ui import Select

    with _without(out, calculator_path(locale.segment)):
        browser = _driver()
        try:
            load_anew(browser, f"{base}/{page}")
            built = _answer_text(browser)
            WebDriverWait(browser, 5).until(lambda driver: driver.execute_script(
                "return performance.getEntriesByType('resource').some(e => e.name.endsWith('calculator.json'))"))
            assert _answer_text(browser) == built
            models = Select(browser.find_element("name", "model"))
            models.select_by_index(1 if models.first_selected_option.get_attribute("index") == "0" else 0)
            WebDriverWait(browser, 5).until(lambda driver: failed in _answer_text(driver))
        finally:
            browser.quit()
