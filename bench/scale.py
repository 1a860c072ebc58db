#!/usr/bin/env python3
"""The build at catalogue scale: the default site with its catalogue grown to 100, 500 and 2,000 models.

    python bench/scale.py                    # 100, 500 and 2,000 models (about ten minutes on 2 cores)
    python bench/scale.py --sizes 40         # one small size (the smoke test)
    python bench/scale.py --json out.json
    python bench/scale.py --weekly-history 52  # with a year of weekly price lists

The grown catalogue is made of the site's real entries (their architectures, parameter counts and sources),
each copy under a new id and name, so every model page, table and engine verdict is of a real shape. For each
size, on a copy of the site in a temporary folder: a cold build (no output, no ``.cache/``), then a one-price
edit rebuilt (the first card's price raised; ``.cache/`` warm, after one edit untimed), each in a fresh process
with every core; the largest process's peak memory of either; the files and bytes the output holds.
Each figure is printed beside its target.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run import Run, Trash, before, build, cold, price_editor, use_bytecode  # noqa: E402

SIZES = (100, 500, 2000)
TARGETS = {"cold build s": 60, "price edit s": 20, "peak MiB": 1536, "files": 20_000, "MB": 500}
"""At 2,000 models, 15 cards and two languages on a 2-core machine."""
SITE_FOLDERS = ("data", "content", "templates", "locales")
ENTRY = re.compile(r"(?m)^(?=  - id: )")


def grown_catalogue(text: str, count: int) -> str:
    """``text`` (data/catalogue.yaml) with ``count`` models: its own entries, then copies of them in turn, each
    with its id and name suffixed ``-copy<n>`` / `` copy <n>``."""
    head, body = text.split("\nmodels:\n", 1)
    entries = [entry if entry.endswith("\n") else entry + "\n" for entry in ENTRY.split(body) if entry.strip()]
    out, round_ = list(entries[:count]), 1
    while len(out) < count:
        for entry in entries[:count - len(out)]:
            entry = re.sub(r"(?m)^(  - id: )(\S+)", rf"\g<1>\g<2>-copy{round_}", entry, count=1)
            out.append(re.sub(r"(?m)^(    name: )(.+)$", rf"\g<1>\g<2> copy {round_}", entry, count=1))
        round_ += 1
    return head + "\nmodels:\n" + "".join(out)


def grown_site(folder: Path, count: int, weeks: int = 0) -> Path:
    for name in SITE_FOLDERS:
        shutil.copytree(ROOT / name, folder / name)
    catalogue = folder / "data" / "catalogue.yaml"
    catalogue.write_text(grown_catalogue(catalogue.read_text(encoding="utf-8"), count), encoding="utf-8")
    if weeks:
        history = weekly_history((folder / "data" / "prices.yaml").read_text(encoding="utf-8"), weeks)
        (folder / "data" / "price_history.yaml").write_text(history, encoding="utf-8")
    return folder


def weekly_history(prices_text: str, weeks: int) -> str:
    """data/price_history.yaml with a list a week for ``weeks`` weeks before prices.yaml's date: each card's
    price moved by -2 % to +2 % in a pattern of its own, so that picks change from week to week."""
    document = yaml.safe_load(prices_text)
    updated = date.fromisoformat(str(document["updated"])[:10])
    lines = ["snapshots:"]
    for week in range(weeks, 0, -1):
        lines.append(f"  - at: {updated - timedelta(weeks=week)}")
        lines.append("    prices:")
        for index, entry in enumerate(document["prices"]):
            usd = entry["usd"]
            if usd is not None:
                usd = round(Decimal(str(usd)) * (1 + Decimal((week * 3 + index) % 5 - 2) / 100), 2)
            lines.append(f"      - {{gpu: {entry['gpu']}, usd: {'null' if usd is None else usd}}}")
    return "\n".join(lines) + "\n"


def output_size(out: Path) -> tuple[int, int]:
    files = [path for path in out.resolve().rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def peak_mib(*runs: Run) -> float:
    return max(max(run.peak_kib, run.worker_peak_kib) for run in runs) / 1024


def measure(scratch: Path, count: int, trash: Trash, weeks: int = 0) -> dict:
    site = grown_site(scratch / f"models-{count}", count, weeks)
    out = site / "site"
    cold_run = before(cold(site, out, trash), build(site, out))()
    files, size = output_size(out)
    edit = before(price_editor(site / "data" / "prices.yaml"), build(site, out))
    edit()  # the rebuild after a cold build is the first to keep the digests a later one compares
    edited = edit()
    return {"models": count, "cold build s": round(cold_run.seconds, 1), "price edit s": round(edited.seconds, 1),
            "peak MiB": round(peak_mib(cold_run, edited)), "files": files, "MB": round(size / 1e6, 1)}


def report(rows: list[dict]) -> None:
    columns = ["models", *TARGETS]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(f"{row[name]:,}" for name in columns) + " |")
    print("| target at 2,000 | " + " | ".join(f"≤ {value:,}" for value in TARGETS.values()) + " |")
    largest = max(rows, key=lambda row: row["models"])
    if largest["models"] == SIZES[-1]:
        unmet = [name for name, target in TARGETS.items() if largest[name] > target]
        print("targets at 2,000 models: " + ("all met" if not unmet else "NOT met: " + ", ".join(unmet)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), metavar="MODELS")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--weekly-history", type=int, default=0, metavar="WEEKS",
                        help="give the site a price list a week for WEEKS weeks (52: a year)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vramsite-scale-") as scratch:
        scratch = Path(scratch)
        use_bytecode(scratch)
        trash = Trash(scratch / "trash")
        rows = [measure(scratch, count, trash, args.weekly_history) for count in args.sizes]
    report(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
