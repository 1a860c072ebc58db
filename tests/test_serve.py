"""`build.py serve`: the preview server, driven over HTTP as a browser would."""

from __future__ import annotations

import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from cli_support import as_from_a_terminal
from seed_sites import assemble_seed_site
from vramsite.errors import InputError, Problem
from vramsite.publish.preview import resolve
from vramsite.publish.serve import reload_script, start_server, with_reload
from vramsite.publish.site import SiteBuild, render_site

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def preview(tmp_path):
    """A copy of the seed 000 site served on a free port; yields (site folder, base URL, PreviewSite, log lines)."""
    assemble_seed_site(tmp_path, "000")
    log: list[str] = []
    server, site = start_server(tmp_path, port=0, log=log.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}", site, log
    server.shutdown()
    server.server_close()


def fetch(url: str) -> tuple[int, str, str]:
    """(status, content type, body) of a GET, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.headers["Content-Type"], response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode("utf-8")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_serves_the_built_site(preview):
    folder, base, site, _ = preview
    status, kind, body = fetch(base + "/")
    assert status == 200 and kind == "text/html; charset=utf-8" and "<html" in body
    status, _, body = fetch(base + "/en/vram.html")
    assert status == 200 and "VRAM" in body
    status, kind, body = fetch(base + "/en/vram.html.md")
    assert status == 200 and kind.startswith("text/markdown") and body.startswith("# ")
    status, _, body = fetch(base + "/en")  # redirected to /en/, then its index.html
    assert status == 200 and 'lang="en"' in body
    status, kind, _ = fetch(base + "/assets/style.css")
    assert status == 200 and kind.startswith("text/css")
    status, _, _ = fetch(base + "/en/no-such-page.html")
    assert status == 404
    status, _, _ = fetch(base + "/../../etc/passwd")
    assert status == 404
    assert site.builds == 1, "nothing changed, so nothing was rebuilt"
    assert not (folder / "site").exists(), "the preview writes nothing"


def test_a_broken_build_shows_the_problems_on_every_page_until_fixed(preview):
    folder, base, site, log = preview
    assert fetch(base + "/en/pricing.html")[0] == 200
    prices = folder / "data" / "prices.yaml"
    good = prices.read_text(encoding="utf-8")
    line = good[: good.index("{gpu: a40, usd: 240}")].count("\n") + 1
    edit(prices, "{gpu: a40, usd: 240}", "{gpu: a40, usd: -240}")

    for path in ("/en/pricing.html", "/", "/en/vram.html.md", "/no-such-page"):
        status, kind, body = fetch(base + path)
        assert status == 500 and kind == "text/html; charset=utf-8", path
        assert f"data/prices.yaml:{line}: prices[a40].usd: must be at least 1 USD per card-month, got -240" in body
        assert "The site does not build: 1 problem" in body
    assert any("prices[a40].usd" in message for message in log)

    prices.write_text(good, encoding="utf-8")
    status, _, body = fetch(base + "/en/pricing.html")
    assert status == 200 and "$240" in body
    assert site.builds == 3


def test_a_template_error_is_listed_with_its_line_and_escaped(preview):
    folder, base, _, _ = preview
    fetch(base + "/")
    edit(folder / "templates" / "page.html", "<h1>{{ page.title }}</h1>", "<h1>{{ page.title }</h1>")
    content = folder / "content" / "en" / "pricing.md"
    edit(content, '{{ table("cost") }}', '{{ table("<b>cost") }}')
    status, _, body = fetch(base + "/en/pricing.html")
    assert status == 500
    assert "templates/page.html:4: template syntax error: unexpected &#x27;}&#x27;" in body
    assert "<b>cost" not in body and "&lt;b&gt;cost" in body


def test_a_content_change_is_served_without_a_restart(preview):
    folder, base, _, _ = preview
    assert "Prices are per card" in fetch(base + "/en/pricing.html")[2]
    edit(folder / "content" / "en" / "pricing.md", "Prices are per card", "Every price is per card")
    body = fetch(base + "/en/pricing.html")[2]
    assert "Every price is per card" in body and "Prices are per card" not in body


def test_resolve_maps_urls_to_files():
    files = {"index.html": b"", "en/index.html": b"", "en/vram.html": b"", "en/gpus/index.html": b""}
    assert resolve(files, "/") == ("index.html", None)
    assert resolve(files, "/en/") == ("en/index.html", None)
    assert resolve(files, "/en") == (None, "/en/")
    assert resolve(files, "/en/gpus") == (None, "/en/gpus/")
    assert resolve(files, "/en/vram.html?x=1#top") == ("en/vram.html", None)
    assert resolve(files, "/en/%76ram.html") == ("en/vram.html", None)
    assert resolve(files, "/../en/vram.html") == ("en/vram.html", None)
    assert resolve(files, "/nothing") == (None, None)


RELOAD_SCRIPT = re.compile(r'<script>new EventSource\("/__reload\?since=(\d+)&page=([\w./-]*)"\)')


def _served_build(body: str) -> int:
    return _reload_of(body)[0]


def _reload_of(body: str) -> tuple[int, str]:
    """The build a served page came from, and the path its reload stream names."""
    found = RELOAD_SCRIPT.findall(body)
    assert len(found) == 1, "one reload script per served page"
    return int(found[0][0]), found[0][1]


def _first_event(url: str) -> tuple[str, float]:
    """The first event (or comment) a reload stream sends, and the seconds it took to come."""
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=60) as response:
        assert response.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        lines = []
        while not lines or lines[-1] != "":
            lines.append(response.readline().decode("utf-8").rstrip("\n"))
    return "\n".join(lines), time.monotonic() - started


def test_served_pages_reload_themselves_after_a_rebuild(preview):
    folder, base, site, _ = preview
    status, _, body = fetch(base + "/en/pricing.html")
    build = _served_build(body)
    assert status == 200 and body.index("<script>new EventSource") < body.rindex("</body>") and build == site.builds
    for path in ("/en/pricing.html.md", "/assets/style.css", "/sitemap.xml"):
        assert "EventSource" not in fetch(base + path)[2], path
    assert _served_build(fetch(base + "/no-such-page.html")[2]) == build

    result = {}
    waiting = threading.Thread(target=lambda: result.update(event=_first_event(f"{base}/__reload?since={build}")))
    waiting.start()
    time.sleep(1.5)
    assert waiting.is_alive(), "no reload while nothing changed"
    edit(folder / "content" / "en" / "pricing.md", "Prices are per card", "Every price is per card")
    waiting.join(timeout=60)
    event, seconds = result["event"]
    assert event == f"event: reload\ndata: {build + 1}\n" and seconds < 30
    assert _served_build(fetch(base + "/en/pricing.html")[2]) == build + 1

    event, seconds = _first_event(f"{base}/__reload?since={build}")  # a page older than the latest build
    assert event.startswith("event: reload") and seconds < 5


def test_a_failed_build_reloads_the_page_too_and_its_problem_page_listens(preview):
    folder, base, site, _ = preview
    build = _served_build(fetch(base + "/en/pricing.html")[2])
    edit(folder / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: -240}")
    event, _ = _first_event(f"{base}/__reload?since={build}")
    assert event == f"event: reload\ndata: {build + 1}\n"
    status, _, body = fetch(base + "/en/pricing.html")
    assert status == 500 and _served_build(body) == build + 1


class _Gate:
    """A preview's render that hands its first pages over, then waits to be let through before the rest."""

    def __init__(self, fail_after_handing_over: bool = False):
        self.open = threading.Event()
        self.open.set()
        self.fail = fail_after_handing_over

    def __call__(self, root, first, early):
        build = SiteBuild(root, incremental=True)
        ready = build.pages_first(first)
        if ready:
            early(ready)
        assert self.open.wait(timeout=60)
        if self.fail:
            raise InputError([Problem("content/en/vram.md", 3, "", "a problem found after the first pages")])
        return build.render()


