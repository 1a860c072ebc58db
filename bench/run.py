#!/usr/bin/env python3
"""Benchmark the build against the cost of starting Python with its libraries.

    python bench/run.py             # the full benchmark (a minute or two)
    python bench/run.py --quick     # one run each, a smoke test (CI runs this)

Prints, each the median of several runs in fresh interpreters, with peak memory:
the import floor, a cold build of the default site (no output, no compiled
templates) and its ratio to the floor, a no-op rebuild and the files it
wrote, a rebuild after one price edit, and a synthetic site of 100 cards ×
200 model sizes (and × 400, for the scaling ratio). Every build runs on a
copy in a temporary folder. Public tools only: the standard library and the
project itself.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from synthetic import write_synthetic_site  # noqa: E402

FLOOR = "import jinja2, markdown_it, yaml, babel, babel.numbers, babel.dates"

# Runs a command in this interpreter and reports the peak memory (KiB) of itself and of the largest
# child it waited for (a build's forked workers) on the last line of stderr.
PROBE = """
import resource, runpy, sys
code = sys.argv[1]
sys.argv = sys.argv[2:]
try:
    if code == "-":
        runpy.run_path(sys.argv[0], run_name="__main__")
    else:
        exec(code)
except SystemExit as stop:
    if stop.code:
        raise
finally:
    sys.stderr.write("\\nPEAK_KIB %d %d\\n" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                             resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
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
    ENV.setdefault("PYTHONHASHSEED", "0")
    run("import vramsite.cli, vramsite.publish.site, vramsite.publish.writer, vramsite.publish.stamp")


def run(code: str, *argv: str) -> tuple[float, int, int, str]:
    """Seconds, peak KiB (this interpreter, its largest child) and stdout of one fresh interpreter."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, code, *argv], capture_output=True, text=True, cwd=ROOT,
                          env=ENV)
    elapsed = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"failed: {argv or code}\n{done.stderr}")
    own, child = (int(part) for part in done.stderr.rsplit("PEAK_KIB", 1)[1].split())
    return elapsed, own, child, done.stdout


def measure(repeat: int, code: str, *argv: str, before=None) -> dict:
    times, peaks, worker_peaks = [], [], []
    for _ in range(repeat):
        if before:
            before()
        elapsed, peak, worker_peak, _ = run(code, *argv)
        times.append(elapsed)
        peaks.append(peak)
        worker_peaks.append(worker_peak)
    result = {"seconds": statistics.median(times), "peak_mib": max(peaks) / 1024, "runs": repeat}
    if max(worker_peaks):
        result["worker_peak_mib"] = max(worker_peaks) / 1024
    return result


def build(site: Path, out: Path, *options: str) -> tuple[str, ...]:
    return ("-", str(ROOT / "build.py"), "build", "--site", str(site), "--out", str(out), *options)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run of each, small synthetic sizes (smoke test)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (median reported)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    sizes = (10, 20) if args.quick else (200, 400)
    cards = 10 if args.quick else 100
    results: dict[str, dict] = {}

    with tempfile.TemporaryDirectory(prefix="vramsite-bench-") as scratch:
        scratch = Path(scratch)
        use_bytecode(scratch)
        site = scratch / "default"
        for name in ("data", "content", "templates", "locales"):
            shutil.copytree(ROOT / name, site / name)
        out = site / "site"

        def cold(folder: Path, target: Path):
            def reset():
                if target.is_symlink():  # a built site is a link to its version in OUT.versions
                    target.unlink()
                shutil.rmtree(target, ignore_errors=True)
                shutil.rmtree(target.with_name(target.name + ".versions"), ignore_errors=True)
                shutil.rmtree(folder / ".cache", ignore_errors=True)  # no compiled templates, no stamp
            return reset

        results["import floor"] = measure(repeat, FLOOR)
        results["cold build"] = measure(repeat, *build(site, out), before=cold(site, out))
        results["cold build"]["ratio to floor"] = results["cold build"]["seconds"] / results["import floor"]["seconds"]
        one = results["cold build, one process"] = measure(repeat, *build(site, out, "--jobs", "1"),
                                                           before=cold(site, out))
        one["ratio to floor"] = one["seconds"] / results["import floor"]["seconds"]

        before = snapshot(out)
        results["no-op rebuild"] = measure(repeat, *build(site, out))
        after = snapshot(out)
        results["no-op rebuild"]["files written"] = sum(1 for path, stamp in after.items() if before.get(path) != stamp)
        results["no-op rebuild"]["files removed"] = len(set(before) - set(after))

        prices = site / "data" / "prices.yaml"
        original = prices.read_text(encoding="utf-8")
        edits = iter(range(10**6))

        def edit_price():
            # the first card's price, whatever it is, raised by a new amount each time
            prices.write_text(re.sub(r"usd: (\d+)\}", lambda found: f"usd: {int(found[1]) + 1 + next(edits)}}}",
                                     original, count=1),
                              encoding="utf-8")

        before = snapshot(out)
        results["rebuild after a price edit"] = measure(repeat, *build(site, out), before=edit_price)
        after = snapshot(out)
        results["rebuild after a price edit"]["files written"] = sum(
            1 for path, stamp in after.items() if before.get(path) != stamp)

        for models in sizes:
            synthetic = scratch / f"synthetic-{models}"
            write_synthetic_site(synthetic, cards=cards, models=models)
            target = synthetic / "site"
            key = f"synthetic {cards} cards × {models} models"
            results[key] = measure(repeat, *build(synthetic, target), before=cold(synthetic, target))
            results[key]["files"] = sum(1 for p in target.rglob("*") if p.is_file())
        small, large = (results[f"synthetic {cards} cards × {n} models"]["seconds"] for n in sizes)
        results["scaling"] = {f"{sizes[1]} ÷ {sizes[0]} models": large / small}

    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def report(results: dict) -> None:
    width = max(len(name) for name in results)
    for name, figures in results.items():
        shown = []
        for key, value in figures.items():
            if key == "seconds":
                shown.append(f"{value:.3f} s")
            elif key == "peak_mib":
                shown.append(f"peak {value:.0f} MiB")
            elif key == "worker_peak_mib":
                shown.append(f"worker peak {value:.0f} MiB")
            elif key == "runs":
                shown.append(f"median of {value}")
            elif isinstance(value, float):
                shown.append(f"{key} {value:.2f}")
            else:
                shown.append(f"{key} {value}")
        print(f"{name:<{width}}  " + ", ".join(shown))


if __name__ == "__main__":
    sys.exit(main())
