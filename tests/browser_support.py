"""Headless Chromium for the tests that look at pages as a reader does: the system's Chromium and chromedriver
(Debian's chromium and chromium-driver; .ci/run installs them), a local server for a built folder, and the mark
that skips a test, saying why, where they are absent."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium or chromedriver is not installed (apt-get install chromium chromium-driver; .ci/run does)",
)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def serving(folder: Path):
    """``folder`` served on a free local port; yields its address."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def chromium(javascript: bool = True, size: str = "1280,1600", console: bool = False):
    """A headless Chromium driven by selenium; ``console``: keeping the page's console messages."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--no-first-run",
                 "--disable-sync", f"--window-size={size}"):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


PHONE = 360
"""A phone's width in CSS pixels, the narrowest the pages are laid out for."""


def emulate(browser, width: int, media_type: str = "", scheme: str = "light") -> None:
    """The window's width (a phone's, with touch, below 600 px) and the emulated media and colour scheme."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": width < 600})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"media": media_type, "features": [{"name": "prefers-color-scheme", "value": scheme}]})


def stop_emulating(browser) -> None:
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})


MEASURE_WIDTH = """
const edge = document.documentElement.clientWidth;
const past = [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > edge + 1)
  .slice(0, 5).map(e => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
return [document.documentElement.scrollWidth, edge, past.join(", ") || "nothing"];
"""
"""The page's width, the window's, and the first elements whose right edge is past the window's."""


def load_anew(browser, url: str, timeout: float = 30) -> None:
    """``browser.get(url)``, returning once a new document has loaded, its deferred scripts run and its stylesheets
    applied, even where ``url`` is the address already shown (a view kept in the address). The driver may return
    from a navigation while the new document is still being parsed: on a loaded machine a check then read the
    rows unfiltered, or measured a page laid out without its stylesheet (its tables' frames not scrolling)."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_script("window.loadedBefore = true")
    browser.get(url)
    WebDriverWait(browser, timeout).until(
        lambda driver: driver.execute_script(LOADED), f"{url} did not finish loading with its stylesheets")


LOADED = """
return !window.loadedBefore && document.readyState === 'complete'
  && [...document.querySelectorAll('link[rel=stylesheet]')].every(link => link.sheet && link.sheet.cssRules.length > 0);
"""
"""Whether the document shown is a new one, loaded, with each of its stylesheets applied: a sheet still loading has
none, and one that failed to load has no rules, so the wait above ends in its message instead of a measure of
an unstyled page (the site's stylesheets are same-origin and none is empty)."""