@pytest.fixture
def gated(tmp_path):
    """Like ``preview``, rendering through a ``_Gate``; yields (site folder, base URL, PreviewSite, gate)."""
    assemble_seed_site(tmp_path, "000")
    gate = _Gate()
    server, site = start_server(tmp_path, port=0, log=lambda line: None, render=gate)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}", site, gate
    gate.open.set()
    server.shutdown()
    server.server_close()


def _in_background(url: str) -> tuple[threading.Thread, dict]:
    got: dict = {}
    thread = threading.Thread(target=lambda: got.update(answer=fetch(url)), daemon=True)
    thread.start()
    return thread, got


def test_the_page_asked_for_is_answered_before_the_rest_of_the_site_is_built(gated):
    folder, base, site, gate = gated
    build = _served_build(fetch(base + "/en/pricing.html")[2])
    gate.open.clear()
    edit(folder / "content" / "en" / "pricing.md", "Prices are per card", "Every price is per card")

    status, _, page = fetch(base + "/en/pricing.html")  # the rest of the build is held at the gate
    assert status == 200 and "Every price is per card" in page and _reload_of(page) == (build + 1, "en/pricing.html")
    assert fetch(base + "/assets/style.css")[0] == 200, "the page's stylesheet comes with it"
    twin = fetch(base + "/en/pricing.html.md")[2]
    assert "Every price is per card" in twin
    waiting, got = _in_background(base + "/sitemap.xml")
    other, got_other = _in_background(base + "/en/vram.html")
    time.sleep(0.5)
    assert waiting.is_alive() and other.is_alive(), "the rest of the site waits for the whole build"

    gate.open.set()
    waiting.join(timeout=60)
    other.join(timeout=60)
    assert got["answer"][0] == 200 and _served_build(got_other["answer"][2]) == build + 1
    files, problems = site.current()
    assert problems == [] and with_reload(files["en/pricing.html"], build + 1, "en/pricing.html").decode() == page
    assert files["en/pricing.html.md"].decode() == twin


