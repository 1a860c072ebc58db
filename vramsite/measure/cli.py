"""`build.py measure`: its arguments, and the summary it prints of what it wrote."""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError, Problem


def add_measure_command(commands, site_option: Callable, debug_option: Callable) -> argparse.ArgumentParser:
    measure = commands.add_parser(
        "measure", help="measure what a device holds for the guide's shapes and write a measurement file",
        description="Build models of the reference shapes (a tiny shape on a CPU) with random weights and measure "
                    "the CUDA context, weights, KV cache, prefill peak, LoRA and full fine-tuning peaks and the "
                    "bandwidth of streaming weights; write them as a file of data/measurements/ and print each "
                    "figure against the site's formula. Needs `pip install -e '.[measure]'`. "
                    "Editing guide: docs/editing.md, \"Add a measurement\".")
    site_option(measure)
    measure.add_argument("--device", default="cuda", help="cuda (the default), cuda:N or cpu")
    measure.add_argument("--gpu", required=True, metavar="ID",
                         help="the card it runs on: an id of the site's data/gpus.yaml")
    measure.add_argument("--out", type=Path, metavar="FILE",
                         help="where to write: a new file, outside the sources but data/measurements/ (default "
                              "on a GPU: SITE/data/measurements/<gpu>-<date>.yaml, -2, -3 ... for another run that "
                              "day; a CPU run measures no card, so give it a path outside data/measurements/)")
    measure.set_defaults(run=run_measure)
    return measure


EXTRA = ("torch", "transformers", "peft", "psutil")
"""What `build.py measure` imports beyond the site build (pyproject.toml's measure extra)."""


def missing_extra(find_spec: Callable = importlib.util.find_spec) -> list[str]:
    return [name for name in EXTRA if find_spec(name) is None]


def run_measure(args) -> int:
    from ..calc.measured import measured_run
    from ..load import load_site
    from ..load.assemble import load_measurement

    data = load_site(args.site)  # the card and the shapes' models must be the site's before an hour is spent
    if args.gpu not in {gpu.id for gpu in data.gpus}:
        raise InputError([Problem("--gpu", None, "", f"unknown card {args.gpu!r} (data/gpus.yaml has "
                                                     f"{', '.join(gpu.id for gpu in data.gpus)})")])
    on_cpu = args.device == "cpu"
    if on_cpu and args.out is None:
        raise InputError([Problem("--out", None, "", "a CPU run measures no card: give --out, a path outside "
                                                     "data/measurements/")])
    from .output import check_folder, check_out, measurements_folder

    out = Path(os.path.abspath(args.out)) if args.out is not None else None
    if out is not None:  # before an hour is spent
        check_out(out, args.site)
    else:
        check_folder(measurements_folder(args.site), args.site)
    missing = missing_extra()
    if missing:
        raise InputError([Problem("build.py measure", None, "", f"needs the measure extra ({', '.join(missing)} "
                                                                "not installed): pip install -e '.[measure]'")])
    from .command import measure, write_measurement

    content = measure(args.device, args.gpu)
    out = write_measurement(content, out or measurements_folder(args.site) / f"{args.gpu}-{content['date']}.yaml")
    run = measured_run(load_measurement(out, data), data)
    print(f"wrote {out}: {content['provenance']}")
    for item in run.comparisons:
        where = item.shape.id if item.shape else ""
        what = f"{item.key} {where} {item.method.id if item.method else ''}".strip()
        print(f"  {what}: formula {item.formula.value:.6g} {item.formula.unit}, measured "
              f"{item.measured.value:.6g} {item.measured.unit}, {item.percent.value:+.2f}%")
    return 0
