"""build.py's commands as an editor runs them: help, build (atomic, deterministic, idempotent), check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from seed_sites import assemble_seed_site
from vramsite.errors import InputError
from vramsite.publish import writer
from vramsite.publish.writer import SiteFiles, write_site

ROOT = Path(__file__).resolve().parent.parent


def build_py(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env=env)


def copy_sources(to: Path) -> Path:
    """The seed 000 site (frozen data, whose lines the edits below name)."""
    return assemble_seed_site(to, "000")


def stats(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder``: inode, modification time (ns) and bytes."""
    return {path.relative_to(folder).as_posix(): (path.stat().st_ino, path.stat().st_mtime_ns, path.read_bytes())
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("command, words", [
    ("build", "--out"), ("check", "write nothing"), ("serve", "--port"), ("diff", "REV"),
])
def test_every_command_has_help(command, words):
    run = build_py(command, "--help")
    assert run.returncode == 0 and words in run.stdout and "--site" in run.stdout, run.stdout + run.stderr


def test_top_level_help_lists_the_commands():
    run = build_py("--help")
    assert run.returncode == 0
    for command in ("build", "check", "serve", "diff"):
        assert command in run.stdout


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    return copy_sources(tmp_path_factory.mktemp("sources"))


def test_two_builds_of_the_same_input_are_byte_identical(sources, tmp_path):
    """Different hash seeds, different output folders: the same bytes (no set order, no clock, no path leaks)."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out-{seed}"
        run = build_py("build", "--site", str(sources), "--out", str(out),
                       env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.returncode == 0, run.stderr
        outputs.append({path: data for path, (_, _, data) in stats(out).items()})
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 80


def test_a_no_op_rebuild_writes_nothing(sources, tmp_path):
    out = tmp_path / "site"
    assert build_py("build", "--site", str(sources), "--out", str(out)).returncode == 0
    before, folder = stats(out), out.stat().st_ino
    run = build_py("build", "--site", str(sources), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "no input changed since the last build" in run.stdout and ": 0 written, 0 removed" in run.stdout
    # Rendered in full again (no shortcut), the site still writes nothing.
    forced = build_py("build", "--force", "--site", str(sources), "--out", str(out))
    assert forced.returncode == 0, forced.stderr
    assert ": 0 written, 0 removed," in forced.stdout
    assert out.stat().st_ino == folder, "the output folder was replaced"
    assert stats(out) == before, "a file was rewritten (inode or mtime changed)"


def test_the_stamp_knows_the_version_of_every_library_the_build_uses():
    from importlib import metadata

    from vramsite.publish.stamp import LIBRARIES, library_versions

    found = library_versions()
    for library in LIBRARIES:
        name = library.replace("-", "_").lower()
        version = metadata.version(library)
        assert sum(1 for entry in found if entry.lower().startswith(f"{name}-{version}.")) == 1, (library, found)


def test_the_shortcut_is_not_taken_when_an_output_file_was_touched(sources, tmp_path):
    out = tmp_path / "site"
    assert build_py("build", "--site", str(sources), "--out", str(out)).returncode == 0
    page = out / "en" / "vram.html"
    page.write_text("edited by hand", encoding="utf-8")
    run = build_py("build", "--site", str(sources), "--out", str(out))
    assert run.returncode == 0 and ": 1 written," in run.stdout
    assert page.read_text(encoding="utf-8") != "edited by hand"


def test_a_price_edit_rewrites_only_the_files_it_changes(tmp_path):
    site = copy_sources(tmp_path / "src")
    out = tmp_path / "site"
    assert build_py("build", "--site", str(site), "--out", str(out)).returncode == 0
    before = stats(out)
    prices = site / "data" / "prices.yaml"
    prices.write_text(prices.read_text().replace("{gpu: a40, usd: 240}", "{gpu: a40, usd: 250}"))
    assert build_py("build", "--site", str(site), "--out", str(out)).returncode == 0
    after = stats(out)
    changed = {path for path in after if path not in before or after[path][2] != before[path][2]}
    assert "en/gpus/a40.html" in changed and "en/pricing.html" in changed
    assert "en/gpus/h200-sxm.html" not in changed
    for path in set(after) - changed:  # unchanged files are the same inode: hard-linked, not rewritten
        assert after[path][:2] == before[path][:2], path
    assert [path.name for path in writer.versions_folder(out).iterdir()] == [os.path.basename(os.readlink(out))], \
        "the earlier version is tidied away; only the one the link names is left"


def test_a_failed_write_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "site"
    write_site({"index.html": b"old", "en/a.html": b"a"}, out)
    before, versions = stats(out), sorted(writer.versions_folder(out).iterdir())
    calls = []

    def failing_open(path, mode="r", *args, **kwargs):
        if "w" in mode:  # the disk fills up as the first changed file is written
            calls.append(path)
            raise OSError(28, "No space left on device")
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(writer, "open", failing_open, raising=False)  # the writer's own name for open
    with pytest.raises(OSError):
        write_site({"index.html": b"new", "en/a.html": b"a", "en/b.html": b"b"}, out)
    monkeypatch.undo()
    assert calls, "the write was attempted"
    assert stats(out) == before
    assert sorted(writer.versions_folder(out).iterdir()) == versions, "the half-filled version is removed"


def test_site_files_refuse_two_writers_and_escaping_paths():
    files = SiteFiles()
    files.add("en/vram.html", b"x", "content/pages.yaml (vram)")
    with pytest.raises(InputError, match="two pages write 'en/vram.html'"):
        files.add("en/./vram.html", b"y", "content/pages.yaml (vram)")
    for path in ("../outside.html", "/etc/passwd", "en/../../x.html", "en\\..\\x.html"):
        with pytest.raises(InputError, match="escapes the site folder"):
            files.add(path, b"z", "content/pages.yaml")


def test_check_writes_nothing_and_passes_on_the_site(sources):
    run = build_py("check", "--site", str(sources))
    assert run.returncode == 0, run.stderr
    assert "no problems found" in run.stdout
    assert not (sources / "site").exists()


@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_whole_number(jobs):
    run = build_py("check", "--jobs", jobs)
    assert run.returncode == 2
    assert f"argument --jobs/-j: expected a whole number of at least 1, got '{jobs}'" in run.stderr


def test_check_lists_every_problem_at_once(tmp_path):
    site = copy_sources(tmp_path)
    gpus = site / "data" / "gpus.yaml"
    gpus.write_text(gpus.read_text().replace("    memory_gb: 192\n", "    memory_gb: -1\n"))
    prices = site / "data" / "prices.yaml"
    prices.write_text(prices.read_text().replace("{gpu: l4, usd: 250}", "{gpu: l4, usd: .nan}"))
    page = site / "templates" / "page.html"
    page.write_text(page.read_text().replace("<h1>{{ page.title }}</h1>", "<h1>{{ page.title }</h1>"))
    content = site / "content" / "en" / "pricing.md"
    content.write_text(content.read_text().replace('{{ table("cost") }}', '{{ table("cost") }'))
    run = build_py("check", "--site", str(site))
    assert run.returncode == 1
    for expected in ("data/gpus.yaml:", "gpus[mi300x].memory_gb: must be at least 1 GB",
                     "data/prices.yaml:", "prices[l4].usd: '.nan' is not a finite number",
                     "templates/page.html:4: template syntax error", "content/en/pricing.md:"):
        assert expected in run.stderr, f"{expected!r} missing from:\n{run.stderr}"
    assert run.stderr.strip().splitlines()[-1] == "4 problems; nothing was written."
    assert not (site / "site").exists()


def test_build_exits_at_once_yet_a_profiler_still_gets_its_results(tmp_path):
    """build.py ends without the interpreter's teardown (cli.exit_now): its output and status still arrive,
    a handler left for the teardown does not run; under a profiler it exits normally, which writes the
    profile."""
    site = copy_sources(tmp_path / "site")
    script = tmp_path / "with_handler.py"
    script.write_text("import atexit, runpy, sys\n"
                      "atexit.register(lambda: print('teardown ran'))\n"
                      f"sys.argv = [{str(ROOT / 'build.py')!r}, *sys.argv[1:]]\n"
                      "runpy.run_path(sys.argv[0], run_name='__main__')\n", encoding="utf-8")
    quick = subprocess.run([sys.executable, str(script), "build", "--site", str(site), "--out", str(tmp_path / "a")],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert quick.returncode == 0 and "built " in quick.stdout, quick.stdout + quick.stderr
    assert "teardown ran" not in quick.stdout
    refused = build_py("build", "--site", str(site), "--out", str(site / "data"))
    assert refused.returncode == 1 and "nothing was written" in refused.stderr

    profile = tmp_path / "build.prof"
    profiled = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), str(ROOT / "build.py"), "check",
                               "--site", str(site)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert profiled.returncode == 0 and "no problems found" in profiled.stdout, profiled.stdout + profiled.stderr
    assert profile.stat().st_size > 0


def test_build_and_check_run_without_the_cycle_collector_and_the_preview_with_it(tmp_path):
    """cli.run turns the cycle collector off for the commands that keep their objects to the end (build,
    check), before their libraries load; the long-lived preview keeps it on."""
    script = ("import gc, sys\n"
              "import vramsite.cli as cli\n"
              "cli.main = lambda: print(gc.isenabled()) or 0\n"
              "sys.argv = ['build.py', *sys.argv[1:]]\n"
              "cli.run()\n")
    seen = {}
    for argv in (["build"], [], ["--debug", "check"], ["serve"], ["diff", "HEAD"], ["--help"]):
        run = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=ROOT,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        seen[" ".join(argv)] = run.stdout.strip()
    assert seen == {"build": "False", "": "False", "--debug check": "False", "serve": "True", "diff HEAD": "True",
                    "--help": "True"}
