"""The command line: build (default), check, serve, diff."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import InputError

REPO_ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("build", "check", "serve", "diff")


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
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        return ["build", *argv]
    return argv


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="build.py", description="Build the GPU-sizing guide site from data/, content/, templates/ and locales/.",
        epilog="Without a command, build.py builds. Editing guide: docs/editing.md.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{build,check,serve,diff}")

    build = commands.add_parser(
        "build", help="build the site into its output folder (the default)",
        description="Render every page in every language, in memory; then write the files that changed into the "
                    "output folder, swapped in all at once. On any problem nothing is written and the previous "
                    "site stays as it was.")
    _site_option(build)
    build.add_argument("--out", type=Path, help="output folder (default: SITE/site)")
    build.add_argument("--force", action="store_true",
                       help="render everything even when no input changed since the last build into OUT")
    _jobs_option(build)
    build.set_defaults(run=_build)

    check = commands.add_parser(
        "check", help="validate data, content, templates and translations; write nothing",
        description="Render the whole site in memory and list every problem found (file:line: field: message); "
                    "write nothing. Exits 1 if there is any problem.")
    _site_option(check)
    _jobs_option(check)
    check.set_defaults(run=_check)

    serve = commands.add_parser(
        "serve", help="preview the site on localhost, rebuilding when a source file changes",
        description="Serve the site from memory at http://HOST:PORT/. Every request first looks for changed files "
                    "under data/, content/, templates/ and locales/ and rebuilds if there are any; while the build "
                    "fails, every page shows the list of problems instead. Writes nothing. Stop with Ctrl-C.")
    _site_option(serve)
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    serve.set_defaults(run=_serve)

    diff = commands.add_parser(
        "diff", help="list every figure and sentence that changed since a git revision, as Markdown",
        description="Build the site's data/, content/, templates/ and locales/ as they were at git revision REV "
                    "and as they are now (both with this code), and print, as Markdown for a pull-request comment, "
                    "every table cell (page, table, row, column) and every sentence of the Markdown twins that "
                    "differs. Prints 'No figure changed.' when nothing did.")
    diff.add_argument("rev", metavar="REV", help="git revision to compare with: main, origin/main, HEAD~1, a sha")
    _site_option(diff)
    diff.set_defaults(run=_diff)
    return parser


def _site_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", type=Path, default=REPO_ROOT,
                        help="the site's folder, holding data/, content/, templates/, locales/ (default: this repository)")


def _jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", "-j", type=_positive, metavar="N",
                        help="render up to N languages at once, each in its own process (default: one per core; "
                             "1 renders everything in this process)")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _render(args) -> dict[str, bytes]:
    """The site in memory, the languages shared out among the cores."""
    import gc

    from .publish.parallel import usable_cores
    from .publish.site import render_site

    # A build is short and keeps nearly every object it makes until it ends:
    # the cycle collector would only walk the growing heap again and again.
    gc.disable()
    try:
        return render_site(args.site, args.jobs or usable_cores())
    finally:
        gc.enable()


def _build(args) -> int:
    from .publish import stamp

    out = args.out or args.site / "site"
    digest = stamp.input_digest(args.site)
    if not args.force and stamp.is_current(args.site, out, digest):
        print(f"no input changed since the last build into {out}: 0 written, 0 removed")
        return 0
    stamp.forget(args.site)

    from .publish.writer import write_site

    files = _render(args)
    report = write_site(files, out)
    stamp.record(args.site, out, digest, files)
    print(f"built {len(files)} files into {out}: {len(report.written)} written, "
          f"{len(report.removed)} removed, {report.unchanged} unchanged")
    return 0


def _check(args) -> int:
    files = _render(args)
    print(f"no problems found ({len(files)} files rendered in memory, nothing written)")
    return 0


def _serve(args) -> int:
    from .publish.serve import serve

    serve(args.site, host=args.host, port=args.port)
    return 0


def _diff(args) -> int:
    from .publish.diff import DiffError, diff_report

    try:
        print(diff_report(args.site, args.rev), end="")
    except DiffError as error:
        print(f"diff: {error}", file=sys.stderr)
        return 2
    return 0