def test_an_open_page_reloads_as_soon_as_its_page_is_rendered(gated):
    folder, base, site, gate = gated
    build = _served_build(fetch(base + "/en/vram.html")[2])
    result = {}
    stream = f"{base}/__reload?since={build}&page=en/pricing.html"
    waiting = threading.Thread(target=lambda: result.update(event=_first_event(stream)))
    waiting.start()
    time.sleep(0.3)
    gate.open.clear()
    edit(folder / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 275}")
    waiting.join(timeout=30)
    assert result["event"][0] == f"event: reload\ndata: {build + 1}\n", "it reloads while the build goes on"
    assert site._running is not None, "the rest of the site was still held at the gate"
    assert "$275" in fetch(base + "/en/pricing.html")[2]
    gate.open.set()


def test_a_build_that_fails_after_handing_pages_over_reloads_them_into_its_problems(gated):
    folder, base, site, gate = gated
    build = _served_build(fetch(base + "/en/pricing.html")[2])
    gate.open.clear()
    gate.fail = True
    edit(folder / "content" / "en" / "pricing.md", "Prices are per card", "Every price is per card")
    status, _, page = fetch(base + "/en/pricing.html")
    assert status == 200 and _served_build(page) == build + 1
    gate.open.set()
    event, _ = _first_event(f"{base}/__reload?since={build + 1}&page=en/pricing.html")
    assert event == f"event: reload\ndata: {build + 2}\n"
    status, _, body = fetch(base + "/en/pricing.html")
    assert status == 500 and "a problem found after the first pages" in body and _served_build(body) == build + 2


def test_a_save_while_a_build_runs_is_never_answered_from_that_build(gated):
    folder, base, site, gate = gated
    fetch(base + "/en/pricing.html")
    gate.open.clear()
    pricing = folder / "content" / "en" / "pricing.md"
    edit(pricing, "Prices are per card", "Every price is per card")
    assert "Every price is per card" in fetch(base + "/en/pricing.html")[2]
    edit(pricing, "Every price is per card", "Each price is per card")
    time.sleep(0.05)  # a modification time the first edit's build did not see
    waiting, got = _in_background(base + "/en/pricing.html")
    time.sleep(0.5)
    assert waiting.is_alive(), "the page of the build under way is older than the save"
    gate.open.set()
    waiting.join(timeout=60)
    assert "Each price is per card" in got["answer"][2] and site.builds == 3


def test_the_built_site_carries_no_reload_script(tmp_path):
    assemble_seed_site(tmp_path, "000")
    files = render_site(tmp_path)
    pages = [path for path in files if path.endswith(".html")]
    assert pages
    assert not [path for path, content in files.items() if b"EventSource" in content or b"__reload" in content]
    page = b"<!DOCTYPE html><html><body><p>x</p></body></html>"
    assert with_reload(page, 3, "en/a.html") == page.replace(b"</body>", reload_script(3, "en/a.html") + b"</body>")


def _children(pid: int) -> set[int]:
    """The processes ``pid`` forked (Linux's /proc)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found |= {int(child) for child in (task / "children").read_text().split()}
        except FileNotFoundError:  # a thread that ended between the listing and the read
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the processes from Linux's /proc")
def test_the_serve_command_rebuilds_in_its_builder_and_leaves_no_process_behind(tmp_path):
    """`build.py serve` as an editor runs it: a save is served without a restart, Ctrl-C stops everything."""
    import signal
    import subprocess
    import sys

    assemble_seed_site(tmp_path, "000")
    command = [sys.executable, str(ROOT / "build.py"), "serve", "--site", str(tmp_path), "--port", "0"]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal)
    try:
        lines = []
        while not (lines and " at http://" in lines[-1]):
            line = server.stderr.readline()
            assert line, f"serve stopped before serving: {''.join(lines)}"
            lines.append(line)
        base = lines[-1].split(" at ", 1)[1].split("/ ", 1)[0]
        builders = _children(server.pid)
        assert len(builders) == 1, "one builder process, forked before the server's threads"
        assert "$240" in fetch(base + "/en/pricing.html")[2]

        edit(tmp_path / "data" / "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: 275}")
        body = fetch(base + "/en/pricing.html")[2]
        assert "$275" in body and "$240" not in body
        assert _children(server.pid) == builders, "the rebuild ran in the same builder"
    finally:
        server.send_signal(signal.SIGINT)
        rest = server.communicate(timeout=60)[1]
    assert server.returncode == 0 and "stopped" in rest, rest
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in builders) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in builders), "the builder ended with the server"
