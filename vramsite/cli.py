"""The command line: build (default), check, serve, diff."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import InputError

REPO_ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(_default_command(sys.argv[1:] if argv is None else argv))
    try:
        return args.run(args)
    except InputError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        count = len(error.problems)
        print(f"{count} problem{'s' if count != 1 else ''}; nothing was written.", file=sys.stderr)
        return 1


def _default_command(argv: list[str]) -> list[str]:
    """`build.py` alone, or with only options, means `build.py build`."""
    commands = {"build", "check", "serve", "diff"}
    if not argv or (argv[0] not in commands and argv[0] not in ("-h", "--help")):
        return ["build", *argv]
    return argv


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build.py", description="Build the GPU-sizing guide site from data/.")
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="build the site into its output folder (the default)")
    _site_option(build)
    build.add_argument("--out", type=Path, help="output folder (default: SITE/site)")
    build.set_defaults(run=_build)

    check = commands.add_parser("check", help="validate data, content, templates and translations; write nothing")
    _site_option(check)
    check.set_defaults(run=_check)
    return parser


def _site_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", type=Path, default=REPO_ROOT,
                        help="the site's folder, holding data/, content/, templates/, locales/ (default: this repository)")


def _build(args) -> int:
    from .publish.site import SiteBuild
    from .publish.writer import write_site

    out = args.out or args.site / "site"
    files = SiteBuild(args.site).render()
    report = write_site(files, out)
    print(f"built {len(files)} files into {out}: {len(report.written)} written, "
          f"{len(report.removed)} removed, {report.unchanged} unchanged")
    return 0


def _check(args) -> int:
    from .load import load_site

    load_site(args.site)
    print("no problems found")
    return 0
