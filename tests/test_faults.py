"""Hostile input and faults of the machine: one clear line each, never a traceback; no stray workers; a preview
that keeps up with a burst of requests; downloads written in plain digits."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import pytest

from cli_support import ROOT, as_from_a_terminal, hashes, run_build, run_cli
from live_sites import live_build
from seed_sites import assemble_seed_site
from vramsite import cli
from vramsite.publish.downloads import exact
from vramsite.publish.parallel import WorkerFailed, map_in_fresh_workers
from vramsite.publish.preview import PreviewSite
from vramsite.publish.serve import LISTEN_BACKLOG, start_server

on_linux = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs /proc to find worker processes")
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SLOW_SITE = {"cards": 150, "models": 800}
"""A generated site whose pages keep the workers rendering for seconds: long enough to be caught mid-render."""


@pytest.fixture
def built(tmp_path) -> tuple[Path, dict[str, str]]:
    """A copy of the site's sources, built once into its site/; and the fingerprint of that site/."""
    site = assemble_seed_site(tmp_path / "src", "000")
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    return site, hashes(site / "site")


def assert_one_line(run: subprocess.CompletedProcess, expected: str) -> None:
    assert "Traceback" not in run.stderr, run.stderr
    assert expected in run.stderr, run.stderr
    assert len([line for line in run.stderr.splitlines() if expected in line]) == 1, run.stderr


def line_of(path: Path, text: str) -> int:
    source = path.read_text(encoding="utf-8")
    assert source.count(text) == 1, text
    return source[: source.index(text)].count("\n") + 1


# -- input faults: located problems, exit 1, the previous site untouched ------------


def test_a_template_not_saved_as_utf8_is_a_problem_at_its_line(built):
    site, before = built
    template = site / "templates" / "guide.html"
    lines = template.read_bytes().split(b"\n")
    lines[2] = lines[2] + " <!-- café -->".encode("latin-1")
    template.write_bytes(b"\n".join(lines))
    run = run_build(site)
    assert run.returncode == 1
    assert_one_line(run, "templates/guide.html:3: template syntax error: not UTF-8 text: byte 0xe9")
    assert run.stderr.strip().splitlines()[-1] == "1 problem; nothing was written."
    assert hashes(site / "site") == before


def test_a_partial_not_saved_as_utf8_is_a_problem_also_when_workers_render(built):
    site, before = built
    partial = site / "templates" / "partials" / "table.html"
    partial.write_bytes(partial.read_bytes() + b"\n\xff\xfe\n")
    line = partial.read_bytes().count(b"\n")
    run = run_cli("build", "--site", str(site), "--out", str(site / "site"), "--jobs", "2")
    assert run.returncode == 1
    assert_one_line(run, f"templates/partials/table.html:{line}: template syntax error: not UTF-8 text: byte 0xff")
    assert hashes(site / "site") == before


def test_a_language_the_formatter_does_not_know_is_a_problem_in_site_yaml(built):
    site, before = built
    config = site / "data" / "site.yaml"
    entry = "{segment: en, tag: en, gettext: en}"
    line = line_of(config, entry)
    config.write_text(config.read_text(encoding="utf-8").replace(entry, "{segment: en, tag: en, gettext: xx_YY}"),
                      encoding="utf-8")
    shutil.copytree(site / "locales" / "en", site / "locales" / "xx_YY")  # the catalog exists: only the id is wrong
    run = run_build(site)
    assert run.returncode == 1
    assert_one_line(run, f"data/site.yaml:{line}: locales[en].gettext: unknown language 'xx_YY'")
    assert hashes(site / "site") == before


@pytest.mark.parametrize("tag,words", [
    ("qq-ZZ", "locales[en].tag: unknown language 'qq-ZZ'"),
    ("ja", "locales[en].tag: tag 'ja' is the language 'ja', but gettext 'en' formats for 'en'"),
])
def test_a_language_tag_that_is_unknown_or_not_the_catalogs_language_is_a_problem_in_site_yaml(built, tag, words):
    site, before = built
    config = site / "data" / "site.yaml"
    entry = "{segment: en, tag: en, gettext: en}"
    line = line_of(config, entry)
    config.write_text(config.read_text(encoding="utf-8").replace(entry, f"{{segment: en, tag: {tag}, gettext: en}}"),
                      encoding="utf-8")
    run = run_build(site)
    assert run.returncode == 1
    assert_one_line(run, f"data/site.yaml:{line}: {words}")
    assert hashes(site / "site") == before


# -- the command line: bad options, busy ports, unexpected failures ------------------


@pytest.mark.parametrize("port", ["70000", "65536", "-1", "http"])
def test_a_port_outside_0_to_65535_is_refused_before_anything_runs(port):
    run = run_cli("serve", "--port", port, timeout=60)
    assert run.returncode == 2
    assert_one_line(run, f"argument --port: expected a port number from 0 to 65535, got '{port}'")


def test_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = run_cli("serve", "--site", str(assemble_seed_site(tmp_path, "000")), "--port", str(port), timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == f"build.py: cannot listen on 127.0.0.1:{port}: address already in use"


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_before_or_after_the_command_shows_the_traceback(tmp_path, where):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        serve = ["serve", "--site", str(assemble_seed_site(tmp_path, "000")), "--port", port]
        args = ["--debug", *serve] if where == "before" else [*serve, "--debug"]
        run = run_cli(*args, timeout=60)
    assert run.returncode == 2
    assert "Traceback (most recent call last)" in run.stderr
    assert "cannot listen on" in run.stderr


def test_debug_alone_still_means_build(built, tmp_path):
    site, _ = built
    run = run_cli("--debug", "--site", str(site), "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "en" / "index.html").is_file()


def _fail_with(error: BaseException):
    def render(args):
        raise error
    return render


def test_an_unexpected_failure_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_render", _fail_with(PermissionError(13, "Permission denied", "/srv/site/data")))
    assert cli.main(["check"]) == 2
    err = capsys.readouterr().err
    assert err == "build.py: check failed: permission denied: /srv/site/data (--debug shows where)\n"


def test_with_debug_an_unexpected_failure_shows_its_traceback(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_render", _fail_with(RuntimeError("the disk\nwent away")))
    assert cli.main(["check", "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: the disk" in err


def test_a_multi_line_failure_is_still_one_line(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_render", _fail_with(RuntimeError("the disk\nwent away")))
    assert cli.main(["check"]) == 2
    assert capsys.readouterr().err == "build.py: check failed: RuntimeError: the disk went away (--debug shows where)\n"


def test_ctrl_c_exits_130_quietly(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_render", _fail_with(KeyboardInterrupt()))
    assert cli.main(["check", "--debug"]) == 130
    assert capsys.readouterr() == ("", "")


# -- the diff base ---------------------------------------------------------------------


GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Editor", "GIT_AUTHOR_EMAIL": "editor@example.invalid",
           "GIT_COMMITTER_NAME": "Editor", "GIT_COMMITTER_EMAIL": "editor@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@needs_git
@pytest.mark.parametrize("target", ["../../../etc/passwd", "/etc/passwd"])
def test_a_diff_base_with_a_link_out_of_the_site_is_one_line(tmp_path, target):
    site = assemble_seed_site(tmp_path, "000")
    (site / "templates" / "shared.html").symlink_to(target)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "with a link"]):
        subprocess.run(["git", *args], cwd=site, env=GIT_ENV, check=True, capture_output=True, timeout=60)
    (site / "templates" / "shared.html").unlink()
    run = run_cli("diff", "HEAD", "--site", str(site))
    assert run.returncode == 2
    assert run.stderr.strip() == (f"diff: at HEAD, templates/shared.html is a link to {target!r}, outside the "
                                  "site's folders; diff does not follow such links")
    assert run.stdout == ""


# -- workers die with their build --------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended; only its exit status waits for a reaper


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture(scope="module")
def slow_site(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A large generated site, built once into its site/; and the fingerprint of that site/."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from synthetic import write_synthetic_site
    finally:
        sys.path.remove(str(ROOT / "bench"))
    site = tmp_path_factory.mktemp("slow")
    write_synthetic_site(site, **SLOW_SITE)
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    return site, hashes(site / "site")


def _slow_build(slow_site) -> tuple[Path, dict[str, str], subprocess.Popen, list[int]]:
    """A forced build (two workers) of the large site, caught while its workers render."""
    site, before = slow_site
    build = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "build", "--site", str(site),
                              "--out", str(site / "site"), "--jobs", "2", "--force"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=as_from_a_terminal)
    assert _wait_for(lambda: _children(build.pid), 60), "the build forked no worker"
    return site, before, build, _children(build.pid)


def _stop(build: subprocess.Popen, workers: list[int]) -> None:
    for pid in workers:  # only if the test failed: leave no worker of ours behind
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    if build.poll() is None:
        build.kill()
    build.communicate(timeout=30)


@on_linux
def test_a_killed_build_leaves_no_worker_running(slow_site):
    site, before, build, workers = _slow_build(slow_site)
    try:
        build.kill()  # SIGKILL: the build gets no chance to stop its workers itself
        build.wait(timeout=30)
        assert _wait_for(lambda: not any(_alive(pid) for pid in workers), 5), \
            f"workers {[pid for pid in workers if _alive(pid)]} outlived the build"
    finally:
        _stop(build, workers)
    assert hashes(site / "site") == before


@on_linux
def test_ctrl_c_stops_a_build_and_its_workers_quietly(slow_site):
    site, before, build, workers = _slow_build(slow_site)
    try:
        build.send_signal(signal.SIGINT)
        _, err = build.communicate(timeout=30)
        assert build.returncode == 130
        assert err == ""
        assert _wait_for(lambda: not any(_alive(pid) for pid in workers), 5)
    finally:
        _stop(build, workers)
    assert hashes(site / "site") == before


def _fail_on_three(number: int) -> int:
    if number == 3:
        raise ValueError("three is not allowed")
    return number


@pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform cannot fork")
def test_a_worker_failure_is_one_line_and_keeps_its_traceback_for_debug():
    with pytest.raises(WorkerFailed) as failure:
        map_in_fresh_workers(_fail_on_three, [1, 3], 2)
    assert str(failure.value) == "a build worker failed: ValueError: three is not allowed"
    assert failure.value.worker_traceback.startswith("Traceback (most recent call last)")
    assert "_fail_on_three" in failure.value.worker_traceback


# -- the preview server -----------------------------------------------------------------


@pytest.fixture
def preview(tmp_path):
    site = assemble_seed_site(tmp_path, "000")
    log: list[str] = []
    server, preview_site = start_server(site, port=0, log=log.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}", preview_site, server
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.status, response.read()


def _burst(url: str, count: int = 200) -> tuple[list[tuple[int, bytes]], float]:
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=count) as pool:
        answers = list(pool.map(lambda _: _get(url), range(count)))
    return answers, time.monotonic() - started


def test_the_preview_answers_200_concurrent_requests_quickly(preview):
    _, base, site, server = preview
    assert _get(base + "/en/index.html")[0] == 200  # the first build, before the burst
    assert server.request_queue_size == LISTEN_BACKLOG >= 128
    answers, seconds = _burst(base + "/en/index.html")
    assert [status for status, _ in answers] == [200] * 200
    assert len({body for _, body in answers}) == 1
    assert seconds < 10, f"200 requests took {seconds:.1f} s"
    assert site.builds == 1


def test_a_change_is_built_once_however_many_requests_arrive(preview):
    folder, base, site, _ = preview
    assert _get(base + "/en/pricing.html")[0] == 200
    pricing = folder / "content" / "en" / "pricing.md"
    text = pricing.read_text(encoding="utf-8")
    assert text.count("Prices are per card") == 1
    pricing.write_text(text.replace("Prices are per card", "Every price is per card"), encoding="utf-8")
    answers, _ = _burst(base + "/en/pricing.html", 50)
    assert all(status == 200 and b"Every price is per card" in body and b"Prices are per card" not in body
               for status, body in answers)
    assert site.builds == 2, "the change was rebuilt more than once"


def test_a_crashing_preview_build_logs_one_line_unless_debugging(tmp_path):
    def crash(root, first, early):
        raise OSError(28, "No space left on device")

    for debug in (False, True):
        log: list[str] = []
        site = PreviewSite(assemble_seed_site(tmp_path / str(debug), "000"), render=crash, log=log.append, debug=debug)
        files, problems = site.current()
        assert files == {} and [str(p) for p in problems] == [
            "(build): the build crashed: OSError: [Errno 28] No space left on device"]
        assert any("Traceback" in line for line in log) == debug


# -- downloads in plain digits ----------------------------------------------------------


@pytest.mark.parametrize("value, text", [
    ("1.2E+2", "120"), ("1E-7", "0.0000001"), ("0E-2", "0"), ("-0", "0"), ("-0.000", "0"),
    ("240.00", "240"), ("8.28125", "8.28125"), ("-1.50", "-1.5"), ("1E+30", "1" + "0" * 30),
    ("3.33333333333333333333333333333333", "3.33333333333333333333333333333333"),  # more digits than the context
])
def test_a_decimal_is_written_in_plain_digits(value, text):
    assert exact(Decimal(value)) == text


NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
PLAIN_DIGITS = re.compile(r"-?\d+(\.\d+)?")


def _numbers(value):
    """Every string in a JSON value (or a CSV row) that reads as a number, in any notation."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, str) and NUMBER.fullmatch(value):
        yield value


@pytest.mark.parametrize("site", ["default", "quick"])
def test_no_download_of_either_site_uses_exponent_notation(site):
    _build, files = live_build(site)
    downloads = {path: content for path, content in files.items() if re.fullmatch(r"data/[^/]+/[^/]+\.(json|csv)", path)}
    assert any(path.endswith(".json") for path in downloads) and any(path.endswith(".csv") for path in downloads)
    numbers = []
    for path, content in downloads.items():
        text = content.decode("utf-8")
        rows = json.loads(text) if path.endswith(".json") else list(csv.reader(io.StringIO(text)))
        numbers += [(path, value) for value in _numbers(rows)]
    assert numbers, "no figures found in the downloads"
    written = [(path, value) for path, value in numbers if not PLAIN_DIGITS.fullmatch(value)]
    assert written == [], f"not plain digits: {written[:5]}"
